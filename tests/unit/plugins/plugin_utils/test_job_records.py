# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reading the fleet roles' record loop: its items, and the outcomes a host's record keeps by job."""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.plugin_utils.job_records import outcomes_by_job, record_items


def test_record_items_gives_each_host_and_its_record_and_passes_over_the_rest():
    results = [
        {"item": {"key": "a", "value": {"job": "rolling_restart"}}},
        {"item": {"key": "b", "value": "not a record"}},
        {"skipped": True},
        "not a result",
    ]
    assert list(record_items(results)) == [("a", {"job": "rolling_restart"})]
    assert list(record_items(None)) == [] and list(record_items("text")) == []


def test_outcomes_by_job_holds_the_records_own_outcome_and_the_other_jobs():
    restarted, online = {"result": "restarted"}, {"result": "unchanged"}
    record = {"job": "ensure_online", "outcome": online, "other_jobs": {"rolling_restart": restarted}}
    assert outcomes_by_job(record) == {"ensure_online": online, "rolling_restart": restarted}
    # the record's own job wins over a stale entry of its name among the others
    assert outcomes_by_job(dict(record, other_jobs={"ensure_online": restarted}))["ensure_online"] is online
    assert outcomes_by_job({"job": "maintenance"}) == {}
