# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: server_control with ``ids``: many servers in one task, one process, at the token's rate.

The run, as a reader should find it in ``run``:

1. **Read and act, page by page.**  The fleet list is read one page at a time; the servers of a
   page are decided (decision.decide, the very rules of the one-server task) and their actions
   sent before the next page is read.  Every action so rests on a read of its server a few
   seconds old, and the fleet is read once, whatever its size.  Should sending a page take longer
   than ``max_read_age`` (a slow plan, another consumer of the token), the page is read again
   before the next action, and its servers decided again on that read.
   With a ``canary`` (fleet/canary.py), the actions are held until every server is decided;
   the canary is then sent and confirmed alone, and the rest sent only when it came back.
2. **Follow up** (fleet/follow_up.py).  Servers whose players are draining, and actions whose
   outcome the task waits for, are read again by passes over only the pages that hold them.
3. **Answer** (fleet/result.py).  One line per id (fleet/server_state.py), summary counts, and a
   failure naming the servers that failed.

Exactly once, as in the one-server task: an action is claimed in the ledger before its POST; an
open entry for the same action is followed, never sent again; a lost answer is never resent.
A panel error that concerns one server (it is not found) fails that server only; any other error
(the token refused, the plan unpaid, the panel unreachable after retries) stops the sending:
the servers not reached yet are reported failed with "not sent", and those already sent are
still followed up.
"""

from __future__ import annotations

import collections

from ansible_collections.gamepanel.panel.plugins.module_utils.control import messages as say
from ansible_collections.gamepanel.panel.plugins.module_utils.rules import decision
from ansible_collections.gamepanel.panel.plugins.module_utils.rules import open_entries
from ansible_collections.gamepanel.panel.plugins.module_utils.control.one_server import ControlFailed
from ansible_collections.gamepanel.panel.plugins.module_utils.rules.convergence import Convergence
from ansible_collections.gamepanel.panel.plugins.module_utils.api.errors import (
    PanelAmbiguousError,
    PanelError,
    PanelNotFoundError,
)
from ansible_collections.gamepanel.panel.plugins.module_utils.fleet.result import failure_message, fleet_result
from ansible_collections.gamepanel.panel.plugins.module_utils.fleet.canary import Canary
from ansible_collections.gamepanel.panel.plugins.module_utils.fleet.follow_up import FollowUp
from ansible_collections.gamepanel.panel.plugins.module_utils.fleet.reads import FleetReads
from ansible_collections.gamepanel.panel.plugins.module_utils.fleet.server_state import (
    DRAINING,
    UNREAD,
    WAITING,
    FleetServer,
)
from ansible_collections.gamepanel.panel.plugins.module_utils.fleet.result import FleetStopped
from ansible_collections.gamepanel.panel.plugins.module_utils.state.ledger import DONE, MAY_BE_QUEUED, QUEUED, is_open


class FleetControl(object):
    """One server_control task over ``ids``; ``run()`` returns the result or raises ControlFailed."""

    def __init__(self, client, request, ids, ledger=None, check_mode=False, diff=False):
        self.client = client
        self.clock = client.clock
        self.request = request
        self.ledger = ledger
        self.check_mode = check_mode
        self.diff = diff
        self.servers = collections.OrderedDict()
        for server_id in ids:
            self.servers.setdefault(str(server_id), FleetServer(str(server_id)))
        self.reads = FleetReads(client)
        self.entries = {}  # server id -> its ledger entries (read once, then kept up to date by this task)
        self.unreadable = {}  # server id -> the damage mark covering it
        self.stopped = None  # the PanelError that stopped the sending, if one did
        self.started_at = self.clock.monotonic()
        self.canary = Canary(self, request.canary)

    # -- the run -------------------------------------------------------------------------------

    def run(self):
        self.check_request()
        if self.ledger is not None:
            self.entries = self.ledger.entries_of(list(self.servers))
            self.unreadable = self.ledger.unreadable_among(list(self.servers))
        try:
            for index, reads in self.reads.stream():  # 1. read and act, page by page
                self.act_on(index, reads)
                if all(server.read is not None for server in self.servers.values()):
                    break  # every server of the task is read: the rest of the fleet is not needed
            self.act_on_unlisted()
            self.canary.release()
        except FleetStopped as stop:
            self.stop(stop.error)
        except PanelError as error:
            self.stop(error)
        FollowUp(self).run()  # 2. drains and confirmations
        return self.answer()  # 3.

    def check_request(self):
        problems = self.request.problems()
        if not self.client.supports(self.request.action):
            problems.append(say.unsupported_action(self.request))
        if problems:
            raise ControlFailed(" ".join(problems), fleet_result([], self.diff, 0.0, self.client.stats))

    # -- 1. read and act -----------------------------------------------------------------------

    def act_on(self, index, reads):
        """Decide the task's servers among ``reads`` (one page) and send their actions."""
        mine = [read for read in reads if read.server["id"] in self.servers]
        to_send = [self.servers[read.server["id"]] for read in mine if self.first_decision(read)]
        if not self.canary.hold(to_send):
            self.send_all(to_send, index)

    def act_on_unlisted(self):
        """Servers the list did not show: a GET of each (a server that is not found fails)."""
        for server in [server for server in self.servers.values() if server.read is None and server.stage == UNREAD]:
            try:
                read = self.reads.read_one(server.id)
            except PanelNotFoundError as error:
                server.fail("%s The panel does not list it either." % say.explain(error))
                continue
            if self.first_decision(read) and not self.canary.hold([server]):
                self.send_all([server], None)

    def first_decision(self, read):
        """Take the server's first read and decide on it; whether its action is to be sent now."""
        server = self.servers[read.server["id"]]
        server.before = read.server
        return self.decide(server, read) == decision.SEND

    def decide(self, server, read):
        """Apply decision.decide to ``server`` on ``read``; returns the verdict (SEND: the caller sends)."""
        server.read = read
        entries = self.settled_entries(server)
        plan = decision.decide(self.request, read.server, entries, self.clock.time(), self.unreadable.get(server.id))
        noted, note = decision.ledger_note(plan, server.label, self.request.min_uptime)
        if noted is not None:
            server.pending = noted
        if plan.verdict in (decision.ALREADY, decision.COUNTED):
            server.settle(note)
        elif plan.verdict == decision.FOLLOW:
            self.follow(server, plan.entry)
        elif plan.verdict == decision.UNREADABLE:
            server.fail(note)
        elif plan.verdict == decision.HELD:
            self.hold(server, plan)
        elif plan.verdict == decision.SEND:
            server.message = note or server.message
            if self.check_mode:
                server.sending(plan.action)
                server.settle()
            else:
                server.action = plan.action  # planned; ``changed`` once it is sent
        return plan.verdict

    def hold(self, server, plan):
        """A gate holds the action back: drain first when allowed, then skip (or fail, on_busy=fail)."""
        request = self.request
        if plan.held_by == decision.HELD_BY_STATUS:
            server.skipped_reason = say.status_held(request, server.server, plan.action)
            server.settle()
            return
        now = self.clock.time()
        if request.drain_timeout > 0 and not self.check_mode and server.drain_until is None:
            server.stage, server.drain_until, server.drained = DRAINING, now + request.drain_timeout, True
            server.not_before = server.read.started
            return
        if server.stage == DRAINING and now < server.drain_until:
            server.not_before = server.read.started
            return
        reason = say.busy(request, server.server, server.drained, server.read_failure, self.check_mode)
        if request.on_busy == "fail":
            server.fail("%s Not sending the %s (on_busy=fail)." % (reason, plan.action))
            return
        server.skipped_reason = reason
        server.settle()

    def follow(self, server, entry):
        """An open entry for the same action stands: nothing is sent; wait for its outcome when asked."""
        server.pending, server.action, server.changed = entry, None, False
        if not self.request.wait or self.check_mode:
            server.settle(open_entries.pending_message(entry, server.label))
            return
        server.stage, server.converged = WAITING, False
        server.convergence = open_entries.convergence_for(entry, self.request.stopped_statuses)
        server.deadline = self.clock.time() + self.request.wait_timeout
        server.not_before = self.clock.time()
        server.entry = None

    def settled_entries(self, server):
        """The server's ledger entries, with the open ones its latest read proves done marked so (written unless check mode)."""
        entries = self.entries.get(server.id) or []
        proven = [
            entry
            for entry in entries
            if is_open(entry) and open_entries.proves(entry, server.read, self.request.stopped_statuses)
        ]
        if proven and not self.check_mode:
            self.ledger.mark_many(proven, DONE)
        for entry in proven:
            entry["state"] = DONE
        return entries

    # -- sending ---------------------------------------------------------------------------------

    def send_all(self, servers, index):
        """Send the planned action of each of ``servers`` (all read on page ``index``), keeping reads younger than max_read_age."""
        for position, server in enumerate(servers):
            if server.stage != UNREAD or server.action is None:
                continue  # decided otherwise on a fresher read
            if self.clock.time() - server.read.started > self.request.max_read_age:
                self.read_again([later for later in servers[position:] if later.stage == UNREAD])
                if server.stage != UNREAD or server.action is None:
                    continue
            self.send(server)

    def read_again(self, servers):
        """Fresh reads of ``servers`` (the pages holding them; a GET for one no longer listed there), decided again."""
        pages = [self.reads.page_of[server.id] for server in servers if server.id in self.reads.page_of]
        fresh = self.reads.read_again(pages)
        for server in servers:
            read = fresh.get(server.id)
            if read is None:
                read = self.reads.read_one(server.id)
            server.action = None
            if self.decide(server, read) == decision.SEND:
                server.before = read.server

    def send(self, server):
        """Claim, POST, and record the answer; raises FleetStopped on an error that concerns the whole task."""
        action = server.action
        if self.ledger is not None:
            entry, standing = self.ledger.claim(
                server.id, action, open_entries.before_of(server.read), replace=self.request.ignore_pending
            )
            if entry is None:
                self.follow(server, standing)  # another process sends it at this moment
                return
            server.entry = entry
        server.before = server.read.server
        server.sending(action)
        try:
            self.client.queue_action(server.id, action)
        except PanelAmbiguousError as error:
            server.lost = error
            self.mark(server, MAY_BE_QUEUED)
        except PanelError as error:
            if server.entry is not None:
                self.ledger.drop(server.entry)
                server.entry = None
            server.not_sent()
            server.fail(say.explain(error))
            if not isinstance(error, PanelNotFoundError):
                raise FleetStopped(error)
            return
        else:
            self.mark(server, QUEUED)
        answered = self.clock.time()
        if not self.request.wait and server.lost is None:
            server.settle()
            return
        server.stage, server.not_before = WAITING, answered
        server.converged = False if self.request.wait else None
        server.convergence = Convergence(self.request, server.before, server.read.finished)
        # without wait, a lost answer is judged on the first read after it
        server.deadline = answered + (self.request.wait_timeout if self.request.wait else 0)

    def mark(self, server, state):
        if server.entry is not None:
            server.entry = self.ledger.mark(server.entry, state) or server.entry

    def stop(self, error):
        """The sending stopped on ``error``: every server not sent yet fails, saying so."""
        self.stopped = error
        why = "Not sent: the task stopped before it came to this server, because %s" % say.explain(error)
        for server in self.servers.values():
            if server.stage == UNREAD:
                server.action = None
                server.fail(why)

    # -- 3. the answer -------------------------------------------------------------------------------

    def answer(self):
        lines = [server.as_result(self.request, self.diff) for server in self.servers.values()]
        result = fleet_result(lines, self.diff, self.clock.monotonic() - self.started_at, self.client.stats)
        result["canary"] = self.canary.view()
        failed = [line for line in lines if line["failed"]]
        if failed:
            canary = " " + result["canary"]["msg"] if self.canary.came_back is False else ""
            raise ControlFailed(failure_message(failed, len(lines)) + canary, result, self.stopped)
        return result


def run_fleet_control(client, request, ids, ledger=None, check_mode=False, diff=False):
    """Bring each server of ``ids`` to ``request.state``; return the result dict or raise ControlFailed."""
    return FleetControl(client, request, ids, ledger=ledger, check_mode=check_mode, diff=diff).run()
