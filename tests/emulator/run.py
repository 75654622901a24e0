# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Start the panel emulator: ``python tests/emulator/run.py [--port 0] [--fixture FILE] [--fleet-size N] [--no-controls]``.

The first line on stdout is a JSON object with the base URLs; SIGTERM or Ctrl-C stops it (exit 0).
"""
from __future__ import annotations

import os
import sys

if __package__ in (None, ""):
    # Run as a script: make the package importable as ``emulator`` (tests/ on sys.path).
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from emulator.server import main  # noqa: E402  pylint: disable=wrong-import-position

if __name__ == "__main__":
    # The emulator never opens an outbound TLS connection, but aiohttp builds client SSL
    # contexts when it is imported (emulator.server imports it only once the fixture is
    # loaded), and loading the system CA bundle for them is a large share of the start-up
    # time. Pointing OpenSSL at no CA files makes those contexts cheap; only this process
    # is affected.
    os.environ["SSL_CERT_FILE"] = os.devnull
    os.environ["SSL_CERT_DIR"] = os.devnull
    sys.exit(main())
