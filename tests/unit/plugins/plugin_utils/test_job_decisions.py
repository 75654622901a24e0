# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet jobs' decision and outcome (job_decisions' decide_host and outcome, behind fleet_plans and fleet_outcomes):
the words each host is given,
and an action an earlier run had queued (server_control's ``pending``) named as such."""

from __future__ import annotations

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.gamepanel.panel.plugins.plugin_utils.job_decisions import outcome as fleet_outcome
from ansible_collections.gamepanel.panel.plugins.plugin_utils.job_decisions import decide_host as fleet_plan
from ansible_collections.gamepanel.panel.plugins.filter.fleet_summary import fleet_summary

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


def server(status="online", uptime=7200, players=0):
    record = {"id": "mc-01", "status": status, "uptime_seconds": uptime}
    if players is not None:
        record["players"] = {"current": players, "max": 20}
    return record


@pytest.mark.parametrize(
    "record, inventory_status, result, reason",
    [
        (
            server(status="offline"),
            "offline",
            "skipped",
            "status offline when the inventory was read: not online, left alone",
        ),
        ({}, "online", "skipped", "the panel no longer lists this server: left alone"),
        (
            server(status="offline"),
            "online",
            "skipped",
            "status offline now (online when the inventory was read): not online, left alone",
        ),
        (
            server(uptime=90.7),
            "online",
            "unchanged",
            "up for 90 s, below rolling_restart_min_uptime (600 s): counts as restarted already",
        ),
        (
            server(players=5),
            "online",
            "skipped",
            "5 players online, more than rolling_restart_max_players (0): left alone",
        ),
        (
            server(players=None),
            "online",
            "skipped",
            "the server reports no player count, so rolling_restart_max_players (0) cannot be confirmed: left alone",
        ),
    ],
)
def test_rolling_restart_leaves_alone_with_a_reason(record, inventory_status, result, reason):
    plan = fleet_plan(record, "rolling_restart", ROLLING, inventory_status)
    assert plan["act"] is False and plan["control"] is None
    assert (plan["result"], plan["reason"]) == (result, reason)


def test_rolling_restart_acts_with_the_module_options():
    plan = fleet_plan(server(), "rolling_restart", dict(ROLLING, max_players=None), "online")
    assert plan["act"] is True
    assert plan["control"] == {
        "state": "restarted",
        "only_if_status": ["online"],
        "min_uptime": 600,
        "drain_timeout": 0,
        "on_busy": "skip",
        "wait_timeout": 300,
        "poll_interval": 5,
    }
    # a drain lets the module decide on busy servers
    assert fleet_plan(server(players=5), "rolling_restart", dict(ROLLING, drain_timeout=60), "online")["act"] is True


def test_maintenance_outside_the_window_and_the_statuses():
    window = {"inside": False, "reason": "outside maintenance_window 23:00-03:00 Europe/Berlin: nothing sent"}
    plan = fleet_plan({}, "maintenance", MAINTENANCE, "online", window)
    assert (plan["result"], plan["reason"]) == ("skipped", window["reason"])
    inside = {"inside": True}
    assert (
        fleet_plan(server(uptime=3600), "maintenance", MAINTENANCE, None, inside)["reason"]
        == "up for 3600 s, below maintenance_restart_after (5000 s): not due"
    )
    assert (
        fleet_plan(server(status="maintenance"), "maintenance", MAINTENANCE, None, inside)["reason"]
        == "status maintenance: neither online nor stopped, left alone"
    )
    assert (
        fleet_plan(server(status="offline"), "maintenance", MAINTENANCE, None, inside)["reason"]
        == "status offline: maintenance_start_stopped is false, left alone"
    )
    started = fleet_plan(server(status="offline"), "maintenance", dict(MAINTENANCE, start_stopped="True"), None, inside)
    assert started["control"]["state"] == "started" and "min_uptime" not in started["control"]
    restarted = fleet_plan(server(players=3), "maintenance", MAINTENANCE, None, inside)
    assert restarted["control"]["state"] == "restarted" and restarted["control"]["min_uptime"] == 5000


def test_ensure_online():
    assert fleet_plan(server(), "ensure_online", ENSURE)["reason"] == "online already"
    assert (
        fleet_plan(server(status="maintenance"), "ensure_online", ENSURE)["reason"]
        == "status maintenance: not a stopped status, left alone"
    )
    assert fleet_plan(server(status="stopped"), "ensure_online", ENSURE)["control"]["state"] == "started"


def acting(job="rolling_restart", state="restarted"):
    return {"job": job, "act": True, "result": None, "reason": None, "control": {"state": state, "min_uptime": 600}}


def test_outcomes_of_a_module_run():
    assert fleet_outcome(acting(), {"changed": True, "elapsed": "2.5"}) == {
        "result": "restarted",
        "reason": "restarted, uptime reset confirmed",
        "elapsed": 2.5,
        "pending": None,
    }
    assert fleet_outcome(acting(), {"changed": True}, True)["reason"] == "would be restarted (check mode)"
    assert (
        fleet_outcome(acting(), {"changed": False, "server": {"uptime_seconds": 40}})["reason"]
        == "up for 40 s, below rolling_restart_min_uptime (600 s): counts as restarted already"
    )
    skipped = fleet_outcome(acting(), {"changed": False, "skipped_reason": "srv has status offline"})
    assert (skipped["result"], skipped["reason"]) == ("skipped", "srv has status offline")
    assert fleet_outcome(acting("ensure_online", "started"), {"changed": True})["reason"] == "started, online confirmed"


def test_a_left_alone_plan_is_its_own_outcome():
    plan = fleet_plan(server(players=5), "rolling_restart", ROLLING, "online")
    assert fleet_outcome(plan, {"skipped": True, "changed": False}) == {
        "result": "skipped",
        "reason": plan["reason"],
        "elapsed": 0.0,
        "pending": None,
    }


def test_an_action_already_pending_is_said_and_kept():
    confirmed = fleet_outcome(acting(), {"changed": False, "converged": True, "elapsed": 3, "pending": ENTRY})
    assert confirmed["result"] == "restarted"
    assert confirmed["reason"].startswith("restarted, uptime reset confirmed: already pending: the restart queued at ")
    assert "nothing new sent" in confirmed["reason"]
    assert confirmed["pending"] == {"id": "mc-02", "action": "restart", "queued_at": 1795000000.5, "state": "queued"}
    waiting = fleet_outcome(acting(), {"changed": False, "converged": None, "pending": ENTRY})
    assert waiting["result"] == "unchanged" and waiting["reason"].startswith("already pending: the restart queued at ")
    assert waiting["pending"]["state"] == "queued"


def test_a_restart_the_ledger_holds_done_counts_and_is_not_pending():
    done = fleet_outcome(acting(), {"changed": False, "converged": None, "pending": dict(ENTRY, state="done")})
    assert done["result"] == "unchanged" and done["pending"] is None
    assert (
        done["reason"].startswith("counts as restarted already: the restart queued at ")
        and "nothing new sent" in done["reason"]
    )


def test_another_open_action_is_named_but_the_action_was_sent():
    sent = fleet_outcome(acting(), {"changed": True, "converged": True, "pending": dict(ENTRY, action="stop")})
    assert sent["result"] == "restarted" and sent["pending"] is None
    assert sent["reason"].startswith("restarted, uptime reset confirmed; the ledger still held a stop queued at ")


def test_failures():
    failed = fleet_outcome({"job": "ensure_online"}, {"elapsed": 1}, failed=True)
    assert failed == {"result": "failed", "reason": "the start failed", "elapsed": 1.0, "pending": None}
    deferred = fleet_outcome(
        {"job": "rolling_restart"}, {"msg": "queued, not yet applied", "pending": ENTRY}, failed=True
    )
    assert deferred["result"] == "failed" and deferred["pending"]["action"] == "restart"
    assert deferred["reason"].startswith("queued, not yet applied (already pending: the restart queued at ")
    followed = fleet_outcome(
        {"job": "rolling_restart"}, {"msg": "A restart ... Nothing new was sent.", "pending": ENTRY}, failed=True
    )
    assert followed["reason"] == "A restart ... Nothing new was sent." and followed["pending"]["state"] == "queued"


def test_bad_input():
    with pytest.raises(AnsibleFilterError, match="unknown job"):
        fleet_plan({}, "reboot_everything")
    with pytest.raises(AnsibleFilterError, match="server record"):
        fleet_plan("mc-01", "ensure_online")
    with pytest.raises(AnsibleFilterError, match="plan"):
        fleet_outcome("mc-01")


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
        "mc-02": {
            "gamepanel_outcome": fleet_outcome(acting(), {"changed": False, "converged": True, "pending": ENTRY})
        },
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


# -- a failed line ------------------------------------------------------------------------------------


def test_a_failed_line_keeps_what_it_found_pending():
    timed_out = {"failed": True, "msg": "The restart of srv is queued, not yet applied", "pending": None, "elapsed": 2}
    first_run = fleet_outcome({"job": "rolling_restart"}, timed_out, failed=True)
    assert first_run == {"result": "failed", "reason": timed_out["msg"], "elapsed": 2.0, "pending": None}
    rerun = fleet_outcome({"job": "rolling_restart"}, dict(timed_out, pending=ENTRY), failed=True)
    assert rerun["pending"]["state"] == "queued" and rerun["reason"].startswith(timed_out["msg"] + " (already pending")


def test_the_plan_picks_the_hosts_record_from_the_whole_fleet_read():
    fleet = [dict(server(), id="mc-00"), server(uptime=7200), dict(server(), id="mc-02")]
    picked = fleet_plan(fleet, "rolling_restart", ROLLING, "online", server_id="mc-01")
    assert picked == fleet_plan(server(uptime=7200), "rolling_restart", ROLLING, "online")
    gone = fleet_plan(fleet, "rolling_restart", ROLLING, "online", server_id="mc-09")
    assert (gone["act"], gone["result"]) == (False, "skipped") and "no longer lists" in gone["reason"]


def test_a_host_without_a_server_id_is_failed_by_its_plan():
    stray = fleet_plan([server()], "ensure_online", ENSURE, None, server_id="", host="web-1")
    assert (stray["act"], stray["result"], stray["job"]) == (False, "failed", "ensure_online")
    assert stray["reason"].startswith("web-1 has no gamepanel_id")
    assert fleet_outcome(stray, {"skipped": True})["result"] == "failed"


def test_a_batch_is_decided_in_one_call_each_host_as_fleet_plan_would():
    from ansible_collections.gamepanel.panel.plugins.filter.fleet_plans import fleet_plans

    fleet = [server(uptime=7200), dict(server(status="offline", uptime=0), id="mc-02")]
    hostvars = {
        "survival": {"gamepanel_id": "mc-01", "gamepanel_status": "online"},
        "creative": {"gamepanel_id": "mc-02", "gamepanel_status": "offline"},
        "gone": {"gamepanel_id": "mc-09", "gamepanel_status": "online"},
        "web-1": {},
    }
    decided = fleet_plans(fleet, "rolling_restart", ROLLING, hostvars, list(hostvars))
    assert decided["survival"] == dict(fleet_plan(fleet[0], "rolling_restart", ROLLING, "online"), server_id="mc-01")
    assert decided["creative"] == dict(fleet_plan(fleet[1], "rolling_restart", ROLLING, "offline"), server_id="mc-02")
    assert decided["gone"]["result"] == "skipped" and "no longer lists" in decided["gone"]["reason"]
    assert decided["web-1"]["result"] == "failed" and decided["web-1"]["reason"].startswith("web-1 has no gamepanel_id")
    with pytest.raises(AnsibleFilterError, match="fleet read"):
        fleet_plans({"servers": fleet}, "rolling_restart", ROLLING, hostvars, ["survival"])


def test_a_failed_fleet_read_fails_every_host_of_the_batch_with_its_message():
    from ansible_collections.gamepanel.panel.plugins.filter.fleet_groups import fleet_groups
    from ansible_collections.gamepanel.panel.plugins.filter.fleet_plans import fleet_plans

    hostvars = {"survival": {"gamepanel_id": "mc-01"}, "creative": {"gamepanel_id": "mc-02"}}
    refused = "The panel refused GET /servers (HTTP 403)."
    decided = fleet_plans([], "maintenance", {}, hostvars, sorted(hostvars), read_failure=refused)
    assert sorted(decided) == ["creative", "survival"]
    for host, server_id in (("survival", "mc-01"), ("creative", "mc-02")):
        assert (decided[host]["act"], decided[host]["result"], decided[host]["job"]) == (False, "failed", "maintenance")
        assert decided[host]["reason"] == "The fleet read before the batch failed: " + refused
        assert decided[host]["server_id"] == server_id
    assert fleet_groups(decided) == []  # nothing is sent on a read that failed


def test_a_batch_is_grouped_into_one_hosts_task_per_kind_of_action_restarts_first():
    from ansible_collections.gamepanel.panel.plugins.filter.fleet_groups import fleet_groups
    from ansible_collections.gamepanel.panel.plugins.filter.fleet_plans import fleet_plans

    fleet = [
        server(uptime=90000),
        dict(server(uptime=90000), id="mc-02"),
        dict(server(status="offline", uptime=0), id="mc-03"),
        dict(server(status="maintenance", uptime=0), id="mc-04"),
    ]
    hostvars = dict(("h%d" % number, {"gamepanel_id": "mc-0%d" % number}) for number in range(1, 5))
    settings = {"restart_after": 3600, "max_players": 5, "start_stopped": True}
    decided = fleet_plans(fleet, "maintenance", settings, hostvars, sorted(hostvars))
    grouped = fleet_groups(decided)
    assert [(group["control"]["state"], group["hosts"]) for group in grouped] == [
        ("restarted", ["h1", "h2"]),
        ("started", ["h3"]),
    ]
    assert [group["label"] for group in grouped] == ["restarted: 2 server(s)", "started: 1 server(s)"]
    with pytest.raises(AnsibleFilterError, match="fleet_groups expects"):
        fleet_groups(["not", "plans"])


def test_every_outcome_of_a_batch_comes_from_its_server_line():
    from ansible_collections.gamepanel.panel.plugins.filter.fleet_outcomes import fleet_outcomes
    from ansible_collections.gamepanel.panel.plugins.filter.fleet_plans import fleet_plans

    fleet = [server(uptime=90000), dict(server(uptime=90000), id="mc-02"), dict(server(uptime=10), id="mc-03")]
    hostvars = dict(
        ("h%d" % number, {"gamepanel_id": "mc-0%d" % number, "gamepanel_status": "online"}) for number in (1, 2, 3)
    )
    decided = fleet_plans(fleet, "rolling_restart", ROLLING, hostvars, sorted(hostvars))
    line = dict(
        changed=True, skipped_reason=None, pending=None, converged=True, msg=None, failed=False, status="online"
    )
    control = {
        "results": [
            {
                "item": {"hosts": ["h1", "h2"]},
                "elapsed": 9.5,
                "servers": [
                    dict(line, id="mc-01", host="h1", uptime_seconds=3),
                    dict(
                        line,
                        id="mc-02",
                        host="h2",
                        failed=True,
                        converged=False,
                        msg="queued, not yet applied: the agent",
                    ),
                ],
                "ledger": {"h1": [{"id": "mc-01", "action": "restart"}], "h2": []},
            }
        ]
    }
    found = fleet_outcomes(decided, control)
    assert found["h1"]["outcome"]["result"] == "restarted" and found["h1"]["outcome"]["elapsed"] == 9.5
    assert found["h1"]["ledger"] == [{"id": "mc-01", "action": "restart"}]
    assert found["h2"]["outcome"]["result"] == "failed" and "not yet applied" in found["h2"]["outcome"]["reason"]
    assert found["h3"]["outcome"]["result"] == "unchanged" and found["h3"]["ledger"] is None
    # a task that failed as a whole (no servers) fails every host of its group with its message
    whole = fleet_outcomes(decided, {"results": [{"item": {"hosts": ["h1"]}, "msg": "The panel refused the token."}]})
    assert whole["h1"]["outcome"] == dict(
        whole["h1"]["outcome"], result="failed", reason="The panel refused the token."
    )


def test_a_step_that_failed_as_a_whole_fails_every_host_given_with_its_message():
    from ansible_collections.gamepanel.panel.plugins.filter.fleet_outcomes import fleet_outcomes

    # the role's rescue: no plan may exist yet, only the job's name for the host
    found = fleet_outcomes({"web-1": {"job": "rolling_restart"}}, failure={"msg": "The read broke.", "elapsed": 2})
    assert found == {
        "web-1": {
            "outcome": {"result": "failed", "reason": "The read broke.", "elapsed": 2.0, "pending": None},
            "ledger": None,
        }
    }


def test_the_canary_setting_reaches_the_task_and_the_outcomes_name_the_canary_and_the_pace_for_the_summary():
    from ansible_collections.gamepanel.panel.plugins.filter.fleet_groups import fleet_groups
    from ansible_collections.gamepanel.panel.plugins.filter.fleet_outcomes import fleet_outcomes
    from ansible_collections.gamepanel.panel.plugins.filter.fleet_plans import fleet_plans

    fleet = [server(uptime=90000), dict(server(uptime=90000), id="mc-02")]
    hostvars = dict(
        ("h%d" % number, {"gamepanel_id": "mc-0%d" % number, "gamepanel_status": "online"}) for number in (1, 2)
    )
    decided = fleet_plans(fleet, "rolling_restart", dict(ROLLING, canary="1"), hostvars, sorted(hostvars))
    assert [group["control"]["canary"] for group in fleet_groups(decided)] == ["1"]
    said = "The canary (mc-01) did not come back: nothing else was sent."
    not_sent = "Not sent: the canary (mc-01) did not come back, so nothing else was sent."
    line = dict(pending=None, status="online", uptime_seconds=90000, converged=None)
    control = {
        "results": [
            {
                "item": {"hosts": ["h1", "h2"]},
                "servers": [
                    dict(
                        line,
                        id="mc-01",
                        host="h1",
                        changed=True,
                        skipped_reason=None,
                        converged=False,
                        msg="timed out",
                        failed=True,
                    ),
                    dict(line, id="mc-02", host="h2", changed=False, skipped_reason=not_sent, msg=None, failed=False),
                ],
                "canary": {"ids": ["mc-01"], "hosts": ["h1"], "confirmed": False, "msg": said},
                "pace": "paced at 120 requests a minute (rate_limit)",
            }
        ]
    }
    found = fleet_outcomes(decided, control)
    assert found["h1"]["outcome"]["canary"] == said and found["h1"]["outcome"]["result"] == "failed"
    assert "canary" not in found["h2"]["outcome"]
    assert (found["h2"]["outcome"]["result"], found["h2"]["outcome"]["reason"]) == ("skipped", not_sent)
    hostvars_after = dict((host, {"gamepanel_outcome": found[host]["outcome"]}) for host in found)
    lines = fleet_summary(["h1", "h2"], hostvars_after, "rolling_restart")["lines"]
    assert lines[:3] == [
        "rolling_restart: 2 server(s): 1 failed, 1 skipped",
        said,
        "Requests paced at 120 requests a minute (rate_limit).",
    ]
