# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: one server of a server_control task, from its first read to its answer.

A ControlledServer is where the engine (_engine/run.py) keeps what it knows of one server: the
latest read, the stage it is in, and the answer so far.  Stages:

* ``unread``: no read of it yet;
* ``draining``: held back by ``max_players`` while ``drain_timeout`` runs;
* ``waiting``: an action sent (or an open entry followed) whose outcome the reads must show;
* ``finished``: nothing more to do for it (its answer is final).

Its answer has two shapes, the same whatever the stage it ended in: ``as_line`` (one entry of
``servers`` in a task with ``ids``) and ``as_result`` (the whole result of a task on one server).
"""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.module_utils._rules.convergence import players_of, status_of, uptime_of
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.decision import ALREADY, COUNTED, expected_status
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.entry_states import public_view
from ansible_collections.gamepanel.panel.plugins.module_utils._api.server_records import describe

UNREAD, DRAINING, WAITING, FINISHED = "unread", "draining", "waiting", "finished"
# The stages in which a server still needs reads after the sending.
FOLLOWED_UP = (DRAINING, WAITING)


class ControlledServer(object):
    """What the engine knows of one server of the task."""

    def __init__(self, server_id):
        self.id = server_id
        self.stage = UNREAD
        self.read = None  # the latest TimedRead
        self.first = None  # the server as its first read showed it
        self.before = None  # the server as read when the decision to send was taken
        self.action = None  # the action planned, then sent (or that may have been)
        self.changed = False
        self.converged = None  # None: not waited for
        self.skipped_reason = None
        self.pending = None  # the ledger entry the decision relied on, or followed
        self.followed = False  # nothing was sent because an open entry for the same action stands
        self.confirming = False  # the followed entry is an earlier task's, taken over by confirm_only
        self.message = None
        self.verdict = (
            None  # the latest decision's (_rules/decision.py), for the line: a fleet job words its skips from it
        )
        self.held_by = None  # the gate that held the action back on the latest decision, or None
        self.failed = False
        self.error = None  # the PanelError behind the failure, if one is
        self.entry = None  # the ledger entry this task wrote
        self.lost = None  # the PanelAmbiguousError of a POST whose answer was lost
        self.convergence = None  # judges the reads after the action (waiting)
        # Every instant below is on the monotonic clock (_engine/run.py says why).
        self.deadline = None  # from when a read that does not show the outcome ends the wait
        self.drain_until = None  # from when a read still showing players ends the drain
        self.drained = False  # players were waited for
        self.not_before = None  # the instant the next read must start after
        self.followed_since = None  # when its drain or wait began: the pace of its reads grows with it
        self.recheck = False  # its latest read could not tell (Convergence.undecided): read it again soon
        self.read_failure = None  # the transient PanelError of the latest attempt to read it, if it failed
        self.settled_on = None  # the latest read whose proof the ledger has taken
        self.retry_at = None  # monotonic time its POST, handed back (refused), is sent again from
        self.refused_since = None  # monotonic time of the first refusal of its POST not taken since

    @property
    def server(self):
        return None if self.read is None else self.read.server

    @property
    def label(self):
        return describe(self.first or self.server or {"id": self.id})

    def take(self, read):
        """``read`` (a TimedRead) becomes the latest; the first one is kept as ``first``."""
        self.read = read
        if self.first is None:
            self.first = read.server

    def finish(self, message=None):
        self.stage = FINISHED
        if message is not None:
            self.message = message

    def fail(self, message, error=None):
        self.failed, self.error = True, error
        self.finish(message)

    def sending(self, action):
        self.action, self.changed = action, True

    def not_sent(self):
        self.action, self.changed = None, False

    def following(self, entry):
        self.pending, self.action, self.changed, self.followed, self.entry = entry, None, False, True, None

    def unconfirmed(self, check_mode):
        """Whether an action sent, or an open one followed, is still to be confirmed (confirm_only)."""
        if check_mode or self.converged:
            return False
        return self.action is not None or self.followed

    def status_diff(self, request, before):
        """The diff of ``before``'s status and the status after: reached (a wait saw it), expected (sent), or unchanged."""
        if self.converged:
            after = status_of(self.server)
        elif self.changed:
            after = expected_status(request, before)
        else:
            after = status_of(before)
        return {"before": {"status": status_of(before)}, "after": {"status": after}}

    def as_line(self, request, diff=False):
        """The server's line in ``servers`` (a task with ``ids``)."""
        server = self.server
        result = {
            "id": self.id,
            "name": (server or {}).get("name"),
            "changed": self.changed,
            "action": self.action,
            "converged": self.converged,
            "skipped_reason": self.skipped_reason,
            "pending": None if self.pending is None else public_view(self.pending),
            "status": status_of(server) if server is not None else None,
            "uptime_seconds": uptime_of(server) if server is not None else None,
            "players": players_of(server) if server is not None else None,
            "held_by": self.held_by,
            "counted": self.verdict == COUNTED,
            "in_state": self.verdict == ALREADY,
            "drained": self.drained,
            "msg": self.message,
            "failed": self.failed,
        }
        if diff and self.before is not None:
            result["diff"] = self.status_diff(request, self.before)
        return result

    def as_result(self, request, elapsed, api, check_mode=False, diff=False):
        """The result of a task on this one server (``id`` or ``name``)."""
        result = {
            "changed": self.changed,
            "action": self.action,
            "before": self.first,
            "server": self.server,
            "converged": self.converged,
            "elapsed": elapsed,
            "skipped_reason": self.skipped_reason,
            "pending": None if self.pending is None else public_view(self.pending),
            "unconfirmed": self.unconfirmed(check_mode),
            "api": api,
        }
        if self.message is not None:
            result["msg"] = self.message
        if diff and self.first is not None:
            result["diff"] = self.status_diff(request, self.first)
        return result
