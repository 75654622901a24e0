# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""JSON bodies of the panel API: the Server object and the sub-resources.

The specification names the Server fields but leaves the sub-resource shapes open ("not shown");
the shapes chosen here are documented in tests/emulator/README.md.
"""

from __future__ import annotations

import json
import typing as t

from .clock import EmulatedClock
from .model import Action, Server
from .telemetry import cpu_now, live_figures, memory_now, players_now, profile, uptime_seconds

PLAYER_NAMES = ("Steve", "Alex", "Nova", "Kai", "Rook", "Luna", "Vex", "Milo", "Ash", "Iris", "Juno", "Rex")
METRIC_SAMPLES = 10
METRIC_STEP_SECONDS = 60
STATUS_JSON = {status: json.dumps(status) for status in ("online", "offline", "starting", "stopping")}


def stale_json(server: Server, now: float) -> str | None:
    """The body a lagging read reports (Settings.read_lag_*), or None when the read shows the present.

    Each call is one read: it uses up one of the lag's reads.
    """
    stale = server.stale
    if not stale.active(now):
        server.stale = None
        return None
    stale.reads_left = max(0, stale.reads_left - 1)
    uptime = max(0, int(now - stale.online_since))
    return (
        f'{{"id": {json.dumps(server.id)}, "name": {json.dumps(server.name)}, "game": {json.dumps(server.game)}, '
        f'"status": "online", "players": {{"current": {server.players_current}, "max": {server.players_max}}}, '
        f'"cpu": {server.cpu_pinned or 0.0!r}, "memory_mb": {server.memory_pinned or 0}, "uptime_seconds": {uptime}}}'
    )


def server_body(server: Server, now: float, churn_default: bool) -> dict[str, t.Any]:
    players = players_now(server, now, churn_default)
    return {
        "id": server.id,
        "name": server.name,
        "game": server.game,
        "status": server.status,
        "players": {"current": players, "max": server.players_max},
        "cpu": cpu_now(server, now, players),
        "memory_mb": memory_now(server, now, players),
        "uptime_seconds": uptime_seconds(server, now),
    }


def server_json(server: Server, now: float, churn_default: bool) -> str:
    """``json.dumps(server_body(...))``, built from a pre-encoded head: lists of 10,000 servers stay fast."""
    if server.stale is not None:
        lagging = stale_json(server, now)
        if lagging is not None:
            return lagging
    head = server.json_head
    if not head:
        head = server.json_head = (
            f'{{"id": {json.dumps(server.id)}, "name": {json.dumps(server.name)}, "game": {json.dumps(server.game)}, '
        )
    status = STATUS_JSON.get(server.status) or json.dumps(server.status)
    players, cpu, memory, uptime = live_figures(server, now, churn_default)
    return (
        f'{head}"status": {status}, "players": {{"current": {players}, "max": {server.players_max}}}, '
        f'"cpu": {cpu!r}, "memory_mb": {memory}, "uptime_seconds": {uptime}}}'
    )


def servers_json(servers: t.Iterable[str]) -> str:
    return "[" + ", ".join(servers) + "]"


def players_body(server: Server, now: float, churn_default: bool, clock: EmulatedClock) -> dict[str, t.Any]:
    count = players_now(server, now, churn_default)
    uptime = uptime_seconds(server, now)
    players = []
    for index in range(count):
        name = f"{PLAYER_NAMES[(server.seed + index) % len(PLAYER_NAMES)]}{(server.seed // 7 + index * 13) % 100:02d}"
        # Earlier players have been on longer, never longer than the server has been up.
        online_for = max(0, uptime - index * 97 - server.seed % 60)
        players.append({"name": name, "online_seconds": online_for, "joined_at": clock.iso(now - online_for)})
    return {"server_id": server.id, "current": count, "max": server.players_max, "players": players}


def metrics_body(server: Server, now: float, churn_default: bool, clock: EmulatedClock) -> dict[str, t.Any]:
    """The last samples, one a minute, oldest first; before the server came online they are zero."""
    samples = []
    for step in range(METRIC_SAMPLES - 1, -1, -1):
        instant = now - step * METRIC_STEP_SECONDS
        if step and (server.online_since is None or instant < server.online_since):
            samples.append({"timestamp": clock.iso(instant), "cpu": 0.0, "memory_mb": 0, "players": 0})
            continue
        players = players_now(server, instant, churn_default)
        samples.append(
            {
                "timestamp": clock.iso(instant),
                "cpu": cpu_now(server, instant, players),
                "memory_mb": memory_now(server, instant, players),
                "players": players,
            }
        )
    return {"server_id": server.id, "interval_seconds": METRIC_STEP_SECONDS, "samples": samples}


def console_body(server: Server, now: float, clock: EmulatedClock) -> dict[str, t.Any]:
    lines = [
        {"timestamp": clock.iso(instant), "level": level, "message": message}
        for instant, level, message in server.console or ()
        if instant <= now
    ]
    return {"server_id": server.id, "lines": lines}


def resources_body(server: Server, now: float, churn_default: bool) -> dict[str, t.Any]:
    players = players_now(server, now, churn_default)
    game = profile(server.game)
    uptime = uptime_seconds(server, now)
    memory_limit = (game.memory_base_mb + game.memory_per_player_mb * server.players_max) * 2
    disk_used = 1024 + (server.seed % 8192)
    return {
        "server_id": server.id,
        "cpu": {"usage_percent": cpu_now(server, now, players), "cores": 2 + server.seed % 3},
        "memory": {"used_mb": memory_now(server, now, players), "limit_mb": memory_limit},
        "disk": {"used_mb": disk_used, "limit_mb": max(20480, disk_used * 2)},
        "network": {"rx_bytes": uptime * (2048 + players * 512), "tx_bytes": uptime * (4096 + players * 1024)},
    }


def queued_body(action: Action) -> dict[str, t.Any]:
    return {"action_id": action.action_id, "server_id": action.server_id, "action": action.action, "state": "queued"}
