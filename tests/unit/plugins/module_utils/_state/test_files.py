# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""StateFiles: where the shared state lives, how it is named, the one locked-file protocol."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from ansible_collections.gamepanel.panel.plugins.module_utils._api.client import PanelClient
from ansible_collections.gamepanel.panel.plugins.module_utils._state.files import (
    StateFiles,
    key_for_token,
    state_directory,
)

from panel_fakes import BASE_URL, TOKEN, FakeClock, NoBudget


def test_the_key_is_the_tokens_sha256_and_only_the_client_derives_it():
    client = PanelClient(BASE_URL, TOKEN, clock=FakeClock(), budget=NoBudget())
    assert client.state_key == key_for_token(TOKEN) == hashlib.sha256(TOKEN.encode()).hexdigest()
    assert TOKEN not in client.state_key


def test_update_reads_changes_and_writes_back(tmp_path):
    files = StateFiles("k" * 64, str(tmp_path))
    assert files.usable
    assert files.update("thing", lambda document: document.setdefault("count", 0)) == 0
    files.update("thing", lambda document: document.update(count=document["count"] + 1))
    assert files.read("thing") == {"count": 1}


def test_missing_torn_or_foreign_files_read_as_empty(tmp_path):
    files = StateFiles("k" * 64, str(tmp_path))
    assert files.read("missing") == {}
    Path(files.path("torn")).write_text('{"count": 1')
    assert files.read("torn") == {}
    Path(files.path("list")).write_text("[1, 2]")
    assert files.update("list", dict) == {}


def test_directory_and_files_are_private(tmp_path):
    directory = tmp_path / "state"
    files = StateFiles("k" * 64, str(directory))
    files.update("thing", lambda document: None)
    assert stat.S_IMODE(os.stat(directory).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(files.path("thing")).st_mode) == 0o600


def test_state_directory_from_argument_environment_or_default(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMEPANEL_STATE_DIR", str(tmp_path / "from-env"))
    assert state_directory() == str(tmp_path / "from-env")
    assert state_directory(str(tmp_path / "given")) == str(tmp_path / "given")
    monkeypatch.delenv("GAMEPANEL_STATE_DIR")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert state_directory() == str(tmp_path / ".ansible" / "tmp" / "gamepanel")


def test_an_unusable_directory_is_reported_not_raised(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    assert StateFiles("k" * 64, str(blocker / "state")).usable is False
