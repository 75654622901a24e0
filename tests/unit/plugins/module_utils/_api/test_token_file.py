# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""_api/token_file.py: the token read from a file, its refusals, and the environment's order."""

from __future__ import annotations

import os

import pytest
from ansible.module_utils.errors import AnsibleFallbackNotFound

from ansible_collections.gamepanel.panel.plugins.module_utils._api import token_file
from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import PanelAuthError

TOKEN = "gp-unit-file-token-91c2"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in (token_file.TOKEN_ENV, token_file.TOKEN_FILE_ENV):
        monkeypatch.delenv(name, raising=False)


def token_at(tmp_path, content, mode=0o600, name="token"):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    path.chmod(mode)
    return str(path)


@pytest.mark.parametrize("content", [TOKEN, TOKEN + "\n", TOKEN + "\r\n", "  %s \n\n" % TOKEN])
def test_the_token_is_read_without_its_newline(tmp_path, content):
    assert token_file.read_token_file(token_at(tmp_path, content), "api_token_file") == TOKEN


@pytest.mark.parametrize("mode", [0o600, 0o400, 0o640, 0o440])
def test_a_file_the_world_cannot_read_is_accepted(tmp_path, mode):
    assert token_file.read_token_file(token_at(tmp_path, TOKEN, mode=mode), "x") == TOKEN


@pytest.mark.parametrize("mode", [0o644, 0o604, 0o444])
def test_a_world_readable_file_is_refused_with_its_mode(tmp_path, mode):
    path = token_at(tmp_path, TOKEN, mode=mode)
    with pytest.raises(token_file.TokenFileError) as refused:
        token_file.read_token_file(path, "GAMEPANEL_API_TOKEN_FILE")
    message = str(refused.value)
    assert "%s (from GAMEPANEL_API_TOKEN_FILE) can be read by every user" % path in message
    assert "mode %04o" % mode in message and "chmod 600" in message
    assert TOKEN not in message


def test_a_missing_file_is_named_with_the_setting_that_named_it(tmp_path):
    path = str(tmp_path / "absent")
    with pytest.raises(
        token_file.TokenFileError, match="The API token file .*absent \\(from api_token_file\\) does not"
    ):
        token_file.read_token_file(path, "api_token_file")


@pytest.mark.parametrize("content", ["", "\n", "  \n \n"])
def test_an_empty_file_is_refused(tmp_path, content):
    with pytest.raises(token_file.TokenFileError, match="is empty: write the API token into it"):
        token_file.read_token_file(token_at(tmp_path, content), "api_token_file")


def test_a_directory_is_not_a_token_file(tmp_path):
    folder = tmp_path / "credentials"
    folder.mkdir(mode=0o700)
    with pytest.raises(token_file.TokenFileError, match="is not a regular file"):
        token_file.read_token_file(str(folder), "api_token_file")


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo, 0o600)
    with pytest.raises(token_file.TokenFileError, match="is not a regular file"):
        token_file.read_token_file(str(fifo), "api_token_file")


def test_an_unreadable_file_says_so(tmp_path, monkeypatch):
    path = token_at(tmp_path, TOKEN)

    def refuse(*_args):  # what a file of another user gives (the tests may run as root, who reads all)
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(token_file.os, "open", refuse)
    with pytest.raises(token_file.TokenFileError, match="cannot be opened: Permission denied"):
        token_file.read_token_file(path, "api_token_file")


def test_a_big_file_is_not_a_token(tmp_path):
    path = token_at(tmp_path, "x" * (token_file.MAX_TOKEN_FILE_BYTES + 1))
    with pytest.raises(token_file.TokenFileError, match="is larger than 65536 bytes"):
        token_file.read_token_file(path, "api_token_file")


def test_binary_content_is_refused_without_being_quoted(tmp_path):
    with pytest.raises(token_file.TokenFileError, match="does not hold text") as refused:
        token_file.read_token_file(token_at(tmp_path, b"\xff\xfe" + TOKEN.encode()), "api_token_file")
    assert TOKEN not in str(refused.value)


def test_a_refusal_is_an_authentication_error():
    assert issubclass(token_file.TokenFileError, PanelAuthError)


def test_the_environment_token_comes_before_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv(token_file.TOKEN_FILE_ENV, token_at(tmp_path, TOKEN))
    assert token_file.token_from_environment() == TOKEN
    monkeypatch.setenv(token_file.TOKEN_ENV, "from-the-variable")
    assert token_file.token_from_environment() == "from-the-variable"
    monkeypatch.setenv(token_file.TOKEN_ENV, "")  # empty counts as unset
    assert token_file.token_from_environment() == TOKEN


def test_no_token_anywhere_is_none(monkeypatch):
    assert token_file.token_from_environment() is None
    monkeypatch.setenv(token_file.TOKEN_FILE_ENV, "")
    assert token_file.token_from_environment() is None


def test_the_fallback_gives_the_files_token_and_not_a_bad_files_error(tmp_path, monkeypatch):
    monkeypatch.setenv(token_file.TOKEN_FILE_ENV, token_at(tmp_path, TOKEN))
    assert token_file.api_token_fallback(token_file.TOKEN_ENV) == TOKEN
    monkeypatch.setenv(token_file.TOKEN_FILE_ENV, str(tmp_path / "absent"))
    with pytest.raises(AnsibleFallbackNotFound):
        token_file.api_token_fallback(token_file.TOKEN_ENV)
    with pytest.raises(token_file.TokenFileError, match="does not exist"):
        token_file.token_from_environment()
