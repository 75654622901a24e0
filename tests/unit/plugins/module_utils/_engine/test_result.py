# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""_engine/result.py: the answer of a task with ids (its lines counted, its diff) and its failure message."""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.module_utils._engine.result import (
    NAMED_FAILURES,
    failure_message,
    many_servers_result,
)


def line(server_id, changed=False, failed=False, skipped_reason=None, converged=None, pending=None, **extra):
    found = dict(
        id=server_id,
        changed=changed,
        failed=failed,
        skipped_reason=skipped_reason,
        converged=converged,
        pending=pending,
        msg="it broke" if failed else None,
    )
    found.update(extra)
    return found


def test_every_line_counts_once_and_the_task_changed_when_one_did():
    lines = [
        line("a", changed=True, converged=True),
        line("b", skipped_reason="busy"),
        line("c", failed=True, skipped_reason="not sent"),  # failed, not also skipped
        line("d", pending={"id": "d"}),
    ]
    result = many_servers_result(lines, False, 1.23456, {"requests": 3})
    assert result["summary"] == {
        "total": 4,
        "changed": 1,
        "unchanged": 1,
        "skipped": 1,
        "failed": 1,
        "converged": 1,
        "pending": 1,
    }
    assert (result["changed"], result["elapsed"], "diff" in result) == (True, 1.235, False)


def test_the_diff_holds_the_changed_servers_only_each_under_its_id():
    diff = {"before": {"status": "online"}, "after": {"status": "offline"}}
    lines = [line("a", changed=True, diff=diff), line("b", diff=diff)]
    assert many_servers_result(lines, True, 0, {})["diff"] == [dict(diff, before_header="a", after_header="a")]


def test_the_failure_names_the_first_failed_servers_and_counts_the_rest():
    failed = [line("srv-%02d" % number, failed=True) for number in range(NAMED_FAILURES + 2)]
    message = failure_message(failed, 20)
    assert message.startswith("12 of 20 servers failed: srv-00: it broke; srv-01: it broke")
    assert "srv-09: it broke" in message and "srv-10" not in message
    assert message.endswith("(and 2 more: see servers)")
