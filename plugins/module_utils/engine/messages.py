# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: what server_control says when an action is held back, waited for in vain, or its answer lost.

Plain functions of what happened, so that one server and many are told the same thing in the
same words.  The ledger's own sentences (an entry that stands, a restart within min_uptime)
are engine/ledger_messages.py's.
"""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.module_utils.rules.convergence import players_of, status_of
from ansible_collections.gamepanel.panel.plugins.module_utils.api.server_records import describe


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


def busy(request, server, drained, read_failure=None, check_mode=False):
    """Why max_players holds a stop or restart back on this read of ``server``."""
    name, players, limit = describe(server), players_of(server), request.max_players
    if players is None:
        reason = "%s reports no player count, so max_players (%d) cannot be confirmed." % (name, limit)
    else:
        reason = "%s has %d players online, more than max_players (%d)" % (name, players, limit)
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


def confirm_timed_out(timed_out_message):
    """confirm_only's wait ran out: worded like the wait of the task that queued it, which this task took over."""
    return "%s Nothing new was sent (confirm_only)." % timed_out_message
