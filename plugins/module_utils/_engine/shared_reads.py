# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: status reads shared by the forks working on servers of the same token (SharedStatusReads)."""

from __future__ import annotations

import os

from ansible_collections.gamepanel.panel.plugins.module_utils._engine.pages import read_by_id
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.convergence import TimedRead
from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import PanelError
from ansible_collections.gamepanel.panel.plugins.module_utils._state.files import StateFiles

# A task counts as active while it read (or joined) within this many seconds (the longest gap
# of the follow-up is 30 s, so an active waiter always refreshes its entry in time).
ACTIVE_WAITER_SECONDS = 60.0
# Sharing starts when at least this many tasks of one token are active at once.
MIN_SHARING_WAITERS = 3
# How long a reader waits for another process's list read before reading on its own: the
# list read may itself wait for the rate budget (up to a minute when the window is full),
# and reading on one's own then would only spend one more request of that budget.
LIST_READ_WAIT_SECONDS = 75.0
_CLAIM_POLL_SECONDS = 0.02
# A shared read gathers: the first task that needs a read announces a list read
# GATHER seconds ahead, and every task needing a read meanwhile joins it, so that one
# list read answers them all.  Longer on a small plan, where every request counts:
# GATHER_BUDGET_SECONDS / rate_limit, between SHORTEST_GATHER and LONGEST_GATHER seconds
# (2.5 s on the Pro plan's 120 requests per minute, 0.75 s on Team's 600).  On a small
# plan a fleet job is bound by the rate limit, and every request saved is worth more
# than the half gathering a read waits on average.
GATHER_BUDGET_SECONDS = 300.0
SHORTEST_GATHER = 0.75
LONGEST_GATHER = 2.5


def gather_seconds(rate_limit):
    """How long a shared read waits for others to join it, for a token with ``rate_limit`` requests per minute."""
    if not rate_limit or rate_limit <= 0:
        return SHORTEST_GATHER
    return min(LONGEST_GATHER, max(SHORTEST_GATHER, GATHER_BUDGET_SECONDS / float(rate_limit)))


class SharedStatusReads:
    """Status reads of many servers at once, coalesced into list reads across processes.

    In a fleet restart every fork reads its server before queueing and again while it waits: twenty
    forks would cost twenty ``GET /servers/{id}`` a round.  Instead, while at least MIN_SHARING_WAITERS
    tasks of the token are active (and more of them than a list read costs pages), a task that needs a
    read joins the list read another announced for an instant ("read_at") not yet past, or announces
    one ``gather_seconds`` ahead; at that instant one of the tasks due reads ``GET /servers`` for all
    of them and leaves it as a snapshot, the others answer from it.  With no more tasks due than the
    list costs pages, each reads its own server; a lone task makes its single GET at once.  The read
    before queueing counts the tasks expected too (``batch_hosts``: the hosts of the play's batch
    running the same task), so that the first forks of a batch do not read alone before the others
    registered; such a task, if nobody joins it after all, waits one gathering.

    The freshness rule that keeps decisions exact: a snapshot answers a read only if its list read
    *started* at or after ``not_before``.  The read before queueing (``read_before``) passes the
    instant the task started, so no action is decided on a read that started before the task did.  A
    waiter (``read``) passes the instant its POST was answered, then just after its previous read, so
    an answer never predates the action and each read sees something newer; and, its read being due
    now, it takes no snapshot that started more than ``gather`` seconds ago (an older state would cost
    it a whole poll interval when the change it waits for just happened).

    Clocks: the callers' instants (``not_before``) and the reads returned are on this process's
    monotonic clock, as every time the engine compares (_engine/run.py).  The files are shared with
    other processes, whose monotonic clocks are not ours: there wall-clock time (``clock.time()``) is
    the common time, converted at the boundary (``_answer``), and snapshots from the future are
    ignored.  A snapshot's times are so placed by the wall clock: a step between another process's
    list read and its use here shifts that one read, never the rest of the wait.

    State (the token's StateFiles, _state/files.py): ``readers`` (each active task's last sign of life
    and the read it is due at, the list read announced and which process claimed it, what the last
    list read cost in requests) and ``snapshot`` (the last list read: its start and end, its panel,
    the servers).  No lock is held while the list is read: a claim in ``readers`` tells the others to
    wait for it (at most LIST_READ_WAIT_SECONDS, and a wait's read never past the wait's deadline:
    ``client.deadline()``).  Any file problem quietly turns sharing off: every read is then the
    task's own GET, exactly as without this class.
    """

    def __init__(self, client, files, panel, gather=SHORTEST_GATHER, member=None, batch_hosts=0):
        self.client = client
        self.batch_hosts = batch_hosts
        self.clock = client.clock
        self.files = files
        self.panel = panel  # which panel and variant the snapshot describes (base URL and variant)
        self.gather = float(gather)
        self.member = member or str(os.getpid())
        self.enabled = files.usable
        self.registered = False  # whether this task has an entry in the readers file

    @classmethod
    def for_client(cls, client, rate_limit, directory=None, batch_hosts=0):
        """The shared reads of ``client``'s token, in the state directory the rate budget uses."""
        return cls(
            client,
            StateFiles(client.state_key, directory),
            "%s %s" % (client.api_variant, client.base_url),
            gather_seconds(rate_limit),
            batch_hosts=batch_hosts,
        )

    def join(self):
        """This task has started: it counts towards sharing from now on."""
        self._guarded(lambda: self.files.update("readers", self._touch(self.clock.time())))

    def read_before(self, server_id, not_before):
        """The read before queueing (a TimedRead): the server as a read that started at or after ``not_before`` saw it.

        Its ``finished`` is when that read ended: the latest instant the panel can have
        produced the answer (a shared list read's end, or the task's own GET's end).
        """
        return self._read(server_id, not_before, fresh=False)

    def read(self, server_id, not_before):
        """A waiter's read (a TimedRead): the server as seen at or after ``not_before`` (monotonic).

        Its ``started`` is when the read started (a shared list read's start, or the task's
        own GET): pass it, slightly increased, as the next ``not_before``.
        """
        return self._read(server_id, not_before, fresh=True)

    def _read(self, server_id, not_before, fresh):
        shared = self._guarded(lambda: self._shared_read(server_id, not_before, fresh))
        return read_by_id(self.client, server_id) if shared is None else shared

    def close(self):
        """This task is done: it no longer counts towards sharing."""
        if self.registered:
            self._guarded(lambda: self.files.update("readers", self._leave))

    # -- sharing -----------------------------------------------------------------------

    def _guarded(self, action):
        if not self.enabled:
            return None
        try:
            return action()
        except (OSError, ValueError):
            self.enabled = False
            return None

    def _shared_read(self, server_id, not_before, fresh):
        now = self.clock.time()  # wall time: the clock of the shared files
        not_before += now - self.clock.monotonic()  # the caller's instant, in wall time
        active, cost = self.files.update("readers", self._touch(now))
        expected = active if fresh else max(active, self.batch_hosts)
        if expected < MIN_SHARING_WAITERS or expected <= cost:
            return None
        oldest = not_before if not fresh else max(not_before, now - self.gather)
        found = self._answer(self.files.read("snapshot"), server_id, oldest)
        if found is not None:
            return found
        # At the wait's deadline retries are off: the own GET then is one attempt, as the follow-up's last read is.
        left = self.client.deadline_left()
        read_at = self.files.update("readers", self._join(now, oldest, None if left is None else now + left))
        if read_at is None:
            return None  # the list read would come after the deadline
        if read_at > now:
            self.clock.sleep(read_at - now)
        left = self.client.deadline_left()
        deadline = self.clock.monotonic() + (
            LIST_READ_WAIT_SECONDS if left is None else min(LIST_READ_WAIT_SECONDS, left)
        )
        while True:
            found = self._answer(self.files.read("snapshot"), server_id, max(oldest, read_at))
            if found is not None:
                self.files.update("readers", self._touch(self.clock.time()))
                return found
            decision = self.files.update("readers", self._decide(read_at))
            if decision == "read":
                return self._read_list(server_id, max(oldest, read_at))
            if decision == "own" or self.clock.monotonic() >= deadline:
                self.files.update("readers", self._touch(self.clock.time()))
                return None
            self.clock.sleep(_CLAIM_POLL_SECONDS)  # another process is reading the list for us

    def _read_list(self, server_id, not_before):
        started = self.clock.time()  # wall time: the snapshot is read by other processes
        requests_before = self.client.stats["requests"]
        try:
            servers = self.client.list_servers()
        except PanelError:
            servers = None  # the task's own GET decides
        except BaseException:
            self.files.update("readers", self._release_claim(self.clock.time(), 1))  # nobody waits for us in vain
            raise
        finished = self.clock.time()
        cost = max(1, self.client.stats["requests"] - requests_before)
        if servers is not None:
            snapshot = {
                "started": started,
                "finished": finished,
                "panel": self.panel,
                "servers": dict((server["id"], server) for server in servers if server.get("id") is not None),
            }
            self.files.update("snapshot", lambda document: (document.clear(), document.update(snapshot)))
        self.files.update("readers", self._release_claim(finished, cost))
        return None if servers is None else self._answer(snapshot, server_id, not_before)

    def _answer(self, snapshot, server_id, not_before):
        if not snapshot or snapshot.get("panel") != self.panel:
            return None
        started, finished = snapshot.get("started"), snapshot.get("finished")
        if not all(isinstance(stamp, (int, float)) for stamp in (started, finished)):
            return None
        monotonic = self.clock.monotonic()
        wall_offset = self.clock.time() - monotonic
        if started < not_before or finished > monotonic + wall_offset + 1.0:
            return None
        servers = snapshot.get("servers")
        server = servers.get(server_id) if isinstance(servers, dict) else None
        if not isinstance(server, dict):
            return None
        # placed on this process's monotonic clock, never after now
        started, finished = (min(stamp - wall_offset, monotonic) for stamp in (started, finished))
        return TimedRead(server, started, finished, wall_offset)

    # -- changes to the readers document (run under its lock) --------------------------

    def _prune(self, readers, now):
        tasks = readers.get("tasks")
        if not isinstance(tasks, dict):
            tasks = {}
        readers["tasks"] = dict(
            (member, entry)
            for member, entry in tasks.items()
            if isinstance(entry, dict)
            and isinstance(entry.get("seen"), (int, float))
            and now - ACTIVE_WAITER_SECONDS < entry["seen"] <= now + 1.0
        )
        return readers["tasks"]

    def _stamp(self, readers, now, due=None):
        """This task's sign of life at ``now`` (due at the list read of ``due``, or none); returns the active tasks."""
        tasks = self._prune(readers, now)
        tasks[self.member] = {"seen": now, "due": due}
        self.registered = True
        return tasks

    def _touch(self, now):
        """Stamp this task; returns (active tasks, list cost)."""

        def change(readers):
            tasks = self._stamp(readers, now)
            cost = readers.get("cost")
            return len(tasks), cost if isinstance(cost, int) and cost > 0 else 1

        return change

    def _join(self, now, oldest, latest=None):
        """Join the list read announced for an instant not before ``oldest``, or announce one; returns its instant.

        None (and nothing joined nor announced) when that instant would be after ``latest``.
        """

        def change(readers):
            announced = readers.get("next_read")
            if isinstance(announced, (int, float)) and oldest <= announced <= now + self.gather + 1.0:
                read_at = announced
            else:
                read_at = max(now, oldest) + self.gather
            if latest is not None and read_at > latest:
                return None
            readers["next_read"] = read_at
            self._stamp(readers, now, read_at)
            return read_at

        return change

    def _leave(self, readers):
        self._prune(readers, self.clock.time()).pop(self.member, None)
        self.registered = False

    def _decide(self, read_at):
        """Under the lock: "read" (this process reads the list due at ``read_at``), "wait" (another is), or "own"."""

        def change(readers):
            now = self.clock.time()
            tasks = self._prune(readers, now)
            claim = readers.get("claim")
            if (
                isinstance(claim, dict)
                and claim.get("member") != self.member
                and claim.get("read_at") == read_at
                and isinstance(claim.get("at"), (int, float))
                and now - LIST_READ_WAIT_SECONDS < claim["at"] <= now + 1.0
                and _alive(claim["member"])
            ):
                return "wait"
            due = sum(
                1 for entry in tasks.values() if isinstance(entry.get("due"), (int, float)) and entry["due"] <= read_at
            )
            cost = readers.get("cost") if isinstance(readers.get("cost"), int) else 1
            if due <= cost:
                return "own"
            readers["claim"] = {"member": self.member, "read_at": read_at, "at": now}
            return "read"

        return change

    def _release_claim(self, now, cost):
        def change(readers):
            if self.member in self._prune(readers, now):
                self._stamp(readers, now)
            claim = readers.get("claim")
            if isinstance(claim, dict) and claim.get("member") == self.member:
                readers.pop("claim")
            readers["cost"] = cost

        return change


def _alive(member):
    """False only when ``member`` names a process id that no longer exists."""
    try:
        os.kill(int(member), 0)
    except ProcessLookupError:
        return False
    except (ValueError, TypeError, OSError, OverflowError):
        pass
    return True
