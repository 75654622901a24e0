# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: what server_control makes of the ledger's entries (state/ledger.py), free of Ansible.

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

import time

from ansible_collections.gamepanel.panel.plugins.module_utils.rules.convergence import (
    Convergence,
    Goal,
    TimedRead,
    status_of,
    uptime_of,
)
from ansible_collections.gamepanel.panel.plugins.module_utils.state.ledger import (
    DONE,
    MAY_BE_QUEUED,
    QUEUED,
    SENDING,
    is_open,
    public_view,
)

STATE_FOR_ACTION = {"start": "started", "stop": "stopped", "restart": "restarted"}

HOW_TO_CLEAR = (
    "Once the agent is back or the server was checked, set ignore_pending: true to send it anyway "
    "(the ledger is the panel's, shared by every token: see the ledger in the server_control guide)."
)


def before_of(read):
    """What an entry keeps of the read its decision rested on (a TimedRead): never more than status and uptime."""
    return {
        "status": status_of(read.server),
        "uptime_seconds": uptime_of(read.server),
        "read_started": read.started,
        "read_at": read.finished,
    }


def convergence_for(entry, stopped_statuses):
    """A Convergence judging reads against the read ``entry``'s decision rested on."""
    before = entry.get("before") or {}
    goal = Goal(STATE_FOR_ACTION.get(entry["action"], "restarted"), tuple(stopped_statuses))
    return Convergence(
        goal, {"status": before.get("status"), "uptime_seconds": before.get("uptime_seconds")}, before.get("read_at")
    )


def proves(entry, read, stopped_statuses):
    """Whether ``read`` (a TimedRead) shows ``entry``'s action applied."""
    if read.started is not None and read.started < entry["queued_at"]:
        return False  # the panel may have answered before the action was queued
    return convergence_for(entry, stopped_statuses).observe(read.server, read.started)


def settle(ledger, read, stopped_statuses, write=True):
    """Mark every open entry of the read server that ``read`` proves done; returns the server's entries, oldest first.

    With ``write`` false (check mode) nothing is written: the returned copies show the proven entries done.
    """
    entries = ledger.entries(read.server.get("id"))
    for entry in entries:
        if is_open(entry) and proves(entry, read, stopped_statuses):
            if write:
                ledger.mark(entry, DONE)
            entry["state"] = DONE
    return entries


def still_open(ledger, servers, read_started, stopped_statuses):
    """The public view of every open entry of ``servers`` (read from ``read_started`` on) that the reads do not prove done.

    Writes nothing: a caller that only reads (server_info, the fleet report) shows the
    ledger as the reads leave it and leaves the bookkeeping to server_control.
    """
    found = []
    for server in servers:
        if server.get("id") is None:
            continue
        entries = settle(ledger, TimedRead(server, read_started), stopped_statuses, write=False)
        found.extend(public_view(entry) for entry in entries if is_open(entry))
    return found


def recent_restart(entries, now, min_uptime):
    """The restart entry, queued or done less than ``min_uptime`` seconds before ``now``, or None."""
    if min_uptime is None:
        return None
    for entry in reversed(entries):
        if entry["action"] == "restart" and entry["state"] in (QUEUED, DONE) and now - entry["queued_at"] < min_uptime:
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


def when(instant):
    """A wall-clock instant as users read it (UTC)."""
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(instant))


def why_open(entry):
    """Why an open entry is taken as possibly queued, in one phrase."""
    state = entry["state"]
    if state == QUEUED:
        return "the panel accepted it and no read has shown it applied yet"
    if state == MAY_BE_QUEUED:
        return "its answer was lost, so the panel may hold it"
    if state == SENDING:
        return "the run that sent it stopped before it learned the panel's answer, so the panel may hold it"
    return "it is %s" % state


def pending_sentence(entry, label):
    return "A %s of %s was queued at %s (ledger state %s: %s)." % (
        entry["action"],
        label,
        when(entry["queued_at"]),
        entry["state"],
        why_open(entry),
    )


def pending_message(entry, label):
    """The message of a run that sent nothing because ``entry`` is open."""
    return "%s Nothing new was sent. %s" % (pending_sentence(entry, label), HOW_TO_CLEAR)


def pending_timeout_message(entry, label, timeout, last_status):
    return (
        "%s Within wait_timeout (%s s) no read showed it applied (last status seen: %s). Nothing new was sent. %s"
        % (pending_sentence(entry, label), timeout, last_status, HOW_TO_CLEAR)
    )


def unreadable_message(mark, action, label):
    """Why nothing is sent for a server whose ledger entries were in a file that could not be read."""
    return (
        "The ledger file that holds the entries of %s could not be read (%s) and was kept aside as %s, so a %s "
        "may already be queued for it: nothing was sent. Check the server in the panel, then send it with "
        "ignore_pending: true; or, once the kept-aside file was inspected, delete it to clear every server it covered."
        % (label, mark.get("why"), mark.get("kept_as"), action)
    )


def recent_restart_message(entry, label, min_uptime):
    return (
        "A restart of %s was queued at %s (ledger state %s), less than min_uptime (%s s) ago: it counts as the "
        "restart, whatever uptime the panel still reports. Nothing new was sent."
        % (label, when(entry["queued_at"]), entry["state"], min_uptime)
    )


def other_pending_message(entries, action, label):
    """What a run that sent ``action`` says about open entries of other actions."""
    described = ", ".join(
        "a %s queued at %s (%s)" % (entry["action"], when(entry["queued_at"]), entry["state"]) for entry in entries
    )
    return "The %s of %s was sent as asked; the ledger still held %s." % (action, label, described)


def nothing_to_confirm_message(action, label):
    """What confirm_only says when the ledger holds no such action for the server."""
    return (
        "The ledger holds no %s of %s to confirm (none was queued, or it was proven done and has expired): "
        "nothing was sent and nothing confirmed." % (action, label)
    )


def applied_message(entry, label):
    """What confirm_only says of an entry a read has already proven done."""
    return "The %s of %s queued at %s shows applied (ledger state done). Nothing new was sent." % (
        entry["action"],
        label,
        when(entry["queued_at"]),
    )


def view(entry):
    return None if entry is None else public_view(entry)
