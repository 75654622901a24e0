# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: the canary of a task with ``ids``: the first servers it acts on, sent alone and confirmed first.

With ``canary`` N, the task (_engine/many_servers.py) reads and decides every server as usual but
holds back the actions it would send.  Once every server is decided, the first N servers of
``ids`` (in the order given) whose action is to be sent are sent alone and followed up until
their outcome shows; only then is anything else sent (on reads made again when the wait made
the first ones older than ``max_read_age``).  So the canary is never a server the task leaves
alone (busy, not in an allowed status, restarted within ``min_uptime``).  When fewer than N were
free to send, the servers waiting for their players to leave (``drain_timeout``) are followed
too: the first whose players leave completes the canary; a later one waits with the others.

A canary that does not come back (its wait ran out, its read failed) stops the task there:
nothing else is sent, and every server held back, or still waiting for its players to leave, is
reported skipped, saying so.  When no server is to be sent, there is no canary and nothing is sent.
"""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.module_utils._engine.messages import not_sent_reason
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.server import DRAINING, FOLLOWED_UP, UNREAD


class Canary(object):
    """The canary step of one task with ``ids``; ``count`` 0 (or check mode): no step, nothing held.

    ``run`` is the task's ControlRun; ``send(servers)`` sends the planned actions of ``servers`` (a
    read grown older than max_read_age made again first); ``follow_up(servers, over)`` reads them
    until none of them waits, or ``over()`` says the step is over.  The run asks ``holds_drained``
    before it sends to a server whose players left.
    """

    def __init__(self, run, send, follow_up, count=None):
        self.run = run
        self.send = send
        self.follow_up = follow_up
        self.count = (run.request.canary if count is None else count) or 0
        self.held = []  # servers whose action waits for the canary, as decided
        self.sent = []  # the canary servers, as sent
        self.came_back = None  # None: no canary sent (yet)
        self.released = self.count <= 0 or run.check_mode

    def hold(self, servers):
        """Whether the actions of ``servers`` wait for the canary (then they are kept here)."""
        if self.released:
            return False
        self.held.extend(servers)
        return True

    def release(self):
        """Send the canary alone and confirm it; then send the servers held back, or none when it did not come back."""
        if self.released:
            return
        self.send_canary()
        self.send_rest()

    def send_canary(self):
        """The canary step: the first servers to send, sent alone and followed until their outcome shows."""
        for server in self.waiting():
            if len(self.sent) >= self.count:
                break
            self.send([server])  # a read grown old is made again: it may decide otherwise
            if server.changed:
                self.sent.append(server)
        # with the canary complete, players still draining are waited for after it, with the rest
        draining = [] if len(self.sent) >= self.count else self.run.still((DRAINING,))
        if self.sent or draining:
            self.follow_up(self.sent + draining, self.confirmed_or_none)
        self.released = True
        if self.sent:
            self.came_back = all(server.converged for server in self.sent)

    def send_rest(self):
        """After the canary step: the servers held back are sent when it came back, left alone when it did not."""
        if self.came_back:
            self.send(self.waiting())
        elif self.sent:
            self.leave(self.waiting() + self.run.still((DRAINING,)))

    def withdraw(self):
        """The task ends without its canary step (its sending stopped); a task of one account has nobody to tell."""

    def waiting(self):
        """The servers held back and still to be sent, in the order of ``ids``."""
        order = dict((server_id, position) for position, server_id in enumerate(self.run.servers))
        return sorted((s for s in self.held if s.stage == UNREAD and s.action), key=lambda s: order[s.id])

    def holds_drained(self, server):
        """Whether ``server``, its players gone, waits for the canary; else it is sent now (as a canary while one is missing)."""
        if self.released:
            return False
        if len(self.sent) < self.count:
            self.sent.append(server)
            return False
        server.stage = UNREAD
        self.held.append(server)
        return True

    def confirmed_or_none(self):
        """Whether the canary's step is over: every canary settled, and none missing or no player left to wait for."""
        if any(server.stage in FOLLOWED_UP for server in self.sent):
            return False
        return len(self.sent) >= self.count or not self.run.still((DRAINING,))

    def leave(self, servers):
        """``servers`` get no action: the canary did not come back."""
        reason = not_sent_reason(self.named())
        for server in servers:
            server.not_sent()
            server.skipped_reason = reason
            server.finish()

    def named(self):
        return ", ".join(server.id for server in self.sent)

    def view(self):
        """The ``canary`` of the task's result (None without a canary): its ids, whether it came back, in words."""
        if self.count <= 0:
            return None
        if self.run.check_mode:
            would = [server.id for server in self.run.servers.values() if server.changed][: self.count]
            return dict(
                ids=would, confirmed=None, msg="Check mode: the canary would be %s." % (", ".join(would) or "none")
            )
        if not self.sent and self.run.stopped is not None:
            msg = "The task stopped before its canary was sent: nothing was sent."
        elif not self.sent:
            msg = "No server was to be sent: no canary, nothing sent."
        elif self.came_back:
            msg = "The canary (%s) came back before anything else was sent." % self.named()
        else:
            msg = "The canary (%s) did not come back: nothing else was sent." % self.named()
        return dict(ids=[server.id for server in self.sent], confirmed=self.came_back, msg=msg)
