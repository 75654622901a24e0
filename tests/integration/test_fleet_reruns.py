# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Re-running a fleet job after it failed on a deferred host sends nothing new to that host.

For each ready playbook (restart_fleet, maintenance, ensure_online, each running its role), against
the emulator's default fleet, with the agent of one server away:

1. the first run queues the action, the agent does not apply it, the host fails with
   "queued, not yet applied";
2. the re-run, agent still away, sends no POST to that server: server_control finds the action
   in the ledger. A restart queued less than min_uptime ago counts as the restart (the host is
   ``unchanged``, the run passes); a start is waited for again (the host fails again, nothing
   new sent). Either way its outcome carries the ledger entry as ``pending`` and the job's
   summary names it as already pending;
3. the agent comes back (the emulator's clock advanced past stop and boot): exactly one action
   applied, one POST in all;
4. a last run sends nothing and finds the server done.

Each runs twice: with one token throughout, and with the token rotated between the first run and
the re-run (a new token created, the old one revoked, as the panel documents it): the ledger is the
panel's, so the re-runs with the new token see what the old one queued.

Agents and time are driven through the emulator's controls, never by waiting for the clock.
"""

from __future__ import annotations

import pytest

from test_fleet_jobs import INVENTORY, QUEUED_MESSAGE, job, outcomes, summary

SCENARIOS = {
    # ready playbook: (server, its job's variables, summary task, result once done, reason once done)
    # rolling_restart_min_uptime is 600 (default), maintenance_restart_after 5000: both above the minutes
    # between the runs, so the ledger's queued restart counts on the re-run
    "restart_fleet": (
        "mc-02",
        {"rolling_restart_wait_timeout": 2},
        "Summary of the rolling restart",
        "unchanged",
        "below rolling_restart_min_uptime (600 s): counts as restarted already",
    ),
    "maintenance": (
        "mc-02",
        {"maintenance_wait_timeout": 2, "maintenance_restart_after": 5000},
        "Summary of the maintenance",
        "unchanged",
        "below maintenance_restart_after (5000 s): not due",
    ),
    "ensure_online": (
        "mc-03",
        {"ensure_online_wait_timeout": 2},
        "Summary of ensure online",
        "unchanged",
        "online already",
    ),
}
ACTION = {"restart_fleet": "restart", "maintenance": "restart", "ensure_online": "start"}
# the re-run's rc and the host's result: a restart held within min_uptime counts; a start is waited for again
RERUN = {"restart": (0, "unchanged"), "start": (2, "failed")}


@pytest.mark.parametrize("rotated", [False, True], ids=["same-token", "rotated-token"])
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_a_rerun_after_a_deferred_action_sends_it_no_second_time(ansible, emulator, name, rotated):
    server_id, variables, summary_task, done_result, done_reason = SCENARIOS[name]
    control = emulator.control
    later = {}
    control.disconnect(server_id)
    settings = dict(variables, target=server_id)

    first = job(ansible, name, extra_vars=settings, inventory=INVENTORY)
    assert first.rc == 2, first.describe()
    outcome = outcomes(first)[server_id]
    assert outcome["result"] == "failed" and QUEUED_MESSAGE in outcome["reason"], outcome
    assert outcome["pending"] is None  # this run queued it
    assert control.counters()["posts"] == {server_id: 1}
    if rotated:
        later["token"] = control.create_token("acme", "olivia", "rotated-control", "control")
        control.revoke_token("owner-control")

    # The re-run, the agent still away: nothing sent, the host said to be waiting on the earlier action.
    again = job(ansible, name, extra_vars=settings, inventory=INVENTORY, **later)
    rc, result = RERUN[ACTION[name]]
    assert again.rc == rc, again.describe()
    counters = control.counters()
    assert counters["posts"] == {server_id: 1}, counters["posts"]
    assert counters["actions_queued"] == {server_id: 1}
    assert counters["actions_applied"].get(server_id, 0) == 0
    outcome = outcomes(again)[server_id]
    assert outcome["result"] == result, outcome
    if result == "failed":  # the module's message
        assert "Nothing new was sent" in outcome["reason"], outcome
    else:
        assert outcome["reason"].startswith("already pending: the restart queued at ") and outcome["reason"].endswith(
            "by an earlier run (queued); nothing new sent"
        ), outcome
    assert outcome["pending"]["id"] == server_id and outcome["pending"]["action"] == ACTION[name]
    assert outcome["pending"]["state"] == "queued"
    lines = summary(again, summary_task)
    assert "already pending (1): nothing new sent" in lines, lines
    assert any(
        line.startswith("  %s: %s queued at " % (server_id, ACTION[name])) and line.endswith("(queued)")
        for line in lines
    ), lines

    # The agent comes back: it runs the one queued action.
    control.reconnect(server_id)
    control.advance(5)
    counters = control.counters()
    assert control.server(server_id)["status"] == "online"
    assert counters["actions_applied"] == {server_id: 1} and counters["posts"] == {server_id: 1}
    if ACTION[name] == "restart":
        assert counters["restarts"] == {server_id: 1}

    last = job(ansible, name, extra_vars=settings, inventory=INVENTORY, **later)
    assert last.rc == 0, last.describe()
    counters = control.counters()
    assert counters["posts"] == {server_id: 1} and counters["actions_applied"] == {server_id: 1}
    outcome = outcomes(last)[server_id]
    assert outcome["result"] == done_result and done_reason in outcome["reason"], outcome
    assert outcome["pending"] is None
    assert not any(line.startswith("already pending") for line in summary(last, summary_task))


def test_check_mode_says_what_each_job_would_do_and_sends_nothing(ansible, emulator):
    # The outcome of a module run in check mode is worded by the same code as a real one.
    run = job(ansible, "restart_fleet", extra_vars={"target": "mc-02"}, inventory=INVENTORY, check=True)
    assert run.rc == 0, run.describe()
    assert outcomes(run)["mc-02"] == {
        "result": "restarted",
        "reason": "would be restarted (check mode)",
        "elapsed": outcomes(run)["mc-02"]["elapsed"],
        "pending": None,
        "canary": "Check mode: the canary would be mc-02.",
        "pace": "paced at 120 requests a minute (rate_limit)",
        "run": outcomes(run)["mc-02"]["run"],
    }
    assert outcomes(run)["mc-02"]["run"]  # the ansible-playbook run that recorded it
    run = job(ansible, "ensure_online", extra_vars={"target": "mc-03"}, inventory=INVENTORY, check=True)
    assert run.rc == 0, run.describe()
    assert outcomes(run)["mc-03"]["reason"] == "would be started (check mode)"
    assert emulator.control.counters()["posts"] == {}
