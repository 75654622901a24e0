# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Start the panel emulator: ``python tests/emulator/run.py [--port 0] [--fixture FILE] [--fleet-size N] [--no-controls]``.

The first line on stdout is a JSON object with the base URLs; SIGTERM or Ctrl-C stops it (exit 0).
A script form of ``python -m emulator``: both run ``__main__.run``. It works from the
checkout (package ``emulator``) and from the installed wheel (package ``gamepanel_emulator``).
"""

from __future__ import annotations

import importlib
import os
import sys

if __name__ == "__main__":
    PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
    # Run as a script: make the package importable under its directory's name.
    sys.path.insert(0, os.path.dirname(PACKAGE_DIR))
    sys.exit(importlib.import_module(os.path.basename(PACKAGE_DIR) + ".__main__").run())
