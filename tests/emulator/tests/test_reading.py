# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Section 2 and 4 reads: the Server object, sub-resources, list styles and pagination, the planned variant."""

from __future__ import annotations

import re

import pytest

from .apiclient import BOOT_TIME, STOP_TIME

ACME_IDS = ["mc-01", "mc-02", "mc-03", "rust-01", "rust-02", "ark-01"]


def assert_server_shape(server):
    assert set(server) == {"id", "name", "game", "status", "players", "cpu", "memory_mb", "uptime_seconds"}
    assert set(server["players"]) == {"current", "max"}
    assert isinstance(server["players"]["current"], int) and isinstance(server["players"]["max"], int)
    assert isinstance(server["cpu"], float)
    assert isinstance(server["memory_mb"], int) and isinstance(server["uptime_seconds"], int)


def test_list_is_a_bare_array_of_server_objects_by_default(live):
    reply = live.get("/servers")
    assert reply.status == 200
    servers = reply.json
    assert [server["id"] for server in servers] == ACME_IDS
    for server in servers:
        assert_server_shape(server)
    first = servers[0]
    assert (first["name"], first["game"], first["status"], first["players"]) == (
        "Survival",
        "minecraft",
        "online",
        {"current": 3, "max": 20},
    )
    assert first["uptime_seconds"] >= 86400


def test_one_server_matches_its_list_entry(live):
    one = live.server("rust-01")
    assert_server_shape(one)
    listed = next(server for server in live.get("/servers").json if server["id"] == "rust-01")
    assert (one["name"], one["status"], one["players"]) == (listed["name"], listed["status"], listed["players"])


def test_envelope_style(live, control):
    control.settings(live_list_style="envelope")
    body = live.get("/servers").json
    assert [server["id"] for server in body["servers"]] == ACME_IDS


def test_paged_body_style_follows_next_links(live, control):
    control.settings(live_list_style="paged_body", page_size=4)
    first = live.get("/servers").json
    assert [server["id"] for server in first["servers"]] == ACME_IDS[:4]
    assert first["next"].startswith("http://") and first["next"].endswith("/v1/servers?page=2")
    second = live.get(first["next"]).json
    assert [server["id"] for server in second["servers"]] == ACME_IDS[4:]
    assert second["next"] is None
    assert control.counters()["requests"]["owner-control"]["live GET /servers"] == 2


def test_link_header_style(live, control):
    control.settings(live_list_style="link_header", page_size=5)
    reply = live.get("/servers")
    assert [server["id"] for server in reply.json] == ACME_IDS[:5]
    match = re.fullmatch(r'<(http://[^>]+)>; rel="next"', reply.headers["Link"])
    assert match
    last = live.get(match.group(1))
    assert [server["id"] for server in last.json] == ACME_IDS[5:]
    assert last.headers.get("Link") is None


def test_per_page_query_and_bad_page(live, control):
    control.settings(live_list_style="paged_body")
    body = live.get("/servers?per_page=2&page=3").json
    assert [server["id"] for server in body["servers"]] == ACME_IDS[4:]
    assert body["next"] is None
    assert live.get("/servers?page=0").status == 400
    assert live.get("/servers?page=x").status == 400
    assert live.get("/servers?page=9").json == {"servers": [], "next": None}


def test_planned_list_is_paged_under_data(planned, control):
    control.settings(page_size=4)
    first = planned.get("/servers").json
    assert set(first) == {"data", "next"}
    assert [server["id"] for server in first["data"]] == ACME_IDS[:4]
    assert "/planned/v1/servers?page=2" in first["next"]
    second = planned.get(first["next"]).json
    assert [server["id"] for server in second["data"]] == ACME_IDS[4:]
    assert second["next"] is None


def test_planned_one_server_and_players(planned):
    server = planned.get("/servers/mc-01").json
    assert_server_shape(server)
    players = planned.get("/servers/mc-01/players").json
    assert players["current"] == 3 and len(players["players"]) == 3


@pytest.mark.parametrize(
    "method, path",
    [
        ("GET", "/servers/mc-01/metrics"),
        ("GET", "/servers/mc-01/console"),
        ("GET", "/servers/mc-01/resources"),
        ("POST", "/servers/mc-01/control"),
    ],
)
def test_planned_variant_lacks_live_only_endpoints(planned, still, method, path):
    reply = planned.request(method, path, body={"action": "stop"} if method == "POST" else None)
    assert reply.status == 404
    assert still.counters()["actions_queued"] == {}


def test_planned_restart_takes_no_body_and_is_applied_at_checkin(planned, live, still):
    before = live.server("mc-01")["uptime_seconds"]
    reply = planned.request("POST", "/servers/mc-01/restart", content_type=None)
    assert reply.status == 202
    assert reply.json["action"] == "restart" and reply.json["state"] == "queued"
    assert planned.get("/servers/mc-01").json["status"] == "online"
    still.checkin("mc-01")
    assert planned.get("/servers/mc-01").json["status"] == "stopping"
    still.advance(STOP_TIME + BOOT_TIME + 1)
    after = planned.get("/servers/mc-01").json
    assert after["status"] == "online" and after["uptime_seconds"] < before
    counters = still.counters()
    assert counters["requests"]["owner-control"]["planned POST /servers/{id}/restart"] == 1
    assert counters["restarts"] == {"mc-01": 1}


def test_players_subresource(live):
    body = live.get("/servers/mc-01/players").json
    assert body["server_id"] == "mc-01"
    assert (body["current"], body["max"]) == (3, 20)
    assert len(body["players"]) == 3
    for player in body["players"]:
        assert set(player) == {"name", "online_seconds", "joined_at"}


def test_metrics_subresource(live):
    body = live.get("/servers/rust-01/metrics").json
    assert body["server_id"] == "rust-01" and body["interval_seconds"] == 60
    assert len(body["samples"]) == 10
    assert set(body["samples"][-1]) == {"timestamp", "cpu", "memory_mb", "players"}
    assert body["samples"][-1]["players"] == 5
    assert body["samples"][0]["timestamp"] < body["samples"][-1]["timestamp"]


def test_console_subresource_shows_what_the_agent_did(live, still):
    assert live.get("/servers/mc-01/console").json == {"server_id": "mc-01", "lines": []}
    live.control("mc-01", "stop")
    still.checkin("mc-01")
    still.advance(STOP_TIME + 1)
    lines = live.get("/servers/mc-01/console").json["lines"]
    messages = [line["message"] for line in lines]
    assert any("received action stop" in message for message in messages)
    assert messages[-1] == "Server stopped"
    assert set(lines[0]) == {"timestamp", "level", "message"}


def test_resources_subresource(live):
    body = live.get("/servers/ark-01/resources").json
    assert set(body) == {"server_id", "cpu", "memory", "disk", "network"}
    assert body["memory"]["used_mb"] <= body["memory"]["limit_mb"]
    assert body["disk"]["used_mb"] <= body["disk"]["limit_mb"]
    assert live.get("/servers/mc-03/resources").json["cpu"]["usage_percent"] == 0.0
