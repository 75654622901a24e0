# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Loading and checking fixture files (YAML or JSON), and generating large fleets."""

from __future__ import annotations

import dataclasses
import os
import typing as t

import yaml

from .model import PLANS, ROLES, SCOPE_ALIASES, Settings
from .settings import SettingsError, require_bool, require_int, require_number, updated_settings
from .telemetry import profile

DEFAULT_FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "default.yaml")
TIMING_DEFAULTS = {"checkin_interval": 0.2, "checkin_jitter": 0.05, "boot_time": 0.3, "stop_time": 0.2}
SERVER_KEYS = frozenset(
    {
        "id",
        "name",
        "game",
        "status",
        "players",
        "uptime_seconds",
        "connected",
        "checkin_interval",
        "checkin_jitter",
        "boot_time",
        "stop_time",
        "fast_restart",
        "player_churn",
        "cpu",
        "memory_mb",
    }
)
GENERATED_GAMES = ("minecraft", "rust", "ark", "valheim", "terraria", "cs2")


class FixtureError(ValueError):
    pass


@dataclasses.dataclass
class Fixture:
    """A checked fixture: plain data from which every reset rebuilds the panel."""

    source: str
    defaults: dict[str, float]
    settings: Settings
    accounts: list[dict[str, t.Any]]  # name, plan, paid, users {name: role}
    tokens: list[dict[str, t.Any]]  # name, account, user, scope, value, revoked
    servers: list[dict[str, t.Any]]  # see server_spec()
    fleet_account: str


def _mapping(value: t.Any, where: str) -> dict[str, t.Any]:
    if not isinstance(value, dict):
        raise FixtureError(f"{where} must be a mapping")
    return value


def _string(value: t.Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise FixtureError(f"{where} must be a non-empty string, not {value!r}")
    return value


def server_spec(raw: t.Any, account: str, defaults: dict[str, float], where: str) -> dict[str, t.Any]:
    """Normalise one server entry: every key present, numbers checked."""
    raw = _mapping(raw, where)
    unknown = sorted(set(raw) - SERVER_KEYS)
    if unknown:
        raise FixtureError(f"{where}: unknown key(s) {', '.join(unknown)}")
    server_id = _string(raw.get("id"), f"{where}.id")
    game = _string(raw.get("game", "minecraft"), f"{where}.game")
    players = raw.get("players", {})
    if isinstance(players, int) and not isinstance(players, bool):
        players = {"current": players}
    players = _mapping(players, f"{where}.players")
    try:
        spec = {
            "id": server_id,
            "name": _string(raw.get("name", server_id), f"{where}.name"),
            "game": game,
            "account": account,
            "status": _string(raw.get("status", "offline"), f"{where}.status"),
            "players_current": require_int(players.get("current", 0), f"{where}.players.current"),
            "players_max": require_int(players.get("max", profile(game).default_max_players), f"{where}.players.max"),
            "uptime_seconds": require_number(raw.get("uptime_seconds", 0), f"{where}.uptime_seconds"),
            "connected": require_bool(raw.get("connected", True), f"{where}.connected"),
            "fast_restart": (
                None if raw.get("fast_restart") is None else require_bool(raw["fast_restart"], f"{where}.fast_restart")
            ),
            "player_churn": (
                None if raw.get("player_churn") is None else require_bool(raw["player_churn"], f"{where}.player_churn")
            ),
            "cpu": None if raw.get("cpu") is None else require_number(raw["cpu"], f"{where}.cpu"),
            "memory_mb": None if raw.get("memory_mb") is None else require_int(raw["memory_mb"], f"{where}.memory_mb"),
        }
        spec["checkin_interval"] = require_number(
            raw.get("checkin_interval", defaults["checkin_interval"]), f"{where}.checkin_interval", strictly_above=True
        )
        for key in ("checkin_jitter", "boot_time", "stop_time"):
            spec[key] = require_number(raw.get(key, defaults[key]), f"{where}.{key}")
    except SettingsError as exc:
        raise FixtureError(str(exc)) from exc
    if spec["players_current"] > spec["players_max"]:
        raise FixtureError(f"{where}: players.current is above players.max")
    return spec


def generate_fleet(count: int, account: str, defaults: dict[str, float]) -> list[dict[str, t.Any]]:
    """``count`` servers over several games; mostly online, every tenth offline, a few installing.

    Built directly rather than through server_spec(): the values are known good, and a
    10,000-server fleet must not slow the start down.
    """
    servers = []
    for number in range(1, count + 1):
        game = GENERATED_GAMES[number % len(GENERATED_GAMES)]
        capacity = profile(game).default_max_players
        if number % 10 == 0:
            status = "offline"
        elif number % 97 == 0:
            status = "installing"
        else:
            status = "online"
        online = status == "online"
        servers.append(
            {
                "id": f"srv-{number:05d}",
                "name": f"{game.capitalize()} {number:05d}",
                "game": game,
                "account": account,
                "status": status,
                "players_current": (number * 7) % (capacity + 1) // 2 if online else 0,
                "players_max": capacity,
                "uptime_seconds": float((number * 3571) % 604800 + 60) if online else 0.0,
                "connected": True,
                "fast_restart": None,
                "player_churn": None,
                "cpu": None,
                "memory_mb": None,
                **defaults,
            }
        )
    return servers


def _read_document(path: str) -> t.Any:
    try:
        with open(path, encoding="utf-8") as handle:
            # YAML is a superset of JSON, so one parser reads both kinds of fixture file.
            return yaml.safe_load(handle)
    except OSError as exc:
        raise FixtureError(f"cannot read fixture {path}: {exc.strerror}") from exc
    except yaml.YAMLError as exc:
        raise FixtureError(f"fixture {path} is not valid YAML or JSON: {exc}") from exc


def _load_account(raw: t.Any, where: str) -> tuple[dict[str, t.Any], list[dict[str, t.Any]]]:
    raw = _mapping(raw, where)
    name = _string(raw.get("name"), f"{where}.name")
    plan = raw.get("plan")
    if plan not in PLANS:
        raise FixtureError(f"{where}.plan must be one of {', '.join(PLANS)}, not {plan!r}")
    users = _mapping(raw.get("users", {}), f"{where}.users")
    for user, role in users.items():
        if role not in ROLES:
            raise FixtureError(f"{where}.users.{user} must be one of {', '.join(ROLES)}, not {role!r}")
    try:
        paid = require_bool(raw.get("paid", True), f"{where}.paid")
    except SettingsError as exc:
        raise FixtureError(str(exc)) from exc
    tokens = []
    for index, token in enumerate(raw.get("tokens") or []):
        spot = f"{where}.tokens[{index}]"
        token = _mapping(token, spot)
        user = _string(token.get("user"), f"{spot}.user")
        if user not in users:
            raise FixtureError(f"{spot}.user {user!r} is not a user of account {name!r}")
        scope = SCOPE_ALIASES.get(token.get("scope"))
        if scope is None:
            raise FixtureError(f"{spot}.scope must be read-only or control, not {token.get('scope')!r}")
        tokens.append(
            {
                "name": _string(token.get("name"), f"{spot}.name"),
                "account": name,
                "user": user,
                "scope": scope,
                "value": _string(token.get("value"), f"{spot}.value"),
                "revoked": bool(token.get("revoked", False)),
            }
        )
    return {"name": name, "plan": plan, "paid": paid, "users": dict(users)}, tokens


def load_fixture(path: str | None = None, fleet_size: int | None = None) -> Fixture:
    """Read ``path`` (the built-in default when None); ``fleet_size`` replaces the fleet account's servers."""
    source = path or DEFAULT_FIXTURE
    document = _mapping(_read_document(source), f"fixture {source}")
    defaults = _load_defaults(document.get("defaults") or {})
    try:
        settings = updated_settings(Settings(), _mapping(document.get("settings") or {}, "settings"))
    except SettingsError as exc:
        raise FixtureError(f"settings: {exc}") from exc
    accounts, tokens, servers = [], [], []
    for index, raw in enumerate(document.get("accounts") or []):
        account, account_tokens = _load_account(raw, f"accounts[{index}]")
        accounts.append(account)
        tokens.extend(account_tokens)
        for number, server in enumerate(raw.get("servers") or []):
            servers.append(server_spec(server, account["name"], defaults, f"accounts[{index}].servers[{number}]"))
    if not accounts:
        raise FixtureError(f"fixture {source} defines no accounts")
    _check_unique([a["name"] for a in accounts], "account name")
    _check_unique([tok["name"] for tok in tokens], "token name")
    _check_unique([tok["value"] for tok in tokens], "token value")
    fleet_account = document.get("fleet_account") or accounts[0]["name"]
    if fleet_account not in {a["name"] for a in accounts}:
        raise FixtureError(f"fleet_account {fleet_account!r} is not an account of the fixture")
    if fleet_size is not None:
        servers = [s for s in servers if s["account"] != fleet_account] + generate_fleet(
            fleet_size, fleet_account, defaults
        )
    _check_unique([s["id"] for s in servers], "server id")
    return Fixture(source, defaults, settings, accounts, tokens, servers, fleet_account)


def _load_defaults(raw: t.Any) -> dict[str, float]:
    defaults = dict(TIMING_DEFAULTS)
    for key, value in _mapping(raw, "defaults").items():
        if key not in TIMING_DEFAULTS:
            raise FixtureError(f"defaults: unknown key {key!r}")
        try:
            defaults[key] = require_number(value, f"defaults.{key}", strictly_above=key == "checkin_interval")
        except SettingsError as exc:
            raise FixtureError(str(exc)) from exc
    return defaults


def _check_unique(values: list[str], what: str) -> None:
    seen = set()
    for value in values:
        if value in seen:
            raise FixtureError(f"duplicate {what} {value!r} in the fixture")
        seen.add(value)
