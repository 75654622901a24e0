# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: one canary for a task whose servers are on several accounts (server_control with ``hosts``).

Each account (each connection and token) runs as its own many-servers run, in a thread of its own,
at its own token's pace (_engine/many_accounts.py). The canary is the task's, not each account's:
the accounts are taken in a stable order (the order of the task's ``hosts``), and the first one
whose decision left a server to send (or a server waiting for its players to leave) carries it,
exactly as a single account's task would (_engine/canary.py). Every other account decides as usual
and holds its actions until the canary's outcome is known: sent only when it came back, left alone
("Not sent: the canary ... did not come back") when it did not. An account that had nothing to
send, or whose run stopped before its canary step, passes the turn on to the next one.

The accounts wait on one condition variable; every member says once whether it has anything for
the canary (``_decide``), and a member that ends early says so (``withdraw``), so no account waits
for one that is gone.
"""

from __future__ import annotations

import threading

from ansible_collections.gamepanel.panel.plugins.module_utils._engine.canary import Canary
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.server import DRAINING

_UNDECIDED = None
_PASSES = "passes"  # nothing to send: the canary goes to a later account
_CARRIES = "carries"


class JobCanary(object):
    """The canary shared by the ``members`` accounts of one task; ``count`` servers, as the option ``canary``."""

    def __init__(self, count, members):
        self.count = count or 0
        self.turns = [_UNDECIDED] * members
        self.came_back = None  # the carrier's outcome: True, False; None while unknown or no canary
        self.settled = False  # the canary's outcome is known (or no account had one to send)
        self.carrier = None
        self.ids = []
        self.condition = threading.Condition()

    def member(self, position):
        """The factory of the Canary of the account at ``position`` (run_many_servers' ``canary``)."""
        return lambda run, send, follow_up: AccountCanary(self, position, run, send, follow_up)

    def _decide(self, position, turn):
        with self.condition:
            if self.turns[position] is _UNDECIDED:
                self.turns[position] = turn
            self._settle_when_nobody_carries()
            self.condition.notify_all()

    def _settle_when_nobody_carries(self):
        if all(turn == _PASSES for turn in self.turns):
            self.settled = True

    def _first_carrier(self):
        """The position of the account that carries the canary, None while an earlier account is undecided."""
        for position, turn in enumerate(self.turns):
            if turn is _UNDECIDED:
                return None
            if turn == _CARRIES:
                return position
        return None

    def _wait_for_turn(self, position):
        """Until this account carries the canary (True) or the canary's outcome is known (False)."""
        with self.condition:
            while not self.settled and self._first_carrier() != position:
                self.condition.wait()
            return not self.settled

    def _publish(self, position, sent, came_back):
        """The carrier's outcome; a carrier that sent nothing after all passes its turn on."""
        with self.condition:
            if sent:
                self.carrier, self.ids, self.came_back, self.settled = position, sent, came_back, True
            else:
                self.turns[position] = _PASSES
                self._settle_when_nobody_carries()
            self.condition.notify_all()

    def withdraw(self, position):
        """The account at ``position`` ends without its canary step (its run stopped): it carries nothing."""
        with self.condition:
            if self.carrier != position:
                self.turns[position] = _PASSES
            self._settle_when_nobody_carries()
            self.condition.notify_all()


class AccountCanary(Canary):
    """One account's part of the task's canary: the Canary of _engine/canary.py, its release taken in turn."""

    def __init__(self, job, position, run, send, follow_up):
        super(AccountCanary, self).__init__(run, send, follow_up, count=job.count)
        self.job = job
        self.position = position
        if self.released:  # no canary asked for (or check mode): this account has no part in it
            job.withdraw(position)

    def release(self):
        if self.released:
            return
        candidates = bool(self.waiting() or self.run.still((DRAINING,)))
        self.job._decide(self.position, _CARRIES if candidates else _PASSES)
        if candidates and self.job._wait_for_turn(self.position):
            self.send_canary()
            self.job._publish(self.position, [server.id for server in self.sent], self.came_back)
            if self.sent:
                self.send_rest()  # the other accounts go on at the same time
                return
            self.job._wait_for_turn(self.position)  # it sent nothing after all: a later account's outcome
        self._after_the_job(self.job.came_back)

    def _after_the_job(self, came_back):
        """Send what was held when the job's canary came back (or none was sent); leave it otherwise."""
        self.released = True
        if came_back is False:
            self.came_back = False
            self.leave(self.waiting() + self.run.still((DRAINING,)))
        else:
            self.send(self.waiting())

    def withdraw(self):
        self.job.withdraw(self.position)

    def named(self):
        return ", ".join(self.job.ids) if self.job.carrier is not None else super(AccountCanary, self).named()
