# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Plausible, deterministic live figures of a server: players, cpu, memory, uptime.

Every figure is a pure function of the server and an instant, so reading a server twice in the
same second gives the same answer and tests never depend on randomness.
"""

from __future__ import annotations

import dataclasses
import zlib

from .model import ONLINE, STARTING, STOPPING, Server

CHURN_PERIOD = 5.0  # seconds between two changes of the player count when churn is on


@dataclasses.dataclass(frozen=True)
class GameProfile:
    cpu_idle: float
    cpu_per_player: float
    memory_base_mb: int
    memory_per_player_mb: int
    default_max_players: int


GAME_PROFILES = {
    "minecraft": GameProfile(4.0, 1.5, 2048, 64, 20),
    "rust": GameProfile(8.0, 0.4, 6144, 24, 100),
    "ark": GameProfile(12.0, 0.6, 8192, 32, 70),
    "valheim": GameProfile(5.0, 1.2, 3072, 48, 10),
    "terraria": GameProfile(2.0, 0.8, 512, 16, 16),
    "cs2": GameProfile(6.0, 0.5, 4096, 16, 32),
}
FALLBACK_PROFILE = GameProfile(5.0, 1.0, 2048, 32, 20)


def profile(game: str) -> GameProfile:
    return GAME_PROFILES.get(game, FALLBACK_PROFILE)


def stable_number(text: str) -> int:
    # zlib.crc32 rather than hash(): str hashes change between processes.
    return zlib.crc32(text.encode("utf-8"))


def uptime_seconds(server: Server, now: float) -> int:
    if server.online_since is None:
        return 0
    return max(0, int(now - server.online_since))


def players_now(server: Server, now: float, churn_default: bool) -> int:
    if server.status != ONLINE:
        return 0 if server.status in (STARTING, STOPPING) else server.players_current
    churn = churn_default if server.player_churn is None else server.player_churn
    if not churn or server.online_since is None:
        return server.players_current
    slot = int((now - server.online_since) // CHURN_PERIOD)
    wanted = stable_number(f"{server.id}:{slot}") % (server.players_max + 1)
    # Right after a start players trickle in: at most one more per period.
    return min(wanted, slot, server.players_max)


def cpu_now(server: Server, now: float, players: int) -> float:
    if server.cpu_pinned is not None:
        return server.cpu_pinned
    game = GAME_PROFILES.get(server.game, FALLBACK_PROFILE)
    if server.status == ONLINE:
        wobble = ((server.seed + int(now)) % 11) * 0.3
        return round(game.cpu_idle + game.cpu_per_player * players + wobble, 1)
    if server.status == STARTING:
        return round(60.0 + (server.seed % 30), 1)
    if server.status == STOPPING:
        return round(10.0 + (server.seed % 10), 1)
    return 0.0


def memory_now(server: Server, now: float, players: int) -> int:
    if server.memory_pinned is not None:
        return server.memory_pinned
    game = GAME_PROFILES.get(server.game, FALLBACK_PROFILE)
    if server.status == ONLINE:
        drift = ((server.seed + int(now) // 10) % 5) * 8
        return game.memory_base_mb + game.memory_per_player_mb * players + drift
    if server.status in (STARTING, STOPPING):
        return game.memory_base_mb // 2
    return 0


def live_figures(server: Server, now: float, churn_default: bool) -> tuple[int, float, int, int]:
    """(players, cpu, memory_mb, uptime_seconds) in one call: the hot path of server lists."""
    players = players_now(server, now, churn_default)
    return players, cpu_now(server, now, players), memory_now(server, now, players), uptime_seconds(server, now)
