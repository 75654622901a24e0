# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: The logic of gamepanel.panel.server_control, free of Ansible.

The panel only queues a control action; the server's agent runs it when it next
checks in.  So the module reads before it writes (nothing is queued when the server
already is in the requested state), and with ``wait`` reads again until the outcome
shows.  It never sends an action twice: not after a wait that ran out (the action
stays queued for the agent), not after a POST whose answer was lost, and not in a
later run, which finds the action in the ledger (ledger.py; the rules in pending.py).

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

from ansible_collections.gamepanel.panel.plugins.module_utils import decision, pending
from ansible_collections.gamepanel.panel.plugins.module_utils.convergence import (
    Convergence,
    TimedRead,
    players_of,
    status_of,
)
from ansible_collections.gamepanel.panel.plugins.module_utils.decision import (
    HELD_BY_PLAYERS,
    HELD_BY_STATUS,
    decide_on_read,
    expected_status,
)
from ansible_collections.gamepanel.panel.plugins.module_utils.errors import PanelAmbiguousError, PanelError
from ansible_collections.gamepanel.panel.plugins.module_utils.ledger import DONE, MAY_BE_QUEUED, QUEUED, is_open
from ansible_collections.gamepanel.panel.plugins.module_utils.servers import describe, find_server_by_name
from ansible_collections.gamepanel.panel.plugins.module_utils.waiting import poll_ceiling, poll_until


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
    The ledger (``ledger``, a Ledger, or None to keep no memory across runs) is
    consulted by the decision and written by the record, send and confirm steps.
    """

    def __init__(
        self, client, request, check_mode=False, diff=False, status_reads=None, before_reads=None, ledger=None
    ):
        self.client = client
        self.status_reads = status_reads  # a SharedStatusReads, or None: every wait read is a GET
        self.before_reads = before_reads  # a SharedStatusReads, or None: the read before queueing is a GET
        self.ledger = ledger
        self.request = request
        self.check_mode = check_mode
        self.diff = diff
        self.clock = client.clock
        self.started_at = self.clock.monotonic()
        # The freshness rule of shared reads: no decision rests on a read that started before the task.
        self.task_started = self.clock.time()
        self.ceiling = poll_ceiling(request.poll_interval, request.rate_limit)
        self.before = None
        self.last = None  # the TimedRead of self.server: the latest read
        self.action = None
        self.changed = False
        self.converged = None
        self.skipped_reason = None
        self.pending = None  # the ledger entry the decision relied on
        self.followed = False  # nothing was sent because an open entry for the same action stands
        self.entry = None  # the ledger entry this run wrote
        self.message = None  # what the run says when it succeeds without the obvious outcome
        self.settled = None  # the latest read whose proof the ledger has taken
        # Wall time the next wait read must not predate: when the POST was answered, then each read.
        self.not_before = None
        # The transient PanelError of the wait's latest read, None when that read succeeded.
        self.read_failure = None

    @property
    def server(self):
        return None if self.last is None else self.last.server

    # -- the run -------------------------------------------------------------------------

    def run(self):
        self.check_request()
        try:
            if self.request.confirm_only:
                return self.confirm_earlier()
            self.before = self.take(self.read_first()).server  # read
            follow = self.decide()  # decide
            if follow is not None:
                return self.follow(follow)
            if self.action is None or self.check_mode:
                return self.result()
            convergence = Convergence(self.request, self.server, self.last.finished)
            claimed, standing = self.record()  # record
            if not claimed:
                return self.follow(standing)  # another process sends it at this moment
            ambiguous = self.send()  # send
            self.confirm(convergence, ambiguous)  # confirm
            return self.result()
        except PanelError as error:
            self.fail(self.explain_panel_error(error), error)

    def check_request(self):
        problems = self.request.problems()
        if problems:
            self.fail(" ".join(problems))
        action = self.request.action
        if not self.client.supports(action):
            self.fail(
                "The %s API variant (api_variant=%s) has no %s action: it can only restart servers. "
                "Use state=restarted, or api_variant=live for state=%s."
                % (self.request.api_variant, self.request.api_variant, action, self.request.state)
            )

    # -- read --------------------------------------------------------------------------------

    def take(self, read):
        """``read`` (a TimedRead) becomes the latest: failures report it, Convergence judges its times."""
        self.last = read
        return read

    def read_first(self):
        """The read the decision rests on (by id, or the list when the server is named)."""
        if self.request.server_id is not None and self.before_reads is not None:
            # A shared list read: its end is when the panel saw the server by then, which
            # Convergence needs as the upper bound of the uptime's instant.
            return self.before_reads.read_before(self.request.server_id, self.task_started)
        if self.request.server_id is not None:
            return self.get(self.request.server_id)
        started = self.clock.time()
        servers = self.client.list_servers()
        finished = self.clock.time()
        try:
            server = find_server_by_name(servers, self.request.name)
        except ValueError as error:
            self.fail(str(error))
        if server.get("id") is None:
            self.fail(
                "The panel lists a server named %r without an id, so it cannot be controlled." % self.request.name
            )
        return TimedRead(server, started, finished)

    def get(self, server_id):
        """GET one server, noting when the read started and ended."""
        started = self.clock.time()
        server = self.client.get_server(server_id)
        return TimedRead(server, started, self.clock.time())

    def read_again(self):
        """GET the server again (a read while players drain)."""
        return self.take(self.get(self.server["id"])).server

    def read_after_post(self):
        """A read for a wait: shared with other waiters when possible, never older than ``not_before``."""
        if self.status_reads is None:
            return self.read_again()
        read = self.take(self.status_reads.read(self.server["id"], self.not_before))
        self.not_before = read.started + 0.001  # the next read must show something newer
        return read.server

    def read_for_wait(self):
        """A read of a wait; None when the panel could not be read just now."""
        return self.read_despite_outage(self.read_after_post)

    def read_despite_outage(self, read):
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

    # -- decide ------------------------------------------------------------------------------

    def decide(self):
        """Set ``action`` (None: nothing to send) from the read and the ledger; returns an open entry to follow instead.

        The rules are decision.decide's; this step applies its Plan to one server: it may wait
        drain_timeout for players to leave (and then decides again on the last read), and it
        says in words why nothing is sent.
        """
        entries = self.ledger_entries()
        plan = decision.decide(self.request, self.server, entries, self.clock.time())
        drained = False
        if plan.verdict == decision.HELD and plan.held_by == HELD_BY_PLAYERS and self.may_drain():
            self.drain()
            plan = decision.decide(self.request, self.server, entries, self.clock.time())
            drained = True
        if plan.verdict == decision.COUNTED:
            self.pending = plan.entry
            self.message = pending.recent_restart_message(plan.entry, describe(self.server), self.request.min_uptime)
        elif plan.verdict == decision.FOLLOW:
            return plan.entry
        elif plan.verdict == decision.HELD:
            self.hold(plan, drained)
        elif plan.verdict == decision.SEND:
            if plan.others:
                self.pending = plan.others[-1]
                self.message = pending.other_pending_message(plan.others, plan.action, describe(self.server))
            self.action = plan.action
            self.changed = True
        return None

    def ledger_entries(self):
        """The ledger's entries for the server, those the read proves marked done; [] without a ledger."""
        return self.settle() if self.ledger is not None else []

    def settle(self):
        """Mark open entries the latest read proves done (check mode writes nothing); returns the server's entries."""
        if self.ledger is None:
            return []
        self.settled = self.last
        return pending.settle(self.ledger, self.last, self.request.stopped_statuses, write=not self.check_mode)

    # -- gates: only_if_status and max_players ----------------------------------------------

    def may_drain(self):
        return self.request.drain_timeout > 0 and not self.check_mode

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
                lambda: self.read_despite_outage(self.read_again),
                lambda server: server is not None and decide_on_read(request, server)[1] != HELD_BY_PLAYERS,
                request.drain_timeout,
                request.poll_interval,
                self.ceiling,
            )

    def hold(self, plan, drained):
        """A gate holds ``plan.action`` back: say why in ``skipped_reason``, or fail (on_busy=fail)."""
        request = self.request
        if plan.held_by == HELD_BY_STATUS:
            self.skipped_reason = "%s has status %s, not one of only_if_status (%s): no %s sent." % (
                describe(self.server),
                status_of(self.server),
                ", ".join(request.only_if_status),
                plan.action,
            )
            return
        reason = self.busy_reason(drained)
        if request.on_busy == "fail":
            self.fail("%s Not sending the %s (on_busy=fail)." % (reason, plan.action))
        self.skipped_reason = reason

    def busy_reason(self, drained):
        request = self.request
        players = players_of(self.server)
        if players is None:
            reason = "%s reports no player count, so max_players (%d) cannot be confirmed." % (
                describe(self.server),
                request.max_players,
            )
        else:
            reason = "%s has %d players online, more than max_players (%d)" % (
                describe(self.server),
                players,
                request.max_players,
            )
            reason += (
                (" after waiting drain_timeout (%s s) for players to leave." % request.drain_timeout)
                if drained
                else "."
            )
        if drained and self.read_failure is not None:
            reason += self.last_read_failed()
        if self.check_mode and request.drain_timeout > 0:
            reason += " Check mode does not wait drain_timeout for players to leave."
        return reason

    # -- record --------------------------------------------------------------------------------

    def record(self):
        """Write the ``sending`` entry before the POST: ``(True, None)``, or ``(False, entry)`` when an open one stands.

        The claim is atomic, so of several processes deciding the same action on one server
        at once exactly one sends; the others follow its entry.
        """
        if self.ledger is None:
            return True, None
        entry, standing = self.ledger.claim(
            self.server["id"], self.action, pending.before_of(self.last), replace=self.request.ignore_pending
        )
        self.entry = entry
        return entry is not None, standing

    def mark(self, state):
        if self.entry is not None:
            self.entry = self.ledger.mark(self.entry, state) or self.entry

    # -- send ----------------------------------------------------------------------------------

    def send(self):
        """POST the action once.  Returns the PanelAmbiguousError when the answer was lost, else None.

        Any other PanelError means the panel surely did not queue it: nothing changed, and
        the entry goes, so that it holds nothing back.
        """
        try:
            self.client.queue_action(self.server["id"], self.action)
        except PanelAmbiguousError as error:
            self.not_before = self.clock.time()
            self.mark(MAY_BE_QUEUED)
            return error
        except PanelError:
            self.changed = False
            self.action = None
            if self.entry is not None:
                self.ledger.drop(self.entry)
                self.entry = None
            raise
        self.not_before = self.clock.time()
        self.mark(QUEUED)
        return None

    # -- confirm -------------------------------------------------------------------------------

    def confirm(self, convergence, ambiguous):
        """With ``wait``, wait for the outcome; without, read back once after a lost answer."""
        if self.request.wait:
            self.wait_for(convergence, ambiguous)
        elif ambiguous is not None:
            self.confirm_without_wait(convergence, ambiguous)

    def confirm_without_wait(self, convergence, ambiguous):
        if convergence.observe(self.read_again(), self.last.started):
            self.mark(DONE)
            return
        if convergence.moved:
            self.mark(QUEUED)  # the agent acted: the panel had it
            return
        self.fail(
            "%s The server read back shows no change yet (status %s); check it before running this again."
            % (self.ambiguous_message(ambiguous), status_of(self.server)),
            ambiguous,
        )

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
            )

    def wait_for(self, convergence, ambiguous):
        self.converged = False
        timeout = self.request.wait_timeout
        try:
            outcome = self.poll(convergence)
        except PanelError as error:
            self.fail(
                "The %s of %s was sent, but reading the server back failed: %s The module did not send it again."
                % (self.action, describe(self.before), self.explain_panel_error(error)),
                error,
            )
        self.converged = outcome.done
        if outcome.done:
            self.mark(DONE)
            return
        unread = self.last_read_failed() if self.read_failure is not None else ""
        if ambiguous is not None:
            self.fail(
                "%s Within wait_timeout (%s s) the server did not show it applied (last status seen: %s); "
                "check it before running this again.%s"
                % (self.ambiguous_message(ambiguous), timeout, status_of(self.server), unread),
                ambiguous,
            )
        self.fail(self.timeout_message(convergence) + unread, self.read_failure)

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
            self.hold_off(recorded)
            self.before = self.take(self.read_confirming(recorded)).server
        else:
            self.before = self.take(self.read_first()).server
        entry = pending.latest(self.settle(), action)
        label = describe(self.before)
        if entry is None:
            self.message = pending.nothing_to_confirm_message(action, label)
            return self.result()
        if is_open(entry):
            return self.follow(entry, confirming=True)
        self.pending, self.converged = entry, True
        self.message = pending.applied_message(entry, label)
        return self.result()

    def read_confirming(self, entry):
        """The first read of confirm_only: any list read that started one poll_interval after ``entry`` was queued.

        Unlike the read before queueing, which must start after the task did (a decision to
        send rests on it), a confirmation only needs a read the outcome can show in: so the
        confirm tasks of a whole batch, queued before, share one list read.
        """
        if entry is None or not is_open(entry) or self.before_reads is None:
            return self.read_first()
        not_before = min(entry["queued_at"] + self.request.poll_interval, self.clock.time())
        return self.before_reads.read_before(self.request.server_id, max(not_before, entry["queued_at"]))

    def hold_off(self, entry):
        """Sleep until one poll_interval after ``entry`` was queued (never longer than wait_timeout)."""
        if entry is None or not self.request.wait or self.check_mode or not is_open(entry):
            return
        delay = entry["queued_at"] + self.request.poll_interval - self.clock.time()
        if delay > 0:
            self.clock.sleep(min(delay, self.request.wait_timeout))

    def follow(self, entry, confirming=False):
        """Nothing is sent: ``entry`` (open, same action) stands.  With ``wait``, wait for its outcome."""
        self.pending, self.action, self.changed, self.entry = entry, None, False, None
        self.followed = True
        label = describe(self.before)
        if not self.request.wait or self.check_mode:
            self.message = pending.pending_message(entry, label)
            return self.result()
        self.converged = False
        self.not_before = self.clock.time()
        convergence = pending.convergence_for(entry, self.request.stopped_statuses)
        try:
            outcome = self.poll(convergence)
        except PanelError as error:
            self.fail(
                "%s Reading the server failed: %s Nothing new was sent."
                % (pending.pending_sentence(entry, label), self.explain_panel_error(error)),
                error,
            )
        self.converged = outcome.done
        if outcome.done:
            if self.ledger is not None:
                self.ledger.mark(entry, DONE)
            self.message = "%s A read now shows it applied. Nothing new was sent." % pending.pending_sentence(
                entry, label
            )
            return self.result()
        unread = self.last_read_failed() if self.read_failure is not None else ""
        if confirming:
            # worded like the wait of the task that queued it: this task only took that wait over
            message = "%s Nothing new was sent (confirm_only)." % self.timeout_message(convergence, entry["action"])
        else:
            message = pending.pending_timeout_message(entry, label, self.request.wait_timeout, status_of(self.server))
        self.fail(message + unread, self.read_failure)

    def last_read_failed(self):
        return " The last read failed: %s" % self.explain_panel_error(self.read_failure)

    def timeout_message(self, convergence, action=None):
        action, label, timeout = action or self.action, describe(self.before), self.request.wait_timeout
        last = status_of(self.server)
        if self.ledger is not None:
            again = "running this again waits for it instead of queueing a second %s" % action
        else:
            again = "running this again before then would queue a second %s" % action
        if not convergence.moved:
            return (
                "The %s of %s is queued, not yet applied: the agent has not checked in within wait_timeout (%s s). "
                "The panel runs it when the agent next checks in; the module did not queue it again "
                "(%s). Last status seen: %s." % (action, label, timeout, again, last)
            )
        return (
            "The %s of %s was queued and the server moved from status %s to %s, but it did not reach %s "
            "within wait_timeout (%s s). Last status seen: %s. The module did not queue it again."
            % (action, label, convergence.before_status, last, convergence.target(), timeout, last)
        )

    def ambiguous_message(self, error):
        """What happened to an ambiguous POST, said once: may be queued, not confirmed, not resent."""
        if error.what and error.cause:
            lost = "the answer to %s was lost (%s)" % (error.what, error.cause)
        else:
            lost = self.explain_panel_error(error)
        return "The %s of %s may already be queued, not confirmed: %s. It was not sent again, to avoid a second %s." % (
            self.action,
            describe(self.before),
            lost.rstrip("."),
            self.action,
        )

    # -- results -------------------------------------------------------------------------

    def explain_panel_error(self, error):
        message = str(error)
        return message if message.endswith((".", "!", "?")) else message + "."

    def result(self):
        if self.ledger is not None and not self.check_mode and self.last is not None and self.last is not self.settled:
            self.settled = self.last
            self.settle()  # the last read may prove other entries of the server
        result = {
            "changed": self.changed,
            "action": self.action,
            "before": self.before,
            "server": self.server,
            "converged": self.converged,
            "elapsed": round(self.clock.monotonic() - self.started_at, 3),
            "skipped_reason": self.skipped_reason,
            "pending": pending.view(self.pending),
            "unconfirmed": self.unconfirmed(),
            "api": self.client.stats,
        }
        if self.message is not None:
            result["msg"] = self.message
        if self.diff and self.before is not None:
            if self.converged:
                after_status = status_of(self.server)
            elif self.changed:
                after_status = expected_status(self.request, self.before)
            else:
                after_status = status_of(self.before)
            result["diff"] = {"before": {"status": status_of(self.before)}, "after": {"status": after_status}}
        return result

    def unconfirmed(self):
        """Whether an action this task sent, or an open one it followed, is still to be confirmed (confirm_only)."""
        if self.check_mode or self.converged:
            return False
        return self.action is not None or self.followed

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
