# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: the follow-up of a task with ``ids``: the reads after the sending, until no server needs one.

Once every page is read and acted on (engine/many_servers.py), the servers whose players are draining
and those whose outcome the task waits for are read in passes over only the pages that hold them
(engine/pages.py), with a GET for a server gone from its page.  Each read, or its failure, goes to
the engine (engine/run.py: ``observe``, ``unread``), which judges it; this file only schedules and reads.

The schedule: the first pass one ``poll_interval`` after the last answer; each gap after that half as
long again, up to FOLLOW_UP_CEILING, so slow agents cost a few passes and not one per poll_interval;
never closer than ``pass_interval`` allows, so the passes take no more than their share of the
token's minute.  While outcomes arrive (``read_quickly``) the passes come at that pace, at most one
an ARRIVING_PASS_SECONDS, so the last outcome is seen within about that and not a backed-off gap
later.  A read that could not tell (Convergence.undecided) is made again UNDECIDED_RECHECK_SECONDS later.
"""

from __future__ import annotations

import collections

from ansible_collections.gamepanel.panel.plugins.module_utils.engine.pages import pass_interval, read_by_id
from ansible_collections.gamepanel.panel.plugins.module_utils.engine.polling import BACKOFF_FACTOR
from ansible_collections.gamepanel.panel.plugins.module_utils.engine.server import FOLLOWED_UP, WAITING
from ansible_collections.gamepanel.panel.plugins.module_utils.rules.convergence import UNDECIDED_RECHECK_SECONDS
from ansible_collections.gamepanel.panel.plugins.module_utils.api.errors import PanelError

# The longest gap between two follow-up passes: how late, at most, a slow agent's outcome is seen.
FOLLOW_UP_CEILING = 15.0
# The shortest gap between two passes while outcomes arrive: how late, at most, the last one is seen.
ARRIVING_PASS_SECONDS = 1.0


class PagePasses(object):
    """The follow-up passes of one task: ``pages`` (PageReads) read for ``run`` (ControlRun), which judges each read."""

    def __init__(self, pages, run, servers=None, over=None):
        self.pages = pages
        self.engine = run
        self.servers = servers  # None: every server of the task (a canary's follow-up: its servers only)
        self.over = over  # a callable that ends the passes early when it returns true (the canary's step)
        self.request = run.request
        self.clock = run.clock
        self.seen = set()  # ids of the servers a pass has read (their first gap is behind them)
        self.started = self.clock.monotonic()  # outcomes seen before (a canary's) do not pace these passes

    def follow_up(self):
        """Passes over the pages of the servers still draining or waiting, until none is."""
        last_pass, last_cost = None, 0
        interval = self.request.poll_interval
        ceiling = max(self.request.poll_interval, FOLLOW_UP_CEILING)
        while True:
            servers = self.engine.servers.values() if self.servers is None else self.servers
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
            now = self.clock.monotonic()  # every time of the schedule is monotonic (engine/run.py)
            if due > now:
                self.clock.sleep(due - now)
            now = self.clock.monotonic()
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
        waits for the uptime to move on).  An agent that never acts so costs at most a poll_interval
        of such passes after the last outcome; a server seen stuck on its way, until its wait runs out.
        """
        waiting = [server for server in active if server.stage == WAITING]
        last_outcome = self.engine.last_outcome
        recent = (
            last_outcome is not None
            and last_outcome >= self.started
            and last_pass - last_outcome < self.request.poll_interval
        )
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
        reads, run = self.pages, self.engine
        due_ids = set(server.id for server in due)
        by_page = collections.OrderedDict((reads.page_of[s.id], []) for s in due if s.id in reads.page_of)
        alone = [server for server in due if server.id not in reads.page_of]
        for server in active:
            if reads.page_of.get(server.id) in by_page:
                by_page[reads.page_of[server.id]].append(server)
        for index, on_page in by_page.items():
            try:
                fresh = reads.read_again([index])
            except PanelError as error:
                for server in on_page:
                    if server.id in due_ids:
                        run.unread(server, error)
                continue
            alone.extend(server for server in on_page if server.id not in fresh and server.id in due_ids)
            for server in on_page:
                read = fresh.get(server.id)
                if read is None or server.stage not in FOLLOWED_UP:
                    continue
                if server.id in due_ids:
                    self.seen.add(server.id)
                    run.observe(server, read)
                elif server.stage == WAITING and server.convergence.observe(read.server, read.started):
                    server.take(read)
                    run.converged(server)
        for server in alone:
            try:
                read = read_by_id(reads.client, server.id)
            except PanelError as error:
                run.unread(server, error)
                continue
            self.seen.add(server.id)
            run.observe(server, read)
        return len(by_page) + len(alone)
