# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: the one follow-up scheduler of server_control: when each draining or waiting server is read again.

The same driver follows one server (``id``, ``name``) and many (``ids``, ``hosts``): after the
sending, the servers still draining or waiting are read in passes until none is.  A server on a
page of the fleet (_engine/pages.py) is read with its page, so one request serves every server on
it; a server no page holds (a task on one server, or one gone from its page) is read by its own
``GET /servers/{id}``, or by a list read shared with the other forks of the play while it waits
(_engine/shared_reads.py).  Each read, or its failure, goes to the engine (_engine/run.py:
``observe``, ``unread``), which judges it and ends drains and waits; this file only schedules and reads.

The pace, one for every server: a queued action runs at the agent's next check-in, and a restart
then takes a boot, so the longer a server has waited the later its outcome is likely to come.
Each server is read again ``gap`` seconds after its latest read: ``poll_interval`` plus WAITED_SHARE
of the time it has drained or waited so far, up to LONGEST_GAP.  Whatever the agents' timing, an
outcome is then seen within a poll_interval and a few percent of the wait after it shows, while
the reads that could not find anything new yet stay few: a wait of a check-in and a boot (90 s)
costs 14 reads, not the 18 of one a poll_interval.

One clock (the run's, monotonic) and one deadline: no read is due later than the end of its
server's drain or wait (``drain_until``, ``deadline``), so the last read is made at that instant
and each read's retries end with it; a read there that could not tell (Convergence.undecided) is
made again UNDECIDED_RECHECK_SECONDS later.
"""

from __future__ import annotations

import collections
import contextlib

from ansible_collections.gamepanel.panel.plugins.module_utils._engine.pages import pass_interval, read_by_id
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.server import DRAINING, FOLLOWED_UP, WAITING
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.convergence import UNDECIDED_RECHECK_SECONDS
from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import PanelError

# What the gap before the next read adds, as a share of the time a server has drained or waited so
# far, to poll_interval: how late, relative to the whole wait, an outcome is seen.
WAITED_SHARE = 1.0 / 25
# The longest gap unless poll_interval is longer (a wait of ten minutes and more): agents check in
# every 30 to 60 s.
LONGEST_GAP = 30.0
# Servers due within this share of poll_interval of the first are read in the same pass: answers
# a moment apart then cost one pass, not one each.
GATHER_SHARE = 0.5
# Instants this close count as equal (sums of floats).
EPSILON = 0.001


def gap(waited, poll_interval):
    """Seconds from one read of a server to the next, after ``waited`` seconds of its drain or wait."""
    poll_interval = float(poll_interval)
    return max(poll_interval, min(LONGEST_GAP, poll_interval + max(waited, 0.0) * WAITED_SHARE))


class FollowUp(object):
    """The follow-up of ``run`` (ControlRun): its servers (or ``servers``) read until none drains or waits.

    ``pages`` (PageReads) holds the pages the servers were read on, if any; ``shared`` (SharedStatusReads)
    answers the reads of a waiting server no page holds, or None (its own GET); ``over``, a callable,
    ends the follow-up early when it returns true (a canary's step).
    """

    def __init__(self, run, pages, shared=None, servers=None, over=None):
        self.run = run
        self.pages = pages
        self.shared = shared
        self.servers = servers  # None: every server of the task
        self.over = over
        self.request = run.request
        self.clock = run.clock

    def follow(self):
        """Passes over the servers still draining or waiting, each when due, until none is."""
        last_pass, last_cost = None, 0
        while True:
            servers = self.run.servers.values() if self.servers is None else self.servers
            active = [server for server in servers if server.stage in FOLLOWED_UP]
            if not active or (self.over is not None and self.over()):
                return
            when = self.next_pass(active)
            if last_pass is not None:  # the passes keep to their share of the token's minute, but not past an end
                paced = max(when, last_pass + pass_interval(last_cost, self.request.rate_limit, 0))
                ends = [end for end in (self.end(server) for server in active) if end is not None and end >= when]
                when = min([paced] + ends)
            now = self.clock.monotonic()  # every instant of the schedule is monotonic (_engine/run.py)
            if when > now:
                self.clock.sleep(when - now)
            now = self.clock.monotonic()
            due = [server for server in active if self.due(server) <= now + EPSILON]
            last_pass, last_cost = now, self.read(due, active, now)
            self.run.write_marks()  # the pass's outcomes, one write per ledger bucket

    # -- when ----------------------------------------------------------------------------------

    def due(self, server):
        """When ``server`` is to be read next: a gap after its latest read, never after its drain or wait ends."""
        due = server.not_before + gap(server.not_before - server.followed_since, self.request.poll_interval)
        end = self.end(server)
        if end is not None and due > end - self.request.poll_interval:
            due = end  # the last read at the end itself, not one just before it and another at it
        if server.recheck and due <= server.not_before:  # past the end, a read that could not tell is made again
            due = server.not_before + UNDECIDED_RECHECK_SECONDS
        return due

    def end(self, server):
        """When ``server``'s drain or wait ends, or None: without wait, one read after the first gap decides."""
        if server.stage == DRAINING:
            return server.drain_until
        return server.deadline if self.request.wait else None

    def next_pass(self, active):
        """The instant of the next pass: the first server due, joined by those due within the gathering."""
        dues = sorted(self.due(server) for server in active)
        gathered = dues[0] + GATHER_SHARE * self.request.poll_interval
        return max(due for due in dues if due <= gathered)

    def ripe(self, server, now):
        """Whether a read made now for other servers may judge ``server`` too: its agent has had a poll_interval."""
        return now >= server.not_before + self.request.poll_interval - EPSILON

    # -- the reads -----------------------------------------------------------------------------

    def read(self, due, active, now):
        """One read of each server ``due`` (by their pages, or alone); returns the requests it cost.

        A page read for servers due also judges every other ``active`` server on it that is ripe
        (they are read together from then on), and settles an unripe one whose outcome it shows.
        It does not judge those otherwise: a read too soon after an answer would call an agent late
        that has had no time yet.
        """
        reads, run = self.pages, self.run
        due_ids = set(server.id for server in due)
        by_page = collections.OrderedDict((reads.page_of[s.id], []) for s in due if s.id in reads.page_of)
        alone = [server for server in due if server.id not in reads.page_of]
        for server in active:
            if reads.page_of.get(server.id) in by_page:
                by_page[reads.page_of[server.id]].append(server)
        for index, on_page in by_page.items():
            judged = [server for server in on_page if server.id in due_ids or self.ripe(server, now)]
            try:
                with self.limit(judged):
                    fresh = reads.read_again([index])
            except PanelError as error:
                for server in judged:
                    run.unread(server, error)
                continue
            alone.extend(server for server in on_page if server.id not in fresh and server.id in due_ids)
            for server in on_page:
                read = fresh.get(server.id)
                if read is None or server.stage not in FOLLOWED_UP:
                    continue
                if server in judged:
                    run.observe(server, read)
                elif server.stage == WAITING and server.convergence.observe(read.server, read.started):
                    server.take(read)
                    run.converged(server)
        for server in alone:
            self.read_alone(server)
        return len(by_page) + len(alone)

    def read_alone(self, server):
        """A server no page holds: its own GET, or a shared list read while it waits."""
        shared = self.shared is not None and server.stage == WAITING
        try:
            with self.limit([server]):
                if shared:
                    read = self.shared.read(server.id, server.not_before)
                else:
                    read = read_by_id(self.run.client, server.id)
        except PanelError as error:
            self.run.unread(server, error)
            return
        self.run.observe(server, read)
        if shared and server.stage == WAITING:
            server.not_before = read.started + EPSILON  # the next shared read must show something newer

    def limit(self, servers):
        """The client's deadline for a read made for ``servers``: its retries end with the last end it serves."""
        ends = [(self.end(server), server.stage) for server in servers]
        if not ends or any(end is None for end, unused in ends):
            return contextlib.nullcontext()  # a server without a wait: its one read is not cut short
        end, stage = max(ends)
        option = "drain_timeout" if stage == DRAINING else "wait_timeout"
        return self.run.client.deadline(
            end - self.clock.monotonic(), "%s=%g s" % (option, getattr(self.request, option))
        )
