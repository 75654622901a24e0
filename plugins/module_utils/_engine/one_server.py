# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: server_control on one server (``id`` or ``name``): the engine run on one server, read by its own GET.

What each read means is the engine's (_engine/run.py), as for many servers; this driver only reads:
the read the decision rests on (``GET /servers/{id}``, a list read shared with the other forks of
the play: _engine/shared_reads.py, or the list when the server is named) and ``confirm_only``'s read
of what an earlier task queued.  The reads while players leave, while the outcome is waited for,
and without ``wait`` the one read back after a lost answer, are the follow-up's (_engine/follow_up.py),
the same driver as for many servers, here on one server read by its own GET.
"""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.module_utils._engine import messages as say
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.follow_up import FollowUp
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.pages import PageReads, read_by_id
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.result import ControlFailed
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.run import ControlRun
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.server import ControlledServer
from ansible_collections.gamepanel.panel.plugins.module_utils._rules import open_entries
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.convergence import TimedRead
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.entry_states import is_open
from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import PanelError
from ansible_collections.gamepanel.panel.plugins.module_utils._api.server_records import find_server_by_name


class UnusableRead(Exception):
    """The read found no server to control (a name matching none or several, a listed server without an id)."""


class OneServer(object):
    """The reads of one server for a ControlRun: ``status_reads``/``before_reads`` (SharedStatusReads, or None for GETs)."""

    def __init__(self, run, status_reads=None, before_reads=None):
        self.run = run
        self.client = run.client
        self.clock = run.clock
        self.request = run.request
        self.status_reads = status_reads  # a SharedStatusReads, or None: every wait read is a GET
        self.before_reads = before_reads  # a SharedStatusReads, or None: the read before queueing is a GET
        # The freshness rule of shared reads: no decision rests on a read that started before the task.
        self.task_started = self.clock.monotonic()
        self.server = ControlledServer(self.request.server_id)  # replaced by the run's once read

    def control(self):
        """Read, decide, send, follow up; returns the result or raises ControlFailed."""
        problems = self.run.problems()
        if problems:
            self.server.fail(" ".join(problems))
            return self.answer()
        try:
            if self.request.confirm_only:
                self.confirm_earlier()
            else:
                read = self.read_first()
                self.run.decide(self.adopt(read), read)
                self.run.send_planned(self.server)
                self.run.write_marks()  # one server: nothing to write it with
        except UnusableRead as problem:
            self.server.fail(str(problem))
        except PanelError as error:
            self.server.fail(say.explain(error), error)
        self.follow()
        return self.answer()

    def adopt(self, read):
        """The run's server of ``read`` becomes the one this task controls."""
        self.server = self.run.add([read.server["id"]])[0]
        return self.server

    def answer(self):
        self.run.settle_last_reads()
        result = self.server.as_result(
            self.request, self.run.elapsed(), self.client.stats, check_mode=self.run.check_mode, diff=self.run.diff
        )
        if self.server.failed:
            del result["msg"]  # the failure's message is the task's
            raise ControlFailed(self.server.message, result, self.server.error)
        return result

    # -- the reads ---------------------------------------------------------------------------

    def read_first(self):
        """The read the decision rests on (by id, or the list when the server is named)."""
        server_id = self.request.server_id
        if server_id is not None and self.before_reads is not None:
            return self.before_reads.read_before(server_id, self.task_started)
        if server_id is not None:
            return read_by_id(self.client, server_id)
        listed = TimedRead.made(self.clock, self.client.list_servers)
        try:
            server = find_server_by_name(listed.server, self.request.name)
        except ValueError as error:
            raise UnusableRead(str(error))
        if server.get("id") is None:
            raise UnusableRead(
                "The panel lists a server named %r without an id, so it cannot be controlled." % self.request.name
            )
        return TimedRead(server, listed.started, listed.finished, listed.wall_offset)

    # -- the drain and the wait ------------------------------------------------------------

    def follow(self):
        """Read until the drain or the wait is over: the follow-up of ``ids`` on this one server.

        Both gates judge the read the action would be sent on: a decision taken earlier, on another
        read (a fleet read of a role, an inventory), cannot see a server that was stopped, put in
        maintenance or filled with players since.  Its reads are GETs (a wait's shared when they can
        be), each cut short at the end of the drain or wait; what is sent when the players left is not.
        """
        FollowUp(self.run, PageReads(self.client), shared=self.status_reads, servers=[self.server]).follow()

    # -- confirm_only --------------------------------------------------------------------------

    def confirm_earlier(self):
        """Send nothing: confirm the action an earlier task queued, as the ledger holds it."""
        ledger, action = self.run.ledger, self.request.action
        if ledger is None:
            self.server.fail(say.CONFIRM_NEEDS_LEDGER)
            return
        if self.request.server_id is None:
            read = self.read_first()
        else:
            read = self.read_confirming(ledger.find(self.request.server_id, action))
        server = self.adopt(read)
        server.take(read)
        entry = open_entries.latest(self.run.settle(server), action)
        if entry is None:
            server.finish(say.nothing_to_confirm_message(action, server.label))
        elif is_open(entry):
            self.run.follow(server, entry)
            server.confirming = True
        else:
            server.pending, server.converged = entry, True
            server.finish(say.applied_message(entry, server.label))

    def read_confirming(self, entry):
        """confirm_only's first read: one that started one poll_interval after ``entry`` (open) was queued.

        An action queued a moment ago cannot show yet: with ``wait`` the task sleeps until then
        (never longer than wait_timeout).  Unlike the read before queueing, which must start after
        the task did (a decision to send rests on it), a confirmation only needs a read the outcome
        can show in: so the confirm tasks of a batch queued together share one list read.
        """
        if entry is None or not is_open(entry):
            return self.read_first()
        # queued_at is another task's wall time: the sleep is measured on the wall clock, and never
        # longer than wait_timeout whatever a stepped clock says
        due = entry["queued_at"] + self.request.poll_interval
        delay = due - self.clock.time()
        if self.request.wait and not self.run.check_mode and delay > 0:
            self.clock.sleep(min(delay, self.request.wait_timeout))
        if self.before_reads is None:
            return self.read_first()
        now, wall_now = self.clock.monotonic(), self.clock.time()
        not_before = max(min(due, wall_now), entry["queued_at"])  # never after now, unless queued_at is ahead
        return self.before_reads.read_before(self.request.server_id, now - max(0.0, wall_now - not_before))


def run_one_server(client, request, check_mode=False, diff=False, status_reads=None, before_reads=None, ledger=None):
    """Bring one server to ``request.state``; return the result dict or raise ControlFailed.

    ``status_reads`` (a SharedStatusReads) lets the wait share list reads with other
    processes working on servers of the same token, and ``before_reads`` (usually the
    same object) the read before queueing; without them every such read is a GET.
    ``ledger`` (a Ledger) remembers what was queued across runs; without it nothing is.
    """
    run = ControlRun(client, request, ledger=ledger, check_mode=check_mode, diff=diff)
    return OneServer(run, status_reads=status_reads, before_reads=before_reads).control()
