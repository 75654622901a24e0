# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet jobs' outcome of each host (job_decisions.outcomes, behind fleet_outcomes), from its line of the job's
server_control task: the words each host is given, in its job's variables, and an action an earlier run had queued
(server_control's ``pending``) named as such."""

from __future__ import annotations

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.gamepanel.panel.plugins.filter.fleet_outcomes import FilterModule
from ansible_collections.gamepanel.panel.plugins.filter.fleet_summary import fleet_summary

fleet_outcomes = FilterModule().filters()["fleet_outcomes"]

ROLLING = {
    "min_uptime": 600,
    "max_players": 0,
    "drain_timeout": 0,
    "on_busy": "skip",
    "wait_timeout": 300,
    "poll_interval": 5,
}
MAINTENANCE = {
    "restart_after": 5000,
    "max_players": 3,
    "drain_timeout": 0,
    "start_stopped": False,
    "stopped_statuses": ["offline", "stopped"],
    "wait_timeout": 300,
    "poll_interval": 5,
}
ENSURE = {"stopped_statuses": ["offline", "stopped"], "wait_timeout": 300, "poll_interval": 5}
ENTRY = {"id": "mc-02", "action": "restart", "queued_at": 1795000000.5, "state": "queued", "panel": "x"}


def line(host="mc-01", **found):
    """A server's line of a server_control ``hosts`` task, as the engine writes it (_engine/server.py: as_line)."""
    values = {
        "id": host,
        "host": host,
        "account": "default",
        "name": host,
        "changed": False,
        "action": None,
        "converged": None,
        "skipped_reason": None,
        "pending": None,
        "status": "online",
        "uptime_seconds": 7200,
        "players": 0,
        "held_by": None,
        "counted": False,
        "in_state": False,
        "drained": False,
        "msg": None,
        "failed": False,
    }
    values.update(found)
    return values


def task(*lines, **more):
    """The registered result of the job's control task with these lines."""
    result = {"changed": any(found["changed"] for found in lines), "servers": list(lines), "elapsed": 4.5}
    result.update(more)
    return result


def one(job, settings, found, check_mode=False, **more):
    """The outcome of the host of ``found`` (one line)."""
    return fleet_outcomes(task(found), job, settings, [found["host"]], check_mode, **more)[found["host"]]["outcome"]


@pytest.mark.parametrize(
    "found, result, reason",
    [
        (
            line(status="offline", held_by="status", skipped_reason="mc-01 has status offline, not ..."),
            "skipped",
            "status offline when the batch was read: not online, left alone",
        ),
        (
            line(uptime_seconds=90, in_state=True),
            "unchanged",
            "up for 90 s, below rolling_restart_min_uptime (600 s): counts as restarted already",
        ),
        (
            line(players=5, held_by="players", skipped_reason="mc-01 has 5 players online, more than max_players"),
            "skipped",
            "5 players online, more than rolling_restart_max_players (0): left alone",
        ),
        (
            line(players=None, held_by="players", skipped_reason="mc-01 reports no player count"),
            "skipped",
            "the server reports no player count, so rolling_restart_max_players (0) cannot be confirmed: left alone",
        ),
        (line(changed=True, action="restart", converged=True), "restarted", "restarted, uptime reset confirmed"),
    ],
)
def test_rolling_restart_words_each_line_in_its_variables(found, result, reason):
    outcome = one("rolling_restart", ROLLING, found)
    assert (outcome["result"], outcome["reason"]) == (result, reason)
    # only a host the task acted on took the task's time
    assert outcome["elapsed"] == (4.5 if result == "restarted" else 0.0)


def test_a_drained_server_keeps_the_tasks_own_words():
    waited = "mc-01 has 5 players online, more than max_players (0) after waiting drain_timeout (60 s)."
    found = line(players=5, held_by="players", drained=True, skipped_reason=waited)
    assert one("rolling_restart", dict(ROLLING, drain_timeout=60), found)["reason"] == waited
    stopped = "mc-01 has status offline, not one of only_if_status (online): no restart sent."
    found = line(status="offline", held_by="status", drained=True, skipped_reason=stopped)
    assert one("rolling_restart", dict(ROLLING, drain_timeout=60), found)["reason"] == stopped


def test_check_mode_says_what_would_be_done():
    found = line(changed=True, action="restart")
    assert one("rolling_restart", ROLLING, found, check_mode=True)["reason"] == "would be restarted (check mode)"
    assert one("ensure_online", ENSURE, found, check_mode=True)["reason"] == "would be started (check mode)"


def test_maintenance_words_and_outside_the_window():
    assert one("maintenance", MAINTENANCE, line(players=4, held_by="players", skipped_reason="x"))["reason"] == (
        "4 players online, more than maintenance_max_players (3): left alone"
    )
    assert one("maintenance", MAINTENANCE, line(uptime_seconds=100, in_state=True))["reason"] == (
        "up for 100 s, below maintenance_restart_after (5000 s): not due"
    )
    stopped = line(status="offline", held_by="status", skipped_reason="x")
    assert one("maintenance", MAINTENANCE, stopped)["reason"] == (
        "status offline: maintenance_start_stopped is false, left alone"
    )
    held = line(status="maintenance", held_by="status", skipped_reason="x")
    assert (
        one("maintenance", MAINTENANCE, held)["reason"] == "status maintenance: neither online nor stopped, left alone"
    )
    window = {"inside": False, "reason": "outside maintenance_window 23:00-03:00 Europe/Berlin"}
    found = fleet_outcomes({"skipped": True}, "maintenance", MAINTENANCE, ["a", "b"], window=window)
    assert [found[host]["outcome"] for host in "ab"] == [
        {"result": "skipped", "reason": window["reason"], "elapsed": 0.0, "pending": None}
    ] * 2


def test_maintenance_starts_come_from_its_second_task_after_the_restarts_canary():
    settings = dict(MAINTENANCE, start_stopped=True, canary=1)
    restart = line("a", changed=True, action="restart", converged=True)
    stopped = line("b", status="offline", held_by="status", skipped_reason="x")
    canary = {"ids": ["a"], "hosts": ["a"], "confirmed": True, "msg": "The canary (a) came back."}
    restarts = task(restart, stopped, canary=canary)
    starts = task(line("b", changed=True, action="start", converged=True))
    found = fleet_outcomes(restarts, "maintenance", settings, ["a", "b"], starts=starts)
    assert found["a"]["outcome"]["result"] == "restarted" and found["a"]["outcome"]["canary"] == canary["msg"]
    assert found["b"]["outcome"]["reason"] == "started, online confirmed"
    assert found["a"]["jobs"]["maintenance"]["canary_sent"] and found["b"]["jobs"]["maintenance"]["canary_sent"]
    # the restarts' canary did not come back: the starts were not sent, and their hosts say why
    lost = task(line("a", failed=True, msg="timed out"), stopped, canary=dict(canary, confirmed=False))
    found = fleet_outcomes(lost, "maintenance", settings, ["a", "b"], starts={"skipped": True})
    assert found["b"]["outcome"]["reason"] == "Not sent: the canary (a) did not come back, so nothing else was sent."
    assert found["a"]["outcome"]["result"] == "failed"


def test_ensure_online():
    assert one("ensure_online", ENSURE, line(in_state=True))["reason"] == "online already"
    held = line(status="maintenance", held_by="status", skipped_reason="x")
    assert one("ensure_online", ENSURE, held)["reason"] == "status maintenance: not a stopped status, left alone"
    assert one("ensure_online", ENSURE, line(changed=True, converged=True))["result"] == "started"


def test_an_action_already_pending_is_said_and_kept():
    outcome = one("rolling_restart", ROLLING, line(pending=ENTRY))
    assert outcome["result"] == "unchanged" and outcome["pending"]["state"] == "queued"
    assert outcome["reason"].startswith("already pending: the restart queued at 2026-")
    applied = one("rolling_restart", ROLLING, line(pending=ENTRY, converged=True))
    assert applied["result"] == "restarted" and applied["reason"].startswith("restarted, uptime reset confirmed: ")


def test_a_restart_the_ledger_holds_done_counts_and_is_not_pending():
    outcome = one("rolling_restart", ROLLING, line(pending=dict(ENTRY, state="done"), counted=True))
    assert outcome["result"] == "unchanged" and outcome["pending"] is None
    assert outcome["reason"].startswith("counts as restarted already: the restart queued at 2026-")


def test_another_open_action_is_named_but_the_action_was_sent():
    found = line(changed=True, converged=True, pending=dict(ENTRY, action="stop"))
    assert one("rolling_restart", ROLLING, found)["reason"].startswith(
        "restarted, uptime reset confirmed; the ledger still held a stop queued at"
    )


def test_a_failed_line_keeps_what_it_found_pending():
    timed_out = line(failed=True, msg="The restart of srv is queued, not yet applied")
    assert one("rolling_restart", ROLLING, timed_out) == {
        "result": "failed",
        "reason": timed_out["msg"],
        "elapsed": 4.5,
        "pending": None,
    }
    rerun = one("rolling_restart", ROLLING, dict(timed_out, pending=ENTRY))
    assert rerun["pending"]["state"] == "queued" and rerun["reason"].startswith(timed_out["msg"] + " (already pending")


def test_a_host_without_a_server_fails_alone_and_a_task_that_failed_whole_fails_every_host():
    missing = line("not-a-server", id=None, failed=True, msg="no server")
    found = fleet_outcomes(task(missing, line("b", changed=True)), "rolling_restart", ROLLING, ["not-a-server", "b"])
    assert found["not-a-server"]["outcome"]["reason"] == (
        "not-a-server has no gamepanel_id: run this role on hosts of the gamepanel.panel.servers inventory."
    )
    assert found["b"]["outcome"]["result"] == "restarted"
    whole = fleet_outcomes({"failed": True, "msg": "The token was refused."}, "rolling_restart", ROLLING, ["a", "b"])
    assert [whole[host]["outcome"]["reason"] for host in "ab"] == ["The token was refused."] * 2


def test_every_record_says_whether_a_host_of_its_batch_failed():
    missing = line("not-a-server", id=None, failed=True, msg="no server")
    failed = fleet_outcomes(task(missing, line("b", changed=True)), "rolling_restart", ROLLING, ["not-a-server", "b"])
    assert [failed[host]["batch_failed"] for host in ("not-a-server", "b")] == [True, True]
    passed = fleet_outcomes(task(line("a", changed=True, converged=True)), "rolling_restart", ROLLING, ["a"])
    assert passed["a"]["batch_failed"] is False
    rescued = fleet_outcomes({}, "rolling_restart", {}, ["a", "b"], failure={"msg": "broke"})
    assert [rescued[host]["batch_failed"] for host in "ab"] == [True, True]
    held = fleet_outcomes({}, "rolling_restart", ROLLING, ["a"], canary_lost_before=["mc-01"])
    outside = fleet_outcomes({}, "maintenance", MAINTENANCE, ["a"], window={"inside": False, "reason": "closed"})
    assert (held["a"]["batch_failed"], outside["a"]["batch_failed"]) == (False, False)


def test_a_step_that_failed_as_a_whole_fails_every_host_given_with_its_message():
    found = fleet_outcomes({}, "rolling_restart", {}, ["web-1"], failure={"msg": "The read broke."})
    assert found["web-1"]["outcome"] == {
        "result": "failed",
        "reason": "The read broke.",
        "elapsed": 0.0,
        "pending": None,
    }
    assert fleet_outcomes({}, "ensure_online", {}, ["x"], failure={})["x"]["outcome"]["reason"] == "the start failed"


def test_every_outcome_keeps_the_run_that_recorded_it_when_given_one():
    control = task(line(changed=True, converged=True), line("mc-02", in_state=True))
    found = fleet_outcomes(control, "rolling_restart", ROLLING, ["mc-01", "mc-02"], run="run-1")
    assert [found[host]["outcome"]["run"] for host in ("mc-01", "mc-02")] == ["run-1", "run-1"]
    failed = fleet_outcomes({}, "rolling_restart", {}, ["web-1"], failure={"msg": "broke"}, run="run-1")
    assert failed["web-1"]["outcome"]["run"] == "run-1"
    assert "run" not in fleet_outcomes(control, "rolling_restart", ROLLING, ["mc-01"])["mc-01"]["outcome"]


def loop_results(records):
    """A registered record loop's results, as the next task reads them: ``{host: record}`` in its items."""
    return [{"item": {"key": host, "value": value}} for host, value in records.items()]


def test_every_record_carries_the_canary_and_the_run_of_each_job_of_its_play_on():
    control = task(line(changed=True, converged=True), canary={"ids": ["mc-01"], "confirmed": True, "msg": "back"})
    # rolling_restart's record of this batch, then ensure_online's, which records after it on the same host
    first = fleet_outcomes(control, "rolling_restart", ROLLING, ["mc-01"], run="r1", play="p")
    assert first["mc-01"]["jobs"] == {"rolling_restart": {"canary_sent": True, "canary_lost": None, "run": "r1"}}
    assert first["mc-01"]["play"] == "p" and first["mc-01"]["outcome"]["run"] == "r1"
    idle = task(line(in_state=True))
    other = fleet_outcomes(idle, "ensure_online", ENSURE, ["mc-01"], run="e1", play="p", beside=loop_results(first))
    assert other["mc-01"]["jobs"] == {
        "rolling_restart": {"canary_sent": True, "canary_lost": None, "run": "r1"},
        "ensure_online": {"canary_sent": False, "canary_lost": None, "run": "e1"},
    }
    # another play's record (an earlier play, also one of the same name in another run) carries nothing on
    stale = fleet_outcomes(
        idle, "ensure_online", ENSURE, ["mc-01"], run="e2", play="q", records_before=[other["mc-01"]]
    )
    assert list(stale["mc-01"]["jobs"]) == ["ensure_online"]
    # the later record wins for the jobs both carry
    older = dict(first["mc-01"], jobs={"rolling_restart": {"canary_sent": False, "canary_lost": None, "run": "r1"}})
    both = fleet_outcomes(
        idle, "ensure_online", ENSURE, ["mc-01"], run="e1", play="p", records_before=[older], beside=loop_results(first)
    )
    assert both["mc-01"]["jobs"]["rolling_restart"]["canary_sent"] is True


def test_a_record_keeps_the_outcomes_other_jobs_of_its_play_recorded_on_its_host_before_it():
    restarted = task(line(changed=True, converged=True), line("mc-02", in_state=True))
    first = fleet_outcomes(restarted, "rolling_restart", ROLLING, ["mc-01", "mc-02"], run="r1", play="p")
    idle = task(line(in_state=True), line("mc-02", in_state=True))
    second = fleet_outcomes(
        idle, "ensure_online", ENSURE, ["mc-01", "mc-02"], run="e1", play="p", beside=loop_results(first)
    )
    assert second["mc-01"]["other_jobs"] == {"rolling_restart": first["mc-01"]["outcome"]}
    assert second["mc-02"]["other_jobs"]["rolling_restart"]["result"] == "unchanged"
    assert second["mc-01"]["outcome"]["run"] == "e1" and "ensure_online" not in second["mc-01"]["other_jobs"]
    # the first job's next batch, with the second's record beside it: each job keeps only the others'
    again = fleet_outcomes(
        restarted, "rolling_restart", ROLLING, ["mc-01"], run="r1", play="p", beside=loop_results(second)
    )
    assert list(again["mc-01"]["other_jobs"]) == ["ensure_online"]
    # a record of another play is nothing to keep
    other_play = fleet_outcomes(
        idle, "ensure_online", ENSURE, ["mc-01"], run="e2", play="q", beside=loop_results(first)
    )
    assert other_play["mc-01"]["other_jobs"] == {}


def test_the_canary_and_the_pace_reach_the_outcomes_and_the_job_remembers_the_canary():
    canary = {"ids": ["mc-01"], "hosts": ["mc-01"], "confirmed": True, "msg": "The canary (mc-01) came back."}
    control = task(
        line(changed=True, converged=True), line("mc-02", in_state=True), canary=canary, pace="paced at 120 a minute"
    )
    found = fleet_outcomes(control, "rolling_restart", ROLLING, ["mc-01", "mc-02"])
    assert found["mc-01"]["outcome"]["canary"] == canary["msg"] and found["mc-01"]["outcome"]["pace"]
    assert "canary" not in found["mc-02"]["outcome"] and "pace" not in found["mc-02"]["outcome"]
    assert found["mc-02"]["jobs"]["rolling_restart"]["canary_sent"] is True
    # a batch that could take none passes it on; one after it knows the job sent it
    idle = task(line(in_state=True), canary={"ids": [], "confirmed": None, "msg": "none"})
    assert (
        fleet_outcomes(idle, "rolling_restart", ROLLING, ["mc-01"])["mc-01"]["jobs"]["rolling_restart"]["canary_sent"]
        is False
    )
    assert fleet_outcomes(idle, "rolling_restart", ROLLING, ["mc-01"], canary_before=True)["mc-01"]["jobs"][
        "rolling_restart"
    ]["canary_sent"]


def test_a_lost_canary_is_remembered_and_ends_the_job_in_the_batches_after_it():
    canary = {"ids": ["mc-01"], "hosts": ["mc-01"], "confirmed": False, "msg": "The canary (mc-01) did not come back."}
    not_sent = "Not sent: the canary (mc-01) did not come back, so nothing else was sent."
    lost = task(line(failed=True, msg="timed out"), line("mc-02", skipped_reason=not_sent), canary=canary)
    found = fleet_outcomes(lost, "rolling_restart", ROLLING, ["mc-01", "mc-02"])
    assert found["mc-01"]["jobs"]["rolling_restart"]["canary_lost"] == ["mc-01"] and found["mc-02"]["jobs"][
        "rolling_restart"
    ]["canary_lost"] == ["mc-01"]
    # a canary that came back, or none at all, leaves nothing lost
    came_back = task(line(changed=True, converged=True), canary=dict(canary, confirmed=True))
    assert (
        fleet_outcomes(came_back, "rolling_restart", ROLLING, ["mc-01"])["mc-01"]["jobs"]["rolling_restart"][
            "canary_lost"
        ]
        is None
    )
    assert (
        fleet_outcomes(task(line(in_state=True)), "rolling_restart", ROLLING, ["mc-01"])["mc-01"]["jobs"][
            "rolling_restart"
        ]["canary_lost"]
        is None
    )
    # a later batch (whose control task did not run) skips every host, and passes the loss on
    later = fleet_outcomes(
        {"skipped": True},
        "rolling_restart",
        ROLLING,
        ["mc-03", "mc-04"],
        canary_before=True,
        canary_lost_before=["mc-01"],
    )
    for host in ("mc-03", "mc-04"):
        assert later[host]["outcome"] == {"result": "skipped", "reason": not_sent, "elapsed": 0.0, "pending": None}
        assert (
            later[host]["jobs"]["rolling_restart"]["canary_lost"] == ["mc-01"]
            and later[host]["jobs"]["rolling_restart"]["canary_sent"] is True
        )
    # the job's failure wins over it (a step that failed says what failed)
    failed = fleet_outcomes({}, "rolling_restart", {}, ["x"], failure={"msg": "boom"}, canary_lost_before=["mc-01"])
    assert failed["x"]["outcome"]["result"] == "failed"


def test_bad_input():
    with pytest.raises(AnsibleFilterError, match="unknown job"):
        fleet_outcomes(task(line()), "reboot_everything", {}, ["mc-01"])


def test_the_summary_names_the_hosts_already_pending():
    hostvars = {
        "mc-01": {
            "gamepanel_outcome": {
                "result": "restarted",
                "reason": "restarted, uptime reset confirmed",
                "elapsed": 1,
                "pending": None,
            }
        },
        "mc-02": {"gamepanel_outcome": one("rolling_restart", ROLLING, line("mc-02", converged=True, pending=ENTRY))},
        "mc-03": {"gamepanel_outcome": {"result": "unchanged", "reason": "old fact, no pending key", "elapsed": 0}},
    }
    summary = fleet_summary(["mc-01", "mc-02", "mc-03"], hostvars, "rolling_restart", ["mc-01", "mc-02", "mc-03"])
    assert summary["pending"] == ["mc-02"]
    assert summary["lines"][0] == "rolling_restart: 3 server(s): 2 restarted, 1 unchanged"
    at = summary["lines"].index("already pending (1): nothing new sent")
    assert summary["lines"][at + 1].startswith("  mc-02: restart queued at 2026-") and summary["lines"][
        at + 1
    ].endswith("(queued)")
    assert fleet_summary(["mc-01"], hostvars)["pending"] == []


class CountedLines(list):
    """A task's lines that count how often they are walked."""

    walks = 0

    def __iter__(self):
        CountedLines.walks += 1
        return super(CountedLines, self).__iter__()


@pytest.mark.parametrize("size", [10, 200])
def test_each_tasks_lines_are_walked_once_whatever_the_batchs_size(size):
    """A batch's hosts each look their line up: walking the lines once per host would walk 10,000 x 10,000 of them in a batch of 10,000."""
    settings = dict(MAINTENANCE, start_stopped=True)
    hosts = ["h%03d" % number for number in range(size)]
    restarts = task(*[line(host, status="offline", held_by="status", skipped_reason="x") for host in hosts])
    starts = task(*[line(host, changed=True, action="start", converged=True) for host in hosts])
    restarts["servers"], starts["servers"] = CountedLines(restarts["servers"]), CountedLines(starts["servers"])
    CountedLines.walks = 0
    found = fleet_outcomes(restarts, "maintenance", settings, hosts, starts=starts)
    assert CountedLines.walks == 2
    assert [found[host]["outcome"]["result"] for host in hosts] == ["started"] * size
