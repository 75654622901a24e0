# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Plain data of the emulated panel: accounts, tokens, servers, agents, actions, settings."""

from __future__ import annotations

import collections
import dataclasses
import typing as t

PLANS = ("starter", "pro", "team")
ROLES = ("owner", "admin", "member")
# Roles allowed to queue control actions (specification section 5, item 5).
CONTROL_ROLES = frozenset({"owner", "admin"})
ACTIONS = ("start", "stop", "restart")
# The two scopes of the specification; "servers:control" is how the live variant spells the
# control scope, so a fixture may use either spelling.
SCOPE_ALIASES = {
    "read-only": "read-only",
    "readonly": "read-only",
    "servers:read": "read-only",
    "control": "control",
    "servers:control": "control",
}
# Statuses the emulator's own transitions use; any other string can be set through the controls.
ONLINE = "online"
OFFLINE = "offline"
STARTING = "starting"
STOPPING = "stopping"
# A stop applied on one of these changes nothing. "stopped" is not produced by the emulator but
# a test may set it, and clients treat it as stopped too.
STOPPED_STATUSES = frozenset({OFFLINE, "stopped"})
LIST_STYLES = ("array", "envelope", "paged_body", "link_header")
CONSOLE_LINES_KEPT = 50
HISTORY_KEPT = 20


@dataclasses.dataclass
class Account:
    name: str
    plan: str
    paid: bool
    users: dict[str, str]  # user name -> role


@dataclasses.dataclass
class Token:
    name: str
    account: str
    user: str
    scope: str  # "read-only" or "control"
    value: str
    revoked: bool = False

    def describe(self) -> dict[str, t.Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass
class Action:
    action_id: str
    server_id: str
    action: str
    endpoint: str
    queued_at: float
    applied_at: float | None = None
    effect: str | None = None  # what applying it did: "noop", "starting", "stopping", "restarting", "fast_restart"


@dataclasses.dataclass
class StaleView:
    """What reads report for a while after a restart was applied (Settings.read_lag_reads / read_lag_seconds).

    A panel learns uptimes from its agents' reports, so right after a restart it may still
    answer the old ones: status online and the uptime counted from the old start.
    """

    online_since: float  # the start before the restart: the uptime reads keep counting from it
    until: float  # emulated instant the lag ends, whatever the reads
    reads_left: int  # reads still answered from the old view

    def active(self, now: float) -> bool:
        return self.reads_left > 0 or now < self.until


@dataclasses.dataclass(slots=True)
class Agent:
    connected: bool
    checkin_interval: float
    checkin_jitter: float
    next_checkin: float
    last_checkin: float | None = None


@dataclasses.dataclass(slots=True)
class Server:  # pylint: disable=too-many-instance-attributes
    """One game server and what the panel knows of it.

    Time-dependent values (uptime, cpu, churned players, finished transitions) are not stored
    as they change: they are derived from instants when read, which keeps 10,000 idle servers
    free of any periodic work. Slots, and queues created on first use, keep a 10,000-server
    fleet quick to build on every reset.
    """

    id: str
    name: str
    game: str
    account: str
    status: str
    players_current: int
    players_max: int
    online_since: float | None  # emulated instant the server last came online; None = no uptime
    agent: Agent
    boot_time: float
    stop_time: float
    fast_restart: bool | None = None  # None: follow the global setting
    player_churn: bool | None = None  # None: follow the global setting
    cpu_pinned: float | None = None
    memory_pinned: int | None = None
    seed: int = 0  # stable per-server number that makes telemetry differ between servers
    # Status changes already decided by an applied action, as (instant, status), in time order.
    phases: list[tuple[float, str]] = dataclasses.field(default_factory=list)
    pending: collections.deque | None = None  # queued actions the agent has not taken yet
    history: collections.deque | None = None  # applied actions, newest last
    console: collections.deque | None = None  # (instant, level, message)
    # The fields that never change with time, already JSON-encoded (see bodies.server_json).
    json_head: str = ""
    # Read lag after a restart (Settings.read_lag_*): the pre-restart view reads still report.
    stale: StaleView | None = None

    def enqueue(self, action: Action) -> None:
        if self.pending is None:
            self.pending = collections.deque()
        self.pending.append(action)

    def remember(self, action: Action) -> None:
        if self.history is None:
            self.history = collections.deque(maxlen=HISTORY_KEPT)
        self.history.append(action)

    def log(self, instant: float, level: str, message: str) -> None:
        if self.console is None:
            self.console = collections.deque(maxlen=CONSOLE_LINES_KEPT)
        self.console.append((instant, level, message))


def default_rate_limits() -> dict[str, int]:
    # Specification section 8.
    return {"pro": 120, "team": 600}


@dataclasses.dataclass
class Settings:
    live_list_style: str = "array"
    page_size: int = 100
    retry_after: bool = True
    rate_limits: dict[str, int] = dataclasses.field(default_factory=default_rate_limits)
    # Which minute the rate limits count: "sliding" (the last 60 s) or "fixed" (the calendar minute).
    rate_limit_window: str = "sliding"
    # Whether every answer to a token carries its plan's limit (X-RateLimit-Limit), as some panels do.
    rate_limit_headers: bool = False
    fast_restart: bool = False
    player_churn: bool = False
    seed: int = 0
    # After a restart is applied, reads keep reporting the pre-restart view (online, old uptime)
    # for this many reads of the server (each list read counts once) or seconds, whichever lasts longer.
    read_lag_reads: int = 0
    read_lag_seconds: float = 0.0

    def describe(self) -> dict[str, t.Any]:
        return dataclasses.asdict(self)
