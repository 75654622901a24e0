# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: the ledger, what the collection queued on a panel, kept until the outcome is known.

The panel lists no pending actions, and its reads may lag behind what its agents did,
so a re-run cannot learn from the panel alone whether an action it is about to send is
already queued.  Every action the collection sends is therefore written here first, and
every decision of server_control looks here before it trusts the read.

An entry is one action on one server of one panel, in one of the states of
_rules/entry_states.py (``sending``, ``queued``, ``may_be_queued``, ``done``; the first three
are *open*: the action is not sent again).  Entries of any state are forgotten after ``horizon`` seconds
(DEFAULT_HORIZON, or $GAMEPANEL_LEDGER_HORIZON), counted from when they were queued.

A POST the panel surely did not queue (it refused it, or it never reached the panel) leaves
no entry, but a *not-queued note* (``drop``; read with ``not_queued_of``): the one way a
process that did not send it, the fleet watcher, learns that a start it handed to a playbook
run was refused and must be sent again.  Notes hold nothing an entry does not, hold nothing
back, and are forgotten after the same horizon.

Keyed by the panel, never by the token: what an entry records (an action on a server of a
panel) does not depend on the credential that sent it, so a run with a rotated token, or a CI
job's token beside an operator's, sees every entry.  Server ids are the panel's own, so the
entries of two accounts on one panel cannot collide.  (The rate budget stays per token, as the
panel counts it.)

Storage: BUCKETS files of the panel's StateFiles (``panel-<hash>.ledger.00`` to ``.ledger.31``;
a server's entries are all in the one its id hashes to), each written durably (a new file renamed over
the old one) so that a crash at any instant leaves either the old bucket or the new one,
never a torn one.  Buckets keep each write small and let processes working on different
servers write at once: with one file, every write of a 1,000-server fleet rewrote every
entry under one lock.  They hold server ids, actions, times and the read each decision
rested on: never the token.

Never silent, never blind: when the state directory cannot be used or a write fails, the
ledger lives in this process (``durable`` false) and ``problem`` says why, for every task to
warn.  A bucket file that does not parse is set aside (_state/files.py) and the fresh bucket keeps a
*damage mark*: until a person clears it, the servers of that bucket may have open entries
nobody can read, so no action is sent for them (``unreadable``; the decision's UNREADABLE).
A mark is cleared for one server by sending with ``ignore_pending``, for all of its servers by
deleting the kept-aside file once inspected, and lapses after the horizon like any entry.
"""

from __future__ import annotations

import hashlib
import os

from ansible_collections.gamepanel.panel.plugins.module_utils._rules.entry_states import SENDING, STATES, is_open
from ansible_collections.gamepanel.panel.plugins.module_utils._state.files import DamagedFile, StateFiles

# A week: long enough that a queued action waiting for an agent that is away over a
# weekend, or a nightly job's next run, still finds it.
DEFAULT_HORIZON = 7 * 24 * 3600
HORIZON_ENV = "GAMEPANEL_LEDGER_HORIZON"

LEDGER_KIND = "ledger"
# The key of a bucket document under which the not-queued notes are kept (see ``drop``).
NOT_QUEUED_KEY = "not_queued"
BUCKETS = 32


# What a task says when the ledger cannot be kept: the why, then what to do.
OFF_WARNING = "exactly once across runs is off: %s; %s"
OFF_ADVICE = (
    "until it is fixed a re-run cannot see what this run queued and may queue it again: make the state "
    "directory writable, or set GAMEPANEL_STATE_DIR to a writable directory"
)


def panel_of(client):
    """What identifies the panel a client talks to: its API variant and normalized base URL."""
    return "%s %s" % (client.api_variant, client.base_url)


def panel_key(panel):
    """The StateFiles key of a panel's ledger: a hash of the panel, never of a token."""
    return "panel-" + hashlib.sha256(panel.encode("utf-8")).hexdigest()


def horizon_from_environment():
    """The horizon in seconds: $GAMEPANEL_LEDGER_HORIZON when it is a number, else DEFAULT_HORIZON."""
    try:
        value = float(os.environ.get(HORIZON_ENV, ""))
    except ValueError:
        return DEFAULT_HORIZON
    return value if value >= 0 else DEFAULT_HORIZON


def entry_key(panel, server_id, action):
    return "%s|%s|%s" % (panel, server_id, action)


def merged_entries(*lists):
    """One entry per panel, server and action from ``lists``: the most recently updated copy; malformed ones dropped."""
    chosen = {}
    for entry in (entry for entries in lists for entry in (entries or ())):
        if not _valid(entry):
            continue
        key = entry_key(entry.get("panel"), entry["id"], entry["action"])
        if key not in chosen or (entry.get("updated_at") or 0) > (chosen[key].get("updated_at") or 0):
            chosen[key] = dict(entry)
    return sorted(chosen.values(), key=lambda entry: (entry["queued_at"], entry["id"], entry["action"]))


def bucket_kind(server_id):
    """The StateFiles kind (file suffix) of the bucket holding ``server_id``'s entries."""
    digest = hashlib.sha256(str(server_id).encode("utf-8")).hexdigest()
    return "%s.%02d" % (LEDGER_KIND, int(digest[:8], 16) % BUCKETS)


def all_bucket_kinds():
    return ["%s.%02d" % (LEDGER_KIND, number) for number in range(BUCKETS)]


def _valid(entry):
    return (
        isinstance(entry, dict)
        and isinstance(entry.get("id"), str)
        and isinstance(entry.get("action"), str)
        and entry.get("state") in STATES
        and isinstance(entry.get("queued_at"), (int, float))
        and not isinstance(entry.get("queued_at"), bool)
    )


def _valid_note(note):
    return (
        isinstance(note, dict)
        and isinstance(note.get("id"), str)
        and isinstance(note.get("action"), str)
        and isinstance(note.get("queued_at"), (int, float))
        and not isinstance(note.get("queued_at"), bool)
    )


def _bucket_shape(document):
    """What is wrong with a bucket document's shape, or None."""
    if not isinstance(document.get("entries", {}), dict):
        return "its entries are not a JSON object"
    if not isinstance(document.get("damaged", []), list):
        return "its damage marks are not a list"
    return None


class Ledger(object):
    """The ledger of one panel (``panel``: the API variant and base URL), whatever the token.

    ``clock.time()`` is wall time, the common time of every process and of the next
    job: the one clock an entry's times can be compared on by a process that did not write it
    (monotonic clocks are per boot, and entries are carried to other machines).  A stepped clock
    can so put an entry in the future: an entry more than ``horizon`` ahead is dropped as an
    expired one is, and open_entries.recent_restart bounds what a future entry holds back.

    When the state directory is unusable the ledger lives in this process only (``durable``
    is false, ``problem`` says why): nothing fails, but nothing is remembered across runs,
    and the tasks say so (``warnings``).
    """

    def __init__(self, files, panel, clock, horizon=None):
        self.files = files
        self.panel = panel
        self.clock = clock
        self.horizon = horizon_from_environment() if horizon is None else float(horizon)
        self.durable = files.usable
        self.problem = None if files.usable else files.problem  # why exactly once across runs is off
        self.notices = []  # damaged files this process found and set aside
        self._memory = {}  # bucket kind -> document, when the state directory is unusable

    @classmethod
    def for_client(cls, client, horizon=None, directory=None):
        """The ledger of ``client``'s panel, in the state directory the rate budget uses."""
        panel = panel_of(client)
        return cls(StateFiles(panel_key(panel), directory, probe=LEDGER_KIND + ".lock"), panel, client.clock, horizon)

    def warnings(self):
        """What every task using this ledger must say: that it is off (and why), and the files set aside."""
        found = list(self.notices)
        if self.problem is not None:
            found.append(OFF_WARNING % (self.problem, OFF_ADVICE))
        return found

    # -- reading -------------------------------------------------------------------------

    def entries(self, server_id=None):
        """Every live entry of this panel (of one server when ``server_id`` is given), oldest first."""
        kinds = all_bucket_kinds() if server_id is None else [bucket_kind(server_id)]
        now, found = self.clock.time(), []
        for kind in kinds:
            found.extend(self._select(self._read(kind), server_id, now))
        return sorted(found, key=lambda entry: (entry["queued_at"], entry["action"]))

    def entries_of(self, server_ids):
        """``{server_id: [entries, oldest first]}`` for each of ``server_ids`` (each bucket read once)."""
        now, found = self.clock.time(), dict((server_id, []) for server_id in server_ids)
        for kind in sorted(set(bucket_kind(server_id) for server_id in found)):
            for entry in self._select(self._read(kind), None, now):
                if entry["id"] in found:
                    found[entry["id"]].append(entry)
        for entries in found.values():
            entries.sort(key=lambda entry: (entry["queued_at"], entry["action"]))
        return found

    def path(self, server_id):
        """The file holding ``server_id``'s entries."""
        return self.files.path(bucket_kind(server_id))

    def _read(self, kind):
        if not self.durable:
            return self._memory.get(kind, {})
        try:
            return self.files.read(kind, strict=True, shape=_bucket_shape)
        except DamagedFile:
            self._update(kind, lambda document: None)  # sets the file aside under the lock, leaves the mark
        return self.files.read(kind) if self.durable else self._memory.get(kind, {})

    def unreadable(self, server_id):
        """The damage mark covering ``server_id`` (kept_as, why, at), or None: see the module's docstring."""
        return self.unreadable_among([server_id]).get(server_id)

    def unreadable_among(self, server_ids):
        """``{server_id: damage mark}`` for those of ``server_ids`` a damage mark covers (each bucket read once)."""
        by_kind = {}
        for server_id in server_ids:
            by_kind.setdefault(bucket_kind(server_id), []).append(server_id)
        now, found = self.clock.time(), {}
        for kind, ids in by_kind.items():
            marks = [mark for mark in self._read(kind).get("damaged") or [] if self._standing(mark, now)]
            for server_id in ids:
                for mark in reversed(marks):
                    if server_id not in (mark.get("cleared") or []):
                        found[server_id] = dict(mark)
                        break
        return found

    def _standing(self, mark, now):
        """Whether a damage mark still holds: its file kept aside is there, and it is younger than the horizon."""
        return (
            isinstance(mark, dict)
            and isinstance(mark.get("at"), (int, float))
            and now - mark["at"] <= self.horizon
            and os.path.exists(str(mark.get("kept_as")))
        )

    def _quarantined(self, damage):
        """The new document of a bucket whose file was set aside: empty, with a damage mark."""
        self.notices.append(
            "The ledger file %s could not be read (%s). It was kept aside as %s, and the servers whose entries it may "
            "hold are not acted on until they are checked (see the ledger in the server_control guide)."
            % (damage.path.split(".damaged-")[0], damage.why, damage.path)
        )
        return {"entries": {}, "damaged": [{"kept_as": damage.path, "why": damage.why, "at": self.clock.time()}]}

    def open_entries(self, server_id=None):
        return [entry for entry in self.entries(server_id) if is_open(entry)]

    def find(self, server_id, action):
        """The live entry for ``action`` on ``server_id``, or None."""
        for entry in self.entries(server_id):
            if entry["action"] == action:
                return entry
        return None

    def _select(self, document, server_id, now):
        found = []
        for entry in (document.get("entries") or {}).values():
            if not _valid(entry) or entry.get("panel") != self.panel or self._expired(entry, now):
                continue
            if server_id is None or entry["id"] == server_id:
                found.append(dict(entry))
        return found

    def _expired(self, entry, now):
        # both ways: an entry a horizon ahead of now (a clock set back since) would otherwise live that much longer
        return abs(now - entry["queued_at"]) > self.horizon

    # -- writing -------------------------------------------------------------------------

    def claim(self, server_id, action, before=None, replace=False):
        """Write a ``sending`` entry for ``action`` on ``server_id`` unless an open one is there.

        Returns ``(entry, None)`` when this process may send (the entry written), or
        ``(None, existing)`` when an open entry for the same action stands, in which case
        nothing is written.  Check and write happen under one lock, so of several
        processes claiming the same action at once exactly one gets it.  ``replace``
        (the user's "send it anyway") writes over an open entry.  ``before`` is the
        read the decision rested on (status, uptime and when it was read).
        """
        return self.claim_many([(server_id, action, before)], replace=replace)[server_id]

    def claim_many(self, claims, replace=False):
        """``claim`` for several servers at once, one write per bucket: ``claims`` holds ``(server_id, action, before)``.

        Returns ``{server_id: (entry, standing)}`` as ``claim`` would for each.
        """
        now = self.clock.time()
        owner = "%s@%s" % (os.getpid(), _hostname())
        by_bucket = {}
        for server_id, action, before in claims:
            entry = {
                "id": server_id,
                "action": action,
                "panel": self.panel,
                "queued_at": now,
                "updated_at": now,
                "state": SENDING,
                "before": before or {},
                "owner": owner,
            }
            by_bucket.setdefault(bucket_kind(server_id), []).append(entry)

        def change_for(wanted):
            def change(document):
                entries = self._pruned(document, now)
                answers = {}
                for entry in wanted:
                    key = entry_key(self.panel, entry["id"], entry["action"])
                    existing = entries.get(key)
                    if existing is not None and is_open(existing) and not replace:
                        answers[entry["id"]] = (None, dict(existing))
                        continue
                    entries[key] = entry
                    if replace:  # the user checked this server: a damage mark no longer holds it back
                        for mark in document.get("damaged") or []:
                            if isinstance(mark, dict) and entry["id"] not in (mark.get("cleared") or []):
                                mark["cleared"] = list(mark.get("cleared") or []) + [entry["id"]]
                    answers[entry["id"]] = (dict(entry), None)
                return answers

            return change

        answers = {}
        for kind, wanted in sorted(by_bucket.items()):
            answers.update(self._update(kind, change_for(wanted)))
        return answers

    def mark(self, entry, state):
        """Move ``entry`` (as claim returned it) to ``state``; returns the entry as written, None if it is gone."""
        return self.mark_many([entry], state)[0]

    def mark_many(self, entries, state):
        """``mark`` for several entries at once, one write per bucket; returns the entries as written, in order."""
        if state not in STATES:
            raise ValueError("unknown ledger state %r" % (state,))
        now = self.clock.time()
        by_bucket = {}
        for position, entry in enumerate(entries):
            by_bucket.setdefault(bucket_kind(entry["id"]), []).append((position, entry))

        def change_for(wanted):
            def change(document):
                current_entries = self._pruned(document, now)
                written = {}
                for position, entry in wanted:
                    current = current_entries.get(entry_key(self.panel, entry["id"], entry["action"]))
                    # Only the entry this process wrote: a newer claim (replace) is not ours to move.
                    if current is None or current.get("queued_at") != entry["queued_at"]:
                        written[position] = None
                        continue
                    current.update(state=state, updated_at=now)
                    written[position] = dict(current)
                return written

            return change

        written = {}
        for kind, wanted in sorted(by_bucket.items()):
            written.update(self._update(kind, change_for(wanted)))
        return [written[position] for position in range(len(entries))]

    def drop(self, entry, not_queued=True, status=None, retry_after=None):
        """Remove ``entry`` (as claim returned it) if it is still the one this process wrote; returns whether it was.

        ``not_queued``: the panel surely did not queue it (it refused the POST, or the POST never
        reached it), and a note says so (``not_queued_of``), with the refusal's HTTP ``status`` and,
        when the panel said when to come back (``retry_after`` seconds), the time it may be sent
        again (``retry_at``): the watcher sends it again no sooner.  False for an entry given up on
        although the panel may hold it (the watcher's start whose answer was lost).
        """
        key = entry_key(self.panel, entry["id"], entry["action"])

        def change(document):
            now = self.clock.time()
            entries = self._pruned(document, now)
            current = entries.get(key)
            if current is None or current.get("queued_at") != entry["queued_at"]:
                return False
            del entries[key]
            if not_queued:
                self._notes(document, now)[key] = {
                    "id": current["id"],
                    "action": current["action"],
                    "panel": self.panel,
                    "queued_at": current["queued_at"],
                    "noted_at": now,
                    "status": status,
                    "retry_at": now + retry_after if isinstance(retry_after, (int, float)) else None,
                }
            return True

        return self._update(bucket_kind(entry["id"]), change)

    def not_queued_of(self, server_ids):
        """``{server_id: [notes]}``: the actions of ``server_ids`` the panel surely did not queue (see ``drop``).

        A note is ``{id, action, queued_at, noted_at, status, retry_at}``: the claim's time, when the POST
        failed, the refusal's HTTP status and the panel's Retry-After as a time (either None); one per
        server and action, the latest.  Each bucket is read once.
        """
        now, found = self.clock.time(), dict((server_id, []) for server_id in server_ids)
        for kind in sorted(set(bucket_kind(server_id) for server_id in found)):
            notes = self._read(kind).get(NOT_QUEUED_KEY)
            for note in notes.values() if isinstance(notes, dict) else ():
                if _valid_note(note) and note.get("panel") == self.panel and note["id"] in found:
                    if now - note["queued_at"] <= self.horizon:
                        found[note["id"]].append(dict(note))
        return found

    def merge(self, entries):
        """Take entries carried from elsewhere (another job's facts); the most recently updated copy wins.

        Returns how many were taken.  Entries of other panels, expired ones and anything
        that is not an entry are ignored.
        """
        now = self.clock.time()
        incoming = [
            dict(entry)
            for entry in (entries or [])
            if _valid(entry) and entry.get("panel") == self.panel and not self._expired(entry, now)
        ]

        by_bucket = {}
        for entry in incoming:
            by_bucket.setdefault(bucket_kind(entry["id"]), []).append(entry)

        def change_for(bucket):
            def change(document):
                current = self._pruned(document, now)
                taken = 0
                for entry in bucket:
                    key = entry_key(self.panel, entry["id"], entry["action"])
                    mine = current.get(key)
                    if mine is None or (entry.get("updated_at") or 0) > (mine.get("updated_at") or 0):
                        current[key] = entry
                        taken += 1
                return taken

            return change

        return sum(self._update(kind, change_for(bucket)) for kind, bucket in sorted(by_bucket.items()))

    def _pruned(self, document, now):
        """The document's entries without expired or malformed ones (edited in place)."""
        entries = document.get("entries")
        if not isinstance(entries, dict):
            entries = document["entries"] = {}
        for key in [key for key, entry in entries.items() if not _valid(entry) or self._expired(entry, now)]:
            del entries[key]
        return entries

    def _notes(self, document, now):
        """The document's not-queued notes without expired or malformed ones (edited in place)."""
        notes = document.get(NOT_QUEUED_KEY)
        if not isinstance(notes, dict):
            notes = document[NOT_QUEUED_KEY] = {}
        for key in [
            key for key, note in notes.items() if not _valid_note(note) or now - note["queued_at"] > self.horizon
        ]:
            del notes[key]
        return notes

    def _update(self, kind, change):
        if self.durable:
            try:
                return self.files.update(kind, change, durable=True, quarantine=self._quarantined, shape=_bucket_shape)
            except OSError as error:
                # degrade to this process, as the other shared state does, and say so
                self.durable = False
                self.problem = "writing the ledger file %s failed (%s)" % (
                    self.files.path(kind),
                    error.strerror or error.__class__.__name__,
                )
        return change(self._memory.setdefault(kind, {}))


def _hostname():
    try:
        return os.uname()[1]
    except (AttributeError, OSError):
        return "?"
