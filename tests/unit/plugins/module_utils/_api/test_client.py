# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PanelClient against scripted HTTP exchanges: requests, variants, envelopes, pagination, errors."""

from __future__ import annotations

import re
import socket
import threading
import traceback
from pathlib import Path

import pytest
import requests

from ansible_collections.gamepanel.panel.plugins.module_utils._api import client as client_module
from ansible_collections.gamepanel.panel.plugins.module_utils._api.client import PanelClient, encode_segment
from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import (
    PanelApiError,
    PanelAuthError,
    PanelError,
    PanelForbiddenError,
    PanelNotFoundError,
    PanelPaymentError,
    PanelTransportError,
    PanelVariantError,
)

from panel_fakes import BASE_URL, TOKEN, FakeClock, NoBudget

SERVER = {
    "id": "mc-01",
    "name": "Survival",
    "game": "minecraft",
    "status": "online",
    "players": {"current": 3, "max": 20},
    "cpu": 12.5,
    "memory_mb": 2048,
    "uptime_seconds": 86400,
}
OTHER = {
    "id": "rust-01",
    "name": "Rust Main",
    "game": "rust",
    "status": "online",
    "players": {"current": 5, "max": 100},
    "cpu": 40,
    "memory_mb": 8192,
    "uptime_seconds": 172800,
}


# -- what goes on the wire -------------------------------------------------------------


def test_headers_auth_and_user_agent(panel):
    panel.reply(json=[SERVER])
    panel.client().list_servers()
    sent = panel.sent[0]
    assert sent.method == "GET"
    assert sent.url == BASE_URL + "/servers"
    assert sent.headers["Authorization"] == "Bearer " + TOKEN
    assert sent.headers["Accept"] == "application/json"
    assert re.match(r"^gamepanel\.panel/\d+\.\d+\.\d+\S* \(ansible-core \S+\)$", sent.headers["User-Agent"])
    assert sent.kwargs["timeout"] == 30.0
    assert sent.kwargs["verify"] is True


def test_request_timeout_and_validate_certs_are_passed(panel):
    panel.reply(json=SERVER)
    panel.client(request_timeout=4.5, validate_certs=False).get_server("mc-01")
    assert panel.sent[0].kwargs["timeout"] == 4.5
    assert panel.sent[0].kwargs["verify"] is False


def test_version_matches_galaxy_yml():
    galaxy = Path(__file__).resolve().parents[5] / "galaxy.yml"
    assert galaxy.is_file(), "no galaxy.yml at %s: the path to the checkout's root is wrong" % galaxy
    version = re.search(r"^version:\s*['\"]?([^'\"\s]+)", galaxy.read_text(encoding="utf-8"), re.M).group(1)
    assert client_module.COLLECTION_VERSION == version
    assert client_module.USER_AGENT.startswith("gamepanel.panel/%s (ansible-core " % version)


@pytest.mark.parametrize("base", [BASE_URL, BASE_URL + "/", BASE_URL + "//"])
def test_base_url_joining(panel, base):
    panel.reply(json=SERVER)
    panel.client(base_url=base).get_server("mc-01")
    assert panel.sent[0].url == BASE_URL + "/servers/mc-01"


@pytest.mark.parametrize(
    "server_id, path",
    [
        ("mc-01", "/servers/mc-01"),
        ("a/b", "/servers/a%2Fb"),
        ("..", "/servers/%2E%2E"),
        (".", "/servers/%2E"),
        ("../../admin", "/servers/..%2F..%2Fadmin"),
        ("with space", "/servers/with%20space"),
        ("ünïcødé", "/servers/%C3%BCn%C3%AFc%C3%B8d%C3%A9"),
        ("what?x=1", "/servers/what%3Fx%3D1"),
        ("frag#ment", "/servers/frag%23ment"),
        ("100%", "/servers/100%25"),
    ],
)
def test_path_segments_are_encoded(panel, server_id, path):
    panel.reply(json=dict(SERVER, id=server_id))
    server = panel.client().get_server(server_id)
    assert panel.sent[0].path == path
    assert server["id"] == server_id


def test_dot_segments_stay_encoded_for_subresources_and_actions(panel):
    panel.reply(json={"players": []}).reply(status=202, json={"state": "queued"})
    client = panel.client()
    client.get_subresource("..", "players")
    client.queue_action("..", "restart")
    assert [sent.path for sent in panel.sent] == ["/servers/%2E%2E/players", "/servers/%2E%2E/control"]


def test_encode_segment():
    assert encode_segment("...") == "%2E%2E%2E"
    assert encode_segment("a.b") == "a.b"
    assert encode_segment("..a") == "..a"


@pytest.mark.parametrize("bad", [None, "", "   "])
def test_empty_server_id_is_refused_before_any_request(panel, bad):
    with pytest.raises(PanelError, match="server id is empty"):
        panel.client().get_server(bad)
    assert panel.sent == []


def test_encoded_path_reaches_a_real_server_unchanged():
    """Not only the prepared request: the request line a real socket receives keeps %2E%2E and %2F."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    lines = []

    def serve():
        connection, unused_address = listener.accept()
        with connection:
            data = b""
            while b"\r\n\r\n" not in data:
                data += connection.recv(4096)
            lines.append(data.split(b"\r\n", 1)[0].decode("ascii"))
            body = b'{"id": "x"}'
            connection.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
                b"Connection: close\r\n\r\n%s" % (len(body), body)
            )

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    session = requests.Session()
    session.trust_env = False
    client = PanelClient(
        "http://127.0.0.1:%d/v1" % listener.getsockname()[1],
        TOKEN,
        session=session,
        clock=FakeClock(),
        budget=NoBudget(),
        request_timeout=5,
    )
    client.get_subresource("../a b/ü?#", "metrics")
    thread.join(5)
    listener.close()
    assert lines == ["GET /v1/servers/..%2Fa%20b%2F%C3%BC%3F%23/metrics HTTP/1.1"]


# -- configuration errors ----------------------------------------------------------------


@pytest.mark.parametrize(
    "base",
    [
        "",
        None,
        "panel.example.test/v1",
        "ftp://panel/v1",
        "https://",
        "https://h/v1?x=1",
        "http://[::1/v1",
        "https://:443/v1",
    ],
)
def test_bad_base_url(base):
    with pytest.raises(PanelError, match="base_url"):
        PanelClient(base, TOKEN, budget=object())


@pytest.mark.parametrize("token", [None, "", "  \n"])
def test_missing_token(token):
    with pytest.raises(PanelAuthError, match="GAMEPANEL_API_TOKEN") as caught:
        PanelClient(BASE_URL, token, budget=object())
    assert "Settings → API tokens" in str(caught.value)


@pytest.mark.parametrize("token", ["gp-abc\ndef-secret", "gp abc-secret", "gp-\u00e9-secret", "gp-\x00-secret"])
def test_token_that_cannot_be_a_header_is_refused_without_showing_it(token):
    with pytest.raises(PanelAuthError) as caught:
        PanelClient(BASE_URL, token, budget=object())
    assert "secret" not in str(caught.value)
    assert "secret" not in "".join(traceback.format_exception(caught.type, caught.value, caught.tb))


def test_token_pasted_into_base_url_is_not_echoed():
    with pytest.raises(PanelError, match="base_url") as caught:
        PanelClient("panel.example.test/v1?token=" + TOKEN, TOKEN, budget=object())
    assert TOKEN not in str(caught.value)


def test_token_surrounding_whitespace_is_stripped(panel):
    panel.reply(json=[])
    panel.client(api_token="  " + TOKEN + "\n").list_servers()
    assert panel.sent[0].headers["Authorization"] == "Bearer " + TOKEN


def test_unknown_variant():
    with pytest.raises(PanelVariantError, match="live.*planned"):
        PanelClient(BASE_URL, TOKEN, api_variant="beta", budget=object())


@pytest.mark.parametrize(
    "kwargs, option",
    [
        ({"request_timeout": 0}, "request_timeout"),
        ({"retry_timeout": -1}, "retry_timeout"),
        ({"rate_limit": -5}, "rate_limit"),
    ],
)
def test_bad_numbers(kwargs, option):
    with pytest.raises(PanelError, match=option):
        PanelClient(BASE_URL, TOKEN, budget=object(), **kwargs)


def test_requests_missing_is_reported(monkeypatch):
    monkeypatch.setattr(client_module, "HAS_REQUESTS", False)
    with pytest.raises(PanelError, match="requests"):
        PanelClient(BASE_URL, TOKEN)


# -- list envelopes and pagination -------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        [SERVER, OTHER],
        {"servers": [SERVER, OTHER]},
        {"data": [SERVER, OTHER], "meta": {"total": 2}},
        {"items": [SERVER, OTHER]},
        {"results": [SERVER, OTHER], "count": 2},
        {"fleet": [SERVER, OTHER], "total": 2},
        {"servers": [SERVER, OTHER], "warnings": []},
    ],
)
def test_list_envelopes(panel, body):
    panel.reply(json=body)
    servers = panel.client().list_servers()
    assert [server["id"] for server in servers] == ["mc-01", "rust-01"]
    assert servers[0] == SERVER


@pytest.mark.parametrize("body", [{"a": [1], "b": [2]}, {"total": 2}, "servers", 42])
def test_list_without_a_list(panel, body):
    panel.reply(json=body)
    with pytest.raises(PanelApiError, match="no list of servers"):
        panel.client().list_servers()


def test_list_entry_that_is_not_an_object(panel):
    panel.reply(json=[SERVER, "mc-02"])
    with pytest.raises(PanelApiError, match="malformed"):
        panel.client().list_servers()


def test_pagination_absolute_next_in_body(panel):
    panel.reply(json={"servers": [SERVER], "next": BASE_URL + "/servers?page=2"})
    panel.reply(json={"servers": [OTHER], "next": None})
    servers = panel.client().list_servers()
    assert [server["id"] for server in servers] == ["mc-01", "rust-01"]
    assert [sent.url for sent in panel.sent] == [BASE_URL + "/servers", BASE_URL + "/servers?page=2"]


@pytest.mark.parametrize(
    "link, expected",
    [
        ("?page=2", BASE_URL + "/servers?page=2"),
        ("servers?cursor=abc", BASE_URL + "/servers?cursor=abc"),
        ("/api/v1/servers?page=2", BASE_URL + "/servers?page=2"),
    ],
)
def test_pagination_relative_next(panel, link, expected):
    panel.reply(json={"data": [SERVER], "next": link}).reply(json={"data": [OTHER]})
    assert len(panel.client().list_servers()) == 2
    assert panel.sent[1].url == expected


@pytest.mark.parametrize(
    "links",
    [
        {"next": BASE_URL + "/servers?page=2"},
        {"next": {"href": BASE_URL + "/servers?page=2"}},
    ],
)
def test_pagination_links_next(panel, links):
    panel.reply(json={"items": [SERVER], "links": links}).reply(json={"items": [OTHER], "links": {"next": None}})
    assert len(panel.client().list_servers()) == 2
    assert panel.sent[1].url == BASE_URL + "/servers?page=2"


def test_pagination_link_header(panel):
    panel.reply(
        json=[SERVER],
        headers={"Link": '<%s/servers?page=2>; rel="next", <%s/servers?page=1>; rel="first"' % (BASE_URL, BASE_URL)},
    )
    panel.reply(json=[OTHER], headers={"Link": '<%s/servers?page=1>; rel="first"' % BASE_URL})
    assert [server["id"] for server in panel.client().list_servers()] == ["mc-01", "rust-01"]
    assert panel.sent[1].url == BASE_URL + "/servers?page=2"


def test_pagination_loop_is_stopped(panel):
    panel.reply(json={"servers": [SERVER], "next": "?page=2"})
    panel.reply(json={"servers": [OTHER], "next": "?page=2"})
    with pytest.raises(PanelApiError, match="already read"):
        panel.client().list_servers()
    assert len(panel.sent) == 2


def test_pagination_back_to_the_first_page_is_stopped(panel):
    panel.reply(json={"servers": [SERVER], "next": BASE_URL + "/servers"})
    with pytest.raises(PanelApiError, match="already read"):
        panel.client().list_servers()


def test_pagination_to_another_host_is_refused(panel):
    panel.reply(json={"servers": [SERVER], "next": "https://evil.example.test/api/v1/servers?page=2"})
    with pytest.raises(PanelApiError, match="another address") as caught:
        panel.client().list_servers()
    assert len(panel.sent) == 1
    assert TOKEN not in str(caught.value)


def test_pages_that_shift_do_not_duplicate_servers(panel):
    panel.reply(json={"servers": [SERVER, OTHER], "next": "?page=2"})
    panel.reply(json={"servers": [OTHER, dict(SERVER, id="ark-01")]})
    assert [server["id"] for server in panel.client().list_servers()] == ["mc-01", "rust-01", "ark-01"]


def test_empty_list(panel):
    panel.reply(json=[])
    assert panel.client().list_servers() == []


# -- single server, missing fields, sub-resources ------------------------------------------


@pytest.mark.parametrize("body", [SERVER, {"server": SERVER}, {"data": SERVER}])
def test_get_server_envelopes(panel, body):
    panel.reply(json=body)
    assert panel.client().get_server("mc-01") == SERVER


def test_missing_fields_are_none_and_unknown_status_kept(panel):
    panel.reply(json={"id": 7, "status": "Hibernating-v2"})
    server = panel.client().get_server("7")
    assert server == {
        "id": "7",
        "name": None,
        "game": None,
        "status": "Hibernating-v2",
        "players": None,
        "cpu": None,
        "memory_mb": None,
        "uptime_seconds": None,
    }


def test_server_without_id_gets_the_requested_one(panel):
    panel.reply(json={"name": "Survival"})
    assert panel.client().get_server("mc-01")["id"] == "mc-01"


def test_get_server_not_an_object(panel):
    panel.reply(json=[SERVER])
    with pytest.raises(PanelApiError, match="not a server object"):
        panel.client().get_server("mc-01")


@pytest.mark.parametrize("kind", ["players", "metrics", "console", "resources"])
def test_live_subresources_are_returned_as_given(panel, kind):
    body = {"anything": [1, 2, {"deep": True}], "kind": kind}
    panel.reply(json=body)
    assert panel.client().get_subresource("mc-01", kind) == body
    assert panel.sent[0].path == "/servers/mc-01/" + kind


def test_subresource_with_empty_body_is_none(panel):
    panel.reply(status=200, body=b"")
    assert panel.client().get_subresource("mc-01", "console") is None


def test_unknown_subresource_is_a_programming_error(panel):
    with pytest.raises(ValueError):
        panel.client().get_subresource("mc-01", "files")


# -- variants and actions ----------------------------------------------------------------


@pytest.mark.parametrize("action", ["start", "stop", "restart"])
def test_live_action(panel, action):
    panel.reply(status=202, json={"action_id": "a1", "state": "queued"})
    client = panel.client()
    assert client.supports(action)
    assert client.queue_action("mc-01", action) == {"action_id": "a1", "state": "queued"}
    sent = panel.sent[0]
    assert (sent.method, sent.path, sent.json) == ("POST", "/servers/mc-01/control", {"action": action})
    assert sent.headers["Content-Type"] == "application/json"


def test_planned_restart_has_no_body(panel):
    panel.reply(status=202, body=b"")
    client = panel.client(api_variant="planned")
    assert client.queue_action("mc-01", "restart") is None
    sent = panel.sent[0]
    assert (sent.method, sent.path, sent.body) == ("POST", "/servers/mc-01/restart", None)


@pytest.mark.parametrize("action", ["start", "stop"])
def test_planned_lacks_start_and_stop(panel, action):
    client = panel.client(api_variant="planned")
    assert not client.supports(action)
    with pytest.raises(PanelVariantError, match="planned API variant cannot %s" % action) as caught:
        client.queue_action("mc-01", action)
    assert "api_variant: live" in str(caught.value)
    assert panel.sent == []


@pytest.mark.parametrize("kind", ["metrics", "console", "resources"])
def test_planned_lacks_subresources(panel, kind):
    with pytest.raises(PanelVariantError, match="planned API variant has no %s endpoint" % kind):
        panel.client(api_variant="planned").get_subresource("mc-01", kind)
    assert panel.sent == []


def test_planned_players_and_list(panel):
    panel.reply(json={"data": [SERVER], "next": None}).reply(json={"players": ["steve"]})
    client = panel.client(api_variant="planned")
    assert client.list_servers() == [SERVER]
    assert client.get_subresource("mc-01", "players") == {"players": ["steve"]}


def test_unknown_action_is_a_programming_error(panel):
    with pytest.raises(ValueError):
        panel.client().queue_action("mc-01", "reboot")


def test_action_answer_that_is_not_json_is_still_success(panel):
    panel.reply(status=202, body="Accepted", headers={"Content-Type": "text/plain"})
    assert panel.client().queue_action("mc-01", "restart") is None


def test_get_redirect_is_followed(panel):
    panel.reply(status=301, headers={"Location": BASE_URL + "/servers/mc-01/"}).reply(json=SERVER)
    assert panel.client().get_server("mc-01") == SERVER
    assert panel.sent[1].url == BASE_URL + "/servers/mc-01/"
    assert panel.sent[1].headers["Authorization"] == "Bearer " + TOKEN


def test_post_redirect_is_not_followed(panel):
    panel.reply(status=307, headers={"Location": "https://elsewhere.example.test/v1/servers/mc-01/control"})
    with pytest.raises(PanelApiError, match="redirect"):
        panel.client().queue_action("mc-01", "restart")
    assert len(panel.sent) == 1


# -- bodies that are not JSON ------------------------------------------------------------


def test_html_instead_of_json(panel):
    panel.reply(status=200, body="<html><body>Login</body></html>", headers={"Content-Type": "text/html"})
    with pytest.raises(PanelTransportError, match="not JSON.*text/html.*base_url"):
        panel.client().list_servers()


def test_empty_list_body(panel):
    panel.reply(status=200, body=b"")
    with pytest.raises(PanelApiError, match="empty body"):
        panel.client().list_servers()


# -- error mapping -------------------------------------------------------------------------

ERROR_BODY = {"error": {"code": "denied", "message": "The panel says no"}}


def test_401(panel):
    panel.reply(status=401, json={"error": {"code": "token_revoked", "message": "This token was revoked"}})
    with pytest.raises(PanelAuthError) as caught:
        panel.client().list_servers()
    message = str(caught.value)
    assert caught.value.status == 401
    assert "missing, invalid or revoked" in message
    assert "Settings → API tokens" in message
    assert "This token was revoked" in message
    # every place a token reaches a task from, in the order a job tries them (docs/authentication.md)
    places = [
        "the task's api_token",
        "the variable gamepanel_api_token",
        "the inventory source's api_token",
        "api_token_env",
        "api_token_file",
        "the GAMEPANEL_API_TOKEN environment variable",
        "GAMEPANEL_API_TOKEN_FILE",
    ]
    positions = [message.find(place) for place in places]
    assert -1 not in positions and positions == sorted(positions), positions


def test_403_includes_the_panel_message_and_the_causes(panel):
    panel.reply(status=403, json={"error": {"code": "plan", "message": "API access needs a Pro or Team plan"}})
    with pytest.raises(PanelForbiddenError) as caught:
        panel.client().list_servers()
    message = str(caught.value)
    assert "API access needs a Pro or Team plan" in message
    for cause in ("read-only", "owner or admin", "Starter plan"):
        assert cause in message


def test_402_is_not_retried(panel):
    panel.reply(status=402, json={"message": "Invoice overdue"})
    client = panel.client()
    with pytest.raises(PanelPaymentError, match="unpaid.*Invoice overdue.*not retried"):
        client.list_servers()
    assert client.stats["requests"] == 1
    assert client.stats["retries"] == 0
    assert panel.clock.sleeps == []


def test_402_on_post_is_not_retried(panel):
    panel.reply(status=402, body="")
    client = panel.client()
    with pytest.raises(PanelPaymentError):
        client.queue_action("mc-01", "restart")
    assert client.stats == {"requests": 1, "retries": 0, "waited_seconds": 0.0}


def test_404_names_the_id(panel):
    panel.reply(status=404, json={"error": {"code": "not_found", "message": "No such server"}})
    with pytest.raises(PanelNotFoundError) as caught:
        panel.client().get_server("nope-42")
    assert "Server 'nope-42' was not found" in str(caught.value)
    assert caught.value.server_id == "nope-42"
    assert caught.value.status == 404


def test_404_on_the_list_points_at_base_url(panel):
    panel.reply(status=404, body="Not Found", headers={"Content-Type": "text/plain"})
    with pytest.raises(PanelNotFoundError, match="Check base_url"):
        panel.client().list_servers()


@pytest.mark.parametrize("status", [400, 409, 415, 418, 422])
def test_other_errors_have_status_and_panel_message(panel, status):
    panel.reply(status=status, json=ERROR_BODY)
    with pytest.raises(PanelApiError) as caught:
        panel.client().queue_action("mc-01", "restart")
    assert "HTTP %d" % status in str(caught.value)
    assert "The panel says no" in str(caught.value)
    assert caught.value.status == status
    assert len(panel.sent) == 1


@pytest.mark.parametrize(
    "body, headers, said",
    [
        ({"message": "flat message"}, {}, "flat message"),
        ({"error": "plain error string"}, {}, "plain error string"),
        ({"error": {"message": "nested"}}, {}, "nested"),
        ({"detail": "detail text"}, {}, "detail text"),
        ({"errors": [{"message": "first"}, {"detail": "second"}]}, {}, "first; second"),
        ({"error": {"errors": [{"title": "deep"}]}}, {}, "deep"),
        ("text: gateway said no", {"Content-Type": "text/plain"}, "text: gateway said no"),
        ("", {}, None),
    ],
)
def test_error_bodies_of_any_shape(panel, body, headers, said):
    if isinstance(body, str):
        panel.reply(status=409, body=body, headers=headers)
    else:
        panel.reply(status=409, json=body, headers=headers)
    with pytest.raises(PanelApiError) as caught:
        panel.client().list_servers()
    message = str(caught.value)
    if said is None:
        assert message == "The panel answered HTTP 409 Conflict for GET /servers."
    else:
        assert said in message


# -- the token never shows ---------------------------------------------------------------


def test_repr_and_vars_do_not_show_the_token(panel):
    client = panel.client()
    assert TOKEN not in repr(client)
    assert TOKEN not in repr(vars(client))
    assert TOKEN not in str(vars(client))


def test_token_echoed_by_the_panel_is_redacted(panel):
    panel.reply(status=401, json={"error": {"message": "Token %s is revoked" % TOKEN}})
    with pytest.raises(PanelAuthError) as caught:
        panel.client().list_servers()
    assert TOKEN not in str(caught.value)
    assert TOKEN not in repr(caught.value)
    assert "<redacted>" in str(caught.value)
    assert TOKEN not in "".join(traceback.format_exception(caught.type, caught.value, caught.tb))


def test_token_in_a_transport_exception_is_redacted_and_not_chained(panel):
    panel.fail(requests.exceptions.InvalidHeader("Invalid header value 'Bearer %s'" % TOKEN))
    with pytest.raises(PanelTransportError) as caught:
        panel.client().list_servers()
    text = "".join(traceback.format_exception(caught.type, caught.value, caught.tb))
    assert TOKEN not in text
    assert caught.value.__cause__ is None
    assert caught.value.__suppress_context__


def test_token_in_a_non_json_body_is_redacted(panel):
    panel.reply(status=200, body="<html>%s</html>" % TOKEN, headers={"Content-Type": "text/html"})
    with pytest.raises(PanelTransportError) as caught:
        panel.client().list_servers()
    assert TOKEN not in str(caught.value)
    assert TOKEN not in "".join(traceback.format_exception(caught.type, caught.value, caught.tb))
