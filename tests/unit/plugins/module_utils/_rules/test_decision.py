# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""decision.decide: one read, the request and the ledger's entries in, a Plan out (no client, no clock)."""

from __future__ import annotations

import pytest

from ansible_collections.gamepanel.panel.plugins.module_utils._rules import decision
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.request import ControlRequest
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.entry_states import (
    DONE,
    MAY_BE_QUEUED,
    QUEUED,
    SENDING,
)

from panel_fakes import server

NOW = 1_700_000_000.0


def entry(action, state, age=60.0, server_id="mc-01"):
    return {"id": server_id, "action": action, "state": state, "queued_at": NOW - age, "before": {}}


@pytest.mark.parametrize(
    "state, status, action",
    [
        ("started", "online", None),
        ("started", "offline", "start"),
        ("started", "installing", "start"),
        ("stopped", "stopped", None),
        ("stopped", "online", "stop"),
        ("restarted", "online", "restart"),
        ("restarted", "offline", "restart"),
    ],
)
def test_the_action_follows_the_read(state, status, action):
    plan = decision.decide(ControlRequest(state), server(status=status, players=0), [], NOW)
    assert plan.action == action
    assert plan.verdict == (decision.ALREADY if action is None else decision.SEND)


def test_min_uptime_counts_a_fresh_online_server_as_restarted_but_not_an_offline_one():
    request = ControlRequest("restarted", min_uptime=600)
    assert decision.decide(request, server(uptime=120), [], NOW).verdict == decision.ALREADY
    assert decision.decide(request, server(status="offline", uptime=0), [], NOW).verdict == decision.SEND


@pytest.mark.parametrize("state", [QUEUED, DONE])
def test_a_restart_the_ledger_holds_within_min_uptime_is_the_restart(state):
    recent = entry("restart", state, age=100)
    plan = decision.decide(ControlRequest("restarted", min_uptime=600), server(uptime=86400), [recent], NOW)
    assert plan == decision.Plan(decision.COUNTED, None, recent, None, ())


def test_a_restart_older_than_min_uptime_counts_for_nothing():
    old = entry("restart", DONE, age=700)
    plan = decision.decide(ControlRequest("restarted", min_uptime=600), server(uptime=86400), [old], NOW)
    assert plan.verdict == decision.SEND


@pytest.mark.parametrize("state", [SENDING, QUEUED, MAY_BE_QUEUED])
def test_an_open_entry_for_the_same_action_is_followed_not_sent_again(state):
    standing = entry("restart", state)
    plan = decision.decide(ControlRequest("restarted"), server(), [standing], NOW)
    assert (plan.verdict, plan.action, plan.entry) == (decision.FOLLOW, "restart", standing)


def test_an_open_entry_is_followed_even_where_a_gate_would_hold_the_action():
    standing = entry("restart", QUEUED)
    plan = decision.decide(ControlRequest("restarted", max_players=0), server(players=9), [standing], NOW)
    assert plan.verdict == decision.FOLLOW


def test_ignore_pending_sends_despite_open_and_recent_entries():
    entries = [entry("restart", QUEUED), entry("restart", DONE, age=10)]
    request = ControlRequest("restarted", min_uptime=600, ignore_pending=True)
    assert decision.decide(request, server(), entries, NOW).verdict == decision.SEND


def test_only_if_status_holds_an_action_on_another_status():
    plan = decision.decide(ControlRequest("restarted", only_if_status=["online"]), server(status="offline"), [], NOW)
    assert (plan.verdict, plan.action, plan.held_by) == (decision.HELD, "restart", decision.HELD_BY_STATUS)


@pytest.mark.parametrize("players, verdict", [(0, decision.SEND), (1, decision.HELD), (None, decision.HELD)])
def test_max_players_holds_a_restart_of_a_busy_or_uncounted_server(players, verdict):
    plan = decision.decide(ControlRequest("restarted", max_players=0), server(players=players), [], NOW)
    assert plan.verdict == verdict
    assert plan.held_by == (decision.HELD_BY_PLAYERS if verdict == decision.HELD else None)


def test_max_players_never_holds_a_start():
    plan = decision.decide(ControlRequest("started", max_players=0), server(status="offline", players=9), [], NOW)
    assert plan.verdict == decision.SEND


def test_open_entries_of_other_actions_are_named_not_obeyed():
    stop = entry("stop", QUEUED)
    plan = decision.decide(ControlRequest("restarted"), server(), [stop, entry("start", DONE)], NOW)
    assert (plan.verdict, plan.others) == (decision.SEND, (stop,))


def test_the_filter_view_agrees_with_the_plan():
    """decide_on_read (what the control_plan filter reports) and decide agree when the ledger is empty."""
    cases = [
        (ControlRequest("restarted", max_players=0), server(players=2)),
        (ControlRequest("restarted", only_if_status=["online"]), server(status="maintenance")),
        (ControlRequest("stopped"), server(status="offline")),
        (ControlRequest("started"), server(status="stopped")),
    ]
    for request, read in cases:
        plan = decision.decide(request, read, [], NOW)
        assert decision.decide_on_read(request, read) == (plan.action, plan.held_by)
