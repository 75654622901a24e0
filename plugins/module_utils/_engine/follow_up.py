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

Servers answered a moment apart are gathered: a pass comes when the last of those due within
GATHER_SHARE of a poll_interval after the first is due.  The first pass of a follow-up looks early
too, when the first of them is due: a page read then settles every server on it whose outcome shows
already (agents that check in together act on a whole batch at once), and judges nothing else, so
the gathered pass is needed only for those it did not settle.  That costs one request when the
agents are slower, and saves the spread of the answers when they are not.

One clock (the run's, monotonic) and one deadline: no read is due later than the end of its
server's drain or wait (``drain_until``, ``deadline``), so the last read is made at that instant
and each read's retries end with it; a read there that could not tell (Convergence.undecided) is
made again UNDECIDED_RECHECK_SECONDS later.
"""

from __future__ import annotations

import collections
import contextlib
import copy

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
        looked = None  # the early look's (pass it came before, pages it read), until that pass
        while True:
            servers = self.run.servers.values() if self.servers is None else self.servers
            active = [server for server in servers if server.stage in FOLLOWED_UP]
            if not active or (self.over is not None and self.over()):
                return
            first, when = self.next_pass(active)
            if last_pass is None and looked is None and self.looks_early(active, first, when):
                self.clock.sleep(max(0.0, first - self.clock.monotonic()))
                looked = (when, self.look(active, when))
                self.run.write_marks()
                continue
            riders = ()
            if looked is not None:  # the gathered pass, for those the look did not settle: never later for them
                when, riders, looked = min(when, looked[0]), looked[1], None
            elif last_pass is not None:  # the passes keep to their share of the token's minute, but not past an end
                paced = max(when, last_pass + pass_interval(last_cost, self.request.rate_limit, 0))
                ends = [end for end in (self.end(server) for server in active) if end is not None and end >= when]
                when = min([paced] + ends)
            now = self.clock.monotonic()  # every instant of the schedule is monotonic (_engine/run.py)
            if when > now:
                self.clock.sleep(when - now)
            now = self.clock.monotonic()
            due = [server for server in active if self.due(server) <= now + EPSILON]
            last_pass, last_cost = now, self.read(due, active, now, riders)
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
        """``(first, when)``: the first server due, and the instant of the next pass (the last due within the gathering)."""
        dues = sorted(self.due(server) for server in active)
        gathered = dues[0] + GATHER_SHARE * self.request.poll_interval
        return dues[0], max(due for due in dues if due <= gathered)

    def looks_early(self, active, first, when):
        """Whether to read the pages of the servers gathered for ``when`` at ``first`` already (the follow-up's first pass).

        Only where the gathering waits (``when`` later than ``first``), for servers waiting on pages, and
        never past a drain or wait that ends before ``when``: the pass at ``when`` judges those.
        """
        if when <= first + EPSILON:
            return False
        gathered = [server for server in active if self.due(server) <= when + EPSILON]
        ends = [self.end(server) for server in gathered]
        return all(server.stage == WAITING and server.id in self.pages.page_of for server in gathered) and not any(
            end is not None and end <= when for end in ends
        )

    def ripe(self, server, now):
        """Whether a read made now for other servers may judge ``server`` too: its agent has had a poll_interval."""
        return now >= server.not_before + self.request.poll_interval - EPSILON

    # -- the reads -----------------------------------------------------------------------------

    def look(self, active, when):
        """The early look: the pages of the servers due by ``when``, read now; returns their indexes.

        It settles each waiting server on them whose outcome shows (settle_if_shown) and judges nothing
        else; a failed read changes nothing (the pass at ``when`` reads them again).
        """
        gathered = [server for server in active if self.due(server) <= when + EPSILON]
        indexes = set(self.pages.page_of[server.id] for server in gathered)
        try:
            with self.limit(gathered):
                fresh = self.pages.read_again(indexes)
        except PanelError:
            return indexes
        for server in active:
            if server.id in fresh:
                self.settle_if_shown(server, fresh[server.id])
        return indexes

    def settle_if_shown(self, server, read):
        """A read not made to judge ``server`` settles it only when it shows its outcome, and changes nothing else.

        Its convergence is tried on a copy: a read too soon after an answer must neither call an agent late
        nor count towards the reads that judge it (Convergence.same_uptime_reads).
        """
        if server.stage != WAITING:
            return
        trial = copy.copy(server.convergence)
        if trial.observe(read.server, read.started):
            server.convergence = trial
            server.take(read)
            self.run.converged(server)

    def read(self, due, active, now, riders=()):
        """One read of each server ``due`` (by their pages, or alone), and of the pages ``riders``; returns the requests it cost.

        A page read for servers due also judges every other ``active`` server on it that is ripe
        (they are read together from then on), and settles an unripe one whose outcome it shows.
        It does not judge those otherwise: a read too soon after an answer would call an agent late
        that has had no time yet.
        """
        reads, run = self.pages, self.run
        due_ids = set(server.id for server in due)
        by_page = collections.OrderedDict((reads.page_of[s.id], []) for s in due if s.id in reads.page_of)
        for index in sorted(riders):
            by_page.setdefault(index, [])
        alone = [server for server in due if server.id not in reads.page_of]
        for server in active:
            if reads.page_of.get(server.id) in by_page:
                by_page[reads.page_of[server.id]].append(server)
        for index in [index for index, on_page in by_page.items() if not on_page]:
            del by_page[index]  # a rider page the early look left no server on
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
                else:
                    self.settle_if_shown(server, read)
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
