# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: The one home of the state every process of a controller shares per API token.

Ansible runs each task of each fork in a process of its own (an inventory refresh in
yet another), so whatever those processes must agree on lives in small files:
the rate budget (ratelimit.py) and the status snapshots of coalesced reads
(waiting.py).

Where: ``$GAMEPANEL_STATE_DIR``, else ``~/.ansible/tmp/gamepanel`` (created 0700; files 0600).

Names: ``<key>.<kind>``, where the key is the SHA-256 of the API token.  Only the
client derives it (``PanelClient.state_key``): the token itself never leaves the
client, and no file holds it.

One protocol for every file: each is a JSON object, read under a shared ``fcntl``
lock (``StateFiles.read``) or read, changed and rewritten under an exclusive one
(``StateFiles.update``).  A lock is held only for that read or rewrite, never
while sleeping or while a request is on the wire.  A file that is missing, torn or
not JSON reads as an empty object.  Files whose loss would cost more than a pause
(the ledger) are written durably: the new document goes to a file of its own, synced,
then renamed over the old one, so a crash at any instant leaves one or the other whole.

When the directory or locking is unusable (read-only home, no ``fcntl``), ``usable``
is false and callers quietly work per process: nothing fails because state cannot
be shared.
"""

from __future__ import annotations

import hashlib
import json
import os

try:
    import fcntl
except ImportError:  # not on a POSIX controller: no shared state
    fcntl = None

STATE_DIR_ENV = "GAMEPANEL_STATE_DIR"
DEFAULT_STATE_DIR = os.path.join("~", ".ansible", "tmp", "gamepanel")


def state_directory(directory=None):
    """Where state files live: ``directory``, else $GAMEPANEL_STATE_DIR, else the default."""
    return os.path.expanduser(directory or os.environ.get(STATE_DIR_ENV) or DEFAULT_STATE_DIR)


def key_for_token(api_token):
    """The name under which a token's state is kept: the hex SHA-256 of the token."""
    return hashlib.sha256(api_token.encode("utf-8")).hexdigest()


class StateFiles(object):
    """The state files of one key under one directory."""

    def __init__(self, key, directory=None):
        self.key = key
        self.directory = state_directory(directory)
        self.usable = False
        if fcntl is None:
            return
        try:
            if not os.path.isdir(self.directory):
                os.makedirs(self.directory, mode=0o700, exist_ok=True)
                os.chmod(self.directory, 0o700)
            probe = self.path("budget")
            os.close(os.open(probe, os.O_RDWR | os.O_CREAT, 0o600))
        except OSError:
            return
        self.usable = True

    def __repr__(self):
        return "<StateFiles %s usable=%s>" % (self.directory, self.usable)

    def path(self, kind):
        return os.path.join(self.directory, "%s.%s" % (self.key, kind))

    def read(self, kind):
        """The file's object, read under a shared lock ({} when missing or unreadable as JSON)."""
        try:
            fd = os.open(self.path(kind), os.O_RDONLY)
        except FileNotFoundError:
            return {}
        try:
            fcntl.flock(fd, fcntl.LOCK_SH)
            return _decode(_read_all(fd))
        finally:
            os.close(fd)  # also releases the lock

    def update(self, kind, change, durable=False):
        """Apply ``change(document)`` under an exclusive lock and write the document back.

        ``change`` edits the dict in place and returns what ``update`` returns; it must
        not sleep nor send requests (every other process waits meanwhile).  OSError
        propagates: the caller decides how to degrade.  ``durable``: write a new file and
        rename it over the old one instead of rewriting in place (slower, never torn).
        """
        if durable:
            return self._replace(kind, change)
        fd = os.open(self.path(kind), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            document = _decode(_read_all(fd))
            outcome = change(document)
            data = json.dumps(document, separators=(",", ":")).encode("ascii")
            os.lseek(fd, 0, os.SEEK_SET)
            os.ftruncate(fd, 0)
            _write_all(fd, data)
            return outcome
        finally:
            os.close(fd)

    def _replace(self, kind, change):
        # The lock lives on a file of its own: the data file is a new inode after each write.
        lock = os.open(self.path(kind + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                with open(self.path(kind), "rb") as current:
                    document = _decode(current.read())
            except FileNotFoundError:
                document = {}
            outcome = change(document)
            data = json.dumps(document, separators=(",", ":")).encode("ascii")
            staging = self.path("%s.new-%d" % (kind, os.getpid()))
            fd = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                _write_all(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(staging, self.path(kind))
            _sync_directory(self.directory)
            return outcome
        finally:
            os.close(lock)


def _sync_directory(directory):
    """Make a rename in ``directory`` survive a power cut (where the platform allows it)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _read_all(fd):
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _decode(data):
    try:
        document = json.loads(data.decode("utf-8")) if data.strip() else {}
    except ValueError:
        return {}  # torn by a crash mid-write, or a foreign file: start afresh rather than fail a task
    return document if isinstance(document, dict) else {}
