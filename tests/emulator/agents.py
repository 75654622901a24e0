# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Agents, check-ins and status transitions (section 3 of the specification).

Nothing here runs on a timer. A server is brought up to date ("settled") whenever something
looks at it: every check-in and every transition that fell due since the last look is replayed
at the instant it happened. Reads, counters, ``advance()`` and forced check-ins all settle first,
so what a client observes is exactly what a periodic loop would have produced, at a cost of
zero for idle servers.
"""

from __future__ import annotations

import math
import typing as t

from .model import OFFLINE, ONLINE, STARTING, STOPPED_STATUSES, STOPPING, Action, Server, StaleView

if t.TYPE_CHECKING:
    from .state import PanelState

INFINITY = math.inf
MIN_INTERVAL = 0.001


def next_interval(world: PanelState, server: Server) -> float:
    agent = server.agent
    jitter = world.rng.uniform(-agent.checkin_jitter, agent.checkin_jitter) if agent.checkin_jitter else 0.0
    return max(MIN_INTERVAL, agent.checkin_interval + jitter)


def settle(world: PanelState, server: Server, now: float) -> None:
    """Replay, in time order, every transition and check-in due at or before ``now``."""
    if not server.phases and not server.pending:
        # Idle: check-ins with nothing to take change nothing, so there is nothing to replay.
        return
    agent = server.agent
    while True:
        due_phase = server.phases[0][0] if server.phases else INFINITY
        # Check-ins only matter when something waits for them; idle ones are never replayed
        # (catch_up_schedule() jumps over them when the rhythm matters again).
        due_checkin = agent.next_checkin if agent.connected and server.pending else INFINITY
        if min(due_phase, due_checkin) > now:
            break
        if due_phase <= due_checkin:
            # At equal instants the transition goes first, so the action sees the settled state.
            instant, status = server.phases.pop(0)
            enter_status(server, status, instant)
        else:
            run_checkin(world, server, due_checkin)
    if not server.pending and not server.phases:
        world.active.discard(server.id)


def catch_up_schedule(world: PanelState, server: Server, now: float) -> None:
    """Move an agent's next check-in past ``now``, over the idle check-ins nobody needed to replay.

    Called before an action is queued (so it waits for a check-in still to come) and before the
    agent is shown through the controls; jumping arithmetically costs the same for one missed
    check-in or a million.
    """
    agent = server.agent
    if agent.connected and agent.next_checkin <= now:
        missed = math.floor((now - agent.next_checkin) / agent.checkin_interval) + 1
        agent.last_checkin = agent.next_checkin + (missed - 1) * agent.checkin_interval
        agent.next_checkin = agent.last_checkin + next_interval(world, server)
        if agent.next_checkin <= now:
            agent.next_checkin = now + MIN_INTERVAL


def run_checkin(world: PanelState, server: Server, instant: float) -> list[Action]:
    """The agent reports in at ``instant``: it takes every queued action, in order, exactly once."""
    server.agent.last_checkin = instant
    applied = []
    while server.pending:
        action = server.pending.popleft()
        settle_phases(server, instant)
        apply_action(world, server, action, instant)
        applied.append(action)
    server.agent.next_checkin = instant + next_interval(world, server)
    return applied


def settle_phases(server: Server, instant: float) -> None:
    while server.phases and server.phases[0][0] <= instant:
        when, status = server.phases.pop(0)
        enter_status(server, status, when)


def enter_status(server: Server, status: str, instant: float) -> None:
    """Side effects of a server reaching ``status`` at ``instant``."""
    previous = server.status
    server.status = status
    if status == ONLINE:
        if previous != ONLINE:
            server.online_since = instant
            server.log(instant, "info", f"Done: {server.game} server is online")
    elif status == STOPPING:
        if server.players_current:
            server.log(instant, "info", f"Stopping: {server.players_current} player(s) disconnected")
        else:
            server.log(instant, "info", "Stopping server")
        # Players leave as soon as the stop begins; uptime runs until the process is gone.
        server.players_current = 0
    else:
        server.players_current = 0
        server.online_since = None
        if status == STARTING:
            server.log(instant, "info", f"Starting {server.game} server")
        elif status == OFFLINE:
            server.log(instant, "info", "Server stopped")
        else:
            server.log(instant, "warn", f"Status changed to {status}")


def final_status(server: Server) -> str:
    return server.phases[-1][1] if server.phases else server.status


def apply_action(world: PanelState, server: Server, action: Action, instant: float) -> None:
    """What the agent does with one action; the outcome is recorded on the action as ``effect``."""
    server.log(instant, "info", f"Agent received action {action.action} ({action.action_id})")
    if action.action == "start":
        effect = apply_start(server, instant)
    elif action.action == "stop":
        effect = apply_stop(server, instant)
    else:
        was_online, since = server.status == ONLINE and not server.phases, server.online_since
        effect = apply_restart(world, server, instant)
        world.counters.count_restart(server.id)
        lag = world.settings
        if was_online and since is not None and (lag.read_lag_reads > 0 or lag.read_lag_seconds > 0):
            server.stale = StaleView(
                online_since=since, until=instant + lag.read_lag_seconds, reads_left=lag.read_lag_reads
            )
    action.applied_at = instant
    action.effect = effect
    server.remember(action)
    world.counters.count_applied(server.id)
    if effect == "noop":
        server.log(instant, "info", f"Nothing to do for {action.action}: server is {server.status}")
    if server.phases:
        world.active.add(server.id)


def apply_start(server: Server, instant: float) -> str:
    if final_status(server) == ONLINE:
        return "noop"
    if server.status == STOPPING:
        stop_end = server.phases[0][0]
        server.phases = [(stop_end, STARTING), (stop_end + server.boot_time, ONLINE)]
        return "starting"
    server.phases = [(instant, STARTING), (instant + server.boot_time, ONLINE)]
    return "starting"


def apply_stop(server: Server, instant: float) -> str:
    if final_status(server) in STOPPED_STATUSES:
        return "noop"
    if server.status == STOPPING:
        server.phases = [(server.phases[0][0], OFFLINE)]
        return "stopping"
    server.phases = [(instant, STOPPING), (instant + server.stop_time, OFFLINE)]
    return "stopping"


def apply_restart(world: PanelState, server: Server, instant: float) -> str:
    fast = world.settings.fast_restart if server.fast_restart is None else server.fast_restart
    if fast and server.status == ONLINE and not server.phases:
        # The process reloads in place: status never leaves "online", only the uptime shows it.
        server.online_since = instant
        server.log(instant, "info", "Fast restart: server reloaded in place")
        return "fast_restart"
    if server.status in STOPPED_STATUSES and not server.phases:
        # Restarting a stopped server starts it (the specification accepts a restart for an offline server).
        return apply_start(server, instant)
    if server.status == STOPPING:
        # Already on its way down: let the stop finish, then boot.
        stop_end = server.phases[0][0]
        server.phases = []
    else:
        stop_end = instant + server.stop_time
        server.phases = [(instant, STOPPING)]
    server.phases += [(stop_end, STARTING), (stop_end + server.boot_time, ONLINE)]
    return "restarting"


def force_checkin(world: PanelState, server: Server, now: float) -> list[Action]:
    settle(world, server, now)
    applied = run_checkin(world, server, now)
    # Transitions that begin at this instant (e.g. "stopping") show at once.
    settle_phases(server, now)
    if not server.pending and not server.phases:
        world.active.discard(server.id)
    return applied


def disconnect(world: PanelState, server: Server, now: float) -> None:
    settle(world, server, now)
    server.agent.connected = False


def reconnect(world: PanelState, server: Server, now: float) -> None:
    settle(world, server, now)
    if server.agent.connected:
        return
    server.agent.connected = True
    # A reconnecting agent checks in at once: whatever waited for it is applied now, once.
    server.agent.next_checkin = now
    settle(world, server, now)


def set_status(server: Server, status: str, instant: float) -> None:
    """A status forced through the controls: it cancels any transition under way.

    Only "online" keeps players and uptime; any other status starts from none (the caller may
    then set players or uptime explicitly).
    """
    server.phases = []
    if status == ONLINE:
        if server.status != ONLINE:
            server.online_since = instant
    else:
        server.online_since = None
        server.players_current = 0
    server.status = status
    server.log(instant, "warn", f"Status set to {status} by the emulator controls")
