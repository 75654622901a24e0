# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""One request budget per API token, shared by every process on the controller.

The panel counts requests per token in a sliding minute.  Ansible runs each task of
each fork in its own process, and an inventory refresh runs in yet another, so a
per-process counter would let twenty forks send twenty times the limit and collect
429s.  Instead every process records the time of each request it sends in one small
file per token and waits, before sending, until fewer than ``rate_limit`` requests
were sent in the last 60 seconds.

The file is named by the SHA-256 of the token (never the token), lives under
``$GAMEPANEL_STATE_DIR`` (default ``~/.ansible/tmp/gamepanel``, created 0700), is
guarded by an exclusive ``fcntl`` lock held only while reading and rewriting it (never
while sleeping), and holds at most ``rate_limit`` time stamps: older ones are pruned
on every write.

When the directory or the lock is unusable (read-only home, no fcntl), the budget
quietly becomes per process: requests still succeed, pacing is then only local and
429 handling (retry.py) covers the rest.
"""

from __future__ import annotations

import hashlib
import os

from ansible_collections.gamepanel.panel.plugins.module_utils.retry import SystemClock

try:
    import fcntl
except ImportError:  # not on a POSIX controller: per-process budget only
    fcntl = None

WINDOW_SECONDS = 60.0
STATE_DIR_ENV = "GAMEPANEL_STATE_DIR"
DEFAULT_STATE_DIR = os.path.join("~", ".ansible", "tmp", "gamepanel")
# A wait never shorter than this: avoids a busy loop on clock granularity.
_MIN_WAIT = 0.01


def budget_key(api_token):
    """The name of a token's budget: the hex SHA-256 of the token."""
    return hashlib.sha256(api_token.encode("utf-8")).hexdigest()


def state_directory(directory=None):
    """Where budget files live: ``directory``, else $GAMEPANEL_STATE_DIR, else the default."""
    return os.path.expanduser(directory or os.environ.get(STATE_DIR_ENV) or DEFAULT_STATE_DIR)


class SharedBudget(object):
    """A sliding-window budget of ``rate_limit`` requests per 60 s for one token.

    ``acquire()`` blocks (through ``clock.sleep``) until a slot is free, records the
    request and returns the seconds it waited.  ``rate_limit`` of 0 or less disables
    pacing.  ``shared`` tells whether the budget is really shared across processes.
    """

    def __init__(self, api_token, rate_limit, directory=None, clock=None):
        self.rate_limit = int(rate_limit or 0)
        self.clock = clock or SystemClock()
        self.path = None
        self._local_stamps = []
        if fcntl is None:
            return
        directory = state_directory(directory)
        try:
            if not os.path.isdir(directory):
                os.makedirs(directory, mode=0o700, exist_ok=True)
                os.chmod(directory, 0o700)
            path = os.path.join(directory, budget_key(api_token) + ".budget")
            os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
        except OSError:
            return
        self.path = path

    @property
    def shared(self):
        return self.path is not None

    def __repr__(self):
        return "<SharedBudget rate_limit=%d shared=%s>" % (self.rate_limit, self.shared)

    def acquire(self):
        """Wait for a free slot, take it, and return the seconds waited."""
        if self.rate_limit <= 0:
            return 0.0
        waited = 0.0
        while True:
            wait = self._take_slot()
            if wait is None:
                return waited
            self.clock.sleep(wait)
            waited += wait

    def _take_slot(self):
        """Record a request now if the window has room; else the seconds until it has."""
        if self.path is not None:
            try:
                return self._take_shared_slot()
            except OSError:
                self.path = None  # the file went away or became unwritable: degrade
        self._local_stamps, wait = self._decide(self._local_stamps, self.clock.time())
        return wait

    def _take_shared_slot(self):
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            # The clock is read under the lock, so stamps are written in time order.
            stamps, wait = self._decide(_parse_stamps(_read_all(fd)), self.clock.time())
            if wait is None:
                os.lseek(fd, 0, os.SEEK_SET)
                os.ftruncate(fd, 0)
                os.write(fd, "".join("%.6f\n" % stamp for stamp in stamps).encode("ascii"))
            return wait
        finally:
            os.close(fd)  # also releases the lock

    def _decide(self, stamps, now):
        """(stamps to keep, None) after recording ``now``, or (stamps, seconds to wait)."""
        # Keep the stamps of the current window.  Stamps from the future can only come
        # from a clock set back: dropping them avoids waiting for an hour.
        recent = sorted(stamp for stamp in stamps if now - WINDOW_SECONDS < stamp <= now + 1.0)
        if len(recent) < self.rate_limit:
            recent.append(now)
            return recent[-self.rate_limit:], None
        # The window is full: the slot frees when the rate_limit-th newest stamp ages out.
        frees_at = recent[-self.rate_limit] + WINDOW_SECONDS
        return recent, max(_MIN_WAIT, frees_at - now)


def _read_all(fd):
    chunks = []
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _parse_stamps(data):
    stamps = []
    for line in data.decode("ascii", errors="ignore").split():
        try:
            stamps.append(float(line))
        except ValueError:
            continue  # a torn or foreign line: ignore it rather than fail a request
    return stamps
