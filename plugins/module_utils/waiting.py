# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""How a waiter reads a server again and again without wasting the rate budget.

A queued action runs only when the server's agent next checks in, which may take
tens of seconds, so a waiter reads the server again and again.  Each read costs a
request from the one budget the token shares with every other fork, so:

* ``poll_until``: reads start at ``poll_interval`` and slow down geometrically up to a
  ceiling derived from the rate limit; no sleep ever runs past the deadline;
* ``SharedStatusReads``: when several processes (forks) wait on servers of the same
  token at once, one list read answers all of them (see its docstring).
"""

from __future__ import annotations

import json
import os

try:
    import fcntl
except ImportError:  # not on a POSIX controller: every waiter reads its own server
    fcntl = None

from ansible_collections.gamepanel.panel.plugins.module_utils.errors import PanelError
from ansible_collections.gamepanel.panel.plugins.module_utils.ratelimit import budget_key, state_directory

BACKOFF_FACTOR = 1.5

# The slowest a waiter ever polls (seconds) unless the user asked for slower:
# agents check in every ~30-60 s, so a longer gap only delays noticing the outcome.
LONGEST_POLL_INTERVAL = 30.0

# How many waiters polling at the ceiling together should fit into one token's
# per-minute budget (a fleet restart with many forks all waiting at once).
WAITERS_PER_BUDGET = 50


def poll_ceiling(poll_interval, rate_limit):
    """The slowest interval the backoff grows to, in seconds.

    At the ceiling, WAITERS_PER_BUDGET waiters together stay within ``rate_limit``
    requests per minute (25 s on the Pro plan's 120, 5 s on Team's 600), but the
    ceiling is never above LONGEST_POLL_INTERVAL nor below ``poll_interval``.
    """
    budget_interval = 60.0 * WAITERS_PER_BUDGET / max(float(rate_limit or 1), 1.0)
    return max(float(poll_interval), min(LONGEST_POLL_INTERVAL, budget_interval))


class PollOutcome:
    """What a poll ended with: the last value read, whether ``done`` held, how many reads."""

    def __init__(self, last, done, reads):
        self.last = last
        self.done = done
        self.reads = reads


def poll_until(clock, read, done, timeout, poll_interval, ceiling):
    """Call ``read()`` until ``done(value)`` is true or ``timeout`` seconds have passed.

    The first read comes after one ``poll_interval``: whatever is being waited for
    cannot have happened at the instant it was asked for.  Intervals then grow by
    BACKOFF_FACTOR up to ``ceiling``.  Sleeps are cut short at the deadline, and one
    last read is made at the deadline itself, so a wait never ends on a read older
    than its full timeout.  Errors raised by ``read`` propagate.
    """
    deadline = clock.monotonic() + max(float(timeout), 0.0)
    interval = max(float(poll_interval), 0.0)
    reads = 0
    while True:
        remaining = deadline - clock.monotonic()
        if remaining > 0:
            clock.sleep(min(interval, remaining))
        value = read()
        reads += 1
        if done(value):
            return PollOutcome(value, True, reads)
        if clock.monotonic() >= deadline:
            return PollOutcome(value, False, reads)
        interval = min(interval * BACKOFF_FACTOR, max(float(ceiling), interval))


# A waiter counts as active while it polled within this many seconds (the slowest poll
# ceiling is 30 s, so an active waiter always refreshes its entry in time).
ACTIVE_WAITER_SECONDS = 60.0
# A list read pays off only when at least this many waiters share it, and more waiters
# than the requests the list read costs (its pages, as the last list read measured).
MIN_SHARING_WAITERS = 3
# How long a waiter waits for another process's list read before reading on its own.
LIST_READ_WAIT_SECONDS = 5.0
_LOCK_RETRY_SECONDS = 0.05


class SharedStatusReads:
    """Status reads of many servers at once, coalesced into list reads across processes.

    In a fleet restart every fork waits on its own server and would poll
    ``GET /servers/{id}``; twenty forks cost twenty requests per round.  Instead, when
    at least MIN_SHARING_WAITERS waiters of the same token are active (and more than
    the pages a list read costs), the first one due reads ``GET /servers`` and leaves
    the result as a snapshot file; the others answer their read from it.

    A snapshot may answer a read only if its list read *started* after
    ``not_before``: the waiter passes the instant its POST was answered (and then its
    previous read), so an answer can never predate the action it is waiting for, and
    each read sees something newer than the last.  Wall-clock time (``clock.time()``)
    is the common time of all processes; snapshots from the future (a clock set back)
    are ignored.

    Files, under the state directory, named by ``key`` (a hash of the token, never the
    token): ``<key>.waiters`` (pid and last poll of each active waiter),
    ``<key>.snapshot`` (the last list read: when it started, for which panel, how many
    requests it cost, the servers) and ``<key>.snapshot.lock`` (held while a process
    reads the list).  Any file problem quietly turns sharing off: every read is then
    the waiter's own GET, exactly as without this class.
    """

    def __init__(self, client, key, directory, panel):
        self.client = client
        self.clock = client.clock
        self.panel = panel  # which panel and variant the snapshot describes (base URL and variant)
        self.pid = str(os.getpid())
        base = os.path.join(directory, key)
        self.waiters_path = base + ".waiters"
        self.snapshot_path = base + ".snapshot"
        self.lock_path = base + ".snapshot.lock"
        self.enabled = fcntl is not None
        self.registered = False  # whether this waiter has an entry in the waiters file
        if self.enabled:
            try:
                os.makedirs(directory, mode=0o700, exist_ok=True)
            except OSError:
                self.enabled = False

    @classmethod
    def for_client(cls, client, api_token, directory=None):
        """The shared reads of ``client``'s token, under the state directory the rate budget uses."""
        return cls(client, budget_key(api_token), state_directory(directory), "%s %s" % (client.api_variant, client.base_url))

    def read(self, server_id, not_before):
        """(server, view_time): the server as seen at or after wall time ``not_before``.

        ``view_time`` is the wall time the read started (a shared list read's start, or
        the waiter's own GET): pass it, slightly increased, as the next ``not_before``.
        """
        if self.enabled:
            try:
                shared = self._shared_read(server_id, not_before)
            except (OSError, ValueError):
                self.enabled = False
                shared = None
            if shared is not None:
                return shared
        started = self.clock.time()
        return self.client.get_server(server_id), started

    def close(self):
        """This waiter stops waiting: it no longer counts towards sharing."""
        if self.enabled and self.registered:
            try:
                self._update_waiters(remove=True)
            except OSError:
                pass

    # -- sharing -----------------------------------------------------------------------

    def _shared_read(self, server_id, not_before):
        waiters = self._update_waiters()
        snapshot = self._load_snapshot()
        cost = snapshot.get("cost", 1) if snapshot else 1
        if waiters < MIN_SHARING_WAITERS or waiters <= cost:
            return None
        found = self._answer(snapshot, server_id, not_before)
        if found is not None:
            return found
        lock = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            if self._lock_within(lock, LIST_READ_WAIT_SECONDS):
                # Someone may have finished a list read while we were getting here.
                found = self._answer(self._load_snapshot(), server_id, not_before)
                return found if found is not None else self._read_list(server_id, not_before)
            # Another process is still reading the list: use its result if it is ready.
            return self._answer(self._load_snapshot(), server_id, not_before)
        finally:
            os.close(lock)  # also releases the lock

    def _lock_within(self, fd, seconds):
        """Take the lock, waiting up to ``seconds`` for another process's list read to end."""
        deadline = self.clock.monotonic() + seconds
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                if self.clock.monotonic() >= deadline:
                    return False
                self.clock.sleep(_LOCK_RETRY_SECONDS)

    def _read_list(self, server_id, not_before):
        started = self.clock.time()
        requests_before = self.client.stats["requests"]
        try:
            servers = self.client.list_servers()
        except PanelError:
            return None  # the waiter's own GET decides
        snapshot = {
            "started": started,
            "panel": self.panel,
            "cost": max(1, self.client.stats["requests"] - requests_before),
            "servers": dict((server["id"], server) for server in servers if server.get("id") is not None),
        }
        temp = "%s.%s.tmp" % (self.snapshot_path, self.pid)
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(snapshot, handle)
        os.replace(temp, self.snapshot_path)
        return self._answer(snapshot, server_id, not_before)

    def _answer(self, snapshot, server_id, not_before):
        if not snapshot or snapshot.get("panel") != self.panel:
            return None
        started = snapshot.get("started")
        if not isinstance(started, (int, float)) or started < not_before or started > self.clock.time() + 1.0:
            return None
        server = snapshot.get("servers", {}).get(server_id)
        return None if server is None else (server, started)

    def _load_snapshot(self):
        try:
            with open(self.snapshot_path, encoding="utf-8") as handle:
                snapshot = json.load(handle)
        except (OSError, ValueError):
            return None
        return snapshot if isinstance(snapshot, dict) else None

    def _update_waiters(self, remove=False):
        """Stamp (or remove) this waiter, drop waiters gone quiet; returns how many are active."""
        fd = os.open(self.waiters_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            now = self.clock.time()
            chunks = []
            while True:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                chunks.append(chunk)
            active = {}
            for line in b"".join(chunks).decode("ascii", "replace").splitlines():
                parts = line.split()
                try:
                    pid, stamp = parts[0], float(parts[1])
                except (IndexError, ValueError):
                    continue
                if now - ACTIVE_WAITER_SECONDS < stamp <= now + 1.0:
                    active[pid] = stamp
            if remove:
                active.pop(self.pid, None)
            else:
                active[self.pid] = now
            self.registered = not remove
            os.lseek(fd, 0, os.SEEK_SET)
            os.ftruncate(fd, 0)
            os.write(fd, "".join("%s %.6f\n" % item for item in sorted(active.items())).encode("ascii"))
            return len(active)
        finally:
            os.close(fd)
