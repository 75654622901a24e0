# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Section 3: actions are queued, applied at the agent's next check-in, deferred while it is away, applied once."""

from __future__ import annotations

import pytest

from emulator.harness import EmulatorControlError

from .apiclient import BOOT_TIME, STOP_TIME, wait_until

# Real seconds a loaded machine may spend between two steps of a test; uptimes may grow by that much.
REAL_TIME_SLACK = 10


def statuses_after_advancing(live, control, server_id, steps):
    seen = []
    for seconds in steps:
        control.advance(seconds)
        seen.append(live.server(server_id)["status"])
    return seen


def test_queued_action_waits_for_the_next_checkin(live, still):
    assert live.control("mc-01", "stop").status == 202
    still.advance(30)  # time passes, but no check-in is due with the huge interval
    assert live.server("mc-01")["status"] == "online"
    counters = still.counters()
    assert counters["actions_queued"] == {"mc-01": 1}
    assert counters["actions_applied"] == {}
    applied = still.checkin("mc-01")["applied"]
    assert [action["action"] for action in applied] == ["stop"]
    assert live.server("mc-01")["status"] == "stopping"
    assert still.counters()["actions_applied"] == {"mc-01": 1}


def test_action_is_applied_by_the_agent_on_its_own_rhythm(live, still):
    still.set_server("mc-01", checkin_interval=50, checkin_jitter=0)
    assert live.control("mc-01", "stop").status == 202
    still.advance(20)
    assert live.server("mc-01")["status"] == "online"
    still.advance(30.01)  # the check-in due 50 s after the interval was set has happened
    assert live.server("mc-01")["status"] in ("stopping", "offline")
    assert still.counters()["actions_applied"] == {"mc-01": 1}


def test_agents_check_in_by_themselves_in_real_time(live, control):
    # Default fixture: check-in every 0.2 s (+/- 0.05), boot 0.3 s, stop 0.2 s. Poll, bounded.
    before = live.server("mc-02")["uptime_seconds"]
    assert live.control("mc-02", "restart").status == 202
    wait_until(lambda: control.counters()["actions_applied"].get("mc-02") == 1, timeout=10)
    server = wait_until(
        lambda: (s := live.server("mc-02"))["status"] == "online" and s["uptime_seconds"] < before and s, timeout=10
    )
    assert server["uptime_seconds"] < before


def test_start_takes_an_offline_server_through_starting_to_online(live, still):
    server = live.server("mc-03")
    assert (server["status"], server["uptime_seconds"], server["cpu"], server["memory_mb"]) == ("offline", 0, 0.0, 0)
    assert live.control("mc-03", "start").status == 202
    still.checkin("mc-03")
    starting = live.server("mc-03")
    assert starting["status"] == "starting"
    assert starting["uptime_seconds"] == 0
    still.advance(BOOT_TIME + 0.01)
    online = live.server("mc-03")
    assert online["status"] == "online"
    assert online["cpu"] > 0 and online["memory_mb"] > 0
    still.advance(100)
    assert 100 <= live.server("mc-03")["uptime_seconds"] <= 100 + REAL_TIME_SLACK


def test_stop_takes_an_online_server_through_stopping_to_offline_and_players_leave(live, still):
    server = live.server("mc-01")
    assert server["players"] == {"current": 3, "max": 20}
    assert live.control("mc-01", "stop").status == 202
    still.checkin("mc-01")
    stopping = live.server("mc-01")
    assert stopping["status"] == "stopping"
    assert stopping["players"]["current"] == 0
    assert live.get("/servers/mc-01/players").json["players"] == []
    still.advance(STOP_TIME + 0.01)
    offline = live.server("mc-01")
    assert offline["status"] == "offline"
    assert (offline["uptime_seconds"], offline["cpu"], offline["memory_mb"], offline["players"]["current"]) == (
        0,
        0.0,
        0,
        0,
    )


def test_restart_goes_through_both_transitions_and_resets_uptime(live, still):
    before = live.server("rust-01")
    assert before["uptime_seconds"] >= 172800
    assert live.control("rust-01", "restart").status == 202
    still.checkin("rust-01")
    seen = [live.server("rust-01")["status"]]
    seen += statuses_after_advancing(live, still, "rust-01", [STOP_TIME + 0.01, BOOT_TIME + 0.01])
    assert seen == ["stopping", "starting", "online"]
    after = live.server("rust-01")
    assert after["uptime_seconds"] < REAL_TIME_SLACK
    assert after["players"]["current"] == 0
    assert still.counters()["restarts"] == {"rust-01": 1}


def test_start_on_online_and_stop_on_offline_change_nothing(live, still):
    online_before = live.server("mc-02")
    assert live.control("mc-02", "start").status == 202
    assert live.control("mc-03", "stop").status == 202
    still.checkin("mc-02")
    still.checkin("mc-03")
    still.advance(1)
    online_after = live.server("mc-02")
    assert online_after["status"] == "online"
    assert online_after["uptime_seconds"] >= online_before["uptime_seconds"]
    assert live.server("mc-03")["status"] == "offline"
    counters = still.counters()
    assert counters["actions_applied"] == {"mc-02": 1, "mc-03": 1}
    assert counters["restarts"] == {}
    assert [a["effect"] for a in still.server("mc-02")["history"]] == ["noop"]
    assert [a["effect"] for a in still.server("mc-03")["history"]] == ["noop"]


def test_post_to_an_offline_server_is_accepted_and_deferred(live, still):
    assert live.control("rust-02", "restart").status == 202
    assert live.server("rust-02")["status"] == "offline"
    still.checkin("rust-02")
    still.advance(BOOT_TIME + 1)
    assert live.server("rust-02")["status"] == "online"


def test_disconnected_agent_defers_then_applies_exactly_once_on_reconnect(live, still):
    before = live.server("mc-01")["uptime_seconds"]
    still.disconnect("mc-01")
    assert live.control("mc-01", "restart").status == 202
    still.set_server("mc-01", checkin_interval=0.1)  # would check in constantly if it were connected
    still.advance(60)
    server = live.server("mc-01")
    assert server["status"] == "online"
    assert server["uptime_seconds"] >= before + 60
    assert still.counters()["actions_applied"] == {}
    assert still.server("mc-01")["agent"]["connected"] is False
    reconnected = still.reconnect("mc-01")
    assert reconnected["agent"]["connected"] is True
    assert reconnected["pending_actions"] == []
    still.advance(STOP_TIME + BOOT_TIME + 10)  # hundreds of check-ins later
    server = live.server("mc-01")
    assert server["status"] == "online"
    assert server["uptime_seconds"] < 10 + REAL_TIME_SLACK
    counters = still.counters()
    assert counters["actions_applied"] == {"mc-01": 1}
    assert counters["restarts"] == {"mc-01": 1}


def test_forced_checkin_of_a_disconnected_agent_is_refused(still):
    still.disconnect("mc-01")
    with pytest.raises(EmulatorControlError) as refused:
        still.checkin("mc-01")
    assert refused.value.status == 409


def test_an_action_is_never_applied_twice(live, still):
    assert live.control("mc-01", "restart").status == 202
    for _attempt in range(5):
        still.checkin("mc-01")
        still.advance(1)
    counters = still.counters()
    assert counters["actions_applied"] == {"mc-01": 1}
    assert counters["restarts"] == {"mc-01": 1}
    assert len(still.server("mc-01")["history"]) == 1


def test_actions_queued_together_apply_in_order_at_one_checkin(live, still):
    assert live.control("mc-01", "stop").status == 202
    assert live.control("mc-01", "start").status == 202
    applied = still.checkin("mc-01")["applied"]
    assert [action["action"] for action in applied] == ["stop", "start"]
    still.advance(STOP_TIME + BOOT_TIME + 1)
    assert live.server("mc-01")["status"] == "online"
    assert still.counters()["actions_applied"] == {"mc-01": 2}


def test_stop_during_boot_and_start_during_stop(live, still):
    assert live.control("mc-03", "start").status == 202
    still.checkin("mc-03")
    assert live.control("mc-03", "stop").status == 202
    still.checkin("mc-03")
    assert live.server("mc-03")["status"] == "stopping"
    assert live.control("mc-03", "start").status == 202
    still.checkin("mc-03")
    assert statuses_after_advancing(live, still, "mc-03", [STOP_TIME + 0.01, BOOT_TIME + 0.01]) == [
        "starting",
        "online",
    ]


def test_fast_restart_keeps_status_online_and_only_resets_uptime(live, still):
    still.settings(fast_restart=True)
    before = live.server("mc-01")
    assert live.control("mc-01", "restart").status == 202
    still.checkin("mc-01")
    seen = [live.server("mc-01")["status"]]
    seen += statuses_after_advancing(live, still, "mc-01", [0.1, 0.2, 0.3])
    assert seen == ["online"] * 4
    after = live.server("mc-01")
    assert after["uptime_seconds"] < before["uptime_seconds"]
    assert after["uptime_seconds"] <= 1 + REAL_TIME_SLACK
    assert still.counters()["restarts"] == {"mc-01": 1}
    assert [a["effect"] for a in still.server("mc-01")["history"]] == ["fast_restart"]


def test_fast_restart_per_server(live, still):
    still.set_server("mc-02", fast_restart=True)
    for server_id in ("mc-01", "mc-02"):
        assert live.control(server_id, "restart").status == 202
        still.checkin(server_id)
    assert live.server("mc-01")["status"] == "stopping"
    assert live.server("mc-02")["status"] == "online"


def test_unknown_statuses_set_through_the_controls(live, still):
    still.set_server("mc-01", status="installing")
    server = live.server("mc-01")
    assert server["status"] == "installing"
    assert server["players"]["current"] == 0
    still.set_server("mc-02", status="crashed")
    assert live.control("mc-02", "start").status == 202
    still.checkin("mc-02")
    still.advance(BOOT_TIME + 0.01)
    assert live.server("mc-02")["status"] == "online"


def test_players_and_figures_set_through_the_controls(live, still):
    still.set_server("mc-02", players={"current": 7, "max": 12}, cpu=42.5, memory_mb=3000, uptime_seconds=50)
    server = live.server("mc-02")
    assert server["players"] == {"current": 7, "max": 12}
    assert (server["cpu"], server["memory_mb"]) == (42.5, 3000)
    assert 50 <= server["uptime_seconds"] <= 50 + REAL_TIME_SLACK
    assert len(live.get("/servers/mc-02/players").json["players"]) == 7


def test_player_churn_is_off_by_default_and_can_be_switched_on(live, still):
    counts = set()
    for _attempt in range(10):
        still.advance(5)
        counts.add(live.server("mc-01")["players"]["current"])
    assert counts == {3}
    still.set_server("mc-01", player_churn=True)
    for _attempt in range(20):
        still.advance(5)
        current = live.server("mc-01")["players"]["current"]
        assert 0 <= current <= 20
        counts.add(current)
    assert len(counts) > 2


def test_cpu_and_memory_stay_plausible(live, still):
    for _attempt in range(5):
        still.advance(7)
        server = live.server("rust-01")
        assert 0 < server["cpu"] < 100
        assert 1024 < server["memory_mb"] < 32768
