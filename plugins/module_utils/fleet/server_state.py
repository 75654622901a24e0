# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: one server of a many-servers server_control task, from its first read to its line in ``servers``.

A FleetServer is where the engine (fleet/many_servers.py) keeps what it knows of one server: the
latest read, the stage it is in, and the answer so far.  Stages:

* ``unread``: no read of it yet;
* ``draining``: held back by ``max_players`` while ``drain_timeout`` runs;
* ``waiting``: an action sent (or an open entry followed) whose outcome the reads must show;
* ``settled``: nothing more to do for it (its answer is final).

Its line in the result (``as_result``) has the same keys whatever the stage it ended in.
"""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.module_utils.rules import open_entries
from ansible_collections.gamepanel.panel.plugins.module_utils.rules.convergence import status_of, uptime_of
from ansible_collections.gamepanel.panel.plugins.module_utils.control.outcome import status_after
from ansible_collections.gamepanel.panel.plugins.module_utils.api.server_records import describe

UNREAD, DRAINING, WAITING, SETTLED = "unread", "draining", "waiting", "settled"
# The stages the follow-up reads a server in (fleet/follow_up.py).
FOLLOWED_UP = (DRAINING, WAITING)


class FleetServer(object):
    """What the engine knows of one server of the task's ``ids``."""

    __slots__ = (
        "id",
        "stage",
        "read",
        "before",
        "action",
        "changed",
        "converged",
        "skipped_reason",
        "pending",
        "message",
        "failed",
        "entry",
        "lost",
        "convergence",
        "deadline",
        "drain_until",
        "drained",
        "not_before",
        "recheck",
        "read_failure",
    )

    def __init__(self, server_id):
        self.id = server_id
        self.stage = UNREAD
        self.read = None  # the latest TimedRead
        self.before = None  # the server as read when the decision was taken
        self.action = None  # the action sent (or that may have been)
        self.changed = False
        self.converged = None  # None: not waited for
        self.skipped_reason = None
        self.pending = None  # the ledger entry the decision relied on, or followed
        self.message = None
        self.failed = False
        self.entry = None  # the ledger entry this task wrote
        self.lost = None  # the PanelAmbiguousError of a POST whose answer was lost
        self.convergence = None  # judges the reads after the action (waiting)
        self.deadline = None  # wall time from which a read that does not show the outcome ends the wait
        self.drain_until = None  # wall time from which a read still showing players ends the drain
        self.drained = False  # players were waited for
        self.not_before = None  # wall time the next read must start after
        self.recheck = False  # its latest read could not tell (Convergence.undecided): read it again soon
        self.read_failure = None  # the transient PanelError of the latest attempt to read it, if it failed

    @property
    def server(self):
        return None if self.read is None else self.read.server

    @property
    def label(self):
        return describe(self.before or self.server or {"id": self.id})

    def settle(self, message=None):
        self.stage = SETTLED
        if message is not None:
            self.message = message

    def fail(self, message):
        self.failed = True
        self.settle(message)

    def sending(self, action):
        self.action, self.changed = action, True

    def not_sent(self):
        self.action, self.changed = None, False

    def as_result(self, request, diff=False):
        """The server's line in ``servers``."""
        result = {
            "id": self.id,
            "name": (self.server or {}).get("name"),
            "changed": self.changed,
            "action": self.action,
            "converged": self.converged,
            "skipped_reason": self.skipped_reason,
            "pending": open_entries.view(self.pending),
            "status": status_of(self.server) if self.server is not None else None,
            "uptime_seconds": uptime_of(self.server) if self.server is not None else None,
            "msg": self.message,
            "failed": self.failed,
        }
        if diff and self.before is not None:
            after = status_after(request, self.before, self.server, self.converged, self.changed)
            result["diff"] = {"before": {"status": status_of(self.before)}, "after": {"status": after}}
        return result
