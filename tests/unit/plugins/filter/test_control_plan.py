# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The control_plan filter: server_control's decision on one read, with the edges the roles used to get wrong."""

from __future__ import annotations

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.gamepanel.panel.plugins.filter.control_plan import control_plan


def server(status="online", uptime=7200, players=0):
    record = {"id": "mc-01", "name": "Survival", "status": status, "uptime_seconds": uptime}
    if players is not None:
        record["players"] = {"current": players, "max": 20}
    return record


def test_an_action_to_send_has_no_reason_and_shows_the_read():
    assert control_plan(server(uptime=7200, players=2), "restarted", min_uptime=600) == {
        "action": "restart",
        "reason": None,
        "status": "online",
        "uptime": 7200,
        "players": 2,
    }


@pytest.mark.parametrize("state, status", [("started", "online"), ("stopped", "offline"), ("stopped", "stopped")])
def test_a_server_in_the_state_needs_nothing(state, status):
    plan = control_plan(server(status=status), state)
    assert (plan["action"], plan["reason"]) == (None, "in_state")


@pytest.mark.parametrize(
    "uptime, action, reason",
    [
        (599, None, "recently_restarted"),
        (600, "restart", None),  # exactly min_uptime: due (the maintenance role used to leave it alone)
        (601, "restart", None),
    ],
)
def test_min_uptime_counts_a_recent_restart_and_restarts_at_the_threshold(uptime, action, reason):
    plan = control_plan(server(uptime=uptime), "restarted", min_uptime=600)
    assert (plan["action"], plan["reason"]) == (action, reason)


def test_a_stopped_server_has_no_restart_to_count_whatever_its_uptime():
    # a restart of an offline server starts it; only only_if_status keeps a restart job off it
    assert control_plan(server(status="offline", uptime=0), "restarted", min_uptime=600)["action"] == "restart"
    plan = control_plan(server(status="offline", uptime=0), "restarted", min_uptime=600, only_if_status=["online"])
    assert (plan["action"], plan["reason"]) == (None, "status_not_allowed")


@pytest.mark.parametrize(
    "players, reason",
    [(0, None), (1, None), (2, "busy"), (None, "busy")],
    ids=["empty", "at the limit", "over the limit", "unknown count is busy"],
)
def test_max_players_gate_counts_an_unknown_player_count_as_busy(players, reason):
    plan = control_plan(server(players=players), "restarted", max_players=1)
    assert plan["reason"] == reason
    assert plan["action"] == (None if reason else "restart")
    assert plan["players"] == players


def test_a_player_count_that_is_not_a_number_is_unknown():
    record = dict(server(), players={"current": "3"})
    plan = control_plan(record, "stopped", max_players=5)
    assert (plan["action"], plan["reason"], plan["players"]) == (None, "busy", None)


def test_the_player_gate_is_for_stops_and_restarts_only():
    assert control_plan(server(status="offline", players=9), "started", max_players=0)["action"] == "start"
    # a server in a stopped status counts as empty
    assert control_plan(server(status="stopped", players=9), "restarted", max_players=0)["action"] == "restart"


def test_the_status_gate_comes_before_the_player_gate():
    plan = control_plan(server(status="maintenance", players=9), "restarted", max_players=0, only_if_status=["online"])
    assert plan["reason"] == "status_not_allowed"


def test_only_if_status_and_stopped_statuses_are_the_modules():
    assert (
        control_plan(server(status="maintenance"), "started", only_if_status=["offline", "stopped"])["reason"]
        == "status_not_allowed"
    )
    assert control_plan(server(status="offline"), "started", only_if_status=["offline", "stopped"])["action"] == "start"
    assert control_plan(server(status="suspended"), "stopped", stopped_statuses=["suspended"])["reason"] == "in_state"
    assert control_plan(server(status="suspended"), "stopped")["action"] == "stop"


def test_numbers_given_as_text_are_read_as_the_module_reads_them():
    plan = control_plan(server(uptime=100, players=3), "restarted", min_uptime="600", max_players="0")
    assert plan["reason"] == "recently_restarted"
    assert (
        control_plan(server(uptime=700, players=3), "restarted", min_uptime="600", max_players="0")["reason"] == "busy"
    )


def test_an_empty_record_is_a_server_with_no_status():
    plan = control_plan({}, "restarted", min_uptime=600, only_if_status=["online"])
    assert plan == {"action": None, "reason": "status_not_allowed", "status": None, "uptime": None, "players": None}


@pytest.mark.parametrize(
    "record, kwargs, message",
    [
        (None, {"state": "restarted"}, "expects a server record"),
        ([server()], {"state": "restarted"}, "expects a server record"),
        (server(), {"state": "rebooted"}, "state must be one of started, stopped, restarted"),
        (server(), {"state": "restarted", "min_uptime": -1}, "min_uptime must not be negative"),
        (server(), {"state": "restarted", "max_players": "a few"}, "max_players must be a whole number"),
        (server(), {"state": "restarted", "max_players": True}, "max_players must be a whole number"),
        (server(), {"state": "started", "only_if_status": []}, "only_if_status must name at least one status"),
        (server(), {"state": "started", "only_if_status": "online"}, "only_if_status must be a list"),
        (server(), {"state": "stopped", "stopped_statuses": []}, "stopped_statuses must name at least one status"),
    ],
)
def test_bad_input_is_refused_clearly(record, kwargs, message):
    with pytest.raises(AnsibleFilterError, match=message):
        control_plan(record, **kwargs)
