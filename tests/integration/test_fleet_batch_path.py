# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet jobs send and confirm a batch with one server_control task (hosts), not one task per host.

Each role runs one run_once server_control task with ``hosts`` over the batch: it reads the fleet,
decides, sends every action and confirms them with list reads; per host only the outcome is
recorded. The outcomes keep their meaning: confirmed, deferred (failed, nothing sent again), or a
lost answer that a read shows applied. Agents and faults are driven through the emulator's controls.
"""

from __future__ import annotations

from test_fleet_jobs import INVENTORY, QUEUED_MESSAGE, job, outcomes, posts, role_results

CONTROL_TASK = "Restart and wait for the uptime reset"
ONLINE = ["ark-01", "mc-01", "mc-02", "rust-01"]  # the default fleet's online servers


def server_lines(run):
    """Every server line of the control task's runs, by id, and the number of hosts that ran the task."""
    lines, runners = {}, 0
    for _host, result in role_results(run, CONTROL_TASK):
        if result.get("skipped"):
            continue
        runners += 1
        for line in result.get("servers", []):
            lines[line["id"]] = line
    return lines, runners


def test_a_batch_is_sent_and_confirmed_by_one_task(ansible, emulator):
    control = emulator.control
    control.disconnect("mc-02")  # its agent is away: the restart stays queued
    run = job(
        ansible,
        "restart_fleet",
        extra_vars={
            "rolling_restart_min_uptime": 0,
            "rolling_restart_wait_timeout": 3,
            "rolling_restart_max_players": None,  # mc-01 and rust-01 have players on
            "batch": 10,
        },
        inventory=INVENTORY,
        env={"ANSIBLE_FORKS": "2"},
    )
    assert run.rc == 2, run.describe()
    lines, runners = server_lines(run)
    assert runners == 1  # one batch, one task whatever its size: its canary (ark-01) first, then the rest
    assert sorted(server_id for server_id, line in lines.items() if line["changed"]) == ONLINE
    assert lines["mc-02"]["failed"] is True and QUEUED_MESSAGE in lines["mc-02"]["msg"]
    assert lines["mc-02"]["changed"] is True and lines["mc-02"]["converged"] is False
    found = outcomes(run)
    assert found["mc-02"]["result"] == "failed" and QUEUED_MESSAGE in found["mc-02"]["reason"]
    assert {host: found[host]["result"] for host in ONLINE if host != "mc-02"} == dict.fromkeys(
        ["ark-01", "mc-01", "rust-01"], "restarted"
    )
    counters = control.counters()
    assert posts(counters) == dict.fromkeys(ONLINE, 1)
    assert counters["restarts"] == dict.fromkeys(["ark-01", "mc-01", "rust-01"], 1)


def test_a_lost_answer_to_a_queued_restart_is_confirmed_by_a_read(ansible, emulator):
    control = emulator.control
    # the panel queues mc-01's restart, then the answer is lost on the way back
    control.add_fault(kind="drop", method="POST", phase="after", path="mc-01", count=1, rate=1.0)
    run = job(
        ansible,
        "restart_fleet",
        extra_vars={
            "target": "mc-01",
            "rolling_restart_min_uptime": 0,
            "rolling_restart_wait_timeout": 30,
            "rolling_restart_max_players": None,  # mc-01 has players on
        },
        inventory=INVENTORY,
    )
    assert run.rc == 0, run.describe()
    lines, _runners = server_lines(run)
    assert (lines["mc-01"]["changed"], lines["mc-01"]["converged"]) == (True, True)
    assert outcomes(run)["mc-01"]["result"] == "restarted"
    counters = control.counters()
    assert counters["posts"]["mc-01"] == 1 and counters["restarts"] == {"mc-01": 1}


def test_a_batch_with_nothing_to_do_sends_nothing(ansible, emulator):
    # just restarted (uptime below min_uptime), stopped, offline: the one task reads, sends and confirms nothing
    run = job(ansible, "restart_fleet", extra_vars={"rolling_restart_min_uptime": 10**9}, inventory=INVENTORY)
    assert run.rc == 0, run.describe()
    lines, runners = server_lines(run)
    assert runners == 1 and not any(line["changed"] for line in lines.values())
    assert posts(emulator.control.counters()) == {}
    assert {outcome["result"] for outcome in outcomes(run).values()} == {"unchanged", "skipped"}
