# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The /_emulator control interface and its Python client."""

from __future__ import annotations

import pytest

from emulator.controls import is_loopback
from emulator.harness import EmulatorControlError

from .apiclient import OWNER, REVOKED

COUNTER_KEYS = {
    "requests_total",
    "requests",
    "responses",
    "rate_limited",
    "posts",
    "actions_queued",
    "actions_applied",
    "restarts",
}


def test_counters_have_exactly_the_documented_keys(control):
    counters = control.counters()
    assert set(counters) == COUNTER_KEYS
    assert counters["requests_total"] == 0


def test_state_describes_accounts_tokens_servers(control):
    state = control.state()
    assert state["accounts"]["acme"] == {
        "plan": "team",
        "paid": True,
        "users": {"olivia": "owner", "adam": "admin", "mia": "member"},
    }
    tokens = {token["name"]: token for token in state["tokens"]}
    assert tokens["revoked"]["revoked"] is True
    assert tokens["owner-read"]["scope"] == "read-only"
    assert {server["id"] for server in state["servers"]} >= {"mc-01", "pro-01", "starter-01", "unpaid-01"}
    mc01 = next(server for server in state["servers"] if server["id"] == "mc-01")
    assert mc01["agent"]["connected"] is True
    assert mc01["agent"]["checkin_interval"] == 0.2
    assert mc01["boot_time"] == 0.3 and mc01["stop_time"] == 0.2


def test_reset_restores_the_fixture(live, control):
    control.revoke_token("owner-read")
    control.create_token("acme", "olivia", "extra", "control", value="gp-extra")
    control.set_account("acme", paid=False)
    control.set_server("mc-01", status="crashed")
    control.disconnect("mc-02")
    control.settings(live_list_style="envelope", rate_limits={"team": 1})
    control.add_fault(kind="status", status=500, method="POST")
    live.control("mc-03", "start")
    control.reset()
    assert live.get("/servers", token="gp-test-owner-read").status == 200
    assert live.get("/servers", token="gp-extra").status == 401
    assert isinstance(live.get("/servers").json, list)
    assert live.server("mc-01")["status"] == "online"
    assert control.server("mc-02")["agent"]["connected"] is True
    assert control.server("mc-03")["pending_actions"] == []
    assert control.faults() == []
    assert control.settings()["rate_limits"] == {"pro": 120, "team": 600}
    assert control.counters()["requests_total"] == 4  # the four reads after the reset


def test_create_token_with_a_new_user_and_role(live, control):
    value = control.create_token("acme", "nick", "nick-token", "control", role="member")
    assert live.get("/servers", token=value).status == 200
    assert live.control("mc-01", "stop", token=value).status == 403
    value = control.create_token("acme", "ada", "ada-token", "control", role="admin")
    assert live.control("mc-01", "stop", token=value).status == 202


def test_create_token_conflicts_and_unknowns(control):
    with pytest.raises(EmulatorControlError) as duplicate:
        control.create_token("acme", "olivia", "owner-control", "control")
    assert duplicate.value.status == 409
    with pytest.raises(EmulatorControlError) as same_value:
        control.create_token("acme", "olivia", "fresh", "control", value="gp-test-owner-control")
    assert same_value.value.status == 409
    with pytest.raises(EmulatorControlError) as no_user:
        control.create_token("acme", "nobody", "fresh", "control")
    assert no_user.value.status == 400
    with pytest.raises(EmulatorControlError) as no_account:
        control.create_token("nowhere", "olivia", "fresh", "control")
    assert no_account.value.status == 404
    with pytest.raises(EmulatorControlError) as bad_scope:
        control.create_token("acme", "olivia", "fresh", "admin")
    assert bad_scope.value.status == 400


def test_revoke_the_fixture_revoked_token_stays_revoked_and_unknown_is_404(live, control):
    control.revoke_token("revoked")
    assert live.get("/servers", token=REVOKED).status == 401
    with pytest.raises(EmulatorControlError) as unknown:
        control.revoke_token("no-such-token")
    assert unknown.value.status == 404


@pytest.mark.parametrize(
    "fields",
    [
        {"colour": "blue"},
        {"status": ""},
        {"players": {"current": 30}},
        {"players": -1},
        {"checkin_interval": 0},
        {"boot_time": -1},
        {"fast_restart": "yes"},
        {"connected": 1},
    ],
)
def test_set_server_refuses_bad_fields_and_changes_nothing(live, control, fields):
    with pytest.raises(EmulatorControlError) as refused:
        control.set_server("mc-01", **fields)
    assert refused.value.status == 400
    server = live.server("mc-01")
    assert server["status"] == "online" and server["players"] == {"current": 3, "max": 20}


def test_set_server_on_an_unknown_server_is_404(control):
    with pytest.raises(EmulatorControlError) as unknown:
        control.set_server("nope", status="online")
    assert unknown.value.status == 404


def test_set_server_timing_and_connection(live, control):
    view = control.set_server("mc-03", boot_time=40.0, stop_time=10.0, checkin_interval=1e6, checkin_jitter=0)
    assert (view["boot_time"], view["stop_time"], view["agent"]["checkin_interval"]) == (40.0, 10.0, 1e6)
    live.control("mc-03", "start")
    control.checkin("mc-03")
    control.advance(30)
    assert live.server("mc-03")["status"] == "starting"
    control.advance(10.01)
    assert live.server("mc-03")["status"] == "online"
    assert control.set_server("mc-03", connected=False)["agent"]["connected"] is False
    assert control.set_server("mc-03", connected=True)["agent"]["connected"] is True


def test_fleet_wide_timing_through_settings(live, control):
    control.settings(checkin_interval=1e6, checkin_jitter=0, boot_time=5, stop_time=5)
    state = control.state()
    assert {server["agent"]["checkin_interval"] for server in state["servers"]} == {1e6}
    assert {server["boot_time"] for server in state["servers"]} == {5.0}
    live.control("mc-01", "stop")
    control.advance(100)
    assert live.server("mc-01")["status"] == "online"


@pytest.mark.parametrize(
    "settings",
    [
        {"live_list_style": "xml"},
        {"page_size": 0},
        {"retry_after": "no"},
        {"rate_limits": {"starter": 5}},
        {"rate_limits": {"team": 0}},
        {"rate_limit_window": "calendar"},
        {"bogus": 1},
    ],
)
def test_bad_settings_are_refused_and_change_nothing(control, settings):
    before = control.settings()
    with pytest.raises(EmulatorControlError) as refused:
        control.settings(**settings)
    assert refused.value.status == 400
    assert control.settings() == before


def test_advance_moves_the_clock_forward_only(live, control):
    before = live.server("mc-02")["uptime_seconds"]
    control.advance(3600)
    assert live.server("mc-02")["uptime_seconds"] >= before + 3600
    with pytest.raises(EmulatorControlError) as refused:
        control.advance(-1)
    assert refused.value.status == 400


def test_set_account_refuses_unknown_plans(control):
    with pytest.raises(EmulatorControlError) as refused:
        control.set_account("acme", plan="enterprise")
    assert refused.value.status == 400
    with pytest.raises(EmulatorControlError) as unknown:
        control.set_account("nowhere", paid=True)
    assert unknown.value.status == 404


def test_control_requests_are_not_counted(live, control):
    control.state()
    control.settings()
    live.get("/servers", token=OWNER)
    assert control.counters()["requests_total"] == 1


@pytest.mark.parametrize(
    "address, expected",
    [
        ("127.0.0.1", True),
        ("127.0.0.2", True),
        ("::1", True),
        ("10.0.0.5", False),
        ("192.168.1.2", False),
        ("", False),
        (None, False),
    ],
)
def test_controls_only_answer_loopback_peers(address, expected):
    assert is_loopback(address) is expected
