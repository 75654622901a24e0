# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""PRIVATE: reading the fleet roles' record, the registered result of their record loop.

The loop runs over ``fleet_outcomes(...) | dict2items``: each of its results holds ``item.key`` (a host)
and ``item.value`` (what job_decisions.outcomes recorded for it). job_decisions reads the record of the
batch's first host (another fleet role's, just written) and fleet_summary a host's latest one.
"""

from __future__ import annotations


def record_items(results):
    """``(host, value)`` of each result of a record loop's ``results`` whose value is a record."""
    for result in results if isinstance(results, (list, tuple)) else ():
        item = result.get("item") if isinstance(result, dict) else None
        value = item.get("value") if isinstance(item, dict) else None
        if isinstance(value, dict):
            yield item.get("key"), value


def outcomes_by_job(value):
    """``{job: outcome}`` a host's record keeps: its job's own outcome and the other fleet jobs' (``other_jobs``)."""
    found = dict(value.get("other_jobs") or {})
    if value.get("job") and isinstance(value.get("outcome"), dict):
        found[value["job"]] = value["outcome"]
    return found
