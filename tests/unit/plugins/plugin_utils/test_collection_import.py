# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""collection_import.py: the root the collection is imported from, for the event source and the tests alike."""

from __future__ import annotations

import os
import sys

import pytest

from ansible_collections.gamepanel.panel.plugins.plugin_utils import collection_import


@pytest.fixture
def clean_sys_path(monkeypatch):
    monkeypatch.setattr(sys, "path", list(sys.path))


def test_an_installed_collection_is_imported_from_its_own_root(tmp_path, clean_sys_path):
    installed = tmp_path / "collections" / "ansible_collections" / "gamepanel" / "panel"
    installed.mkdir(parents=True)
    root = collection_import.make_importable(installed, link_root=tmp_path / "links")
    assert root == str(tmp_path / "collections") and sys.path[0] == root
    assert not (tmp_path / "links").exists()


def test_a_checkout_elsewhere_is_imported_through_a_link_only_when_asked(tmp_path, clean_sys_path):
    checkout = tmp_path / "work" / "h38"
    checkout.mkdir(parents=True)
    assert collection_import.make_importable(checkout) is None and str(tmp_path) not in " ".join(sys.path)
    root = collection_import.make_importable(checkout, link_root=tmp_path / "links")
    link = tmp_path / "links" / "ansible_collections" / "gamepanel" / "panel"
    assert os.path.realpath(link) == str(checkout) and sys.path[0] == str(root)
    # run again (another process, a moved checkout): the link is renewed, sys.path not grown
    length = len(sys.path)
    collection_import.make_importable(checkout, link_root=tmp_path / "links")
    assert len(sys.path) == length and os.path.realpath(link) == str(checkout)


def test_the_tests_import_the_collection_the_way_the_event_source_does():
    import ansible_collections.gamepanel.panel as package

    here = os.path.dirname(os.path.abspath(package.__path__[0]))
    assert collection_import.collections_root(os.path.join(here, "panel")) in sys.path
