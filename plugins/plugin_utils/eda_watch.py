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

``expected`` is true when an entry of the ledger (module_utils/state/ledger.py: what the collection
queued) explains the change: its action fits the change (see ``action_fits``), it was queued
before the read that saw the change, and it was still open at the previous read (an entry
that ended long before the previous read explains nothing seen after it; ``LAG_GRACE_SECONDS``
allows for a panel whose reads lag).
"""

from __future__ import annotations

import time

from ansible_collections.gamepanel.panel.plugins.module_utils.rules.convergence import DEFAULT_STOPPED_STATUSES, ONLINE
from ansible_collections.gamepanel.panel.plugins.module_utils.rules.entry_states import is_open, public_view

ADDED = "added"
REMOVED = "removed"
STATUS_CHANGED = "status_changed"
RESTARTED = "restarted"
FOUND_STOPPED = "found_stopped"
KINDS = (STATUS_CHANGED, RESTARTED, ADDED, REMOVED, FOUND_STOPPED)
# The one event a read adds after its per-server events when it found servers to start: all of
# them, so that keep_online starts them in one playbook run.
OUTAGE = "outage"

# A server handed to a start is not handed again until a read sees it in a status other than a
# stopped one (or gone), or this many seconds passed: a second start from a second run would
# only wait behind the first one's.
HANDOFF_HOLD_SECONDS = 900.0

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


def _uptime_went_back(before, after):
    old, new = before.get("uptime_seconds"), after.get("uptime_seconds")
    if not isinstance(old, (int, float)) or not isinstance(new, (int, float)):
        return False
    if isinstance(old, bool) or isinstance(new, bool):
        return False
    return new < old


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
    if after.get("status") == ONLINE and _uptime_went_back(before, after):
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


def is_incident(event):
    """An unexpected stop (status changed to a stopped status) or an unexpected restart."""
    if event["expected"]:
        return False
    return event["kind"] in (RESTARTED, FOUND_STOPPED) or (event["kind"] == STATUS_CHANGED and event["stopped"])


def wants_start(event):
    """A per-server event keep_online answers with a start: an unexpected stop, or a server found stopped."""
    if event["kind"] == FOUND_STOPPED:
        return True
    return event["kind"] == STATUS_CHANGED and bool(event["stopped"]) and not event["expected"]


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
    """Turns the servers one read found down into one ``outage`` event, and remembers whom it handed out.

    ``batch(events, fleet, seen_at)`` takes one read's per-server events (annotated with
    ``crash_looping``, ``left_alone``, ``host`` and ``in_inventory``) and that read's servers, and
    returns the outage event, or None when no server is to be started. A server handed out once
    is held back (``start_under_way``) until a read sees it in a status other than a stopped one,
    or gone, or ``hold_seconds`` passed: whatever it does meanwhile (offline, then stopped) is
    the one outage the first start answers.
    """

    def __init__(self, stopped_statuses=DEFAULT_STOPPED_STATUSES, hold_seconds=HANDOFF_HOLD_SECONDS):
        self.stopped_statuses = tuple(stopped_statuses)
        self.hold_seconds = hold_seconds
        self.handed_out = {}

    def release(self, fleet, seen_at):
        """Forget the hand-outs a read (``index_fleet``) shows answered: the server is up, gone, or the hold ran out."""
        for server_id, handed_at in list(self.handed_out.items()):
            server = fleet.get(server_id)
            if server is None or server.get("status") not in self.stopped_statuses:
                del self.handed_out[server_id]
            elif seen_at - handed_at >= self.hold_seconds:
                del self.handed_out[server_id]

    def batch(self, events, servers, seen_at):
        self.release(index_fleet(servers), seen_at)
        starting, held_back = [], []
        for event in events:
            if not wants_start(event):
                continue
            reason = held_back_reason(event)
            if reason is None and event["id"] in self.handed_out:
                reason = HELD_START_UNDER_WAY
            if reason is None:
                starting.append(event)
            else:
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
            "seen_at": seen_at,
            "server": dict(shown),
        }


class IncidentRecord(object):
    """Per server, when it stopped or restarted unexpectedly: the document of the ``incidents`` state file.

    ``document`` is ``{"servers": {id: {"name", "incidents": [{"at", "kind", "status", "previous_status"}]}}}``
    for one panel (the file is per token; ``panel`` names the panel, as the ledger does).
    """

    def __init__(self, document=None, panel=None):
        self.document = document if isinstance(document, dict) else {}
        if not isinstance(self.document.get("servers"), dict):
            self.document["servers"] = {}
        self.document["panel"] = panel if panel is not None else self.document.get("panel")

    @property
    def servers(self):
        return self.document["servers"]

    def add(self, event, now):
        """Record an incident (``is_incident(event)``); returns how many the server had in the record."""
        slot = self.servers.setdefault(str(event["id"]), {"name": event.get("name"), "incidents": []})
        if not isinstance(slot.get("incidents"), list):
            slot["incidents"] = []
        slot["name"] = event.get("name")
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

    def count(self, server_id, now, window):
        """Incidents of ``server_id`` within the last ``window`` seconds."""
        slot = self.servers.get(str(server_id)) or {}
        return sum(1 for item in slot.get("incidents") or () if _number(item.get("at")) >= now - window)

    def prune(self, now):
        for server_id in list(self.servers):
            slot = self.servers[server_id]
            kept = [
                item
                for item in (slot.get("incidents") or ())
                if isinstance(item, dict) and _number(item.get("at")) >= now - RECORD_KEEP_SECONDS
            ][-RECORD_MAX_PER_SERVER:]
            if kept:
                slot["incidents"] = kept
            else:
                del self.servers[server_id]

    def recent(self, now, window=RECORD_KEEP_SECONDS):
        """``[{id, name, count, last_at, last_kind}]`` of servers with incidents within ``window``, most first."""
        rows = []
        for server_id, slot in self.servers.items():
            items = [item for item in slot.get("incidents") or () if _number(item.get("at")) >= now - window]
            if items:
                rows.append(
                    {
                        "id": server_id,
                        "name": slot.get("name"),
                        "count": len(items),
                        "last_at": items[-1].get("at"),
                        "last_kind": items[-1].get("kind"),
                        "last_status": items[-1].get("status"),
                    }
                )
        return sorted(rows, key=lambda row: (-row["count"], str(row["id"])))


def _number(value):
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else float("-inf")


def record_incident(files, memory, event, now, window, panel=None):
    """Add ``event`` to the incident record and return the server's incidents within ``window``.

    The record is the ``incidents`` file of ``files`` (a StateFiles), changed under its lock;
    when it is unusable, ``memory`` (an IncidentRecord of this process) holds it instead.
    """

    def change(document):
        record = IncidentRecord(document, panel)
        record.add(event, now)
        return record.count(event["id"], now, window)

    if files is not None and files.usable:
        try:
            return files.update(RECORD_KIND, change)
        except OSError:
            pass
    return change(memory.document)


def read_incidents(files, now=None, window=RECORD_KEEP_SECONDS):
    """The recent incidents in the ``incidents`` file of ``files`` (``IncidentRecord.recent``); [] when none."""
    if files is None or not files.usable:
        return []
    now = time.time() if now is None else now
    return IncidentRecord(files.read(RECORD_KIND)).recent(now, window)
