# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: The logic of gamepanel.panel.server_control, free of Ansible.

The panel only queues a control action; the server's agent runs it when it next
checks in.  So the module reads before it writes (nothing is queued when the server
already is in the requested state), and with ``wait`` reads again until the outcome
shows.  It never sends an action twice: not after a wait that ran out (the action
stays queued for the agent), not after a POST whose answer was lost, and not in a
later run, which finds the action in the ledger (state/ledger.py; the rules in open_entries.py).

Rule for an ambiguous POST (PanelAmbiguousError: the request may have reached the
panel, the answer did not come back):

* the action is never re-sent, and ``changed`` is reported true: the action may be
  queued and will then run when the agent checks in, so "changed" is the report that
  never hides a restart that happens; handlers and audits then err on the side of
  "something happened";
* with ``wait``, the normal wait decides: if the server converges, the action was
  evidently queued and the run succeeds; if the wait runs out, the run fails saying
  the action may be queued and was not resent;
* without ``wait``, the server is read back once: any visible progress (status moved,
  uptime dropped, target reached) counts as queued; otherwise the run fails with the
  same "may already be queued, not resent" message.
"""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.module_utils.control import messages as say
from ansible_collections.gamepanel.panel.plugins.module_utils.rules import decision
from ansible_collections.gamepanel.panel.plugins.module_utils.rules import open_entries
from ansible_collections.gamepanel.panel.plugins.module_utils.control.outcome import ControlOutcome
from ansible_collections.gamepanel.panel.plugins.module_utils.control.sender import ActionSender
from ansible_collections.gamepanel.panel.plugins.module_utils.control.watch import ServerWatch, UnusableRead
from ansible_collections.gamepanel.panel.plugins.module_utils.rules.convergence import Convergence, status_of
from ansible_collections.gamepanel.panel.plugins.module_utils.rules.decision import HELD_BY_PLAYERS, HELD_BY_STATUS
from ansible_collections.gamepanel.panel.plugins.module_utils.api.errors import PanelError
from ansible_collections.gamepanel.panel.plugins.module_utils.state.ledger import DONE, QUEUED, is_open
from ansible_collections.gamepanel.panel.plugins.module_utils.api.server_records import describe


class ControlFailed(Exception):
    """server_control cannot succeed.

    ``result`` holds every return key as far as the run got (``changed`` is true when
    an action may have been queued); ``error`` is the PanelError behind it, if any.
    """

    def __init__(self, message, result, error=None):
        super(ControlFailed, self).__init__(message)
        self.message = message
        self.result = result
        self.error = error


class ServerControl:
    """One run of server_control against one server.  ``run()`` returns the result dict
    or raises ControlFailed carrying the result as far as the run got.

    ``run`` is the sequence a reader should find: read, decide, record, send, confirm.
    Each step's state lives in the part that owns it: the reads and waits in ``watch``
    (control/watch.py), the ledger entry and the POST in ``sender`` (control/sender.py), the
    answer in ``outcome`` (control/outcome.py); the rules are rules/decision.py's (what to send)
    and rules/convergence.py's (when a read proves it).  The ledger (``ledger``, a Ledger, or None
    to keep no memory across runs) is consulted by the decision and written by the sender
    and the confirm step.
    """

    def __init__(
        self, client, request, check_mode=False, diff=False, status_reads=None, before_reads=None, ledger=None
    ):
        self.client = client
        self.request = request
        self.ledger = ledger
        self.check_mode = check_mode
        self.diff = diff
        self.started_at = client.clock.monotonic()
        self.watch = ServerWatch(client, request, status_reads, before_reads)
        self.sender = ActionSender(client, ledger)
        self.outcome = ControlOutcome()
        self.settled = None  # the latest read whose proof the ledger has taken

    # -- the run -------------------------------------------------------------------------

    def run(self):
        self.check_request()
        try:
            if self.request.confirm_only:
                return self.confirm_earlier()
            self.outcome.before = self.watch.read_first().server  # read
            follow = self.decide()  # decide
            if follow is not None:
                return self.follow(follow)
            action = self.outcome.action
            if action is None or self.check_mode:
                return self.result()
            convergence = Convergence(self.request, self.watch.server, self.watch.last.finished)
            claimed, standing = self.sender.claim(  # record
                self.watch.server["id"], action, self.watch.last, replace=self.request.ignore_pending
            )
            if not claimed:
                return self.follow(standing)  # another process sends it at this moment
            ambiguous = self.send(action)  # send
            self.confirm(convergence, ambiguous)  # confirm
            return self.result()
        except UnusableRead as problem:
            self.fail(str(problem))
        except PanelError as error:
            self.fail(say.explain(error), error)

    def check_request(self):
        problems = self.request.problems()
        if problems:
            self.fail(" ".join(problems))
        if not self.client.supports(self.request.action):
            self.fail(say.unsupported_action(self.request))

    # -- decide ------------------------------------------------------------------------------

    def decide(self):
        """Apply decision.decide's Plan to this server; returns an open entry to follow instead of sending.

        This step may wait drain_timeout for players to leave (and then decides again on the
        last read), and it says in words why nothing is sent.
        """
        entries = self.settle()
        unreadable = self.ledger.unreadable(self.watch.server["id"]) if self.ledger is not None else None
        plan = decision.decide(self.request, self.watch.server, entries, self.client.clock.time(), unreadable)
        drained = False
        if plan.verdict == decision.HELD and plan.held_by == HELD_BY_PLAYERS and self.may_drain():
            self.watch.drain()
            plan = decision.decide(self.request, self.watch.server, entries, self.client.clock.time(), unreadable)
            drained = True
        noted, note = decision.ledger_note(plan, describe(self.watch.server), self.request.min_uptime)
        if plan.verdict == decision.FOLLOW:
            return plan.entry
        if plan.verdict == decision.UNREADABLE:
            self.fail(note)
        if noted is not None:
            self.outcome.pending, self.outcome.message = noted, note
        if plan.verdict == decision.HELD:
            self.hold(plan, drained)
        elif plan.verdict == decision.SEND:
            self.outcome.sending(plan.action)
        return None

    def may_drain(self):
        return self.request.drain_timeout > 0 and not self.check_mode

    def hold(self, plan, drained):
        """A gate holds ``plan.action`` back: say why in ``skipped_reason``, or fail (on_busy=fail)."""
        server = self.watch.server
        if plan.held_by == HELD_BY_STATUS:
            self.outcome.skipped_reason = say.status_held(self.request, server, plan.action)
            return
        reason = say.busy(self.request, server, drained, self.watch.read_failure, self.check_mode)
        if self.request.on_busy == "fail":
            self.fail("%s Not sending the %s (on_busy=fail)." % (reason, plan.action))
        self.outcome.skipped_reason = reason

    def settle(self):
        """Mark open entries the latest read proves done (check mode writes nothing); returns the server's entries."""
        if self.ledger is None:
            return []
        self.settled = self.watch.last
        return open_entries.settle(
            self.ledger, self.watch.last, self.request.stopped_statuses, write=not self.check_mode
        )

    # -- send ----------------------------------------------------------------------------------

    def send(self, action):
        """POST the action once; returns the PanelAmbiguousError when its answer was lost, else None."""
        try:
            ambiguous = self.sender.send(self.watch.server["id"], action)
        except PanelError:
            self.outcome.not_sent()
            raise
        self.watch.not_before = self.sender.answered_at
        return ambiguous

    # -- confirm -------------------------------------------------------------------------------

    def confirm(self, convergence, ambiguous):
        """With ``wait``, wait for the outcome; without, read back once after a lost answer."""
        if self.request.wait:
            self.wait_for(convergence, ambiguous)
        elif ambiguous is not None:
            self.confirm_without_wait(convergence, ambiguous)

    def confirm_without_wait(self, convergence, ambiguous):
        if convergence.observe(self.watch.read_again(), self.watch.last.started):
            self.sender.mark(DONE)
            return
        if convergence.moved:
            self.sender.mark(QUEUED)  # the agent acted: the panel had it
            return
        label = describe(self.outcome.before)
        message = say.lost_and_unchanged(self.outcome.action, label, ambiguous, status_of(self.watch.server))
        self.fail(message, ambiguous)

    def wait_for(self, convergence, ambiguous):
        action, label, timeout = self.outcome.action, describe(self.outcome.before), self.request.wait_timeout
        self.outcome.converged = False
        try:
            polled = self.watch.poll(convergence)
        except PanelError as error:
            self.fail(say.read_back_failed(action, label, error), error)
        self.outcome.converged = polled.done
        if polled.done:
            self.sender.mark(DONE)
            return
        unread = say.read_failed(self.watch.read_failure)
        if ambiguous is not None:
            last = status_of(self.watch.server)
            self.fail(say.lost_and_unseen(action, label, ambiguous, timeout, last) + unread, ambiguous)
        self.fail(self.timed_out(convergence, action) + unread, self.watch.read_failure)

    def confirm_earlier(self):
        """confirm_only: send nothing; confirm the action an earlier task queued, as the ledger holds it.

        The first read waits until one ``poll_interval`` after the entry was queued: an action
        queued a moment ago cannot show yet, and a batch queued together is then confirmed by
        reads that one list request can answer for all of it.
        """
        if self.ledger is None:
            self.fail("confirm_only needs the ledger, which records what earlier tasks queued.")
        action = self.request.action
        if self.request.server_id is not None:
            recorded = self.ledger.find(self.request.server_id, action)
            if self.request.wait and not self.check_mode:
                self.watch.hold_off(recorded)
            self.outcome.before = self.watch.read_confirming(recorded).server
        else:
            self.outcome.before = self.watch.read_first().server
        entry = open_entries.latest(self.settle(), action)
        label = describe(self.outcome.before)
        if entry is None:
            self.outcome.message = open_entries.nothing_to_confirm_message(action, label)
            return self.result()
        if is_open(entry):
            return self.follow(entry, confirming=True)
        self.outcome.pending, self.outcome.converged = entry, True
        self.outcome.message = open_entries.applied_message(entry, label)
        return self.result()

    def follow(self, entry, confirming=False):
        """Nothing is sent: ``entry`` (open, same action) stands.  With ``wait``, wait for its outcome."""
        self.outcome.following(entry)
        self.sender.entry = None
        label = describe(self.outcome.before)
        if not self.request.wait or self.check_mode:
            self.outcome.message = open_entries.pending_message(entry, label)
            return self.result()
        self.outcome.converged = False
        self.watch.from_now()
        convergence = open_entries.convergence_for(entry, self.request.stopped_statuses)
        try:
            polled = self.watch.poll(convergence)
        except PanelError as error:
            self.fail(
                "%s Reading the server failed: %s Nothing new was sent."
                % (open_entries.pending_sentence(entry, label), say.explain(error)),
                error,
            )
        self.outcome.converged = polled.done
        if polled.done:
            if self.ledger is not None:
                self.ledger.mark(entry, DONE)
            self.outcome.message = "%s A read now shows it applied. Nothing new was sent." % (
                open_entries.pending_sentence(entry, label)
            )
            return self.result()
        unread = say.read_failed(self.watch.read_failure)
        if confirming:
            # worded like the wait of the task that queued it: this task only took that wait over
            message = "%s Nothing new was sent (confirm_only)." % self.timed_out(convergence, entry["action"])
        else:
            last = status_of(self.watch.server)
            message = open_entries.pending_timeout_message(entry, label, self.request.wait_timeout, last)
        self.fail(message + unread, self.watch.read_failure)

    def timed_out(self, convergence, action):
        return say.timed_out(
            action,
            describe(self.outcome.before),
            self.request.wait_timeout,
            status_of(self.watch.server),
            convergence,
            remembered=self.ledger is not None and self.ledger.durable,
        )

    # -- results -------------------------------------------------------------------------

    def result(self):
        last = self.watch.last
        if self.ledger is not None and not self.check_mode and last is not None and last is not self.settled:
            self.settle()  # the last read may prove other entries of the server
        elapsed = round(self.client.clock.monotonic() - self.started_at, 3)
        return self.outcome.as_result(
            self.request, self.watch.server, elapsed, self.client.stats, check_mode=self.check_mode, diff=self.diff
        )

    def fail(self, message, error=None):
        raise ControlFailed(message, self.result(), error)


def run_control(client, request, check_mode=False, diff=False, status_reads=None, before_reads=None, ledger=None):
    """Bring one server to ``request.state``; return the result dict or raise ControlFailed.

    ``status_reads`` (a SharedStatusReads) lets the wait share list reads with other
    processes working on servers of the same token, and ``before_reads`` (usually the
    same object) the read before queueing; without them every such read is a GET.
    ``ledger`` (a Ledger) remembers what was queued across runs; without it nothing is.
    """
    return ServerControl(
        client,
        request,
        check_mode=check_mode,
        diff=diff,
        status_reads=status_reads,
        before_reads=before_reads,
        ledger=ledger,
    ).run()
