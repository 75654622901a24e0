# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""PRIVATE: the one answer to "where is ``ansible_collections.gamepanel.panel`` imported from?".

Ansible imports the collection's plugins itself. Two kinds of code start outside it and need the
collection on ``sys.path`` first:

* the event source ``extensions/eda/plugins/event_source/fleet_events.py``: ansible-rulebook runs
  it with ``runpy.run_path`` from the path ``ansible-galaxy collection list`` gives;
* the pytest suites (``tests/conftest.py``), run from a checkout.

Both load this file by its path (it imports nothing of the collection, only the standard
library) and call ``make_importable`` with the collection's directory. A directory that sits at
``<root>/ansible_collections/gamepanel/panel`` (an installed collection, or a checkout placed
so) is imported from ``<root>``; any other (a checkout elsewhere) only when a ``link_root`` is
given, through a link ``<link_root>/ansible_collections/gamepanel/panel`` to it (the tests'
``.tmp/collections``). The root goes first on ``sys.path``: this very copy of the collection is
the one imported, not another one installed elsewhere.
"""

from __future__ import annotations

import os
import sys

NAMESPACE_PATH = ("ansible_collections", "gamepanel", "panel")


def collections_root(collection_dir):
    """The directory holding ``ansible_collections/gamepanel/panel`` when that is ``collection_dir``, else None."""
    parts = os.path.abspath(collection_dir).split(os.sep)
    if len(parts) > len(NAMESPACE_PATH) and tuple(parts[-len(NAMESPACE_PATH) :]) == NAMESPACE_PATH:
        return os.sep.join(parts[: -len(NAMESPACE_PATH)]) or os.sep
    return None


def link_tree(collection_dir, link_root):
    """``link_root``, holding ``ansible_collections/gamepanel/panel`` as a link to ``collection_dir`` (made or renewed)."""
    link = os.path.join(link_root, *NAMESPACE_PATH)
    target = os.path.realpath(collection_dir)
    os.makedirs(os.path.dirname(link), exist_ok=True)
    if not (os.path.islink(link) and os.path.realpath(link) == target):
        # Several processes (xdist workers) may get here at once: make the link under a private
        # name, then rename it into place atomically.
        temp = os.path.join(os.path.dirname(link), ".panel-%d" % os.getpid())
        if os.path.lexists(temp):
            os.unlink(temp)
        os.symlink(target, temp, target_is_directory=True)
        os.replace(temp, link)
    return os.fspath(link_root)


def make_importable(collection_dir, link_root=None):
    """Put the root ``collection_dir`` is imported from first on ``sys.path``; return it (None: nothing to do)."""
    root = collections_root(collection_dir)
    if root is None and link_root is not None:
        root = link_tree(collection_dir, link_root)
    if root is not None and root not in sys.path:
        sys.path.insert(0, root)
    return root
