# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""PRIVATE: The fleet watcher's change detection: what changed between two reads of the fleet, and whether we caused it.

Pure code (no requests, no clock of its own) behind the event source
``gamepanel.panel.fleet_events`` (extensions/eda/plugins/event_source/), kept here so it can be
unit tested without ansible-rulebook. docs/eda.md describes the same rules for operators.

Changes, one event per server and read at most, compared with the previous successful read:

* ``added``: a server id that was not in the previous read;
* ``removed``: a server id of the previous read that is gone;
* ``status_changed``: the status differs (any value: the set is open);
* ``restarted``: the status is ``online`` in both reads and ``uptime_seconds`` went back.

A server whose status is the same and whose uptime did not go back gives no event, whatever
else changed (players, name, counters). The first read is the baseline: it gives no event at
all (no ``added`` for the fleet as it was when the watcher started), except one:

* ``found_stopped`` (first read only, unless turned off): a server already in a stopped status
  that no stop in the ledger explains.  A watcher that was down (its activation restarted, a
  node drained) cannot know what happened meanwhile; a stopped server nobody asked to stop is
  most likely one that crashed then.

Servers without an id cannot be followed and are ignored.

``start_failed`` comes from the hand-outs (``StartBatches``), not from a change: a server handed to
a start is still down, and its start is over without bringing it up (``start_failure``): the
panel refused it or it failed before the panel could queue it (the ledger's not-queued note),
its answer was lost and ``retry_after`` passed, it came up and is down again, or no start came
of the hand-out at all.  It is handed out again.  Only a start that did something to the server
counts toward the crash-loop guard (``INCIDENT_FAILURES``): a refusal is the panel's state, and
is sent again after a backoff that honours the panel's Retry-After (``Refusals``) for as long
as the server is down.  A start the panel accepted and the agent has not applied yet (its agent
is away) is followed, never sent again: the ledger holds it open.

``expected`` is true when an entry of the ledger (module_utils/_state/ledger.py: what the collection
queued) explains the change: its action fits the change (see ``action_fits``), it was queued
before the read that saw the change, and it was still open at the previous read (an entry
that ended long before the previous read explains nothing seen after it; ``LAG_GRACE_SECONDS``
allows for a panel whose reads lag).
"""

from __future__ import annotations

import time

from ansible_collections.gamepanel.panel.plugins.module_utils._rules.convergence import (
    DEFAULT_STOPPED_STATUSES,
    ONLINE,
    uptime_went_back,
)
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.entry_states import QUEUED, is_open, public_view
from ansible_collections.gamepanel.panel.plugins.module_utils._state.files import StateFiles
from ansible_collections.gamepanel.panel.plugins.module_utils._state.ledger import panel_key

ADDED = "added"
REMOVED = "removed"
STATUS_CHANGED = "status_changed"
RESTARTED = "restarted"
FOUND_STOPPED = "found_stopped"
START_FAILED = "start_failed"
KINDS = (STATUS_CHANGED, RESTARTED, ADDED, REMOVED, FOUND_STOPPED, START_FAILED)
# The one event a read adds after its per-server events when it found servers to start: all of
# them, so that keep_online starts them in one playbook run.
OUTAGE = "outage"

# A server handed to a start is not handed again while its start may still bring it up (a second
# start from a second run would only wait behind the first one's): until a read sees it in a status
# other than a stopped one (or gone), or its start is over without bringing it up (``start_failure``).
# A hand-out that no run sent a start for is over after this many seconds.  A start the panel
# accepted (queued) is followed for as long as the ledger holds it: its agent applies it when it
# checks in, and a second start would only queue behind it.
HANDOFF_HOLD_SECONDS = 900.0
# A start whose answer was lost is followed this long (from the answer, and from the hand-out)
# before it is sent again: the bound the server's agent needs to act on a queued action.
DEFAULT_RETRY_AFTER = 120.0

# Why the start of a server handed out is over and the server still down (``start_failure``).
NOT_QUEUED = "not_queued"
ANSWER_LOST = "answer_lost"
DOWN_AGAIN = "down_again"
NOT_SENT = "not_sent"
RUN_STOPPED = "run_stopped"
START_FAILURES = {
    NOT_QUEUED: "the panel refused it, or it failed before the panel could queue it",
    ANSWER_LOST: "its answer was lost and the server is still down after retry_after",
    DOWN_AGAIN: "it was confirmed, and the server is down again",
    NOT_SENT: "no run sent it within 15 minutes",
    RUN_STOPPED: "its run stopped at the refusal of another server's start, before it came to this one",
}
# The failed starts that are the server's doing, counted toward crash_limit: the start was applied and the
# server came up, then went down again.  A refusal, a lost answer, a start never sent or never tried did
# nothing to the server (a start applied that brings it up and down shows as a crash of its own).
INCIDENT_FAILURES = (DOWN_AGAIN,)

# A start the panel refused is sent again at the next read after the first refusal, then after a
# backoff that doubles with each refusal in a row (from REFUSAL_BACKOFF_BASE up to REFUSAL_BACKOFF_CAP
# seconds), never sooner than the panel's Retry-After: the panel is busy or down, and starts from
# every watcher of it would only add to its load.  Refusals are logged once a minute at most.
REFUSAL_BACKOFF_BASE = 5.0
REFUSAL_BACKOFF_CAP = 300.0
REFUSAL_LOG_SECONDS = 60.0

# Why a server one read found down is not in its outage event (``held_back``).
HELD_CRASH_LOOPING = "crash_looping"
HELD_LEFT_ALONE = "left_alone"
HELD_NOT_IN_INVENTORY = "not_in_inventory"
HELD_START_UNDER_WAY = "start_under_way"

# A ledger entry done this long before the previous read still explains a change: a read
# may lag behind what the agent did.
LAG_GRACE_SECONDS = 60.0

# Crash loops: this many unexpected stops or restarts of one server within the window
# (counting the one just seen) and keep_online gives up on it.
DEFAULT_CRASH_LIMIT = 3
DEFAULT_CRASH_WINDOW = 900

# The incident record keeps, per server, at most this many incidents, none older than this.
RECORD_MAX_PER_SERVER = 50
RECORD_KEEP_SECONDS = 7 * 24 * 3600
RECORD_KIND = "incidents"


def _key(server):
    return server.get("id")


def index_fleet(servers):
    """``{id: server}`` of a fleet read; servers without an id are left out, the first copy of an id wins."""
    fleet = {}
    for server in servers or ():
        if isinstance(server, dict) and server.get("id") is not None and server["id"] not in fleet:
            fleet[server["id"]] = server
    return fleet


def change_kind(before, after):
    """The kind of change from ``before`` to ``after`` (server records, either None), or None when unchanged."""
    if before is None and after is None:
        return None
    if before is None:
        return ADDED
    if after is None:
        return REMOVED
    if before.get("status") != after.get("status"):
        return STATUS_CHANGED
    if after.get("status") == ONLINE and uptime_went_back(before, after):
        return RESTARTED
    return None


def detect_changes(previous, current):
    """``[(kind, id)]`` between two indexed reads (``index_fleet``), sorted by id."""
    changes = []
    for server_id in sorted(set(previous) | set(current), key=str):
        kind = change_kind(previous.get(server_id), current.get(server_id))
        if kind is not None:
            changes.append((kind, server_id))
    return changes


def action_fits(action, kind, status, stopped_statuses=DEFAULT_STOPPED_STATUSES):
    """True when a queued ``action`` explains a change of ``kind`` to ``status``.

    * ``stop``: a status change away from online (to a stopped status, or a transition such as ``stopping``);
    * ``start``: a status change to anything but a stopped status (``starting``, ``online``);
    * ``restart``: any status change, and a restart.
    """
    if kind == RESTARTED:
        return action == "restart"
    if kind != STATUS_CHANGED:
        return False
    if action == "restart":
        return True
    if action == "stop":
        return status != ONLINE
    if action == "start":
        return status not in stopped_statuses
    return False


def explaining_entry(kind, status, entries, seen_at, previous_seen_at, stopped_statuses=DEFAULT_STOPPED_STATUSES):
    """The ledger entry (of this server) that explains the change, or None; the most recent one wins."""
    found = None
    for entry in entries or ():
        if not action_fits(entry.get("action"), kind, status, stopped_statuses):
            continue
        queued_at = entry.get("queued_at")
        if not isinstance(queued_at, (int, float)) or queued_at > seen_at:
            continue  # queued after the read that saw the change: it cannot have caused it
        if not is_open(entry):
            ended = entry.get("updated_at") or queued_at
            if previous_seen_at is not None and ended < previous_seen_at - LAG_GRACE_SECONDS:
                continue  # over before the previous read: an older action, not this change
        if found is None or queued_at >= found["queued_at"]:
            found = entry
    return found


def went_down(event, stopped_statuses=DEFAULT_STOPPED_STATUSES):
    """A status change from a running status (any but a stopped one) to a stopped one."""
    return (
        event["kind"] == STATUS_CHANGED
        and bool(event["stopped"])
        and event.get("previous_status") not in stopped_statuses
    )


def is_incident(event, stopped_statuses=DEFAULT_STOPPED_STATUSES):
    """What the crash-loop guard counts: an unexpected crash (``went_down``) or restart, a server found
    stopped, or a start that brought the server up before it went down again (``INCIDENT_FAILURES``).  A
    server going from one stopped status to another is down already; a start the panel refused, whose
    answer was lost, or that was never sent did nothing to the server."""
    if event["expected"]:
        return False
    if event["kind"] == START_FAILED:
        return event.get("start_failure") in INCIDENT_FAILURES
    return event["kind"] in (RESTARTED, FOUND_STOPPED) or went_down(event, stopped_statuses)


def wants_start(event, stopped_statuses=DEFAULT_STOPPED_STATUSES):
    """A per-server event keep_online answers with a start: an unexpected crash, a server found stopped, a failed start."""
    if event["kind"] in (FOUND_STOPPED, START_FAILED):
        return True
    return went_down(event, stopped_statuses) and not event["expected"]


def start_failure(
    handed_at, starts, notes, seen_at, retry_after=DEFAULT_RETRY_AFTER, hold=HANDOFF_HOLD_SECONDS, run_stopped=False
):
    """Why the start of a server handed out at ``handed_at`` and down at ``seen_at`` is over, or None while it may still work.

    ``starts`` are the server's ledger entries for ``start`` (the ledger keeps one, the latest),
    ``notes`` its not-queued notes for ``start``.  ``run_stopped``: the panel refused the start of
    another server of the same hand-out, which stops the run (server_control with ``ids`` sends no
    more after a refusal), so a server it has not claimed yet will not be.  Returns ``(reason,
    entry)``: ``entry`` is the open entry to give up on before a new start can be sent (the ledger
    holds back a second one), else None.
    """
    latest = max(starts, key=lambda item: item["queued_at"]) if starts else None
    note = max(notes, key=lambda item: item["queued_at"]) if notes else None
    if note is not None and note["queued_at"] >= handed_at:
        if latest is None or latest["queued_at"] <= note["queued_at"]:
            return NOT_QUEUED, None
    if latest is not None and is_open(latest):
        # followed from the answer (or the hand-out, for an entry older than it: the run followed it)
        since = max(latest.get("updated_at") or latest["queued_at"], handed_at)
        if latest["state"] != QUEUED and seen_at - since >= retry_after:
            return ANSWER_LOST, latest
        return None  # queued: its agent applies it when it checks in, however long it is away
    if latest is not None and latest["queued_at"] >= handed_at:
        return DOWN_AGAIN, None
    if run_stopped:
        return RUN_STOPPED, None
    if seen_at - handed_at >= hold:
        return NOT_SENT, None
    return None


def refusal_delay(count, base=REFUSAL_BACKOFF_BASE, cap=REFUSAL_BACKOFF_CAP):
    """Seconds after the ``count``-th refusal in a row before the start is sent again: none after the first
    (the next read sends it), then ``base`` doubled with each refusal, up to ``cap``."""
    return 0.0 if count <= 1 else float(min(cap, base * 2 ** min(count - 2, 16)))


class Refusals(object):
    """The starts the panel refused, per server, while it stays down: when the next may be sent, what to log.

    ``refused(server_id, note)`` counts a not-queued note (_state/ledger.py) once; the next start is due
    ``refusal_delay`` after it, or at the note's ``retry_at`` (the panel's Retry-After) when that is later.
    Times are the ledger's (wall clock, shared with the runs that wrote the notes).  Forgotten when the
    server comes up, is gone, is given up on, or its start fails another way (its answer lost, down again).
    """

    def __init__(self, base=REFUSAL_BACKOFF_BASE, cap=REFUSAL_BACKOFF_CAP, log_every=REFUSAL_LOG_SECONDS):
        self.base, self.cap, self.log_every = base, cap, log_every
        self.servers = {}

    def refused(self, server_id, note):
        """Count ``note`` (the server's latest not-queued note) unless counted already; returns the server's state."""
        noted_at = _number(note.get("noted_at"))
        if noted_at == float("-inf"):
            noted_at = note["queued_at"]
        state = self.servers.setdefault(
            server_id,
            {
                "count": 0,
                "first_at": noted_at,
                "noted_at": None,
                "retry_at": noted_at,
                "status": None,
                "logged_at": None,
                "logged_count": 0,
            },
        )
        if state["noted_at"] is not None and noted_at <= state["noted_at"]:
            return state
        state["count"] += 1
        state["noted_at"] = noted_at
        state["status"] = note.get("status")
        state["retry_at"] = max(
            noted_at + refusal_delay(state["count"], self.base, self.cap), _number(note.get("retry_at"))
        )
        return state

    def due_at(self, server_id):
        """When the next start of ``server_id`` may be sent (None: no refusal holds it)."""
        state = self.servers.get(server_id)
        return None if state is None else state["retry_at"]

    def to_log(self, now):
        """``[(server_id, state)]`` to log at ``now``: a server's first refusal, then at most one line a ``log_every``."""
        found = []
        for server_id in sorted(self.servers, key=str):
            state = self.servers[server_id]
            if state["count"] == state["logged_count"]:
                continue
            if state["logged_at"] is not None and now - state["logged_at"] < self.log_every:
                continue
            state["logged_at"], state["logged_count"] = now, state["count"]
            found.append((server_id, dict(state)))
        return found

    def forget(self, server_id):
        self.servers.pop(server_id, None)


def held_back_reason(event):
    """Why a server whose event ``wants_start`` is not started (its own flags), or None."""
    if event.get("crash_looping"):
        return HELD_CRASH_LOOPING
    if event.get("left_alone"):
        return HELD_LEFT_ALONE
    if event.get("in_inventory") is False:
        return HELD_NOT_IN_INVENTORY
    return None


class StartBatches(object):
    """Turns the servers one read found down into one ``outage`` event, and follows whom it handed out.

    ``batch(events, fleet, seen_at)`` takes one read's per-server events (annotated with
    ``crash_looping``, ``left_alone``, ``host`` and ``in_inventory``) and that read's servers, and
    returns the outage event, or None when no server is to be started. A server handed out once
    is held back (``start_under_way``) until a read sees it in a status other than a stopped one,
    or gone: whatever it does meanwhile (offline, then stopped) is the one outage the first start
    answers. ``failed_starts`` finds the hand-outs whose start is over with the server still down
    (``start_failure``): their ``start_failed`` events hand them out again, or, crash-looping, give
    them up.  A refused start (and the servers its run did not come to) stays handed out until its
    backoff (``refusals``) is over.
    """

    def __init__(
        self,
        stopped_statuses=DEFAULT_STOPPED_STATUSES,
        hold_seconds=HANDOFF_HOLD_SECONDS,
        retry_after=DEFAULT_RETRY_AFTER,
        refusals=None,
    ):
        self.stopped_statuses = tuple(stopped_statuses)
        self.hold_seconds = hold_seconds
        self.retry_after = retry_after
        self.refusals = refusals if refusals is not None else Refusals()
        self.handed_out = {}

    def release(self, fleet):
        """Forget the hand-outs a read (``index_fleet``) shows answered: the server is up, or gone."""
        for server_id in list(self.handed_out):
            server = fleet.get(server_id)
            if server is None or server.get("status") not in self.stopped_statuses:
                del self.handed_out[server_id]
                self.refusals.forget(server_id)

    def failed_starts(self, fleet, entries, notes, seen_at, skip=()):
        """``[(server, reason, entry)]``: the handed-out servers of a read (``index_fleet``) still down whose start is over.

        ``entries`` are the ledger's live entries (any servers), ``notes`` ``{id: [not-queued notes]}``;
        ``reason`` and ``entry`` as ``start_failure`` says.  Servers in ``skip`` (those with an event of
        their own in this read) wait for the next read: one event per server and read.  A refused start
        (``not_queued``) is counted in ``refusals``, and it and the servers its run stopped before
        (``run_stopped``) wait until the latest refusal of that run may be sent again.
        """
        starts = {}
        for entry in entries or ():
            if entry.get("action") == "start":
                starts.setdefault(entry.get("id"), []).append(entry)

        def refused(server_id):
            return [note for note in (notes or {}).get(server_id, ()) if note.get("action") == "start"]

        def failure(server_id, run_stopped=False):
            handed_at = self.handed_out[server_id]
            return start_failure(
                handed_at,
                starts.get(server_id),
                refused(server_id),
                seen_at,
                self.retry_after,
                self.hold_seconds,
                run_stopped,
            )

        # a hand-out's servers share its read's time: one run started them all (a server gone from the
        # fleet is refused with 404, which does not stop the run); {hand-out: when its run may be sent again}
        stopped_runs = {}
        for server_id in self.handed_out:
            if server_id in fleet and (failure(server_id) or (None,))[0] == NOT_QUEUED:
                latest = max(refused(server_id), key=lambda note: note["queued_at"])
                due = self.refusals.refused(server_id, latest)["retry_at"]
                handed_at = self.handed_out[server_id]
                stopped_runs[handed_at] = max(due, stopped_runs.get(handed_at, due))
        found = []
        for server_id in sorted(self.handed_out, key=str):
            server = fleet.get(server_id)
            if server is None or server.get("status") not in self.stopped_statuses or server_id in skip:
                continue
            handed_at = self.handed_out[server_id]
            failed = failure(server_id, handed_at in stopped_runs)
            if failed is None:
                continue
            if failed[0] in (NOT_QUEUED, RUN_STOPPED):
                if seen_at < stopped_runs[handed_at]:
                    continue  # backing off: still handed out, so no other event hands it out meanwhile
            else:
                self.refusals.forget(server_id)  # a start was sent and taken: the refusals in a row are over
            found.append((server, failed[0], failed[1]))
        return found

    def batch(self, events, servers, seen_at):
        self.release(index_fleet(servers))
        starting, held_back = [], []
        for event in events:
            if not wants_start(event, self.stopped_statuses):
                continue
            reason = held_back_reason(event)
            if reason is None and event["id"] in self.handed_out and event["kind"] != START_FAILED:
                reason = HELD_START_UNDER_WAY
            if reason is None:
                starting.append(event)
            else:
                if reason != HELD_START_UNDER_WAY:
                    self.handed_out.pop(event["id"], None)  # given up on: no start of it is followed any more
                    self.refusals.forget(event["id"])
                held_back.append({"id": event["id"], "name": event.get("name"), "reason": reason})
        if not starting:
            return None
        for event in starting:
            self.handed_out[event["id"]] = seen_at
        return {
            "kind": OUTAGE,
            "ids": [event["id"] for event in starting],
            "hosts": [event.get("host") for event in starting],
            "servers": [
                {"id": event["id"], "name": event.get("name"), "host": event.get("host"), "kind": event["kind"]}
                for event in starting
            ],
            "held_back": held_back,
            "seen_at": seen_at,
        }


class FleetChanges(object):
    """Follows the fleet read after read and says what changed.

    ``observe(servers, seen_at, entries)`` takes one successful fleet read (normalised server
    records), the wall time it was read and the live ledger entries of the panel (any
    servers), and returns the events of the changes since the previous read, sorted by
    server id. A failed read is simply not observed: the next successful one is compared
    with the last good one.
    """

    def __init__(self, stopped_statuses=DEFAULT_STOPPED_STATUSES, found_stopped=True):
        self.stopped_statuses = tuple(stopped_statuses)
        self.found_stopped = found_stopped
        self.previous = None
        self.previous_seen_at = None

    @property
    def has_baseline(self):
        return self.previous is not None

    def observe(self, servers, seen_at, entries=()):
        current = index_fleet(servers)
        by_server = {}
        for entry in entries or ():
            by_server.setdefault(entry.get("id"), []).append(entry)
        if self.previous is None:
            self.previous, self.previous_seen_at = current, seen_at
            return self._found_stopped(current, by_server, seen_at) if self.found_stopped else []
        events = []
        for kind, server_id in detect_changes(self.previous, current):
            before, after = self.previous.get(server_id), current.get(server_id)
            shown = after if after is not None else before
            status = None if after is None else after.get("status")
            entry = explaining_entry(
                kind, status, by_server.get(server_id), seen_at, self.previous_seen_at, self.stopped_statuses
            )
            events.append(self._event(kind, shown, before, after, entry, seen_at))
        self.previous, self.previous_seen_at = current, seen_at
        return events

    def _found_stopped(self, current, by_server, seen_at):
        """The first read's events: servers in a stopped status that no stop the collection queued explains."""
        events = []
        for server_id in sorted(current):
            server = current[server_id]
            if server.get("status") not in self.stopped_statuses:
                continue
            stops = [entry for entry in by_server.get(server_id, ()) if entry.get("action") == "stop"]
            if explaining_entry(STATUS_CHANGED, server.get("status"), stops, seen_at, None, self.stopped_statuses):
                continue
            events.append(self._event(FOUND_STOPPED, server, None, server, None, seen_at))
        return events

    def _event(self, kind, shown, before, after, entry, seen_at):
        status = None if after is None else after.get("status")
        return {
            "kind": kind,
            "id": shown.get("id"),
            "name": shown.get("name"),
            "game": shown.get("game"),
            "status": status,
            "previous_status": None if before is None else before.get("status"),
            "uptime_seconds": None if after is None else after.get("uptime_seconds"),
            "players": None if after is None else after.get("players"),
            "stopped": status in self.stopped_statuses,
            "expected": entry is not None,
            "expected_by": public_view(entry) if entry is not None else None,
            "start_failure": None,
            "seen_at": seen_at,
            "server": dict(shown),
        }

    def start_failed(self, server, reason, seen_at):
        """The ``start_failed`` event of a server (its record as read now) whose start is over (``start_failure``)."""
        event = self._event(START_FAILED, server, server, server, None, seen_at)
        event["start_failure"] = reason
        return event


def incident_key(account, server_id):
    """The record's key of a server: ids repeat across accounts, so the account is part of it."""
    return str(server_id) if account is None else "%s/%s" % (account, server_id)


class IncidentRecord(object):
    """Per server of a panel, when it stopped or restarted unexpectedly: the document of the ``incidents`` state file.

    ``document`` is ``{"panel", "servers": {key: {"id", "account", "name", "incidents": [{"at", "kind", "status",
    "previous_status"}]}}}``: one file per panel (as the ledger, never per token: a rotated token keeps the
    record), each server under its account and id (``incident_key``; ``account`` is the inventory's, None
    without one).
    """

    def __init__(self, document=None, panel=None):
        self.document = document if isinstance(document, dict) else {}
        if not isinstance(self.document.get("servers"), dict):
            self.document["servers"] = {}
        self.document["panel"] = panel if panel is not None else self.document.get("panel")

    @property
    def servers(self):
        return self.document["servers"]

    def add(self, event, now, account=None):
        """Record an incident (``is_incident(event)``) of ``account``'s server; returns how many it has in the record."""
        slot = self.servers.setdefault(incident_key(account, event["id"]), {"incidents": []})
        if not isinstance(slot.get("incidents"), list):
            slot["incidents"] = []
        slot.update(id=str(event["id"]), account=account, name=event.get("name"))
        slot["incidents"].append(
            {
                "at": now,
                "kind": event["kind"],
                "status": event.get("status"),
                "previous_status": event.get("previous_status"),
            }
        )
        self.prune(now)
        return len(slot["incidents"])

    def count(self, server_id, now, window, account=None):
        """Incidents of ``account``'s ``server_id`` within the last ``window`` seconds."""
        slot = self.servers.get(incident_key(account, server_id)) or {}
        return sum(1 for item in slot.get("incidents") or () if _number(item.get("at")) >= now - window)

    def prune(self, now):
        for key in list(self.servers):
            slot = self.servers[key]
            kept = [
                item
                for item in ((slot.get("incidents") if isinstance(slot, dict) else None) or ())
                if isinstance(item, dict) and _number(item.get("at")) >= now - RECORD_KEEP_SECONDS
            ][-RECORD_MAX_PER_SERVER:]
            if kept:
                slot["incidents"] = kept
            else:
                del self.servers[key]

    def recent(self, now, window=RECORD_KEEP_SECONDS):
        """``[{id, account, name, count, last_at, last_kind, last_status}]`` of servers with incidents within
        ``window``, most first."""
        rows = []
        for key, slot in self.servers.items():
            if not isinstance(slot, dict):
                continue
            items = [item for item in slot.get("incidents") or () if _number(item.get("at")) >= now - window]
            if items:
                rows.append(
                    {
                        "id": slot.get("id", key),
                        "account": slot.get("account"),
                        "name": slot.get("name"),
                        "count": len(items),
                        "last_at": items[-1].get("at"),
                        "last_kind": items[-1].get("kind"),
                        "last_status": items[-1].get("status"),
                    }
                )
        return sorted(rows, key=lambda row: (-row["count"], str(row["account"] or ""), str(row["id"])))


def _number(value):
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else float("-inf")


def record_incident(files, memory, event, now, window, panel=None, account=None):
    """Add ``event`` (of ``account``'s server) to the incident record and return the server's incidents within ``window``.

    The record is the ``incidents`` file of ``files`` (the panel's StateFiles, ``incident_files``), changed
    under its lock; when it is unusable, ``memory`` (an IncidentRecord of this process) holds it instead.
    """

    def change(document):
        record = IncidentRecord(document, panel)
        record.add(event, now, account)
        return record.count(event["id"], now, window, account)

    if files is not None and files.usable:
        try:
            return files.update(RECORD_KIND, change)
        except OSError:
            pass
    return change(memory.document)


def incident_files(panel, directory=None, writing=True):
    """The StateFiles holding the incident record of ``panel`` (_state/ledger.py's ``panel_of``), beside its ledger;
    a reader (``writing`` false) creates nothing."""
    return StateFiles(panel_key(panel), directory, probe=RECORD_KIND + ".lock" if writing else None)


def read_incidents(files, now=None, window=RECORD_KEEP_SECONDS):
    """The recent incidents in the ``incidents`` file of ``files`` (``IncidentRecord.recent``); [] when none."""
    if files is None or not files.usable:
        return []
    now = time.time() if now is None else now  # wall time: the incidents were stamped by the watcher, another process
    return IncidentRecord(files.read(RECORD_KIND)).recent(now, window)


def incidents_of_accounts(accounts, now=None, directory=None):
    """The recent incidents of each account's servers, each row with its ``account``.

    ``accounts`` is ``[(account, panel)]``; each panel's record is read once.  ``account`` None (a report of
    one account) takes every row of its panel.  Else a panel's rows go to the accounts listed with it: a row
    of another account stays out (that account's own report shows it), a row recorded without an account
    (a watcher whose inventory names none) goes to the panel's only account, or stays unnamed when
    several accounts share the panel.
    """
    by_panel = {}
    for account, panel in accounts:
        by_panel.setdefault(panel, [])
        if account not in by_panel[panel]:
            by_panel[panel].append(account)
    rows = {}
    for panel, names in by_panel.items():
        for row in read_incidents(incident_files(panel, directory, writing=False), now):
            if row["account"] is None and len(names) == 1:
                row["account"] = names[0]
            if not (None in names or row["account"] in names or row["account"] is None):
                continue
            # one server of one panel recorded with and without its account (the inventory gained the option)
            key = (panel, row["account"], row["id"])
            same = rows.get(key)
            if same is not None:
                latest = max(same, row, key=lambda item: _number(item["last_at"]))
                row = dict(latest, count=same["count"] + row["count"])
            rows[key] = row
    return sorted(rows.values(), key=lambda row: (-row["count"], str(row["account"] or ""), str(row["id"])))
