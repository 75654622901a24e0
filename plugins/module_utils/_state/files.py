# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: The one home of the state every process of a controller shares per API token.

Ansible runs each task of each fork in a process of its own (an inventory refresh in
yet another), so whatever those processes must agree on lives in small files:
the rate budget (_api/ratelimit.py) and the status snapshots of coalesced reads
(_engine/shared_reads.py).

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
is false (``problem`` says why) and callers work per process: nothing fails because
state cannot be shared.  What that costs is the caller's to say: the rate budget
only loses its sharing, the ledger its memory across runs, and it warns.

A file whose loss matters (the ledger) is read strictly: one that does not parse as
the expected JSON object raises DamagedFile, and ``update(..., quarantine=...)``
renames it aside (``<name>.damaged-<UTC time>``, never overwritten) before writing
anew, so that what it held stays there for a person to inspect.
"""

from __future__ import annotations

import hashlib
import json
import os
import time

try:
    import fcntl
except ImportError:  # not on a POSIX controller: no shared state
    fcntl = None

STATE_DIR_ENV = "GAMEPANEL_STATE_DIR"
DEFAULT_STATE_DIR = os.path.join("~", ".ansible", "tmp", "gamepanel")


def state_directory(directory=None):
    """Where state files live: ``directory``, else $GAMEPANEL_STATE_DIR, else the default."""
    return os.path.expanduser(directory or os.environ.get(STATE_DIR_ENV) or DEFAULT_STATE_DIR)


class DamagedFile(Exception):
    """A state file that must be read strictly does not hold a JSON object."""

    def __init__(self, path, why):
        super(DamagedFile, self).__init__("%s: %s" % (path, why))
        self.path = path
        self.why = why


def key_for_token(api_token):
    """The name under which a token's state is kept: the hex SHA-256 of the token."""
    return hashlib.sha256(api_token.encode("utf-8")).hexdigest()


# The file every StateFiles creates to prove the directory usable (the rate budget's own).
PROBE_KIND = "budget"


class StateFiles(object):
    """The state files of one key under one directory."""

    def __init__(self, key, directory=None, probe=PROBE_KIND):
        """``probe``: the kind of the file created to prove the directory writable (None: only look)."""
        self.key = key
        self.directory = state_directory(directory)
        self.usable = False
        self.problem = None  # why the directory cannot be used, when it cannot
        if fcntl is None:
            self.problem = "this controller has no file locking (fcntl), so no state can be shared"
            return
        try:
            if probe is None:
                self.usable = os.path.isdir(self.directory)
                return
            if not os.path.isdir(self.directory):
                os.makedirs(self.directory, mode=0o700, exist_ok=True)
                os.chmod(self.directory, 0o700)
            os.close(os.open(self.path(probe), os.O_RDWR | os.O_CREAT, 0o600))
        except OSError as error:
            self.problem = "the state directory %s cannot be used (%s)" % (
                self.directory,
                error.strerror or error.__class__.__name__,
            )
            return
        self.usable = True

    def __repr__(self):
        return "<StateFiles %s usable=%s>" % (self.directory, self.usable)

    def path(self, kind):
        return os.path.join(self.directory, "%s.%s" % (self.key, kind))

    def read(self, kind, strict=False, shape=None):
        """The file's object, read under a shared lock ({} when missing).

        A file that is not a JSON object reads as {}, or raises DamagedFile when ``strict``
        (also when ``shape(document)``, if given, names what is wrong with it).
        """
        try:
            fd = os.open(self.path(kind), os.O_RDONLY)
        except FileNotFoundError:
            return {}
        try:
            fcntl.flock(fd, fcntl.LOCK_SH)
            data = _read_all(fd)
        finally:
            os.close(fd)  # also releases the lock
        return decode_strict(data, self.path(kind), shape) if strict else _decode(data)

    def update(self, kind, change, durable=False, quarantine=None, shape=None):
        """Apply ``change(document)`` under an exclusive lock and write the document back.

        ``change`` edits the dict in place and returns what ``update`` returns; it must
        not sleep nor send requests (every other process waits meanwhile).  OSError
        propagates: the caller decides how to degrade.  ``durable``: write a new file and
        rename it over the old one instead of rewriting in place (slower, never torn).
        ``quarantine`` (durable only): a damaged file is renamed aside and the change
        starts from ``quarantine(DamagedFile)``, a new document, instead of from nothing
        (``shape`` as for ``read``).
        """
        if durable:
            return self._replace(kind, change, quarantine, shape)
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

    def _replace(self, kind, change, quarantine=None, shape=None):
        # The lock lives on a file of its own: the data file is a new inode after each write.
        lock = os.open(self.path(kind + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                with open(self.path(kind), "rb") as current:
                    data = current.read()
            except FileNotFoundError:
                data = None
            if quarantine is None:
                document = _decode(data or b"")
            else:
                try:
                    document = decode_strict(data, self.path(kind), shape)
                except DamagedFile as damage:
                    damage.path = self._set_aside(kind)
                    document = quarantine(damage)
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

    def _set_aside(self, kind):
        """Rename the file of ``kind`` to a name of its own (never over another file); returns the new path."""
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        for attempt in range(1000):
            aside = self.path("%s.damaged-%s%s" % (kind, stamp, "" if attempt == 0 else "-%d" % attempt))
            if not os.path.exists(aside):
                os.rename(self.path(kind), aside)
                return aside
        raise OSError("no free name to keep %s aside" % self.path(kind))


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


def decode_strict(data, path, shape=None):
    """``data`` (None: no file) as a JSON object; DamagedFile when it is anything else, an empty file included.

    A file written whole is never empty: an empty one was cut short (a full disk, an interrupted copy).
    """
    if data is None:
        return {}
    if not data.strip():
        raise DamagedFile(path, "empty")
    try:
        document = json.loads(data.decode("utf-8"))
    except ValueError as error:
        raise DamagedFile(path, "not JSON (%s)" % error)
    if not isinstance(document, dict):
        raise DamagedFile(path, "a JSON %s where an object belongs" % type(document).__name__)
    wrong = shape(document) if shape is not None else None
    if wrong:
        raise DamagedFile(path, wrong)
    return document


def _decode(data):
    try:
        document = json.loads(data.decode("utf-8")) if data.strip() else {}
    except ValueError:
        return {}  # torn by a crash mid-write, or a foreign file: start afresh rather than fail a task
    return document if isinstance(document, dict) else {}
