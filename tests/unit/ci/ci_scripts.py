# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The scripts of .ci/ as modules, for their unit tests (.ci/ is no package and does not ship)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]


def load(name):
    """The module of .ci/<name>.py."""
    spec = importlib.util.spec_from_file_location(name, REPO_ROOT / ".ci" / ("%s.py" % name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
