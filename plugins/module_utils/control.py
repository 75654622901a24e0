# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The logic of gamepanel.panel.server_control, free of Ansible.

The panel only queues a control action; the server's agent runs it when it next
checks in.  So the module reads before it writes (nothing is queued when the server
already is in the requested state), and with ``wait`` reads again until the outcome
shows.  It never sends an action twice: not after a wait that ran out (the action
stays queued for the agent) and not after a POST whose answer was lost.

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

from ansible_collections.gamepanel.panel.plugins.module_utils.errors import PanelAmbiguousError, PanelError
from ansible_collections.gamepanel.panel.plugins.module_utils.servers import describe, find_server_by_name
from ansible_collections.gamepanel.panel.plugins.module_utils.waiting import poll_ceiling, poll_until

ONLINE = "online"
ACTION_FOR_STATE = {"started": "start", "stopped": "stop", "restarted": "restart"}

# The defaults of server_control's own options, written once: its argument spec (tasks.py)
# and ControlRequest both read them here.  DOCUMENTATION shows them too; sanity checks it agrees.
DEFAULTS = {
    "wait": True,
    "wait_timeout": 300,
    "poll_interval": 5.0,
    "drain_timeout": 0,
    "on_busy": "skip",
    "stopped_statuses": ("offline", "stopped"),
}

# The task parameters ControlRequest.from_params copies under their own name.
_REQUEST_OPTIONS = ("wait", "wait_timeout", "poll_interval", "min_uptime", "max_players", "drain_timeout", "on_busy",
                    "stopped_statuses", "only_if_status", "api_variant", "rate_limit")

# Actions that take players off a server, and so honour max_players.
PLAYER_GATED_ACTIONS = ("stop", "restart")


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


class ControlRequest:
    """What the user asked for (``problems()`` checks it); usually built from the module's parameters."""

    def __init__(self, state, server_id=None, name=None, wait=DEFAULTS["wait"], wait_timeout=DEFAULTS["wait_timeout"],
                 poll_interval=DEFAULTS["poll_interval"], min_uptime=None, max_players=None,
                 drain_timeout=DEFAULTS["drain_timeout"], on_busy=DEFAULTS["on_busy"],
                 stopped_statuses=DEFAULTS["stopped_statuses"], only_if_status=None, api_variant="live", rate_limit=120):
        self.state = state
        self.server_id = server_id
        self.name = name
        self.wait = wait
        self.wait_timeout = wait_timeout
        self.poll_interval = poll_interval
        self.min_uptime = min_uptime
        self.max_players = max_players
        self.drain_timeout = drain_timeout
        self.on_busy = on_busy
        self.stopped_statuses = tuple(stopped_statuses)
        # None: any status may be acted on; otherwise only these (an empty list is refused by problems())
        self.only_if_status = None if only_if_status is None else tuple(only_if_status)
        self.api_variant = api_variant
        self.rate_limit = rate_limit

    @classmethod
    def from_params(cls, params):
        """The request a task's parameters make; an option that is absent or None keeps the constructor's default.

        An empty ``stopped_statuses`` stays empty, so problems() refuses it instead of silently using
        the default; a ``rate_limit`` of 0 (pacing off) stays 0.
        """
        options = dict((option, params[option]) for option in _REQUEST_OPTIONS if params.get(option) is not None)
        return cls(params["state"], server_id=params.get("id"), name=params.get("name"), **options)

    @property
    def action(self):
        return ACTION_FOR_STATE[self.state]

    def problems(self):
        """Sentences describing values the argument spec cannot rule out; empty when the request is usable."""
        found = []
        if self.poll_interval is None or self.poll_interval <= 0:
            found.append("poll_interval must be more than 0 seconds.")
        for option in ("wait_timeout", "drain_timeout", "min_uptime", "max_players"):
            value = getattr(self, option)
            if value is not None and value < 0:
                found.append("%s must not be negative." % option)
        if not self.stopped_statuses:
            found.append("stopped_statuses must name at least one status.")
        if self.only_if_status is not None and not self.only_if_status:
            found.append("only_if_status must name at least one status (or be left out to act in any status).")
        return found


def status_of(server):
    return server.get("status")


def uptime_of(server):
    uptime = server.get("uptime_seconds")
    return uptime if isinstance(uptime, (int, float)) and not isinstance(uptime, bool) else None


def players_of(server):
    """Current player count, or None when the panel did not report one."""
    players = server.get("players")
    current = players.get("current") if isinstance(players, dict) else None
    return current if isinstance(current, int) and not isinstance(current, bool) else None


def planned_action(request, server):
    """The action the server needs to reach ``request.state``, or None when it is already there.

    Status values are an open set: anything but ``online`` needs a start, anything
    outside ``stopped_statuses`` needs a stop.  ``min_uptime`` counts an online server
    that came up less than that long ago as already restarted; an offline server's
    zero uptime says nothing about a restart, so it still gets one.
    """
    status = status_of(server)
    if request.state == "started":
        return None if status == ONLINE else "start"
    if request.state == "stopped":
        return None if status in request.stopped_statuses else "stop"
    uptime = uptime_of(server)
    if request.min_uptime is not None and status == ONLINE and uptime is not None and uptime < request.min_uptime:
        return None
    return "restart"


def status_allows(request, server):
    """Whether ``only_if_status`` lets an action be sent on this read of ``server``."""
    return request.only_if_status is None or status_of(server) in request.only_if_status


def players_allow(request, server):
    """Whether ``max_players`` lets a stop or restart be sent on this read of ``server``.

    An unknown player count does not: the module cannot confirm the server is empty enough.
    """
    # A server in a stopped status has nobody on it, whatever the panel says about players.
    if request.max_players is None or status_of(server) in request.stopped_statuses:
        return True
    players = players_of(server)
    return players is not None and players <= request.max_players


# What holds a planned action back on a read (the second item decide_on_read returns).
HELD_BY_STATUS = "status"
HELD_BY_PLAYERS = "players"


def decide_on_read(request, server):
    """What server_control decides on one read of ``server``, before any wait: ``(action, held_by)``.

    ``action`` is planned_action's (None: nothing to do).  ``held_by`` is None when the
    action is to be sent, HELD_BY_STATUS when only_if_status refuses the server's status,
    HELD_BY_PLAYERS when max_players refuses a stop or restart (drain_timeout may then wait
    for players to leave, and on_busy says what happens when they don't).  The gamepanel.panel.control_plan
    filter reports the same decision, so the fleet roles skip a module run only where the module
    would decide the same.
    """
    action = planned_action(request, server)
    if action is None:
        return None, None
    if not status_allows(request, server):
        return action, HELD_BY_STATUS
    if action in PLAYER_GATED_ACTIONS and not players_allow(request, server):
        return action, HELD_BY_PLAYERS
    return action, None


def expected_status(request, server):
    """The status the server should show once ``request.state`` holds (for diff mode)."""
    if request.state == "stopped":
        status = status_of(server)
        return status if status in request.stopped_statuses else request.stopped_statuses[0]
    return ONLINE


# Seconds of slack in the uptime comparison of Convergence: the panel reports whole
# seconds (up to 1 s lost on each of the two reads), plus a margin for the panel's own
# bookkeeping.  A smaller value would take a slightly late uptime for a restart.
UPTIME_TOLERANCE = 2.0


class Convergence:
    """Decides, read by read after the POST, whether the queued action has taken effect.

    ``started`` needs ``online``; ``stopped`` a status in ``stopped_statuses``.
    ``restarted`` needs ``online`` plus proof that the server went down in between:
    either a read that was not ``online`` (or a server that was not online to begin
    with), or an uptime that reset.

    An uptime reset is judged against the uptime the server would show had it *not*
    restarted: the uptime read before queueing plus the time that surely passed between
    the two reads (from the end of the earlier read to the start of the later one), less
    UPTIME_TOLERANCE.  Comparing with the earlier uptime alone misses a restart of a
    server that had been up only briefly and came back between two polls: by the next
    read its new uptime is already above the old one.  A read showing exactly the
    uptime read before queueing proves nothing either way (a cached copy of the old
    state looks like that), so it never counts as a reset; the next read decides.
    """

    def __init__(self, request, before, before_read_at=None):
        self.request = request
        self.before_status = status_of(before)
        self.before_uptime = uptime_of(before)
        self.before_read_at = before_read_at  # wall time the read of `before` had ended, if known
        self.went_down = self.before_status != ONLINE
        self.moved = False  # any read showed a change since `before`: the agent has acted on something

    def uptime_reset(self, server, read_started=None):
        """Whether ``server`` (read from wall time ``read_started`` on) shows an uptime that restarted."""
        uptime = uptime_of(server)
        if uptime is None or self.before_uptime is None or uptime == self.before_uptime:
            return False
        if uptime < self.before_uptime:
            return True
        if read_started is None or self.before_read_at is None:
            return False
        surely_elapsed = max(0.0, read_started - self.before_read_at)
        return uptime < self.before_uptime + surely_elapsed - UPTIME_TOLERANCE

    def observe(self, server, read_started=None):
        status = status_of(server)
        reset = self.uptime_reset(server, read_started)
        if status != self.before_status or reset:
            self.moved = True
        if self.request.state == "started":
            return status == ONLINE
        if self.request.state == "stopped":
            return status in self.request.stopped_statuses
        if status != ONLINE:
            self.went_down = True
            return False
        return self.went_down or reset

    def target(self):
        if self.request.state == "started":
            return "status %s" % ONLINE
        if self.request.state == "stopped":
            return "a stopped status (%s)" % ", ".join(self.request.stopped_statuses)
        if self.before_status == ONLINE and self.before_uptime is not None:
            return "status %s with an uptime that restarted after the %s s read before queueing" % (ONLINE, self.before_uptime)
        return "status %s after going down" % ONLINE


class ServerControl:
    """One run of server_control against one server.  ``run()`` returns the result dict
    or raises ControlFailed carrying the result as far as the run got."""

    def __init__(self, client, request, check_mode=False, diff=False, status_reads=None, before_reads=None):
        self.client = client
        self.status_reads = status_reads  # a SharedStatusReads, or None: every wait read is a GET
        self.before_reads = before_reads  # a SharedStatusReads, or None: the read before queueing is a GET
        self.request = request
        self.check_mode = check_mode
        self.diff = diff
        self.clock = client.clock
        self.started_at = self.clock.monotonic()
        # The freshness rule of shared reads: no decision rests on a read that started before the task.
        self.task_started = self.clock.time()
        self.ceiling = poll_ceiling(request.poll_interval, request.rate_limit)
        self.before = None
        self.server = None
        self.action = None
        self.changed = False
        self.converged = None
        self.skipped_reason = None
        # Wall time the next wait read must not predate: when the POST was answered, then each read.
        self.not_before = None
        # Wall times around the read that produced self.server (for the uptime comparison).
        self.read_started = None
        self.read_finished = None
        # The transient PanelError of the wait's latest read, None when that read succeeded.
        self.read_failure = None

    # -- the run -------------------------------------------------------------------------

    def run(self):
        problems = self.request.problems()
        if problems:
            self.fail(" ".join(problems))
        self.require_variant_support()
        try:
            self.before = self.server = self.resolve()
            action = self.gated_action()
            if action is None:
                return self.result()
            self.action = action
            self.changed = True
            if self.check_mode:
                return self.result()
            convergence = Convergence(self.request, self.server, self.read_finished)
            ambiguous = self.queue(action)
            if self.request.wait:
                self.wait_for(convergence, ambiguous)
            elif ambiguous is not None:
                self.confirm_without_wait(convergence, ambiguous)
            return self.result()
        except PanelError as error:
            self.fail(self.explain_panel_error(error), error)

    def require_variant_support(self):
        action = self.request.action
        if not self.client.supports(action):
            self.fail("The %s API variant (api_variant=%s) has no %s action: it can only restart servers. "
                      "Use state=restarted, or api_variant=live for state=%s."
                      % (self.request.api_variant, self.request.api_variant, action, self.request.state))

    def resolve(self):
        if self.request.server_id is not None and self.before_reads is not None:
            # A shared list read: read_finished is when it ended (the panel saw the server by
            # then), which Convergence needs as the upper bound of the uptime's instant.
            server, self.read_started, self.read_finished = self.before_reads.read_before(
                self.request.server_id, self.task_started)
            return server
        if self.request.server_id is not None:
            return self.get_timed(self.request.server_id)
        self.read_started = self.clock.time()
        servers = self.client.list_servers()
        self.read_finished = self.clock.time()
        try:
            server = find_server_by_name(servers, self.request.name)
        except ValueError as error:
            self.fail(str(error))
        if server.get("id") is None:
            self.fail("The panel lists a server named %r without an id, so it cannot be controlled." % self.request.name)
        return server

    def get_timed(self, server_id):
        """GET one server, noting when the read started and ended (Convergence compares uptimes over that)."""
        self.read_started = self.clock.time()
        server = self.client.get_server(server_id)
        self.read_finished = self.clock.time()
        return server

    def read(self):
        """GET the server again; every read lands in ``self.server`` so failures report the last one."""
        self.server = self.get_timed(self.server["id"])
        return self.server

    def read_after_post(self):
        """A read for the wait: shared with other waiters when possible, never older than the POST's answer."""
        if self.status_reads is None:
            return self.read()
        self.server, view_time = self.status_reads.read(self.server["id"], self.not_before)
        self.read_started = self.read_finished = view_time
        self.not_before = view_time + 0.001  # the next read must show something newer
        return self.server

    # -- gates: only_if_status and max_players ----------------------------------------------

    def gated_action(self):
        """The action to queue, or None: nothing to do, or held back (``skipped_reason`` says why).

        Both gates judge the read the action would be sent on: a decision taken earlier, on
        another read (a fleet read of a role, an inventory), cannot see a server that was
        stopped, put in maintenance or filled with players since.
        """
        request = self.request
        action, held_by = decide_on_read(request, self.server)
        drained = False
        if held_by == HELD_BY_PLAYERS and request.drain_timeout > 0 and not self.check_mode:
            # While players leave, the server may reach the state on its own, or someone else may
            # stop it: the wait ends on any read that decides otherwise, and the last read decides.
            # As in the wait after queueing, retries inside a read stop at drain_timeout, and a read
            # that could not be made (None) leaves the decision to the last read that was.
            with self.client.deadline(request.drain_timeout, "drain_timeout=%g s" % request.drain_timeout):
                poll_until(self.clock, lambda: self.read_despite_outage(self.read),
                           lambda server: server is not None and decide_on_read(request, server)[1] != HELD_BY_PLAYERS,
                           request.drain_timeout, request.poll_interval, self.ceiling)
            action, held_by = decide_on_read(request, self.server)
            drained = True
        if held_by == HELD_BY_STATUS:
            self.skipped_reason = "%s has status %s, not one of only_if_status (%s): no %s sent." % (
                describe(self.server), status_of(self.server), ", ".join(request.only_if_status), action)
            return None
        if held_by == HELD_BY_PLAYERS:
            reason = self.busy_reason(drained)
            if request.on_busy == "fail":
                self.fail("%s Not sending the %s (on_busy=fail)." % (reason, action))
            self.skipped_reason = reason
            return None
        return action

    def busy_reason(self, drained):
        request = self.request
        players = players_of(self.server)
        if players is None:
            reason = "%s reports no player count, so max_players (%d) cannot be confirmed." % (
                describe(self.server), request.max_players)
        else:
            reason = "%s has %d players online, more than max_players (%d)" % (
                describe(self.server), players, request.max_players)
            reason += (" after waiting drain_timeout (%s s) for players to leave." % request.drain_timeout) if drained else "."
        if drained and self.read_failure is not None:
            reason += self.last_read_failed()
        if self.check_mode and request.drain_timeout > 0:
            reason += " Check mode does not wait drain_timeout for players to leave."
        return reason

    # -- queue ---------------------------------------------------------------------------

    def queue(self, action):
        """POST the action once.  Returns the PanelAmbiguousError when the answer was lost, else None.

        Any other PanelError means the panel surely did not queue it: nothing changed.
        """
        try:
            self.client.queue_action(self.server["id"], action)
        except PanelAmbiguousError as error:
            self.not_before = self.clock.time()
            return error
        except PanelError:
            self.changed = False
            self.action = None
            raise
        self.not_before = self.clock.time()
        return None

    def confirm_without_wait(self, convergence, ambiguous):
        if convergence.observe(self.read(), self.read_started) or convergence.moved:
            return
        self.fail("%s The server read back shows no change yet (status %s); check it before running this again."
                  % (self.ambiguous_message(ambiguous), status_of(self.server)), ambiguous)

    # -- wait ----------------------------------------------------------------------------

    def read_for_wait(self):
        """A read of the wait after queueing; None when the panel could not be read just now."""
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

    def wait_for(self, convergence, ambiguous):
        self.converged = False
        timeout = self.request.wait_timeout
        try:
            # Retries inside a read stop with the wait: it ends within wait_timeout plus one request.
            with self.client.deadline(timeout, "wait_timeout=%g s" % timeout):
                outcome = poll_until(self.clock, self.read_for_wait,
                                     lambda server: server is not None and convergence.observe(server, self.read_started),
                                     timeout, self.request.poll_interval, self.ceiling)
        except PanelError as error:
            self.fail("The %s of %s was sent, but reading the server back failed: %s The module did not send it again."
                      % (self.action, describe(self.before), self.explain_panel_error(error)), error)
        self.converged = outcome.done
        if outcome.done:
            return
        unread = self.last_read_failed() if self.read_failure is not None else ""
        if ambiguous is not None:
            self.fail("%s Within wait_timeout (%s s) the server did not show it applied (last status seen: %s); "
                      "check it before running this again.%s"
                      % (self.ambiguous_message(ambiguous), timeout, status_of(self.server), unread), ambiguous)
        self.fail(self.timeout_message(convergence) + unread, self.read_failure)

    def last_read_failed(self):
        return " The last read failed: %s" % self.explain_panel_error(self.read_failure)

    def timeout_message(self, convergence):
        action, label, timeout = self.action, describe(self.before), self.request.wait_timeout
        last = status_of(self.server)
        if not convergence.moved:
            return ("The %s of %s is queued, not yet applied: the agent has not checked in within wait_timeout (%s s). "
                    "The panel runs it when the agent next checks in; the module did not queue it again "
                    "(running this again before then would queue a second %s). Last status seen: %s."
                    % (action, label, timeout, action, last))
        return ("The %s of %s was queued and the server moved from status %s to %s, but it did not reach %s "
                "within wait_timeout (%s s). Last status seen: %s. The module did not queue it again."
                % (action, label, convergence.before_status, last, convergence.target(), timeout, last))

    def ambiguous_message(self, error):
        """What happened to an ambiguous POST, said once: may be queued, not confirmed, not resent."""
        what, cause = getattr(error, "what", None), getattr(error, "cause", None)
        lost = ("the answer to %s was lost (%s)" % (what, cause)) if what and cause else self.explain_panel_error(error)
        return ("The %s of %s may already be queued, not confirmed: %s. It was not sent again, to avoid a second %s."
                % (self.action, describe(self.before), lost.rstrip("."), self.action))

    # -- results -------------------------------------------------------------------------

    def explain_panel_error(self, error):
        message = str(error)
        return message if message.endswith((".", "!", "?")) else message + "."

    def result(self):
        result = {
            "changed": self.changed,
            "action": self.action,
            "before": self.before,
            "server": self.server,
            "converged": self.converged,
            "elapsed": round(self.clock.monotonic() - self.started_at, 3),
            "skipped_reason": self.skipped_reason,
            "api": self.client.stats,
        }
        if self.diff and self.before is not None:
            if self.converged:
                after_status = status_of(self.server)
            elif self.changed:
                after_status = expected_status(self.request, self.before)
            else:
                after_status = status_of(self.before)
            result["diff"] = {"before": {"status": status_of(self.before)}, "after": {"status": after_status}}
        return result

    def fail(self, message, error=None):
        raise ControlFailed(message, self.result(), error)


def run_control(client, request, check_mode=False, diff=False, status_reads=None, before_reads=None):
    """Bring one server to ``request.state``; return the result dict or raise ControlFailed.

    ``status_reads`` (a SharedStatusReads) lets the wait share list reads with other
    processes working on servers of the same token, and ``before_reads`` (usually the
    same object) the read before queueing; without them every such read is a GET.
    """
    return ServerControl(client, request, check_mode=check_mode, diff=diff, status_reads=status_reads,
                         before_reads=before_reads).run()
