# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: what a read of a server says, and when a read proves that an action took effect.

server_control's wait and the ledger (an action queued by an earlier run) judge reads by
the same rules, so they live here, apart from both.
"""

from __future__ import annotations

import collections

ONLINE = "online"
# The statuses that count as stopped unless a task names its own (stopped_statuses): the default of
# server_control, the fleet jobs and the event source alike.
DEFAULT_STOPPED_STATUSES = ("offline", "stopped")

# What a Convergence needs of a request: the state sought and which statuses count as stopped.
Goal = collections.namedtuple("Goal", "state stopped_statuses")


class TimedRead(object):
    """One read of a server and when it started and finished, on the monotonic clock of this process.

    The panel produced the answer somewhere in between; Convergence compares uptimes
    over that interval, and every elapsed time a task judges (deadlines, drains, pacing)
    is measured on the monotonic clock: an NTP step or a resumed VM moves the wall clock,
    and a wall-clock interval would then show a restart the server never made.
    ``finished`` is None where only one instant is known (its start).

    ``wall_offset`` is what the wall clock read minus the monotonic clock when the read
    started: ``wall_started`` and ``wall_finished`` are for the comparisons with what other
    processes wrote in wall time (the ledger's ``queued_at``), the only ones that need it.
    A TimedRead made with no offset has one clock for both.
    """

    __slots__ = ("server", "started", "finished", "wall_offset")

    def __init__(self, server, started, finished=None, wall_offset=0.0):
        self.server = server
        self.started = started
        self.finished = started if finished is None else finished
        self.wall_offset = wall_offset

    @classmethod
    def made(cls, clock, read):
        """``read()``'s server as a TimedRead, timed on ``clock`` (monotonic, with the wall offset)."""
        started = clock.monotonic()
        wall_offset = clock.time() - started
        server = read()
        return cls(server, started, clock.monotonic(), wall_offset)

    @property
    def wall_started(self):
        return self.started + self.wall_offset

    @property
    def wall_finished(self):
        return self.finished + self.wall_offset

    def __iter__(self):
        # (server, started, finished): SharedStatusReads' callers unpack a read as a tuple.
        return iter((self.server, self.started, self.finished))

    def __repr__(self):
        return "TimedRead(%r, %r, %r)" % (self.server, self.started, self.finished)


def status_of(server):
    return server.get("status")


def uptime_of(server):
    uptime = server.get("uptime_seconds")
    return uptime if isinstance(uptime, (int, float)) and not isinstance(uptime, bool) else None


def uptime_went_back(before, after):
    """Whether the server record ``after`` shows a lower uptime than ``before``: the plain sign of a restart.

    The one test of it, for the task's Convergence and the fleet watcher's ``restarted`` event alike;
    a missing or non-numeric uptime on either side proves nothing.
    """
    old, new = uptime_of(before), uptime_of(after)
    return old is not None and new is not None and new < old


def players_of(server):
    """Current player count, or None when the panel did not report one."""
    players = server.get("players")
    current = players.get("current") if isinstance(players, dict) else None
    return current if isinstance(current, int) and not isinstance(current, bool) else None


# Seconds of slack in the uptime comparison of Convergence: the panel reports whole
# seconds (up to 1 s lost on each of the two reads), plus a margin for the panel's own
# bookkeeping.  A smaller value would take a slightly late uptime for a restart.
UPTIME_TOLERANCE = 2.0
# How soon a read that could not tell (Convergence.undecided) is made again: a live uptime has
# moved on by a second or two by then, a frozen answer has not.
UNDECIDED_RECHECK_SECONDS = 2.0


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

    Such a read can also be a coincidence of whole seconds: a server up U seconds when read
    before queueing that restarted U seconds before a later read shows U again.  A wait must
    not end on that read: the first one is ``undecided`` (the caller reads once more, even past
    its deadline); a second one is an answer frozen at the old uptime, which proves nothing.
    """

    def __init__(self, request, before, before_read_at=None):
        self.request = request
        self.before_status = status_of(before)
        self.before_uptime = uptime_of(before)
        self.before_read_at = before_read_at  # when the read of `before` had ended (monotonic), if known
        self.went_down = self.before_status != ONLINE
        self.moved = False  # any read showed a change since `before`: the agent has acted on something
        self.undecided = False  # the latest read showed the old uptime for the first time: read again before judging
        self.same_uptime_reads = 0

    def uptime_reset(self, server, read_started=None):
        """Whether ``server`` (read from ``read_started`` on) shows an uptime that restarted.

        ``read_started`` is on the clock of ``before_read_at`` (monotonic in a task, wall time in server_info).

        The time that surely passed is never taken below 0: a ``before_read_at`` later than
        the read (another process's wall clock ahead of ours) counts no time at all.
        """
        uptime = uptime_of(server)
        if uptime is None or self.before_uptime is None or uptime == self.before_uptime:
            return False
        if uptime_went_back({"uptime_seconds": self.before_uptime}, server):
            return True
        if read_started is None or self.before_read_at is None:
            return False
        surely_elapsed = max(0.0, read_started - self.before_read_at)
        return uptime < self.before_uptime + surely_elapsed - UPTIME_TOLERANCE

    def observe(self, server, read_started=None):
        status = status_of(server)
        reset = self.uptime_reset(server, read_started)
        same_uptime = status == ONLINE and self.before_uptime is not None and uptime_of(server) == self.before_uptime
        self.same_uptime_reads += 1 if same_uptime else 0
        self.undecided = self.request.state == "restarted" and same_uptime and self.same_uptime_reads == 1
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
            return "status %s with an uptime that restarted after the %s s read before queueing" % (
                ONLINE,
                self.before_uptime,
            )
        return "status %s after going down" % ONLINE
