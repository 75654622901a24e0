# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The control interface for tests, under /_emulator: not part of the panel's API.

Answers only to loopback peers, whatever address the emulator listens on.
"""

from __future__ import annotations

import functools
import ipaddress
import json
import typing as t

from aiohttp import web

from . import agents
from .appkey import STATE_KEY
from .bodies import server_body
from .errors import error_response, json_response
from .faults import FaultSpecError
from .model import Action, Server
from .settings import SettingsError
from .state import ConflictError, NotFoundError, PanelState

PREFIX = "/_emulator"
Handler = t.Callable[[web.Request, PanelState], t.Awaitable[t.Any]]


def is_loopback(address: str | None) -> bool:
    if not address:
        return False
    try:
        return ipaddress.ip_address(address.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def control_endpoint(handler: Handler) -> t.Callable[[web.Request], t.Awaitable[web.Response]]:
    """Loopback check, and the mapping of state errors to 400/404/409 JSON answers."""

    @functools.wraps(handler)
    async def wrapper(request: web.Request) -> web.Response:
        if not is_loopback(request.remote):
            return error_response(403, "loopback_only", "The emulator controls only answer on the loopback interface.")
        try:
            return json_response(await handler(request, request.app[STATE_KEY]))
        except NotFoundError as exc:
            return error_response(404, "not_found", str(exc))
        except ConflictError as exc:
            return error_response(409, "conflict", str(exc))
        except (SettingsError, FaultSpecError) as exc:
            return error_response(400, "invalid_request", str(exc))

    return wrapper


async def json_body(request: web.Request) -> dict[str, t.Any]:
    raw = await request.read()
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except ValueError as exc:
        raise SettingsError(f"the body is not valid JSON: {exc}") from exc
    if not isinstance(body, dict):
        raise SettingsError("the body must be a JSON object")
    return body


# ---------------------------------------------------------------------- views


def action_view(state: PanelState, action: Action) -> dict[str, t.Any]:
    return {
        "action_id": action.action_id,
        "action": action.action,
        "endpoint": action.endpoint,
        "queued_at": state.clock.iso(action.queued_at),
        "applied_at": None if action.applied_at is None else state.clock.iso(action.applied_at),
        "effect": action.effect,
    }


def server_view(state: PanelState, server: Server) -> dict[str, t.Any]:
    """What the panel API shows, plus the agent and the emulator's internals."""
    now = state.clock.now()
    state.settle(server)
    agents.catch_up_schedule(state, server, now)
    agent = server.agent
    view = server_body(server, now, state.settings.player_churn)
    view.update(
        {
            "account": server.account,
            "agent": {
                "connected": agent.connected,
                "checkin_interval": agent.checkin_interval,
                "checkin_jitter": agent.checkin_jitter,
                "last_checkin_seconds_ago": None if agent.last_checkin is None else round(now - agent.last_checkin, 3),
                "next_checkin_in_seconds": round(agent.next_checkin - now, 3) if agent.connected else None,
            },
            "boot_time": server.boot_time,
            "stop_time": server.stop_time,
            "fast_restart": server.fast_restart,
            "player_churn": server.player_churn,
            "cpu_pinned": server.cpu_pinned,
            "memory_pinned": server.memory_pinned,
            "pending_actions": [action_view(state, action) for action in server.pending or ()],
            "transition": [
                {"status": status, "in_seconds": round(instant - now, 3)} for instant, status in server.phases
            ],
            "history": [action_view(state, action) for action in server.history or ()],
        }
    )
    return view


def state_view(state: PanelState) -> dict[str, t.Any]:
    state.settle_active()
    return {
        "clock": {"now": state.clock.iso(state.clock.now()), "advanced_seconds": state.clock.offset},
        "settings": state.settings.describe(),
        "accounts": {
            name: {"plan": a.plan, "paid": a.paid, "users": dict(a.users)} for name, a in state.accounts.items()
        },
        "tokens": [token.describe() for token in state.tokens_by_name.values()],
        "servers": [server_view(state, server) for server in state.servers.values()],
        "faults": state.faults.describe(),
    }


# ---------------------------------------------------------------------- endpoints


async def index(request: web.Request, state: PanelState) -> t.Any:
    del request, state
    return {"endpoints": [f"{method} {PREFIX}{path}" for method, path, _handler in CONTROL_ROUTES]}


async def reset(request: web.Request, state: PanelState) -> t.Any:
    del request
    state.reset()
    return {"reset": True}


async def get_state(request: web.Request, state: PanelState) -> t.Any:
    del request
    return state_view(state)


async def get_counters(request: web.Request, state: PanelState) -> t.Any:
    del request
    # Actions that fell due are applied before they are counted.
    state.settle_active()
    return state.counters.snapshot()


async def get_settings(request: web.Request, state: PanelState) -> t.Any:
    del request
    return state.settings.describe()


async def post_settings(request: web.Request, state: PanelState) -> t.Any:
    state.update_settings(await json_body(request))
    return state.settings.describe()


async def get_server(request: web.Request, state: PanelState) -> t.Any:
    return server_view(state, state.server_or_raise(request.match_info["server_id"]))


async def post_server(request: web.Request, state: PanelState) -> t.Any:
    server = state.set_server(request.match_info["server_id"], await json_body(request))
    return server_view(state, server)


async def disconnect(request: web.Request, state: PanelState) -> t.Any:
    return server_view(state, state.disconnect(request.match_info["server_id"]))


async def reconnect(request: web.Request, state: PanelState) -> t.Any:
    return server_view(state, state.reconnect(request.match_info["server_id"]))


async def checkin(request: web.Request, state: PanelState) -> t.Any:
    server_id = request.match_info["server_id"]
    applied = state.checkin(server_id)
    view = server_view(state, state.servers[server_id])
    view["applied"] = [action_view(state, action) for action in applied]
    return view


async def advance(request: web.Request, state: PanelState) -> t.Any:
    body = await json_body(request)
    seconds = body.get("seconds")
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds < 0:
        raise SettingsError(f"seconds must be a number >= 0, not {seconds!r}")
    state.advance(float(seconds))
    return {"now": state.clock.iso(state.clock.now()), "advanced_seconds": state.clock.offset}


async def create_token(request: web.Request, state: PanelState) -> t.Any:
    return state.create_token(await json_body(request)).describe()


async def revoke_token(request: web.Request, state: PanelState) -> t.Any:
    return state.revoke_token(request.match_info["name"]).describe()


async def set_account(request: web.Request, state: PanelState) -> t.Any:
    body = await json_body(request)
    unknown = sorted(set(body) - {"plan", "paid"})
    if unknown:
        raise SettingsError(f"accounts take plan and paid, not {', '.join(unknown)}")
    account = state.set_account(request.match_info["account"], body.get("plan"), body.get("paid"))
    return {"name": account.name, "plan": account.plan, "paid": account.paid, "users": dict(account.users)}


async def get_faults(request: web.Request, state: PanelState) -> t.Any:
    del request
    return {"faults": state.faults.describe()}


async def add_fault(request: web.Request, state: PanelState) -> t.Any:
    return state.faults.add(await json_body(request)).describe()


async def clear_faults(request: web.Request, state: PanelState) -> t.Any:
    del request
    state.faults.clear()
    return {"faults": []}


CONTROL_ROUTES = (
    ("GET", "", index),
    ("POST", "/reset", reset),
    ("GET", "/state", get_state),
    ("GET", "/counters", get_counters),
    ("GET", "/settings", get_settings),
    ("POST", "/settings", post_settings),
    ("GET", "/servers/{server_id}", get_server),
    ("POST", "/servers/{server_id}", post_server),
    ("POST", "/servers/{server_id}/disconnect", disconnect),
    ("POST", "/servers/{server_id}/reconnect", reconnect),
    ("POST", "/servers/{server_id}/checkin", checkin),
    ("POST", "/advance", advance),
    ("POST", "/tokens", create_token),
    ("POST", "/tokens/{name}/revoke", revoke_token),
    ("POST", "/accounts/{account}", set_account),
    ("GET", "/faults", get_faults),
    ("POST", "/faults", add_fault),
    ("DELETE", "/faults", clear_faults),
)


def add_control_routes(app: web.Application) -> None:
    for method, path, handler in CONTROL_ROUTES:
        app.router.add_route(method, PREFIX + path, control_endpoint(handler))
