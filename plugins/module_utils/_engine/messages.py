# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: every outcome wording of server_control and of the fleet jobs, each written once.

Plain functions of what happened, so that one server and many, and a fleet job's host, are told the
same thing in the same words: an action held back, waited for in vain or whose answer was lost; the
ledger's entries (one that stands, one followed, a restart counted, an unreadable bucket) and
``ledger_note``, what the ledger adds to a ``Plan``'s answer; and the short reasons a fleet job's
host outcome gives (plugin_utils/job_decisions.py), built from the same phrases.  The rules that
pick what to say are _rules/decision.py's, _rules/open_entries.py's and the engine's.
"""

from __future__ import annotations

import time

from ansible_collections.gamepanel.panel.plugins.module_utils._rules import decision
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.convergence import players_of, status_of
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.entry_states import MAY_BE_QUEUED, QUEUED, SENDING
from ansible_collections.gamepanel.panel.plugins.module_utils._api.server_records import describe

COUNTS_AS_RESTARTED = "counts as restarted already"


def explain(error):
    """A PanelError as one sentence."""
    message = str(error)
    return message if message.endswith((".", "!", "?")) else message + "."


def read_failed(error):
    """The clause added when the latest read of a wait failed ('' when it did not)."""
    return "" if error is None else " The last read failed: %s" % explain(error)


def unsupported_action(request):
    return (
        "The %s API variant (api_variant=%s) has no %s action: it can only restart servers. "
        "Use state=restarted, or api_variant=live for state=%s."
        % (request.api_variant, request.api_variant, request.action, request.state)
    )


def status_held(request, server, action):
    """Why only_if_status holds ``action`` back on this read of ``server``."""
    return "%s has status %s, not one of only_if_status (%s): no %s sent." % (
        describe(server),
        status_of(server),
        ", ".join(request.only_if_status),
        action,
    )


def too_many_players(players, option, limit):
    """The players that hold a stop or restart back, against the option (``option``) that sets the limit."""
    return "%s players online, more than %s (%s)" % (players, option, limit)


def no_player_count(option, limit):
    """A server without a player count, which the limit of ``option`` therefore holds back."""
    return "reports no player count, so %s (%s) cannot be confirmed" % (option, limit)


def busy(request, server, drained, read_failure=None, check_mode=False):
    """Why max_players holds a stop or restart back on this read of ``server``."""
    name, players, limit = describe(server), players_of(server), request.max_players
    if players is None:
        reason = "%s %s." % (name, no_player_count("max_players", limit))
    else:
        reason = "%s has %s" % (name, too_many_players(players, "max_players", limit))
        reason += (
            " after waiting drain_timeout (%s s) for players to leave." % request.drain_timeout if drained else "."
        )
    if drained:
        reason += read_failed(read_failure)
    if check_mode and request.drain_timeout > 0:
        reason += " Check mode does not wait drain_timeout for players to leave."
    return reason


def busy_refused(reason, action):
    """on_busy=fail: the busy ``reason`` ends the task."""
    return "%s Not sending the %s (on_busy=fail)." % (reason, action)


def drain_read_failed(label, error):
    return "Reading %s while players left failed: %s" % (label, explain(error))


def not_listed(error):
    """A server of ``ids`` neither the list nor its own GET found."""
    return "%s The panel does not list it either." % explain(error)


def stopped_before(error, refused=False):
    """A server the task did not come to (``refused``: whose POST the panel refused), because ``error`` stopped the sending."""
    if refused:
        said = explain(error)
        return "Not sent: the panel refused this server's action too (nothing was queued), and then %s%s" % (
            said[:1].lower(),
            said[1:],
        )
    return "Not sent: the task stopped before it came to this server, because %s" % explain(error)


def refused_too_long(error, retry_timeout, everything=False):
    """A POST handed back (``error``: refused, or never sent) until ``retry_timeout`` ran out.

    ``everything``: no POST of the task was taken for that long, so the task stopped sending.
    """
    refusal = getattr(error, "refusal", None) or str(error).rstrip(". ")
    if everything:
        return "%s; the panel refused every action of the task for retry_timeout=%g s, so the task stopped sending." % (
            refusal,
            retry_timeout,
        )
    return (
        "%s; it was refused for retry_timeout=%g s while the task went on with its other servers, "
        % (
            refusal,
            retry_timeout,
        )
        + "and was not sent again. Run the task again once the panel takes this server's actions."
    )


CONFIRM_NEEDS_LEDGER = "confirm_only needs the ledger, which records what earlier tasks queued."


def timed_out(action, label, timeout, last_status, convergence, remembered):
    """A wait ran out on a queued ``action``; ``remembered``: whether the ledger keeps it for a re-run."""
    if remembered:
        again = "running this again waits for it instead of queueing a second %s" % action
    else:
        again = "running this again before then would queue a second %s" % action
    if not convergence.moved:
        return (
            "The %s of %s is queued, not yet applied: the agent has not checked in within wait_timeout (%s s). "
            "The panel runs it when the agent next checks in; the module did not queue it again "
            "(%s). Last status seen: %s." % (action, label, timeout, again, last_status)
        )
    return (
        "The %s of %s was queued and the server moved from status %s to %s, but it did not reach %s "
        "within wait_timeout (%s s). Last status seen: %s. The module did not queue it again."
        % (action, label, convergence.before_status, last_status, convergence.target(), timeout, last_status)
    )


def answer_lost(action, label, error):
    """What happened to a POST whose answer was lost, said once: may be queued, not confirmed, not resent."""
    if error.what and error.cause:
        lost = "the answer to %s was lost (%s)" % (error.what, error.cause)
    else:
        lost = explain(error)
    return "The %s of %s may already be queued, not confirmed: %s. It was not sent again, to avoid a second %s." % (
        action,
        label,
        lost.rstrip("."),
        action,
    )


def read_back_failed(action, label, error):
    return "The %s of %s was sent, but reading the server back failed: %s The module did not send it again." % (
        action,
        label,
        explain(error),
    )


def lost_and_unseen(action, label, error, timeout, last_status):
    """A lost answer, and the wait did not see the action applied either."""
    return (
        "%s Within wait_timeout (%s s) the server did not show it applied (last status seen: %s); "
        "check it before running this again." % (answer_lost(action, label, error), timeout, last_status)
    )


def lost_and_unchanged(action, label, error, last_status):
    """A lost answer, without wait, and the read back shows nothing yet."""
    return "%s The server read back shows no change yet (status %s); check it before running this again." % (
        answer_lost(action, label, error),
        last_status,
    )


def not_sent_reason(canary_ids):
    """Why a server was not sent to: the canary (``canary_ids``, in words) did not come back."""
    return "Not sent: the canary (%s) did not come back, so nothing else was sent." % canary_ids


def confirm_timed_out(timed_out_message):
    """confirm_only's wait ran out: worded like the wait of the task that queued it, which this task took over."""
    return "%s Nothing new was sent (confirm_only)." % timed_out_message


# -- the ledger's entries -----------------------------------------------------------------------


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
    """A wall-clock instant as users read it (UTC); one that arrived as text (a carried fact) as it came."""
    if isinstance(instant, (int, float)) and not isinstance(instant, bool):
        return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(instant))
    return str(instant) if instant else "an unknown time"


def _entry_words(entry):
    """``(action, when queued, state)`` of a ledger entry, whatever of it a carried fact lacks."""
    return entry.get("action") or "action", when(entry.get("queued_at")), entry.get("state") or "open"


def queued_entry(entry):
    """A ledger entry in a phrase: its action, when it was queued, its state."""
    return "%s queued at %s (%s)" % _entry_words(entry)


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
        "A restart of %s was queued at %s (ledger state %s), less than min_uptime (%s s) ago: it %s, "
        "whatever uptime the panel still reports. Nothing new was sent."
        % (label, when(entry["queued_at"]), entry["state"], min_uptime, COUNTS_AS_RESTARTED)
    )


def other_pending_message(entries, action, label):
    """What a run that sent ``action`` says about open entries of other actions."""
    return "The %s of %s was sent as asked; %s." % (action, label, still_held(entries))


def still_held(entries):
    """The open entries of other actions a sent action leaves in the ledger."""
    return "the ledger still held %s" % ", ".join("a %s" % queued_entry(entry) for entry in entries)


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


# -- a fleet job's host outcome: the same facts as short reasons ---------------------------------


def pending_note(entry):
    """A host's reason when the ledger held its action open: an earlier run queued it, nothing new was sent."""
    return "already pending: the %s queued at %s by an earlier run (%s); nothing new sent" % _entry_words(entry)


def counted_note(entry):
    """A host's reason when a restart the ledger holds as done within its uptime threshold counts as the restart."""
    action, queued_at = _entry_words(entry)[:2]
    return "%s: the %s queued at %s by an earlier run is done (ledger); nothing new sent" % (
        COUNTS_AS_RESTARTED,
        action,
        queued_at,
    )


def below_threshold(uptime, option, threshold, tail=COUNTS_AS_RESTARTED):
    """A host whose uptime is below its job's threshold (``option``): ``tail`` says what the job makes of it."""
    return "up for %s s, below %s (%s s): %s" % (uptime, option, threshold, tail)


def no_server_id(host, variable):
    """server_control ``hosts``: a host that stands for no server, so nothing is sent to it."""
    return "%s has no %s: no server of the gamepanel inventory, nothing was sent to it." % (host, variable)


def not_a_fleet_host(host):
    """A fleet job's host without a gamepanel_id: it fails alone, the others go on."""
    return "%s has no gamepanel_id: run this role on hosts of the gamepanel.panel.servers inventory." % (
        host or "the host"
    )


def busy_left_alone(players, option, limit):
    """A host whose players hold the job's restart back (no drain): ``option`` is the job's variable."""
    if players is None:
        return "the server %s: left alone" % no_player_count(option, limit)
    return "%s: left alone" % too_many_players(players, option, limit)


def not_online_left_alone(status):
    """rolling_restart: a server that was not online on the read the decision was made on."""
    return "status %s when the batch was read: not online, left alone" % (status or "unknown")


def neither_online_nor_stopped(status):
    """maintenance: a server in a status it neither restarts nor starts."""
    return "status %s: neither online nor stopped, left alone" % (status or "unknown")


def start_stopped_off(status):
    """maintenance without maintenance_start_stopped: a stopped server it may not start."""
    return "status %s: maintenance_start_stopped is false, left alone" % (status or "unknown")


def not_a_stopped_status(status):
    """ensure_online: a server in a status other than the stopped ones, which it never starts."""
    return "status %s: not a stopped status, left alone" % (status or "unknown")


def job_failed(noun):
    """A host that failed without a word from the task (``noun``: the job's action)."""
    return "the %s failed" % noun


ONLINE_ALREADY = "online already"
NOT_DUE = "not due"
LEFT_ALONE = "left alone"
OUTSIDE_WINDOW = "outside maintenance_window: nothing sent"
# What a confirmed action gives a fleet job's host, and what check mode says instead.
RESTART_CONFIRMED, RESTART_WOULD = "restarted, uptime reset confirmed", "would be restarted (check mode)"
START_CONFIRMED, START_WOULD = "started, online confirmed", "would be started (check mode)"
