# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: the reads of one server in a server_control task, and the waits made of them.

A ServerWatch owns what the reads leave behind: the latest read (a TimedRead), the instant the
next read must not predate, and the failure of the latest read of a wait.  It reads before the
decision, while players drain, and after queueing until a Convergence holds or wait_timeout
runs out; it never decides nor sends.
"""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.module_utils.rules.convergence import TimedRead
from ansible_collections.gamepanel.panel.plugins.module_utils.rules.decision import HELD_BY_PLAYERS, decide_on_read
from ansible_collections.gamepanel.panel.plugins.module_utils.api.errors import PanelError
from ansible_collections.gamepanel.panel.plugins.module_utils.state.ledger import is_open
from ansible_collections.gamepanel.panel.plugins.module_utils.api.server_records import find_server_by_name
from ansible_collections.gamepanel.panel.plugins.module_utils.control.polling import poll_ceiling, poll_until


class UnusableRead(Exception):
    """The read found no server to control (a name matching none or several, a listed server without an id)."""


class ServerWatch(object):
    """The reads of one server: ``status_reads``/``before_reads`` (SharedStatusReads, or None for plain GETs)."""

    def __init__(self, client, request, status_reads=None, before_reads=None):
        self.client = client
        self.request = request
        self.clock = client.clock
        self.status_reads = status_reads  # a SharedStatusReads, or None: every wait read is a GET
        self.before_reads = before_reads  # a SharedStatusReads, or None: the read before queueing is a GET
        # The freshness rule of shared reads: no decision rests on a read that started before the task.
        self.task_started = self.clock.time()
        self.ceiling = poll_ceiling(request.poll_interval, request.rate_limit)
        self.last = None  # the latest TimedRead
        # Wall time the next wait read must not predate: when the POST was answered, then each read.
        self.not_before = None
        # The transient PanelError of the wait's latest read, None when that read succeeded.
        self.read_failure = None

    @property
    def server(self):
        return None if self.last is None else self.last.server

    def take(self, read):
        """``read`` (a TimedRead) becomes the latest: failures report it, Convergence judges its times."""
        self.last = read
        return read

    def read_first(self):
        """The read the decision rests on (by id, or the list when the server is named)."""
        server_id = self.request.server_id
        if server_id is not None and self.before_reads is not None:
            # A shared list read: its end is when the panel saw the server by then, which
            # Convergence needs as the upper bound of the uptime's instant.
            return self.take(self.before_reads.read_before(server_id, self.task_started))
        if server_id is not None:
            return self.take(self.get(server_id))
        started = self.clock.time()
        servers = self.client.list_servers()
        finished = self.clock.time()
        try:
            server = find_server_by_name(servers, self.request.name)
        except ValueError as error:
            raise UnusableRead(str(error))
        if server.get("id") is None:
            raise UnusableRead(
                "The panel lists a server named %r without an id, so it cannot be controlled." % self.request.name
            )
        return self.take(TimedRead(server, started, finished))

    def read_confirming(self, entry):
        """The first read of confirm_only: any list read that started one poll_interval after ``entry`` was queued.

        Unlike the read before queueing, which must start after the task did (a decision to
        send rests on it), a confirmation only needs a read the outcome can show in: so the
        confirm tasks of a whole batch, queued before, share one list read.
        """
        if entry is None or not is_open(entry) or self.before_reads is None:
            return self.read_first()
        not_before = min(entry["queued_at"] + self.request.poll_interval, self.clock.time())
        return self.take(self.before_reads.read_before(self.request.server_id, max(not_before, entry["queued_at"])))

    def get(self, server_id):
        """GET one server, noting when the read started and ended."""
        started = self.clock.time()
        server = self.client.get_server(server_id)
        return TimedRead(server, started, self.clock.time())

    def read_again(self):
        """GET the server again (a read while players drain, or once after a lost answer)."""
        return self.take(self.get(self.server["id"])).server

    def from_now(self):
        """Later wait reads must start after this instant (the POST was answered, or a wait begins)."""
        self.not_before = self.clock.time()

    def read_for_wait(self):
        """A read of a wait, shared with other waiters when possible; None when the panel could not be read just now."""
        return self.despite_outage(self.read_after_post)

    def read_after_post(self):
        if self.status_reads is None:
            return self.read_again()
        read = self.take(self.status_reads.read(self.server["id"], self.not_before))
        self.not_before = read.started + 0.001  # the next read must show something newer
        return read.server

    def despite_outage(self, read):
        """``read()`` for a wait (after queueing, or for players to leave); None when it failed but may work later.

        An outage shorter than the wait must not end it: a read whose retries ran out
        (PanelError.transient, also when the wait's deadline cut them short) is only
        remembered, and the next poll tries again.  Any other failure (token revoked,
        server gone) ends the wait at once.
        """
        try:
            server = read()
        except PanelError as error:
            if not error.transient:
                raise
            self.read_failure = error
            return None
        self.read_failure = None
        return server

    def poll(self, convergence):
        """Read until ``convergence`` holds or wait_timeout runs out; retries inside a read stop with the wait."""
        timeout = self.request.wait_timeout
        with self.client.deadline(timeout, "wait_timeout=%g s" % timeout):
            return poll_until(
                self.clock,
                self.read_for_wait,
                lambda server: server is not None and convergence.observe(server, self.last.started),
                timeout,
                self.request.poll_interval,
                self.ceiling,
                undecided=lambda server: server is not None and convergence.undecided,
            )

    def drain(self):
        """Read again until players leave, or drain_timeout runs out.

        Both gates judge the read the action would be sent on: a decision taken earlier, on
        another read (a fleet read of a role, an inventory), cannot see a server that was
        stopped, put in maintenance or filled with players since.  While players leave, the
        server may reach the state on its own, or someone else may stop it: the wait ends on
        any read that decides otherwise, and the last read decides.  As in the wait after
        queueing, retries inside a read stop at drain_timeout, and a read that could not be
        made (None) leaves the decision to the last read that was.
        """
        request = self.request
        with self.client.deadline(request.drain_timeout, "drain_timeout=%g s" % request.drain_timeout):
            poll_until(
                self.clock,
                lambda: self.despite_outage(self.read_again),
                lambda server: server is not None and decide_on_read(request, server)[1] != HELD_BY_PLAYERS,
                request.drain_timeout,
                request.poll_interval,
                self.ceiling,
            )

    def hold_off(self, entry):
        """Sleep until one poll_interval after ``entry`` (open) was queued, never longer than wait_timeout."""
        if entry is None or not is_open(entry):
            return
        delay = entry["queued_at"] + self.request.poll_interval - self.clock.time()
        if delay > 0:
            self.clock.sleep(min(delay, self.request.wait_timeout))
