# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Import set-up shared by every pytest suite (see docs/development.md, "Test harness").

* ``tests/`` goes on ``sys.path`` so the emulator is importable as ``emulator``.
* ``ansible_collections.gamepanel.panel`` becomes importable: straight from the
  checkout when it already sits under ``ansible_collections/gamepanel/panel``,
  otherwise through a link tree ``.tmp/collections/ansible_collections/gamepanel/panel``
  pointing at the checkout.
* The ``emulator`` fixture comes from the emulator's own pytest plugin.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

TESTS_DIR = Path(__file__).resolve().parent
REPO_ROOT = TESTS_DIR.parent


def _collections_root() -> Path:
    """Return a directory holding ``ansible_collections/gamepanel/panel`` for this checkout."""
    parts = REPO_ROOT.parts
    if len(parts) >= 4 and parts[-3:] == ("ansible_collections", "gamepanel", "panel"):
        return REPO_ROOT.parents[2]

    root = REPO_ROOT / ".tmp" / "collections"
    link = root / "ansible_collections" / "gamepanel" / "panel"
    link.parent.mkdir(parents=True, exist_ok=True)
    if not (link.is_symlink() and link.resolve() == REPO_ROOT):
        # Several pytest processes (xdist workers) may get here at once: build the
        # link under a private name and rename it into place atomically.
        temp = link.parent / f".panel-{os.getpid()}"
        if temp.is_symlink() or temp.exists():
            temp.unlink()
        temp.symlink_to(REPO_ROOT, target_is_directory=True)
        os.replace(temp, link)
    return root


COLLECTIONS_ROOT = _collections_root()

for _path in (str(COLLECTIONS_ROOT), str(TESTS_DIR)):
    if _path not in sys.path:
        sys.path.insert(0, _path)

pytest_plugins = ["emulator.pytest_plugin"]
