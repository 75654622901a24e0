# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: what server_control makes of the ledger's entries (_state/ledger.py), free of Ansible.

The rules, in the order server_control applies them to the read before queueing:

* A read proves an open entry done by the rules of the wait (Convergence), judged
  against the read the entry's decision rested on (its ``before``).  A read that
  started before the entry was written proves nothing about it.
* An open entry for the action about to be sent means it is not sent again: the task
  waits for that entry's outcome, or reports it as pending.  A ``sending`` entry (a run
  that stopped before it learned the panel's answer) and a ``may_be_queued`` one (the
  answer was lost) count as open too: the panel may hold either.
* A restart the ledger holds as queued or done less than ``min_uptime`` seconds ago
  counts as the restart, whatever uptime a lagging read still shows.
* An open entry for another action does not hold anything back (a stop after a pending
  restart is the user's wish), but the result names it.
"""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.module_utils._rules.convergence import (
    Convergence,
    Goal,
    status_of,
    uptime_of,
)
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.entry_states import DONE, QUEUED, is_open

STATE_FOR_ACTION = {"start": "started", "stop": "stopped", "restart": "restarted"}


def before_of(read):
    """What an entry keeps of the read its decision rested on (a TimedRead): never more than status and uptime.

    Its times are wall times, as ``queued_at`` is: the entry is read by other processes and later
    runs, whose monotonic clocks share nothing with this one.
    """
    return {
        "status": status_of(read.server),
        "uptime_seconds": uptime_of(read.server),
        "read_started": read.wall_started,
        "read_at": read.wall_finished,
    }


def convergence_for(entry, stopped_statuses, wall_offset=0.0):
    """A Convergence judging reads against the read ``entry``'s decision rested on.

    The entry's read time is a wall time, perhaps another process's: it is placed on this
    process's monotonic clock with ``wall_offset`` (wall minus monotonic, taken now), so
    that the reads judged after it are measured on the monotonic clock alone; a wall step
    between that read and now cannot be told apart, and one later does not matter.
    """
    before = entry.get("before") or {}
    goal = Goal(STATE_FOR_ACTION.get(entry["action"], "restarted"), tuple(stopped_statuses))
    read_at = before.get("read_at")
    if isinstance(read_at, (int, float)) and not isinstance(read_at, bool):
        read_at -= wall_offset
    else:
        read_at = None
    return Convergence(goal, {"status": before.get("status"), "uptime_seconds": before.get("uptime_seconds")}, read_at)


def proves(entry, read, stopped_statuses):
    """Whether ``read`` (a TimedRead) shows ``entry``'s action applied.

    Compared in wall time with ``queued_at``: the entry may be another process's.
    """
    if read.started is not None and read.wall_started < entry["queued_at"]:
        return False  # the panel may have answered before the action was queued
    return convergence_for(entry, stopped_statuses, read.wall_offset).observe(read.server, read.started)


def proven(entries, read, stopped_statuses):
    """The open entries among ``entries`` that ``read`` (a TimedRead of their server) shows applied."""
    return [entry for entry in entries if is_open(entry) and proves(entry, read, stopped_statuses)]


def open_after(entries, read, stopped_statuses):
    """The open entries among ``entries`` that ``read`` does not show applied (what server_info reports)."""
    return [entry for entry in entries if is_open(entry) and not proves(entry, read, stopped_statuses)]


def recent_restart(entries, now, min_uptime):
    """The restart entry, queued or done less than ``min_uptime`` seconds before ``now`` (wall time), or None.

    ``queued_at`` is wall time (written by whichever process sent it, read by every later run),
    so this is the one elapsed time of a decision taken on the wall clock.  A ``queued_at`` in
    the future (a clock stepped back since, or another machine's clock ahead) counts as recent
    only while it is less than ``min_uptime`` ahead: an entry far in the future would otherwise
    count as a restart just made until the wall clock caught up with it, days maybe.  Such an
    entry is then judged as any other: open, it is followed, not sent again (``same_action``);
    done, the server's own uptime decides (planned_action).
    """
    if min_uptime is None:
        return None
    for entry in reversed(entries):
        if (
            entry["action"] == "restart"
            and entry["state"] in (QUEUED, DONE)
            and abs(now - entry["queued_at"]) < min_uptime
        ):
            return entry
    return None


def latest(entries, action):
    """The entry for ``action`` among ``entries`` (the ledger keeps one per server and action), or None."""
    found = [entry for entry in entries if entry["action"] == action]
    return found[-1] if found else None


def same_action(entries, action):
    """The open entry for ``action`` among ``entries``, or None."""
    for entry in entries:
        if entry["action"] == action and is_open(entry):
            return entry
    return None


def other_actions(entries, action):
    """The open entries for actions other than ``action``."""
    return [entry for entry in entries if entry["action"] != action and is_open(entry)]
