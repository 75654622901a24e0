# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: the follow-up of a many-servers task: the reads after the sending, until no server needs one.

Once every page is read and acted on (fleet/many_servers.py), two kinds of servers still need reads:
those whose players are draining (each read decides again, and sends when the players left) and
those whose outcome the task waits for (each read is judged by the server's Convergence).  They
are read in passes over only the pages that hold them (fleet/reads.py), with a GET for a server
gone from its page.

The schedule: the first pass one ``poll_interval`` after the last answer; each gap after that
half as long again, up to FOLLOW_UP_CEILING, so agents slower than the first reads cost a few
passes and not one per poll_interval; and never closer than ``pass_interval`` allows, so the
passes take no more than their share of the token's minute.  Once outcomes arrive (a server
waited for is seen on its way, stopping or starting, or a pass confirmed one less than a
``poll_interval`` ago), the agents are at work and the outcomes left are likely a read away:
the passes then come at the pace ``pass_interval`` allows, at most one an ARRIVING_PASS_SECONDS,
so the last outcome is seen within about that and not a backed-off gap later.  A server whose agent never acts costs at most a ``poll_interval`` of
such passes after the last outcome, then the backoff goes on; one seen stuck on its way (a boot
that never ends) is read at that pace until its wait runs out.

A wait ends on a read that shows the outcome, or on a read started after the server's deadline
that still does not: a server sent early in a long run is judged on what a read shows, not on
when its turn to be read came.  A read that cannot tell (Convergence.undecided: the old uptime
again, to the second) never ends a wait: that server is read once more, UNDECIDED_RECHECK_SECONDS
later (a live uptime has moved on by then).
"""

from __future__ import annotations

import collections

from ansible_collections.gamepanel.panel.plugins.module_utils.control import messages as say
from ansible_collections.gamepanel.panel.plugins.module_utils.rules import decision
from ansible_collections.gamepanel.panel.plugins.module_utils.rules import open_entries
from ansible_collections.gamepanel.panel.plugins.module_utils.rules.convergence import (
    UNDECIDED_RECHECK_SECONDS,
    status_of,
)
from ansible_collections.gamepanel.panel.plugins.module_utils.api.errors import PanelError
from ansible_collections.gamepanel.panel.plugins.module_utils.fleet.reads import pass_interval
from ansible_collections.gamepanel.panel.plugins.module_utils.fleet.server_state import DRAINING, FOLLOWED_UP, WAITING
from ansible_collections.gamepanel.panel.plugins.module_utils.fleet.result import FleetStopped
from ansible_collections.gamepanel.panel.plugins.module_utils.state.ledger import DONE, QUEUED
from ansible_collections.gamepanel.panel.plugins.module_utils.control.polling import BACKOFF_FACTOR

# The longest gap between two follow-up passes: how late, at most, a slow agent's outcome is seen.
FOLLOW_UP_CEILING = 15.0
# The shortest gap between two passes while outcomes arrive: how late, at most, the last one is seen.
ARRIVING_PASS_SECONDS = 1.0


class FollowUp(object):
    """The follow-up passes of one FleetControl run (``control``: its servers, reads, decisions and sends)."""

    def __init__(self, control, servers=None, over=None):
        self.control = control
        self.servers = servers  # None: every server of the task (a canary's follow-up: its servers only)
        self.over = over  # a callable that ends the passes early when it returns true (the canary's step)
        self.request = control.request
        self.clock = control.clock
        self.last_outcome = None  # when a pass last confirmed a server
        self.seen = set()  # ids of the servers a pass has read (their first gap is behind them)

    def run(self):
        """Passes over the pages of the servers still draining or waiting, until none is."""
        last_pass, last_cost = None, 0
        interval = self.request.poll_interval
        ceiling = max(self.request.poll_interval, FOLLOW_UP_CEILING)
        while True:
            servers = self.control.servers.values() if self.servers is None else self.servers
            active = [server for server in servers if server.stage in FOLLOWED_UP]
            if not active or (self.over is not None and self.over()):
                return
            quick = set()
            if last_pass is None:
                # the first pass comes when the last answer is a poll_interval old: every server sent
                # before has had longer, and one pass over their pages judges them all
                due = max(server.not_before for server in active) + interval
            else:
                due = min(self.due(server, interval) for server in active)
                quick = self.read_quickly(active, last_pass)
                if quick:
                    due = min(due, last_pass + ARRIVING_PASS_SECONDS)
                due = max(due, last_pass + pass_interval(last_cost, self.request.rate_limit, 0))
            now = self.clock.time()
            if due > now:
                self.clock.sleep(due - now)
            now = self.clock.time()
            ready = [server for server in active if self.due(server, interval) <= now + 0.001 or server.id in quick]
            last_pass, last_cost = now, self.read_pass(ready or active, active)
            if not quick:  # the backoff goes on where it was once outcomes stop arriving
                interval = min(interval * BACKOFF_FACTOR, ceiling)

    def read_quickly(self, active, last_pass):
        """The ids of the servers of ``active`` to read at the arriving pace: read once already, while outcomes arrive.

        Outcomes arrive while a server waited for is seen on its way (its agent acted: stopping,
        starting), or a pass showed one less than a ``poll_interval`` ago.  Only servers waiting for
        an outcome (players draining keep their own pace), and not one still in its first gap (its
        agent has had no time yet), nor one read again after a read that could not tell (that read
        waits for the uptime to move on).
        """
        waiting = [server for server in active if server.stage == WAITING]
        recent = self.last_outcome is not None and last_pass - self.last_outcome < self.request.poll_interval
        if not recent and not any(server.convergence.moved for server in waiting):
            return set()
        return set(server.id for server in waiting if server.id in self.seen and not server.recheck)

    @staticmethod
    def due(server, interval):
        """When ``server`` is next to be read: ``interval`` after its latest read (or answer), sooner after one that could not tell."""
        if server.recheck:
            return server.not_before + UNDECIDED_RECHECK_SECONDS
        return server.not_before + interval

    def read_pass(self, due, active):
        """One read of each server ``due`` (by their pages); returns the requests it cost.

        A page read for servers due also settles any other ``active`` server on it whose outcome
        it shows.  It does not judge them otherwise: a read too soon after an answer would call an
        agent late that has had no time yet (they keep their own schedule).
        """
        reads = self.control.reads
        by_page = collections.OrderedDict()
        alone = []
        due_ids = set(server.id for server in due)
        for server in due:
            index = reads.page_of.get(server.id)
            if index is None:
                alone.append(server)
            else:
                by_page.setdefault(index, [])
        for server in active:
            if reads.page_of.get(server.id) in by_page:
                by_page[reads.page_of[server.id]].append(server)
        cost = 0
        for index, on_page in by_page.items():
            cost += 1
            try:
                fresh = reads.read_again([index])
            except PanelError as error:
                self.unread([server for server in on_page if server.id in due_ids], error)
                continue
            alone.extend(server for server in on_page if server.id not in fresh and server.id in due_ids)
            for server in on_page:
                read = fresh.get(server.id)
                if read is None or server.stage not in FOLLOWED_UP:
                    continue
                if server.id in due_ids:
                    self.observe(server, read)
                elif server.stage == WAITING and server.convergence.observe(read.server, read.started):
                    server.read = read
                    self.converged(server)
        for server in alone:
            cost += 1
            try:
                read = reads.read_one(server.id)
            except PanelError as error:
                self.unread([server], error)
                continue
            self.observe(server, read)
        return cost

    def unread(self, servers, error):
        """A follow-up read failed: a transient failure is tried again next pass; any other ends their wait."""
        now = self.clock.time()
        for server in servers:
            if error.transient:
                server.read_failure, server.not_before = error, now
                if server.stage == WAITING and now >= server.deadline:
                    server.fail(self.timeout_message(server) + say.read_failed(error))
                elif server.stage == DRAINING and now >= server.drain_until:
                    self.decide_again(server, server.read)  # the last read that was made decides
                continue
            if server.stage == DRAINING:
                server.fail("Reading %s while players left failed: %s" % (server.label, say.explain(error)))
            else:
                server.fail(say.read_back_failed(server.action or "action", server.label, error))

    def observe(self, server, read):
        server.read_failure = None
        self.seen.add(server.id)
        if server.stage == DRAINING:
            self.decide_again(server, read)
            return
        server.read = read
        if server.convergence.observe(read.server, read.started):
            self.converged(server)
        elif read.started >= server.deadline and not server.convergence.undecided:
            self.ran_out(server)
        else:
            server.not_before, server.recheck = read.started, server.convergence.undecided

    def decide_again(self, server, read):
        """A draining server decided on ``read``; sent at once when it may be (an error that stops the task stops the rest)."""
        server.action = None
        if self.control.decide(server, read) != decision.SEND or self.control.canary.holds_drained(server):
            return
        try:
            self.control.send(server)
        except FleetStopped as stop:
            self.control.stop(stop.error)

    def converged(self, server):
        ledger = self.control.ledger
        self.last_outcome = self.clock.time()
        server.converged = True if self.request.wait else None
        if server.entry is not None:
            self.control.mark(server, DONE)
        elif server.pending is not None and server.action is None and ledger is not None:
            ledger.mark(server.pending, DONE)
            server.settle(
                "%s A read now shows it applied. Nothing new was sent."
                % open_entries.pending_sentence(server.pending, server.label)
            )
            return
        server.settle()

    def ran_out(self, server):
        if not self.request.wait and server.convergence.moved:
            self.control.mark(server, QUEUED)  # the agent acted: the panel had it
            server.settle()
            return
        server.fail(self.timeout_message(server))

    def timeout_message(self, server):
        last = status_of(server.server)
        label = server.label
        if server.action is None and server.pending is not None:
            return open_entries.pending_timeout_message(server.pending, label, self.request.wait_timeout, last)
        if server.lost is not None and not self.request.wait:
            return say.lost_and_unchanged(server.action, label, server.lost, last)
        if server.lost is not None:
            return say.lost_and_unseen(server.action, label, server.lost, self.request.wait_timeout, last)
        ledger = self.control.ledger
        return say.timed_out(
            server.action,
            label,
            self.request.wait_timeout,
            last,
            server.convergence,
            remembered=ledger is not None and ledger.durable,
        )
