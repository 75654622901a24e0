# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: the one engine of server_control: what is done for each server of a task, on each read of it.

A ControlRun holds the task's servers (_engine/server.py) and applies the rules to every read of them,
for one server and for many alike: ``decide`` on a read, ``send`` exactly once, ``observe`` a later
read (or ``unread``, its failure) until the wait ends.  How the servers are read first is the
drivers' part (_engine/many_servers.py: pages; _engine/one_server.py: its own GET), when and how they
are read again the follow-up's (_engine/follow_up.py, one for both); each hands every read to this class.

Clocks: every elapsed time the rules compare within the task (the uptime reset of Convergence,
the wait's deadline, the drain, the pacing of follow-up reads) is measured on the monotonic clock,
which an NTP step or a resumed VM does not move: reads carry monotonic times (TimedRead).  Wall
time is used only where a time is compared with what another process wrote, the ledger's
``queued_at`` (decision.decide's ``now``, open_entries.proves, an entry followed).
"""

from __future__ import annotations

import collections

from ansible_collections.gamepanel.panel.plugins.module_utils._engine import messages as say
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.result import TaskStopped
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.server import (
    DRAINING,
    UNREAD,
    WAITING,
    ControlledServer,
)
from ansible_collections.gamepanel.panel.plugins.module_utils._rules import decision
from ansible_collections.gamepanel.panel.plugins.module_utils._rules import open_entries
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.convergence import Convergence, status_of
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.entry_states import DONE, MAY_BE_QUEUED, QUEUED
from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import (
    PanelAmbiguousError,
    PanelError,
    PanelNotFoundError,
)


class TaskRefused(PanelError):
    """The panel refused a POST of the task for retry_timeout: the server (or, ``everything``, the task) gives up."""

    def __init__(self, message, refusal, everything):
        super(TaskRefused, self).__init__(message, status=refusal.status, server_id=refusal.server_id)
        self.everything = everything
        self.retry_after = refusal.retry_after


class ControlRun(object):
    """One server_control task: its servers (``servers``, by id) and the rules applied to each read of them."""

    def __init__(self, client, request, ledger=None, check_mode=False, diff=False):
        self.client = client
        self.clock = client.clock
        self.request = request
        self.ledger = ledger
        self.check_mode = check_mode
        self.diff = diff
        self.servers = collections.OrderedDict()
        self.entries = {}  # server id -> its ledger entries (read once, then kept up to date by this task)
        self.unreadable = {}  # server id -> the damage mark covering it
        self.stopped = None  # the PanelError that stopped the sending, if one did
        self.canary = None  # a Canary (_engine/canary.py) that may hold a drained server back, or None
        self.started_at = self.clock.monotonic()
        # With other servers to go on with (ids), a refused POST is handed back and sent again later
        # (send, put_back) instead of being waited for by the client.
        self.hand_back = False
        self.refusing_since = None  # monotonic time of the first refusal since the panel last took a POST
        # server id -> (server, state): the ledger marks not written yet, and when the oldest was made (mark)
        self.unwritten, self.unwritten_since = collections.OrderedDict(), None

    def problems(self):
        """What is wrong with the request, in sentences (empty when it is usable)."""
        found = self.request.problems()
        if not self.client.supports(self.request.action):
            found.append(say.unsupported_action(self.request))
        return found

    def add(self, server_ids):
        """The task's servers of ``server_ids`` (each once), with their ledger entries and damage marks."""
        added = [self.servers.setdefault(str(server_id), ControlledServer(str(server_id))) for server_id in server_ids]
        if self.ledger is not None:
            ids = [server.id for server in added]
            self.entries.update(self.ledger.entries_of(ids))
            self.unreadable.update(self.ledger.unreadable_among(ids))
        return added

    def still(self, stages):
        return [server for server in self.servers.values() if server.stage in stages]

    # -- decide ------------------------------------------------------------------------------------

    def decide(self, server, read):
        """Apply decision.decide to ``server`` on ``read`` (its proven entries marked first); returns the verdict."""
        server.take(read)
        server.before = server.before or read.server
        entries = self.settle(server)
        # wall time: the entries' queued_at are other processes' and earlier runs' wall times too
        plan = decision.decide(self.request, read.server, entries, self.clock.time(), self.unreadable.get(server.id))
        server.verdict, server.held_by = plan.verdict, plan.held_by
        noted, note = say.ledger_note(plan, server.label, self.request.min_uptime)
        if noted is not None:
            server.pending = noted
        if plan.verdict in (decision.ALREADY, decision.COUNTED):
            server.finish(note)
        elif plan.verdict == decision.FOLLOW:
            self.follow(server, plan.entry)
        elif plan.verdict == decision.UNREADABLE:
            server.fail(note)
        elif plan.verdict == decision.HELD:
            self.hold(server, plan)
        elif plan.verdict == decision.SEND:
            server.message = note or server.message
            server.before = read.server
            if self.check_mode:
                server.sending(plan.action)
                server.finish()
            else:
                server.action = plan.action  # planned; ``changed`` once it is sent
        return plan.verdict

    def settle(self, server):
        """The server's entries, with the open ones its latest read proves done marked so (written unless check mode)."""
        entries = self.entries.get(server.id) or []
        proven = open_entries.proven(entries, server.read, self.request.stopped_statuses)
        if proven and not self.check_mode:
            self.ledger.mark_many(proven, DONE)
        for entry in proven:
            entry["state"] = DONE
        server.settled_on = server.read
        return entries

    def hold(self, server, plan):
        """A gate holds the action back: drain first when allowed, then skip (or fail, on_busy=fail)."""
        request = self.request
        if plan.held_by == decision.HELD_BY_STATUS:
            server.skipped_reason = say.status_held(request, server.server, plan.action)
            server.finish()
            return
        now = self.clock.monotonic()
        if request.drain_timeout > 0 and not self.check_mode and server.drain_until is None:
            server.stage, server.drain_until, server.drained = DRAINING, now + request.drain_timeout, True
            server.not_before, server.followed_since = server.read.started, now
            return
        if server.stage == DRAINING and now < server.drain_until:
            server.not_before = server.read.started
            return
        reason = say.busy(request, server.server, server.drained, server.read_failure, self.check_mode)
        if request.on_busy == "fail":
            server.fail(say.busy_refused(reason, plan.action))
            return
        server.skipped_reason = reason
        server.finish()

    def follow(self, server, entry):
        """An open entry for the same action stands: nothing is sent; wait for its outcome when asked."""
        server.following(entry)
        if not self.request.wait or self.check_mode:
            server.finish(say.pending_message(entry, server.label))
            return
        now = self.clock.monotonic()
        wall_offset = self.clock.time() - now  # the entry's read time is a wall time: placed on our clock once, here
        self.wait_for(server, open_entries.convergence_for(entry, self.request.stopped_statuses, wall_offset), now)

    # -- send ----------------------------------------------------------------------------------

    def send(self, server):
        """Claim, POST, and record the answer; raises TaskStopped on an error that concerns the whole task.

        The ``sending`` entry is claimed before the POST, atomically: of several processes deciding
        the same action at once exactly one sends, the others follow its entry.  A lost answer
        (PanelAmbiguousError) makes it ``may_be_queued``, never resent, and ``changed`` stays true: a
        restart that may happen is never hidden.  A POST handed back (the panel refused it in its own
        words: ``retry_in``) is put back and sent again later (put_back).  Any other PanelError means the panel did not queue it: the entry goes, and
        unless the server is not found nothing more is sent.
        """
        action = server.action
        if self.ledger is not None:
            entry, standing = self.ledger.claim(
                server.id, action, open_entries.before_of(server.read), replace=self.request.ignore_pending
            )
            if entry is None:
                self.follow(server, standing)  # another process sends it at this moment
                return
            server.entry = entry
        server.sending(action)
        try:
            self.client.queue_action(server.id, action, hand_back=self.hand_back)
        except PanelError as error:
            if error.retry_in is not None:
                self.put_back(server, error)
                return
            if not isinstance(error, PanelAmbiguousError):
                self.not_queued(server, error)
                return
            server.lost = error
            self.mark(server, MAY_BE_QUEUED)
        else:
            self.mark(server, QUEUED)
        self.refusing_since = server.refused_since = server.retry_at = None  # the panel took (or may have) one
        answered = self.clock.monotonic()
        if not self.request.wait and server.lost is None:
            server.finish()
            return
        self.wait_for(server, Convergence(self.request, server.before, server.read.finished), answered)

    def not_queued(self, server, error):
        """The panel did not queue ``server``'s action: its entry goes; an error about the whole task stops it."""
        if server.entry is not None:
            # the refusal's status and Retry-After: the fleet watcher sends the start again no sooner
            self.ledger.drop(server.entry, status=error.status, retry_after=error.retry_after)
            server.entry = None
        server.not_sent()
        server.retry_at = None
        server.fail(say.explain(error), error)
        if isinstance(error, PanelNotFoundError) or (isinstance(error, TaskRefused) and not error.everything):
            return  # it concerns this server only
        raise TaskStopped(error)

    def put_back(self, server, error):
        """``server``'s POST, refused (handed back), is sent again ``error.retry_in`` seconds later.

        Refusals are tried again within ``retry_timeout`` of the first one, as the client would, while
        the task goes on with its other servers.  Past it, the server fails alone; when the panel took
        no POST of the task for that long, it refuses everything and the task stops sending.
        """
        now, limit = self.clock.monotonic(), self.client.retry_timeout
        if self.refusing_since is None:
            self.refusing_since = now
        if server.refused_since is None:
            server.refused_since = now
        if now + error.retry_in - server.refused_since <= limit:
            if server.entry is not None:  # the panel queued nothing; no not-queued note: this task sends it again
                self.ledger.drop(server.entry, not_queued=False)
                server.entry = None
            server.changed, server.stage, server.retry_at = False, UNREAD, now + error.retry_in
            return
        everything = now + error.retry_in - self.refusing_since > limit  # no POST taken for as long
        self.not_queued(server, TaskRefused(say.refused_too_long(error, limit, everything), error, everything))

    def wait_for(self, server, convergence, since):
        """``server`` waits for the outcome ``convergence`` judges, from ``since`` (without wait: one read decides)."""
        server.stage, server.not_before, server.convergence = WAITING, since, convergence
        server.followed_since, server.recheck = since, False
        server.converged = False if self.request.wait else None
        server.deadline = since + (self.request.wait_timeout if self.request.wait else 0)

    def send_planned(self, server):
        """Send ``server``'s planned action, if it still has one; an error about the whole task stops the sending."""
        if server.action is None or server.changed or server.stage not in (UNREAD, DRAINING):
            return
        try:
            self.send(server)
        except TaskStopped as stop:
            self.stop(stop.error)

    def mark(self, server, state):
        """Move ``server``'s entry to ``state`` at the next ``write_marks``, not at once.

        Every mark is a durable write of the server's ledger bucket: written one by one, the marks of
        a burst of sends (each POST's ``queued``) or of a pass of reads (each ``done``) would cost a
        write per server where one per bucket does.  Until it is written the entry stays open
        (``sending`` or ``queued``), which every reader takes as "may be queued, never send again":
        a mark written late, or never (the process killed), loses no action and doubles none.
        """
        if server.entry is not None:
            self.unwritten[server.id] = (server, state)
            if self.unwritten_since is None:
                self.unwritten_since = self.clock.monotonic()

    def write_marks(self, older_than=0.0):
        """Write the marks not written yet, one ``mark_many`` per state; ``older_than``: only once the oldest is that old."""
        if not self.unwritten or self.clock.monotonic() - self.unwritten_since < older_than:
            return
        by_state = collections.OrderedDict()
        for server, state in self.unwritten.values():
            if server.entry is not None:
                by_state.setdefault(state, []).append(server)
        self.unwritten, self.unwritten_since = collections.OrderedDict(), None
        for state, servers in by_state.items():
            written = self.ledger.mark_many([server.entry for server in servers], state)
            for server, entry in zip(servers, written):
                server.entry = entry or server.entry

    def stop(self, error):
        """The sending stopped on ``error``: every server not sent yet fails, saying so."""
        self.stopped = error
        for server in self.still((UNREAD,)):
            refused = server.refused_since is not None  # put back: the panel refused it too
            server.action, server.retry_at = None, None
            server.fail(say.stopped_before(error, refused))

    # -- later reads -----------------------------------------------------------------------------

    def observe(self, server, read):
        """A later read of a draining or waiting server.

        A wait ends on a read that shows the outcome (Convergence), or on one started after the
        server's deadline that still does not, unless it cannot tell (Convergence.undecided): an
        outage shorter than the wait does not end it.  Without ``wait``, a lost answer is judged on
        one read: any progress means the panel had it.
        """
        server.read_failure = None
        if server.stage == DRAINING:
            self.decide_again(server, read)
            return
        server.take(read)
        if server.convergence.observe(read.server, read.started):
            self.converged(server)
        elif read.started >= server.deadline and not server.convergence.undecided:
            self.ran_out(server)
        else:
            server.not_before, server.recheck = read.started, server.convergence.undecided

    def unread(self, server, error):
        """A later read failed: a transient failure is tried again by the next read; any other ends the server's wait."""
        now = self.clock.monotonic()
        if error.transient:
            server.read_failure, server.not_before = error, now
            if server.stage == WAITING and now >= server.deadline:
                self.wait_over(server)
            elif server.stage == DRAINING and now >= server.drain_until:
                self.decide_again(server, server.read)  # the last read that was made decides
            return
        if server.stage == DRAINING:
            server.fail(say.drain_read_failed(server.label, error), error)
        elif server.followed:
            server.fail(say.followed_unreadable(server.pending, server.label, say.explain(error)), error)
        else:
            server.fail(say.read_back_failed(server.action, server.label, error), error)

    def decide_again(self, server, read):
        """A draining server decided on ``read``; sent at once when it may be (unless the canary holds it)."""
        server.action = None
        if self.decide(server, read) != decision.SEND:
            return
        if self.canary is None or not self.canary.holds_drained(server):
            self.send_planned(server)

    def converged(self, server):
        server.converged = True if self.request.wait else None
        if server.entry is not None:
            self.mark(server, DONE)
        elif server.followed and self.ledger is not None:
            self.ledger.mark(server.pending, DONE)
            server.finish(say.followed_applied(server.pending, server.label))
            return
        server.finish()

    def ran_out(self, server):
        if not self.request.wait and server.convergence.moved:
            self.mark(server, QUEUED)  # the agent acted: the panel had it
            server.finish()
            return
        self.wait_over(server)

    def wait_over(self, server):
        """The wait ended without the outcome: say what the panel may still do, and that nothing was sent again."""
        message = self.timeout_message(server) + say.read_failed(server.read_failure)
        server.fail(message, server.lost or server.read_failure)

    def timeout_message(self, server):
        last, label, timeout = status_of(server.server), server.label, self.request.wait_timeout
        if server.followed and not server.confirming:
            return say.pending_timeout_message(server.pending, label, timeout, last)
        if server.lost is not None and not self.request.wait:
            return say.lost_and_unchanged(server.action, label, server.lost, last)
        if server.lost is not None:
            return say.lost_and_unseen(server.action, label, server.lost, timeout, last)
        action = server.pending["action"] if server.confirming else server.action
        remembered = self.ledger is not None and self.ledger.durable
        message = say.timed_out(action, label, timeout, last, server.convergence, remembered=remembered)
        return say.confirm_timed_out(message) if server.confirming else message

    # -- the answer ------------------------------------------------------------------------------

    def elapsed(self):
        return round(self.clock.monotonic() - self.started_at, 3)

    def settle_last_reads(self):
        """The marks not written yet are; the last read of a server may prove other entries of it done: mark them (not in check mode)."""
        self.write_marks()
        unsettled = [s for s in self.servers.values() if s.read is not None and s.read is not s.settled_on]
        if self.ledger is None or self.check_mode or not unsettled:
            return
        self.entries.update(self.ledger.entries_of([server.id for server in unsettled]))
        for server in unsettled:
            self.settle(server)
