# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The whole emulated panel in memory, and the operations the API and the controls perform on it."""

from __future__ import annotations

import copy
import random
import secrets
import typing as t

from . import agents
from .clock import EmulatedClock
from .counters import Counters
from .faults import FaultRegistry
from .fixture import Fixture
from .model import ONLINE, SCOPE_ALIASES, Account, Action, Agent, Server, Token, PLANS, ROLES
from .ratelimit import MinuteLimiter
from .settings import FLEET_TIMING_KEYS, SettingsError, require_bool, require_int, require_number, updated_settings
from .telemetry import stable_number


class ConflictError(ValueError):
    """The request to the controls contradicts the current state (HTTP 409)."""


class NotFoundError(LookupError):
    """The controls were asked about something that does not exist (HTTP 404)."""


class PanelState:  # pylint: disable=too-many-instance-attributes
    """Accounts, tokens, servers and everything the controls can change.

    Single-threaded by design: the asyncio loop serialises every request, so no locks.
    """

    def __init__(self, fixture: Fixture, clock: EmulatedClock | None = None) -> None:
        self.fixture = fixture
        self.clock = clock or EmulatedClock()
        self.limiter = MinuteLimiter()
        self.reset()

    # ------------------------------------------------------------------ building and resetting

    def reset(self) -> None:
        """Back to the fixture: accounts, tokens, fleet, settings; counters, faults and rate-limit windows emptied."""
        now = self.clock.now()
        self.settings = copy.deepcopy(self.fixture.settings)
        self.rng = random.Random(self.settings.seed)
        self.counters = Counters()
        self.faults = FaultRegistry()
        self.limiter.reset()
        self.action_sequence = 0
        # Servers with queued actions or transitions under way; the only ones settle_active() visits.
        self.active: set[str] = set()
        self.accounts = {
            a["name"]: Account(a["name"], a["plan"], a["paid"], dict(a["users"])) for a in self.fixture.accounts
        }
        self.tokens_by_name: dict[str, Token] = {}
        self.tokens_by_value: dict[str, Token] = {}
        for spec in self.fixture.tokens:
            self._register_token(Token(**spec))
        self.servers: dict[str, Server] = {}
        self.account_servers: dict[str, list[Server]] = {name: [] for name in self.accounts}
        for spec in self.fixture.servers:
            server = self._build_server(spec, now)
            self.servers[server.id] = server
            self.account_servers[server.account].append(server)

    def _build_server(self, spec: dict[str, t.Any], now: float) -> Server:
        interval = spec["checkin_interval"]
        uptime = spec["uptime_seconds"]
        return Server(
            id=spec["id"],
            name=spec["name"],
            game=spec["game"],
            account=spec["account"],
            status=spec["status"],
            players_current=spec["players_current"],
            players_max=spec["players_max"],
            online_since=now - uptime if spec["status"] == ONLINE or uptime > 0 else None,
            # Agents start at random points of their interval, so a big fleet does not check in in lockstep.
            agent=Agent(
                connected=spec["connected"],
                checkin_interval=interval,
                checkin_jitter=spec["checkin_jitter"],
                next_checkin=now + self.rng.uniform(0, interval),
            ),
            boot_time=spec["boot_time"],
            stop_time=spec["stop_time"],
            fast_restart=spec["fast_restart"],
            player_churn=spec["player_churn"],
            cpu_pinned=spec["cpu"],
            memory_pinned=spec["memory_mb"],
            seed=stable_number(spec["id"]),
        )

    def _register_token(self, token: Token) -> None:
        self.tokens_by_name[token.name] = token
        self.tokens_by_value[token.value] = token

    # ------------------------------------------------------------------ time

    def settle(self, server: Server) -> None:
        agents.settle(self, server, self.clock.now())

    def settle_active(self) -> None:
        now = self.clock.now()
        for server_id in list(self.active):
            agents.settle(self, self.servers[server_id], now)

    def advance(self, seconds: float) -> float:
        now = self.clock.advance(seconds)
        self.settle_active()
        return now

    # ------------------------------------------------------------------ panel operations

    def find_server(self, account: str, server_id: str) -> Server | None:
        """The server, if it exists and belongs to ``account``; another account's server is as unknown as a missing one."""
        server = self.servers.get(server_id)
        if server is None or server.account != account:
            return None
        return server

    def queue_action(self, server: Server, action: str, endpoint: str) -> Action:
        now = self.clock.now()
        agents.settle(self, server, now)
        agents.catch_up_schedule(self, server, now)
        self.action_sequence += 1
        queued = Action(
            action_id=f"act-{self.action_sequence:06d}",
            server_id=server.id,
            action=action,
            endpoint=endpoint,
            queued_at=now,
        )
        server.enqueue(queued)
        self.active.add(server.id)
        self.counters.count_queued(server.id)
        return queued

    # ------------------------------------------------------------------ controls

    def server_or_raise(self, server_id: str) -> Server:
        server = self.servers.get(server_id)
        if server is None:
            raise NotFoundError(f"no server {server_id!r}")
        return server

    def update_settings(self, updates: dict[str, t.Any]) -> None:
        timing = {key: updates[key] for key in FLEET_TIMING_KEYS if key in updates}
        rest = {key: value for key, value in updates.items() if key not in timing}
        checked_timing = _check_timing(timing)
        new_settings = updated_settings(self.settings, rest)
        if "seed" in rest:
            self.rng = random.Random(new_settings.seed)
        self.settings = new_settings
        if checked_timing:
            for server in self.servers.values():
                self._apply_timing(server, checked_timing)

    def _apply_timing(self, server: Server, timing: dict[str, float]) -> None:
        now = self.clock.now()
        agents.settle(self, server, now)
        for key, value in timing.items():
            if key in ("checkin_interval", "checkin_jitter"):
                setattr(server.agent, key, value)
            else:
                setattr(server, key, value)
        if "checkin_interval" in timing or "checkin_jitter" in timing:
            # The new rhythm starts now, so a huge interval really means "no check-in on its own".
            server.agent.next_checkin = now + agents.next_interval(self, server)

    def set_server(self, server_id: str, fields: dict[str, t.Any]) -> Server:
        server = self.server_or_raise(server_id)
        checked = _check_server_fields(server, fields)
        now = self.clock.now()
        agents.settle(self, server, now)
        if "status" in checked:
            agents.set_status(server, checked["status"], now)
        for key in ("name", "game"):
            if key in checked:
                setattr(server, key, checked[key])
                server.json_head = ""  # the pre-encoded fields changed
        if "players_max" in checked:
            server.players_max = checked["players_max"]
        if "players_current" in checked:
            server.players_current = checked["players_current"]
        if "uptime_seconds" in checked:
            server.online_since = now - checked["uptime_seconds"]
        for key, attribute in (
            ("cpu", "cpu_pinned"),
            ("memory_mb", "memory_pinned"),
            ("fast_restart", "fast_restart"),
            ("player_churn", "player_churn"),
        ):
            if key in checked:
                setattr(server, attribute, checked[key])
        timing = {key: checked[key] for key in FLEET_TIMING_KEYS if key in checked}
        if timing:
            self._apply_timing(server, timing)
        if "connected" in checked:
            if checked["connected"]:
                agents.reconnect(self, server, now)
            else:
                agents.disconnect(self, server, now)
        return server

    def disconnect(self, server_id: str) -> Server:
        server = self.server_or_raise(server_id)
        agents.disconnect(self, server, self.clock.now())
        return server

    def reconnect(self, server_id: str) -> Server:
        server = self.server_or_raise(server_id)
        agents.reconnect(self, server, self.clock.now())
        return server

    def checkin(self, server_id: str) -> list[Action]:
        server = self.server_or_raise(server_id)
        if not server.agent.connected:
            raise ConflictError(f"the agent of {server_id} is disconnected; reconnect it first")
        return agents.force_checkin(self, server, self.clock.now())

    def create_token(self, spec: dict[str, t.Any]) -> Token:
        account = self.accounts.get(spec.get("account"))
        if account is None:
            raise NotFoundError(f"no account {spec.get('account')!r}")
        name, user = spec.get("name"), spec.get("user")
        if not isinstance(name, str) or not name or not isinstance(user, str) or not user:
            raise SettingsError("a token needs a name and a user")
        role = spec.get("role")
        if role is not None and role not in ROLES:
            raise SettingsError(f"role must be one of {', '.join(ROLES)}, not {role!r}")
        if role is None and user not in account.users:
            raise SettingsError(f"{user!r} is not a user of account {account.name!r} (pass role= to add the user)")
        scope = SCOPE_ALIASES.get(spec.get("scope", "control"))
        if scope is None:
            raise SettingsError(f"scope must be read-only or control, not {spec.get('scope')!r}")
        value = spec.get("value") or f"gp-{secrets.token_urlsafe(24)}"
        if not isinstance(value, str):
            raise SettingsError("a token value must be a string")
        if name in self.tokens_by_name:
            raise ConflictError(f"a token named {name!r} already exists")
        if value in self.tokens_by_value:
            raise ConflictError("another token already has this value")
        # Everything checked: only now change anything, so a refused call leaves no trace.
        if role is not None:
            account.users[user] = role
        token = Token(name=name, account=account.name, user=user, scope=scope, value=value)
        self._register_token(token)
        return token

    def revoke_token(self, name: str) -> Token:
        token = self.tokens_by_name.get(name)
        if token is None:
            raise NotFoundError(f"no token named {name!r}")
        token.revoked = True
        return token

    def set_account(self, name: str, plan: t.Any = None, paid: t.Any = None) -> Account:
        account = self.accounts.get(name)
        if account is None:
            raise NotFoundError(f"no account {name!r}")
        if plan is not None and plan not in PLANS:
            raise SettingsError(f"plan must be one of {', '.join(PLANS)}, not {plan!r}")
        if paid is not None:
            require_bool(paid, "paid")
        if plan is not None:
            account.plan = plan
        if paid is not None:
            account.paid = paid
        return account


def _check_timing(timing: dict[str, t.Any]) -> dict[str, float]:
    return {key: require_number(value, key, strictly_above=key == "checkin_interval") for key, value in timing.items()}


def _non_empty_string(value: t.Any, name: str) -> str:
    if not isinstance(value, str) or not value:
        raise SettingsError(f"{name} must be a non-empty string, not {value!r}")
    return value


def _optional(check: t.Callable[[t.Any, str], t.Any]) -> t.Callable[[t.Any, str], t.Any]:
    """A check that also accepts null (null unpins a value or goes back to the global setting)."""
    return lambda value, name: None if value is None else check(value, name)


def _timing(value: t.Any, name: str) -> float:
    return _check_timing({name: value})[name]


SERVER_FIELD_CHECKS: dict[str, t.Callable[[t.Any, str], t.Any]] = {
    "name": _non_empty_string,
    "game": _non_empty_string,
    "status": _non_empty_string,
    "uptime_seconds": require_number,
    "cpu": _optional(require_number),
    "memory_mb": _optional(require_int),
    "fast_restart": _optional(require_bool),
    "player_churn": _optional(require_bool),
    "connected": require_bool,
    **{key: _timing for key in FLEET_TIMING_KEYS},
}


def _check_players(value: t.Any) -> dict[str, int]:
    """``players`` is a count of current players, or a mapping with current and/or max."""
    if not isinstance(value, dict):
        return {"players_current": require_int(value, "players")}
    unknown = sorted(set(value) - {"current", "max"})
    if unknown:
        raise SettingsError(f"players takes current and max, not {', '.join(unknown)}")
    return {f"players_{key}": require_int(value[key], f"players.{key}") for key in ("current", "max") if key in value}


def _check_server_fields(server: Server, fields: dict[str, t.Any]) -> dict[str, t.Any]:
    """Every field checked before any is applied, so a bad request changes nothing."""
    checked: dict[str, t.Any] = {}
    for key, value in fields.items():
        if key == "players":
            checked.update(_check_players(value))
        elif key in SERVER_FIELD_CHECKS:
            checked[key] = SERVER_FIELD_CHECKS[key](value, key)
        else:
            raise SettingsError(f"unknown server field {key!r}")
    if checked.get("players_current", server.players_current) > checked.get("players_max", server.players_max):
        raise SettingsError("players.current cannot be above players.max")
    return checked
