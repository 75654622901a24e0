# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: what server_control says about the ledger's entries: one that stands, one followed, a restart it counts.

The rules that pick the entry are rules/open_entries.py's and rules/decision.py's; these functions
only put what they found in words, the same for one server and many.
"""

from __future__ import annotations

import time

from ansible_collections.gamepanel.panel.plugins.module_utils.rules import decision
from ansible_collections.gamepanel.panel.plugins.module_utils.rules.entry_states import MAY_BE_QUEUED, QUEUED, SENDING

HOW_TO_CLEAR = (
    "Once the agent is back or the server was checked, set ignore_pending: true to send it anyway "
    "(the ledger is the panel's, shared by every token: see the ledger in the server_control guide)."
)


def ledger_note(plan, label, min_uptime):
    """What the ledger adds to ``plan`` for the task's answer: ``(entry to report as pending, message)``.

    A counted restart reports its entry; a SEND with other actions pending reports the latest of them;
    an unreadable ledger has a message only.  Any other plan: ``(None, None)``.
    """
    if plan.verdict == decision.COUNTED:
        return plan.entry, recent_restart_message(plan.entry, label, min_uptime)
    if plan.verdict == decision.UNREADABLE:
        return None, unreadable_message(plan.entry, plan.action, label)
    if plan.verdict == decision.SEND and plan.others:
        return plan.others[-1], other_pending_message(plan.others, plan.action, label)
    return None, None


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


def followed_applied(entry, label):
    """A followed entry that a read now shows applied."""
    return "%s A read now shows it applied. Nothing new was sent." % pending_sentence(entry, label)


def followed_unreadable(entry, label, explained):
    """A followed entry whose server could not be read (``explained``: the error in one sentence)."""
    return "%s Reading the server failed: %s Nothing new was sent." % (pending_sentence(entry, label), explained)
