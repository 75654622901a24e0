# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The environment's proxies: never for a panel at plain http on this machine, kept for https."""

from __future__ import annotations

import socket
import threading

import pytest
from requests.utils import select_proxy

from ansible_collections.gamepanel.panel.plugins.module_utils._api.client import (
    PanelClient,
    without_proxy_for_plain_http,
)
from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import PanelError

from panel_fakes import TOKEN, FakeClock, FakePanel, NoBudget

PROXY = "http://proxy-user:proxy-secret@proxy.example.test:3128"
PROXY_VARIABLES = ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")


@pytest.fixture
def proxied(monkeypatch):
    """Every proxy variable set, NO_PROXY unset: a company machine."""
    for name in PROXY_VARIABLES:
        monkeypatch.setenv(name, PROXY)
    for name in ("NO_PROXY", "no_proxy", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
        monkeypatch.delenv(name, raising=False)


def trusting_panel():
    """A scripted panel whose session reads the environment, as the client's own session does."""
    panel = FakePanel()
    panel.session.trust_env = True
    return panel


def proxy_used(sent):
    """The proxy requests would connect through for one sent request (None: direct)."""
    return select_proxy(sent.url, sent.kwargs["proxies"])


@pytest.mark.parametrize(
    "base_url",
    ["http://127.0.0.1:8080/v1", "http://localhost/v1", "http://[::1]:9000/v1", "http://panel.localhost/v1"],
)
def test_plain_http_on_this_machine_goes_direct_whatever_the_proxy_variables(proxied, base_url):
    panel = trusting_panel()
    panel.reply(json=[])
    panel.client(base_url=base_url).list_servers()
    assert proxy_used(panel.sent[0]) is None
    assert "Proxy-Authorization" not in panel.sent[0].headers


def test_https_keeps_the_environments_proxy_and_ca_bundle(proxied, monkeypatch, tmp_path):
    bundle = tmp_path / "company-ca.pem"
    bundle.write_text("not read by the scripted transport")
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(bundle))
    panel = trusting_panel()
    panel.reply(json=[])
    panel.client(base_url="https://panel.example.test/v1").list_servers()
    assert proxy_used(panel.sent[0]) == PROXY
    assert panel.sent[0].kwargs["verify"] == str(bundle)


def test_allowed_plain_http_to_another_host_keeps_the_environments_proxy(proxied):
    # Only this machine's loopback is kept from the proxy; a remote test panel is the user's own choice.
    panel = trusting_panel()
    panel.reply(json=[])
    panel.client(base_url="http://panel.example.test/v1", allow_insecure_http=True).list_servers()
    assert proxy_used(panel.sent[0]) == PROXY


def test_a_redirect_of_a_loopback_panel_stays_direct(proxied):
    # requests reads the environment again for each redirect; the client's choice must survive that.
    panel = trusting_panel()
    panel.reply(status=302, headers={"Location": "http://127.0.0.1:8080/v1/servers?page=1"})
    panel.reply(json=[])
    panel.client(base_url="http://127.0.0.1:8080/v1").list_servers()
    assert [sent.url for sent in panel.sent] == [
        "http://127.0.0.1:8080/v1/servers",
        "http://127.0.0.1:8080/v1/servers?page=1",
    ]
    assert [proxy_used(sent) for sent in panel.sent] == [None, None]
    assert all("Proxy-Authorization" not in sent.headers for sent in panel.sent)


def test_without_proxy_for_plain_http_keeps_the_other_schemes():
    proxies = {"http": PROXY, "http://127.0.0.1": PROXY, "https": PROXY, "all": PROXY, "no_proxy": "x"}
    assert without_proxy_for_plain_http(proxies) == {"http": None, "https": PROXY, "all": PROXY, "no_proxy": "x"}
    assert without_proxy_for_plain_http(None) == {"http": None}


# -- over real sockets, with the client's own requests session ------------------------------------


class Listener:
    """A loopback TCP listener that records the first line of every connection and answers ``answer``."""

    def __init__(self, answer):
        self.answer = answer
        self.lines = []
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.socket.settimeout(0.2)
        self.port = self.socket.getsockname()[1]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self):
        while not self._stop.is_set():
            try:
                connection, unused_address = self.socket.accept()
            except socket.timeout:
                continue
            with connection:
                connection.settimeout(5)
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = connection.recv(4096)
                    if not chunk:
                        break
                    data += chunk
                self.lines.append(data.split(b"\r\n", 1)[0].decode("latin-1"))
                connection.sendall(self.answer)

    def close(self):
        self._stop.set()
        self._thread.join(5)
        self.socket.close()


@pytest.fixture
def listeners():
    made = []

    def make(answer):
        made.append(Listener(answer))
        return made[-1]

    yield make
    for listener in made:
        listener.close()


BODY = b"[]"
PANEL_ANSWER = (
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s"
    % (len(BODY), BODY)
)
PROXY_ANSWER = b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


def real_client(base_url):
    """A client with its own requests session (the environment trusted), as modules build it."""
    return PanelClient(base_url, TOKEN, clock=FakeClock(), budget=NoBudget(), request_timeout=5, retry_timeout=0)


def test_a_loopback_panel_is_reached_directly_and_the_proxy_sees_nothing(monkeypatch, listeners):
    proxy, panel = listeners(PROXY_ANSWER), listeners(PANEL_ANSWER)
    for name in PROXY_VARIABLES:
        monkeypatch.setenv(name, "http://127.0.0.1:%d" % proxy.port)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    assert real_client("http://127.0.0.1:%d/v1" % panel.port).list_servers() == []
    assert panel.lines == ["GET /v1/servers HTTP/1.1"]
    assert proxy.lines == []


def test_an_https_panel_is_still_reached_through_the_proxy(monkeypatch, listeners):
    proxy = listeners(PROXY_ANSWER)
    for name in PROXY_VARIABLES:
        monkeypatch.setenv(name, "http://127.0.0.1:%d" % proxy.port)
    with pytest.raises(PanelError) as caught:
        real_client("https://panel.example.test/v1").list_servers()
    # The proxy was asked for a TLS tunnel: the token would travel inside it, never in the proxy's view.
    assert [line.rsplit(" ", 1)[0] for line in proxy.lines] == ["CONNECT panel.example.test:443"]
    assert TOKEN not in str(caught.value)


def test_a_netrc_entry_for_the_panels_host_never_replaces_the_token(monkeypatch, tmp_path):
    """requests puts ~/.netrc's password in a request without auth when it trusts the environment."""
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login someone password netrc-secret\n")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    panel = trusting_panel()
    panel.reply(json=[])
    panel.client(base_url="http://127.0.0.1:8080/v1").list_servers()
    assert panel.sent[0].headers["Authorization"] == "Bearer " + TOKEN
