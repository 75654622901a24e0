# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: how a server_control task ends: the many-servers answer (lines, counts, diff, failure) and the two signals.

ControlFailed: the task fails, carrying its result as far as it got.  TaskStopped: a panel
error about the whole task, after which nothing more is sent.
"""

from __future__ import annotations

import collections

# How many failed servers the task's message names (every one is in ``servers``).
NAMED_FAILURES = 10

COUNTS = ("total", "changed", "unchanged", "skipped", "failed", "converged", "pending")


class ControlFailed(Exception):
    """server_control cannot succeed.

    ``result`` holds every return key as far as the run got (``changed`` is true when
    an action may have been queued); ``error`` is the PanelError behind it, if any.
    """

    def __init__(self, message, result, error=None):
        super(ControlFailed, self).__init__(message)
        self.message = message
        self.result = result
        self.error = error


def many_servers_result(lines, diff, elapsed, api_stats):
    """The task's result from the servers' ``lines`` (ControlledServer.as_line): changed, servers, summary, diff."""
    counts = collections.OrderedDict((key, 0) for key in COUNTS)
    for line in lines:
        skipped = line["skipped_reason"] is not None
        counts["total"] += 1
        counts["changed"] += line["changed"]
        counts["failed"] += line["failed"]
        counts["skipped"] += skipped and not line["failed"]
        counts["converged"] += line["converged"] is True
        counts["pending"] += line["pending"] is not None
        counts["unchanged"] += not (line["changed"] or line["failed"] or skipped)
    result = {
        "changed": counts["changed"] > 0,
        "servers": list(lines),
        "summary": dict(counts),
        "elapsed": round(elapsed, 3),
        "api": api_stats,
    }
    if diff:
        result["diff"] = [
            dict(line["diff"], before_header=line["id"], after_header=line["id"])
            for line in lines
            if "diff" in line and line["changed"]
        ]
    return result


def failure_message(failed, total):
    """The task's message when servers failed: how many, and the first NAMED_FAILURES of them with why."""
    named = "; ".join("%s: %s" % (line["id"], line["msg"]) for line in failed[:NAMED_FAILURES])
    more = len(failed) - NAMED_FAILURES
    tail = " (and %d more: see servers)" % more if more > 0 else ""
    return "%d of %d servers failed: %s%s" % (len(failed), total, named, tail)


class TaskStopped(Exception):
    """A panel error that concerns the whole task, not one server: nothing more is sent."""

    def __init__(self, error):
        super(TaskStopped, self).__init__(str(error))
        self.error = error
