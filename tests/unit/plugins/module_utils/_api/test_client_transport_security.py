# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Plain http: refused to another machine unless allow_insecure_http, then warned about."""

from __future__ import annotations

import pytest

from ansible_collections.gamepanel.panel.plugins.module_utils._api import client as client_module
from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import PanelError

from panel_fakes import TOKEN, FakePanel


@pytest.mark.parametrize(
    "base_url",
    [
        "http://panel.example.test/v1",
        "http://192.0.2.10:8080/v1",
        "http://[2001:db8::1]/v1",
        "http://localhost.example.test/v1",
        "http://127.0.0.1.example.test/v1",
    ],
)
def test_plain_http_to_another_host_is_refused_before_any_request(base_url):
    panel = FakePanel()
    with pytest.raises(PanelError) as caught:
        panel.client(base_url=base_url)
    message = str(caught.value)
    assert "allow_insecure_http" in message and "GAMEPANEL_ALLOW_INSECURE_HTTP" in message
    assert "unencrypted" in message and TOKEN not in message
    assert panel.sent == []


@pytest.mark.parametrize(
    "base_url",
    [
        "http://127.0.0.1:8080/v1",
        "http://127.9.8.7/v1",
        "http://[::1]:9000/v1",
        "http://localhost/v1",
        "http://LOCALHOST:81/v1",
        "http://panel.localhost/v1",
        "https://panel.example.test/v1",
    ],
)
def test_loopback_http_and_any_https_are_accepted_without_warning(base_url):
    panel = FakePanel()
    panel.reply(json=[])
    client = panel.client(base_url=base_url)
    assert client.warnings == []
    assert client.list_servers() == []


def test_allowed_plain_http_sends_and_warns_once_with_a_fixed_sentence():
    panel = FakePanel()
    panel.reply(json=[])
    client = panel.client(base_url="http://panel.example.test/v1", allow_insecure_http=True)
    assert client.warnings == [client_module.INSECURE_HTTP_WARNING]
    assert client.list_servers() == []
    assert panel.sent[0].url == "http://panel.example.test/v1/servers"
    # The same words for every task and host, so Ansible's de-duplication shows it once per run.
    other = FakePanel().client(base_url="http://192.0.2.10/v1", allow_insecure_http=True)
    assert other.warnings == client.warnings
    assert TOKEN not in client.warnings[0]


def test_allowing_insecure_http_does_not_warn_for_https_or_loopback():
    for base_url in ("https://panel.example.test/v1", "http://127.0.0.1/v1"):
        assert FakePanel().client(base_url=base_url, allow_insecure_http=True).warnings == []


@pytest.mark.parametrize(
    "host, loopback",
    [
        ("127.0.0.1", True),
        ("127.255.255.254", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("localhost.", True),
        ("a.localhost", True),
        ("128.0.0.1", False),
        ("::2", False),
        ("", False),
        (None, False),
        ("localhost.evil.test", False),
        ("0x7f000001", False),
    ],
)
def test_is_loopback_host(host, loopback):
    assert client_module.is_loopback_host(host) is loopback
