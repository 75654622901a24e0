# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Import set-up shared by every pytest suite (see docs/development.md, "Test harness").

* ``tests/`` goes on ``sys.path`` so the emulator is importable as ``emulator``.
* ``ansible_collections.gamepanel.panel`` becomes importable, first on ``sys.path``, by the helper
  the event source uses too (plugins/plugin_utils/collection_import.py): straight from the
  checkout when it already sits under ``ansible_collections/gamepanel/panel``, otherwise
  through a link tree ``.tmp/collections/ansible_collections/gamepanel/panel`` pointing at it.
* The ``emulator`` fixture comes from the emulator's own pytest plugin.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

TESTS_DIR = Path(__file__).resolve().parent
REPO_ROOT = TESTS_DIR.parent


# The same helper as the event source's (plugins/plugin_utils/collection_import.py), loaded by its path.
_spec = importlib.util.spec_from_file_location(
    "gamepanel_panel_collection_import", REPO_ROOT / "plugins" / "plugin_utils" / "collection_import.py"
)
_collection_import = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_collection_import)

COLLECTIONS_ROOT = Path(_collection_import.make_importable(REPO_ROOT, link_root=REPO_ROOT / ".tmp" / "collections"))

if str(TESTS_DIR) not in sys.path:
    sys.path.insert(0, str(TESTS_DIR))

pytest_plugins = ["emulator.pytest_plugin"]
