# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet jobs queue a batch at once, then confirm it together.

Each role's first server_control task queues (wait=false) on every host of the batch; the
second (confirm_only) waits for the outcomes. So the queueing task never waits (its results
carry converged=null, a host whose agent is away included), only hosts left unconfirmed reach the
confirming task, and the outcomes keep their meaning: confirmed, deferred (failed, nothing sent
again), or a lost answer the confirming task resolves. Agents and faults are driven through the
emulator's controls.
"""

from __future__ import annotations

from test_fleet_jobs import INVENTORY, QUEUED_MESSAGE, job, outcomes, posts, role_results

QUEUE = "Restart and wait for the uptime reset"
CONFIRM = "Confirm the uptime resets of the batch"
ONLINE = ["ark-01", "mc-01", "mc-02", "rust-01"]  # the default fleet's online servers


def test_a_batch_is_queued_before_any_host_waits_and_confirmed_together(ansible, emulator):
    control = emulator.control
    control.disconnect("mc-02")  # its agent is away: the restart stays queued
    run = job(
        ansible,
        "restart_fleet",
        extra_vars={"rolling_restart_min_uptime": 0, "rolling_restart_wait_timeout": 3, "batch": 10},
        inventory=INVENTORY,
        env={"ANSIBLE_FORKS": "2"},
    )
    assert run.rc == 2, run.describe()
    queued = dict(role_results(run, QUEUE))
    assert sorted(host for host, result in queued.items() if not result.get("skipped")) == ONLINE
    for host in ONLINE:
        # nothing waited in the queueing task, not even for the server whose agent is away
        assert queued[host]["action"] == "restart" and queued[host]["converged"] is None, queued[host]
        assert queued[host]["unconfirmed"] is True
    confirmed = {host: result for host, result in role_results(run, CONFIRM) if not result.get("skipped")}
    assert sorted(confirmed) == ONLINE
    assert confirmed["mc-02"]["failed"] is True and QUEUED_MESSAGE in confirmed["mc-02"]["msg"]
    assert confirmed["mc-02"]["changed"] is False  # the confirming task sends nothing
    found = outcomes(run)
    assert found["mc-02"]["result"] == "failed" and found["mc-02"]["pending"] is None
    assert {host: found[host]["result"] for host in ONLINE if host != "mc-02"} == dict.fromkeys(
        ["ark-01", "mc-01", "rust-01"], "restarted"
    )
    counters = control.counters()
    assert posts(counters) == dict.fromkeys(ONLINE, 1)
    assert counters["restarts"] == dict.fromkeys(["ark-01", "mc-01", "rust-01"], 1)


def test_a_lost_answer_to_a_queued_restart_is_confirmed_by_the_second_task(ansible, emulator):
    control = emulator.control
    # the panel queues mc-01's restart, then the answer is lost on the way back
    control.add_fault(kind="drop", method="POST", phase="after", path="mc-01", count=1, rate=1.0)
    run = job(
        ansible,
        "restart_fleet",
        extra_vars={"target": "mc-01", "rolling_restart_min_uptime": 0, "rolling_restart_wait_timeout": 30},
        inventory=INVENTORY,
    )
    assert run.rc == 0, run.describe()
    [(_host, queued)] = role_results(run, QUEUE)
    assert queued["unconfirmed"] is True and "may already be queued" in queued["msg"], queued
    [(_host, confirmed)] = role_results(run, CONFIRM)
    assert confirmed["converged"] is True and confirmed["changed"] is False
    assert outcomes(run)["mc-01"]["result"] == "restarted"
    counters = control.counters()
    assert counters["posts"]["mc-01"] == 1 and counters["restarts"] == {"mc-01": 1}


def test_hosts_with_nothing_to_confirm_skip_the_confirming_task(ansible, emulator):
    # just restarted (uptime below min_uptime), stopped, offline: nothing queued, nothing confirmed
    run = job(ansible, "restart_fleet", extra_vars={"rolling_restart_min_uptime": 10**9}, inventory=INVENTORY)
    assert run.rc == 0, run.describe()
    assert all(result.get("skipped") for _host, result in role_results(run, CONFIRM))
    assert posts(emulator.control.counters()) == {}


def test_check_mode_queues_nothing_and_confirms_nothing(ansible, emulator):
    run = job(ansible, "restart_fleet", extra_vars={"rolling_restart_min_uptime": 0}, inventory=INVENTORY, check=True)
    assert run.rc == 0, run.describe()
    assert all(result.get("skipped") for _host, result in role_results(run, CONFIRM))
    assert {host: outcome["result"] for host, outcome in outcomes(run).items() if host in ONLINE} == dict.fromkeys(
        ONLINE, "restarted"
    )
    assert posts(emulator.control.counters()) == {}
