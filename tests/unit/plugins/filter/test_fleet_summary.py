# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet_summary filter: counts and per-result host lines from gamepanel_outcome facts."""

from __future__ import annotations

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.gamepanel.panel.plugins.filter.fleet_summary import fleet_summary


def outcome(result, reason, elapsed=0):
    return {"gamepanel_outcome": {"result": result, "reason": reason, "elapsed": elapsed}}


HOSTVARS = {
    "a": outcome("restarted", "restarted, uptime reset confirmed", "1.25"),
    "b": outcome("skipped", "status offline: left alone"),
    "c": outcome("failed", "The restart of c is queued, not yet applied", 3.0),
    "d": {},
}


def test_counts_and_lines_per_result():
    summary = fleet_summary(["a", "b", "c", "d"], HOSTVARS, "rolling_restart", ["b", "c"])
    assert summary["lines"] == [
        "rolling_restart: 4 server(s): 1 failed, 1 skipped, 1 restarted",
        "failed (1):",
        "  c: The restart of c is queued, not yet applied [3.0 s]",
        "skipped (1):",
        "  b: status offline: left alone",
        "restarted (1):",
        "  a: restarted, uptime reset confirmed [1.2 s]",
        "not reached (1): d",
        "The rollout stops here: a batch had failures (max_fail_percentage).",
    ]
    assert summary["counts"] == {
        "failed": 1,
        "skipped": 1,
        "restarted": 1,
        "started": 0,
        "unchanged": 0,
        "not_reached": 1,
    }
    assert summary["complete"] is False
    assert summary["batch_failed"] == ["c"]


def test_complete_when_every_host_has_an_outcome():
    summary = fleet_summary(["a", "b"], HOSTVARS, "ensure_online", ["a", "b"])
    assert summary["complete"] is True and summary["batch_failed"] == []
    assert "not reached" not in "\n".join(summary["lines"])


def test_the_hosts_after_the_batch_are_not_reached_whatever_an_earlier_run_left_on_them():
    # "d" holds an outcome from an earlier run (a fact cache): the batch "a", "b" has not reached it yet
    hostvars = dict(HOSTVARS, c=outcome("failed", "timed out"), d=outcome("restarted", "yesterday's restart"))
    summary = fleet_summary(["a", "b", "c", "d"], hostvars, "rolling_restart", ["b", "c"])
    assert summary["lines"][0] == "rolling_restart: 4 server(s): 1 failed, 1 skipped, 1 restarted"
    assert summary["lines"][-2:] == [
        "not reached (1): d",
        "The rollout stops here: a batch had failures (max_fail_percentage).",
    ]
    assert summary["counts"]["not_reached"] == 1 and summary["complete"] is False
    # the last batch reaches every host
    assert fleet_summary(["a", "b", "c", "d"], hostvars, "rolling_restart", ["c", "d"])["complete"] is True


def test_given_its_run_a_summary_counts_no_outcome_another_run_left_on_a_host_it_did_not_reach():
    # "a" failed before the job in this run (a task of the play): it holds yesterday's outcome, from a fact cache
    hostvars = {
        "a": {"gamepanel_outcome": dict(outcome("restarted", "yesterday")["gamepanel_outcome"], run="yesterday")},
        "b": {"gamepanel_outcome": dict(outcome("restarted", "today")["gamepanel_outcome"], run="today")},
        "c": {"gamepanel_outcome": {"result": "skipped", "reason": "no run said"}},
    }
    summary = fleet_summary(["a", "b", "c"], hostvars, "rolling_restart", ["b", "c"], run="today")
    assert summary["lines"][0] == "rolling_restart: 3 server(s): 1 restarted"
    assert summary["lines"][-1] == "not reached (2): a, c"
    # without a run, every outcome counts (a summary of the user's own, outside the roles)
    assert fleet_summary(["a", "b", "c"], hostvars, "rolling_restart")["counts"]["restarted"] == 2


def test_a_host_whose_outcome_another_job_recorded_counts_with_this_jobs_outcome_from_its_record():
    # two fleet roles in one play: ensure_online recorded after rolling_restart on "a"; its record keeps rolling_restart's
    restarted = dict(outcome("restarted", "restarted, uptime reset confirmed")["gamepanel_outcome"], run="r1")
    online = dict(outcome("unchanged", "online already")["gamepanel_outcome"], run="e1")
    record = {
        "key": "a",
        "value": {"job": "ensure_online", "outcome": online, "other_jobs": {"rolling_restart": restarted}},
    }
    hostvars = {
        "a": {"gamepanel_outcome": online, "internal_fleet_job_recorded": {"results": [{"item": record}]}},
        "b": {"gamepanel_outcome": dict(restarted, reason="restarted too")},
    }
    summary = fleet_summary(["a", "b"], hostvars, "rolling_restart", ["b"], run="r1")
    assert summary["lines"][0] == "rolling_restart: 2 server(s): 2 restarted", summary["lines"]
    assert "  a: restarted, uptime reset confirmed" in summary["lines"]
    # the other job's summary counts its own outcome, the fact
    assert fleet_summary(["a"], hostvars, "ensure_online", ["a"], run="e1")["counts"]["unchanged"] == 1
    # a record without this job's outcome leaves the host not reached
    assert fleet_summary(["a", "b"], hostvars, "maintenance", ["b"], run="m1")["counts"]["not_reached"] == 2


def test_no_host_processed():
    assert fleet_summary(["d"], HOSTVARS)["lines"][0] == "fleet job: 1 server(s): none processed"


def test_the_hosts_must_be_a_list():
    with pytest.raises(AnsibleFilterError, match="list of the play's hosts"):
        fleet_summary("a", HOSTVARS)


def test_hosts_of_several_accounts_get_one_line_per_account():
    hostvars = {
        "eu_a": dict(outcome("restarted", "restarted, uptime reset confirmed"), gamepanel_account="eu"),
        "eu_b": dict(outcome("skipped", "status offline: left alone"), gamepanel_account="eu"),
        "us_a": dict(outcome("skipped", "status offline: left alone"), gamepanel_account="us"),
    }
    lines = fleet_summary(["eu_a", "eu_b", "us_a"], hostvars, "rolling_restart")["lines"]
    assert lines[:3] == [
        "rolling_restart: 3 server(s): 2 skipped, 1 restarted",
        "  account eu: 2 server(s): 1 skipped, 1 restarted",
        "  account us: 1 server(s): 1 skipped",
    ]


def test_one_account_gets_no_account_line():
    hostvars = {"eu_a": dict(outcome("restarted", "restarted"), gamepanel_account="eu")}
    assert fleet_summary(["eu_a"], hostvars, "rolling_restart")["lines"][1] == "restarted (1):"


class LookedUp(dict):
    """hostvars that remember which hosts' variables were looked up."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.looked_up = []

    def __getitem__(self, host):
        self.looked_up.append(host)
        return super().__getitem__(host)


def record_loop(**outcomes_by_host):
    """The registered result of the record loop over the batch: ``host=(outcome, account)``."""
    return {
        "results": [
            {"item": {"key": host, "value": {"outcome": found, "account": account}}}
            for host, (found, account) in outcomes_by_host.items()
        ]
    }


def test_the_batchs_own_hosts_come_from_its_record_and_only_the_hosts_before_it_are_looked_up():
    hostvars = LookedUp(
        eu_a=dict(outcome("restarted", "restarted earlier"), gamepanel_account="eu"),
        eu_b=dict(outcome("restarted", "stale"), gamepanel_account="eu"),
        us_a=dict(outcome("restarted", "stale"), gamepanel_account="us"),
    )
    recorded = record_loop(
        eu_b=(outcome("skipped", "status offline: left alone")["gamepanel_outcome"], "eu"),
        us_a=(outcome("failed", "timed out")["gamepanel_outcome"], "us"),
    )
    summary = fleet_summary(["eu_a", "eu_b", "us_a"], hostvars, "rolling_restart", ["eu_b", "us_a"], recorded=recorded)
    assert hostvars.looked_up == ["eu_a"]
    assert summary["lines"][:3] == [
        "rolling_restart: 3 server(s): 1 failed, 1 skipped, 1 restarted",
        "  account eu: 2 server(s): 1 skipped, 1 restarted",
        "  account us: 1 server(s): 1 failed",
    ]
    assert summary["batch_failed"] == ["us_a"]


def test_a_host_without_an_account_is_named_by_its_connections_base_url_as_server_control_names_it():
    hostvars = {
        "a": dict(outcome("restarted", "restarted"), gamepanel_connection={"base_url": "https://eu.example/v1"}),
        "b": dict(outcome("restarted", "restarted"), gamepanel_account="us"),
        "c": outcome("restarted", "restarted"),
    }
    lines = fleet_summary(["a", "b", "c"], hostvars, "rolling_restart")["lines"]
    assert lines[1:4] == [
        "  account default: 1 server(s): 1 restarted",
        "  account https://eu.example/v1: 1 server(s): 1 restarted",
        "  account us: 1 server(s): 1 restarted",
    ]
