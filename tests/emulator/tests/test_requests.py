# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Section 7 errors of a request itself: unknown server or route, control bodies, and the 202 answer."""

from __future__ import annotations

import pytest

from .apiclient import BOOT_TIME, OWNER, STOP_TIME


def assert_not_queued(control, server_id="mc-01"):
    assert control.counters()["actions_queued"].get(server_id, 0) == 0
    control.checkin(server_id)
    assert control.server(server_id)["status"] == "online"


def test_post_answers_202_with_the_queued_action(live, still):
    reply = live.control("mc-01", "restart")
    assert reply.status == 202
    assert reply.headers["Content-Type"].startswith("application/json")
    body = reply.json
    assert body["server_id"] == "mc-01"
    assert body["action"] == "restart"
    assert body["state"] == "queued"
    assert body["action_id"]
    pending = still.server("mc-01")["pending_actions"]
    assert [action["action_id"] for action in pending] == [body["action_id"]]


def test_unknown_server_is_404(live, still):
    for path in (
        "/servers/nope",
        "/servers/nope/players",
        "/servers/nope/metrics",
        "/servers/nope/console",
        "/servers/nope/resources",
    ):
        reply = live.get(path)
        assert reply.status == 404, path
        assert reply.error_code == "server_not_found"
    reply = live.control("nope", "restart")
    assert reply.status == 404
    counters = still.counters()
    assert counters["posts"] == {"nope": 1}
    assert counters["actions_queued"] == {}


def test_unknown_route_is_404_and_wrong_method_405(live):
    reply = live.get("/nothing-here")
    assert reply.status == 404
    assert reply.error_code == "not_found"
    reply = live.get("/servers/mc-01/control")
    assert reply.status == 405
    assert reply.headers["Allow"] == "POST"


def test_paths_outside_both_variants_are_404(emulator, live):
    reply = live.request("GET", "http://" + live.netloc + "/v2/servers")
    assert reply.status == 404
    assert emulator.control.counters()["requests"]["(none)"] == {"(none) GET (unknown)": 1}


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", None])
def test_control_body_needs_json_content_type(live, still, content_type):
    reply = live.request("POST", "/servers/mc-01/control", raw_body=b'{"action": "stop"}', content_type=content_type)
    assert reply.status == 415
    assert reply.error_code == "unsupported_media_type"
    assert "application/json" in reply.json["error"]["message"]
    assert_not_queued(still)


def test_content_type_parameters_are_fine(live, still):
    reply = live.request(
        "POST", "/servers/mc-01/control", raw_body=b'{"action": "stop"}', content_type="application/json; charset=utf-8"
    )
    assert reply.status == 202
    assert still.counters()["actions_queued"] == {"mc-01": 1}


@pytest.mark.parametrize(
    "raw, status, code",
    [
        (b"{not json", 400, "invalid_json"),
        (b"", 400, "invalid_json"),
        (b'["stop"]', 400, "invalid_body"),
        (b'"stop"', 400, "invalid_body"),
        (b"{}", 422, "missing_action"),
        (b'{"verb": "stop"}', 422, "missing_action"),
        (b'{"action": "reboot"}', 422, "invalid_action"),
        (b'{"action": "STOP"}', 422, "invalid_action"),
        (b'{"action": 3}', 422, "invalid_action"),
        (b'{"action": null}', 422, "invalid_action"),
    ],
)
def test_bad_control_bodies_are_refused_with_a_reason(live, still, raw, status, code):
    reply = live.request("POST", "/servers/mc-01/control", raw_body=raw)
    assert reply.status == status
    assert reply.error_code == code
    message = reply.json["error"]["message"]
    if status == 422:
        assert "start, stop, restart" in message
    counters = still.counters()
    assert counters["posts"] == {"mc-01": 1}
    assert_not_queued(still)


def test_live_restart_endpoint_takes_no_body_and_queues_a_restart(live, still):
    before = live.server("mc-01")["uptime_seconds"]
    reply = live.request("POST", "/servers/mc-01/restart", content_type=None)
    assert reply.status == 202
    assert reply.json["action"] == "restart"
    assert live.server("mc-01")["status"] == "online"  # queued, not applied
    still.checkin("mc-01")
    still.advance(STOP_TIME + BOOT_TIME + 1)
    server = live.server("mc-01")
    assert server["status"] == "online"
    assert server["uptime_seconds"] < before
    counters = still.counters()
    assert counters["restarts"] == {"mc-01": 1}
    assert counters["requests"]["owner-control"]["live POST /servers/{id}/restart"] == 1


def test_live_restart_is_accepted_for_an_offline_server(live, still):
    reply = live.request("POST", "/servers/mc-03/restart", token=OWNER, content_type=None)
    assert reply.status == 202
    still.checkin("mc-03")
    assert live.server("mc-03")["status"] == "starting"
    still.advance(BOOT_TIME + 1)
    assert live.server("mc-03")["status"] == "online"
