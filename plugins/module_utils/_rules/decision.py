# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: what server_control decides for one server on one read: a pure function, for one server and for many.

Read in, plan out.  ``decide`` takes the request, one read of the server, the ledger's entries for
that server (those the read proves done already marked so: open_entries.proven) and the wall time, and
returns a Plan.  It sends, sleeps, writes and words nothing: the engine (_engine/run.py) applies it to each
server of a task, and _engine/messages.py says it in words.

The rules, in order:

1. Nothing to do when the read shows the requested state (``planned_action``).
2. A restart the ledger holds as queued or done less than ``min_uptime`` ago counts as the restart,
   whatever uptime a lagging read still shows (COUNTED).
3. An open ledger entry for the same action means it is not sent again (FOLLOW): the caller waits
   for that entry's outcome or reports it.
4. A server whose ledger entries cannot be read (a damaged ledger file, set aside) may have an
   open entry nobody can see: nothing is sent for it (UNREADABLE) until a person checks it.
5. The gates judge the read the action would be sent on: ``only_if_status``, then ``max_players``
   for actions that take players off a server (HELD).
6. Otherwise the action is sent (SEND); open entries of other actions are only named.

``ignore_pending`` skips rules 2 to 4 (the user's "send it anyway").
"""

from __future__ import annotations

import collections

from ansible_collections.gamepanel.panel.plugins.module_utils._rules import open_entries
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.convergence import (
    ONLINE,
    players_of,
    status_of,
    uptime_of,
)

# Actions that take players off a server, and so honour max_players.
PLAYER_GATED_ACTIONS = ("stop", "restart")

# What a Plan says to do.
ALREADY = "already"  # the read shows the requested state: nothing to send
COUNTED = "counted"  # a restart the ledger holds within min_uptime is the restart
FOLLOW = "follow"  # an open entry for the same action stands: send nothing, follow it
UNREADABLE = "unreadable"  # the ledger cannot tell whether the action is already queued
HELD = "held"  # a gate holds the action back on this read (held_by says which)
SEND = "send"  # send the action

# What holds a planned action back on a read (Plan.held_by, and decide_on_read's second item).
HELD_BY_STATUS = "status"
HELD_BY_PLAYERS = "players"

Plan = collections.namedtuple("Plan", "verdict action entry held_by others")
Plan.__doc__ = """What to do for one server.

``action``: the action the server needs (None when ALREADY or COUNTED); ``entry``: the ledger entry
the verdict rests on (COUNTED, FOLLOW), or the damage mark (UNREADABLE), else None; ``held_by``: HELD_BY_STATUS or HELD_BY_PLAYERS
when HELD; ``others``: open entries of other actions (SEND names them).
"""


def decide(request, server, entries, now, unreadable=None):
    """The Plan for ``server`` (one read of it) under ``request``, given the ledger's ``entries`` for it at ``now``.

    ``unreadable``: the ledger's damage mark covering the server (Ledger.unreadable), or None.
    """
    action = planned_action(request, server)
    if action is None:
        return Plan(ALREADY, None, None, None, ())
    if request.ignore_pending:
        entries, unreadable = (), None
    if action == "restart":
        recent = open_entries.recent_restart(entries, now, request.min_uptime)
        if recent is not None:
            return Plan(COUNTED, None, recent, None, ())
    standing = open_entries.same_action(entries, action)
    if standing is not None:
        return Plan(FOLLOW, action, standing, None, ())
    if unreadable is not None:
        return Plan(UNREADABLE, action, unreadable, None, ())
    held_by = held_by_gate(request, server, action)
    if held_by is not None:
        return Plan(HELD, action, None, held_by, ())
    return Plan(SEND, action, None, None, tuple(open_entries.other_actions(entries, action)))


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


def decide_on_read(request, server):
    """What server_control decides on one read of ``server``, before any wait: ``(action, held_by)``.

    ``action`` is planned_action's (None: nothing to do).  ``held_by`` is None when the
    action is to be sent, HELD_BY_STATUS when only_if_status refuses the server's status,
    HELD_BY_PLAYERS when max_players refuses a stop or restart (drain_timeout may then wait
    for players to leave, and on_busy says what happens when they don't).  The gamepanel.panel.control_plan
    filter reports it for a record a user has read already.
    """
    action = planned_action(request, server)
    return action, (None if action is None else held_by_gate(request, server, action))


def held_by_gate(request, server, action):
    """Which gate holds ``action`` back on this read of ``server``: HELD_BY_STATUS, HELD_BY_PLAYERS or None."""
    if not status_allows(request, server):
        return HELD_BY_STATUS
    if action in PLAYER_GATED_ACTIONS and not players_allow(request, server):
        return HELD_BY_PLAYERS
    return None


def expected_status(request, server):
    """The status the server should show once ``request.state`` holds (for diff mode)."""
    if request.state == "stopped":
        status = status_of(server)
        return status if status in request.stopped_statuses else request.stopped_statuses[0]
    return ONLINE
