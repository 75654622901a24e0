# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The panel's REST API: the live variant under /v1 and the planned one under /planned/v1.

One handler serves both, so every request goes through the same checks in the documented
order (docs/development.md, "Panel behaviour"): fault (before) -> 401 -> 403 starter -> 402 ->
429 -> 404 route/server -> 405 -> 403 scope/role -> 415 -> 400 -> 422 -> answer -> fault (after).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import typing as t
import urllib.parse

from aiohttp import web

from . import bodies
from .appkey import STATE_KEY
from .auth import identify, require_api_access, require_control
from .errors import JSON_TYPE, ApiError, error_response, json_response, raw_json_response
from .faults import PROXY_PAGE, Fault
from .model import ACTIONS, Account, Server, Token
from .ratelimit import MinuteLimiter
from .state import PanelState

LIVE, PLANNED = "live", "planned"
BASES = {LIVE: "/v1", PLANNED: "/planned/v1"}
SUBRESOURCES = ("players", "metrics", "console", "resources")
# Route template -> {method: operation}. The planned variant has no start/stop and no /control.
ROUTES = {
    LIVE: {
        "/servers": {"GET": "list"},
        "/servers/{id}": {"GET": "server"},
        "/servers/{id}/players": {"GET": "players"},
        "/servers/{id}/metrics": {"GET": "metrics"},
        "/servers/{id}/console": {"GET": "console"},
        "/servers/{id}/resources": {"GET": "resources"},
        "/servers/{id}/control": {"POST": "control"},
        # Only named in a note of the specification; queued exactly like a control restart.
        "/servers/{id}/restart": {"POST": "restart"},
    },
    PLANNED: {
        "/servers": {"GET": "list"},
        "/servers/{id}": {"GET": "server"},
        "/servers/{id}/players": {"GET": "players"},
        "/servers/{id}/restart": {"POST": "restart"},
    },
}
ACTION_OPERATIONS = frozenset({"control", "restart"})
MAX_PER_PAGE = 1000


def split_variant(raw_path: str) -> tuple[str | None, str]:
    """("live" | "planned" | None, the path after the variant's base)."""
    for variant in (PLANNED, LIVE):
        base = BASES[variant]
        if raw_path == base or raw_path.startswith(base + "/"):
            return variant, raw_path[len(base) :] or "/"
    return None, raw_path


def match_route(tail: str) -> tuple[str | None, str | None]:
    """(route template, server id) of a path after the base; (None, None) when no route looks like it."""
    segments = tail.strip("/").split("/")
    if not segments or segments[0] != "servers":
        return None, None
    if len(segments) == 1:
        return "/servers", None
    server_id = urllib.parse.unquote(segments[1])
    if not server_id:
        return None, None
    if len(segments) == 2:
        return "/servers/{id}", server_id
    if len(segments) == 3 and segments[2]:
        return "/servers/{id}/" + segments[2], server_id
    return None, None


@dataclasses.dataclass(slots=True)
class Call:
    """What a request asks for, worked out once from its variant, method and path."""

    variant: str
    method: str
    tail: str  # the path after the variant's base
    template: str | None
    server_id: str | None
    operations: dict[str, str] | None  # what the route accepts; None: no such route
    operation: str | None  # what this method does there; None: the route does not accept it

    @property
    def endpoint(self) -> str:
        """How the request is counted, e.g. "live GET /servers/{id}"."""
        return f"{self.variant} {self.method} {self.template if self.operations else '(unknown)'}"

    @property
    def is_action(self) -> bool:
        return self.operation in ACTION_OPERATIONS


def parse_call(variant: str, method: str, tail: str) -> Call:
    template, server_id = match_route(tail)
    operations = ROUTES[variant].get(template) if template else None
    operation = operations.get(method) if operations else None
    return Call(variant, method, tail, template, server_id, operations, operation)


async def handle(request: web.Request) -> web.StreamResponse:
    state = request.app[STATE_KEY]
    variant, tail = split_variant(request.rel_url.raw_path)
    if variant is None:
        state.counters.count_request("(none)", f"(none) {request.method} (unknown)")
        return _counted(
            state,
            error_response(404, "not_found", f"Nothing here: the API lives under {BASES[LIVE]} and {BASES[PLANNED]}."),
        )
    call = parse_call(variant, request.method, tail)
    token, label = identify(state.tokens_by_value, request.headers.get("Authorization"))
    state.counters.count_request(label, call.endpoint)
    if call.is_action:
        state.counters.count_post(call.server_id)
    if state.faults:
        answer = await _inject(request, state, call, "before")
        if answer is not None:
            return answer
    try:
        response = await _answer(request, state, call, token, label)
    except ApiError as error:
        response = error.response()
    except ConnectionResetError:
        # The client went away before its body was read (its timeout ran out during an injected
        # delay): nothing was queued and nobody is left to answer, which is no error of the panel.
        return web.Response(status=499)
    if state.settings.rate_limit_headers:
        _announce_limit(state, token, response)
    if state.faults and call.is_action and response.status == 202:
        # Only an action that really was queued meets an "after" fault.
        answer = await _inject(request, state, call, "after")
        if answer is not None:
            return answer
    return _counted(state, response)


async def _answer(request: web.Request, state: PanelState, call: Call, token: Token | None, label: str) -> web.Response:
    """The checks in the documented order, then the operation; a refusal is raised as ApiError."""
    account = require_api_access(token, label, state.accounts)
    _check_rate_limit(state, token.name, account)
    if call.operations is None:
        raise ApiError(404, "not_found", f"The {call.variant} API has no {call.method} {call.tail}.")
    server = _find_server(state, account, call.server_id)
    if call.operation is None:
        raise ApiError(
            405,
            "method_not_allowed",
            f"{call.template} does not accept {call.method}.",
            {"Allow": ", ".join(call.operations)},
        )
    if call.is_action:
        require_control(token, account)
        action = "restart" if call.operation == "restart" else await _action_from_body(request)
        queued = state.queue_action(server, action, f"{call.variant} POST {call.template}")
        return json_response(bodies.queued_body(queued), status=202)
    return READERS[call.operation](request, state, call.variant, server, account)


def _counted(state: PanelState, response: web.Response) -> web.Response:
    state.counters.count_response(response.status)
    return response


async def _inject(request: web.Request, state: PanelState, call: Call, phase: str) -> web.StreamResponse | None:
    delay, fault = state.faults.fire(call.variant, call.method, call.tail, phase, state.rng)
    if delay:
        await asyncio.sleep(delay)
    if fault is None:
        return None
    return _fault_answer(request, state, fault, phase)


def _fault_answer(request: web.Request, state: PanelState, fault: Fault, phase: str) -> web.StreamResponse:
    if fault.kind == "drop":
        # Close the socket with no answer at all, as a crashed proxy would; what aiohttp then
        # tries to write goes nowhere.
        if request.transport is not None:
            request.transport.close()
        return web.Response(status=500)
    if fault.kind == "proxy":
        # A proxy in front of the panel answers with its own page (the panel's answer, if any, is lost).
        response = web.Response(
            status=fault.status, text=fault.body or PROXY_PAGE, content_type="text/html", headers={"Server": "envoy"}
        )
    elif fault.body is not None:
        response = web.Response(status=fault.status, text=fault.body, content_type="text/plain")
    elif phase == "after":
        # The panel queued the action and said 202: the failure is a gateway's, with no JSON of the panel's.
        response = web.Response(status=fault.status)
    else:
        response = error_response(
            fault.status, "injected_fault", f"Injected fault {fault.fault_id}: the panel answered {fault.status}."
        )
    if fault.retry_after is not None:
        response.headers["Retry-After"] = fault.retry_after
    return _counted(state, response)


def _announce_limit(state: PanelState, token: Token | None, response: web.Response) -> None:
    """The token's limit a minute in the answer (settings rate_limit_headers), for a token of a plan that has one."""
    account = state.accounts.get(token.account) if token is not None else None
    limit = state.settings.rate_limits.get(account.plan) if account is not None else None
    if limit is not None:
        response.headers["X-RateLimit-Limit"] = str(limit)


def _check_rate_limit(state: PanelState, token_name: str, account: Account) -> None:
    limit = state.settings.rate_limits[account.plan]
    clock = state.clock
    wait = state.limiter.admit(token_name, limit, clock.wall(clock.now()), state.settings.rate_limit_window)
    if wait is None:
        return
    retry_after = MinuteLimiter.retry_after_header(wait)
    headers = {"Retry-After": retry_after} if state.settings.retry_after else {}
    raise ApiError(
        429,
        "rate_limited",
        f"Token '{token_name}' exceeded its rate limit of {limit} requests per minute; try again in {retry_after} s.",
        headers,
    )


def _find_server(state: PanelState, account: Account, server_id: str | None) -> Server | None:
    if server_id is None:
        return None
    server = state.find_server(account.name, server_id)
    if server is None:
        raise ApiError(404, "server_not_found", f"No server with id '{server_id}' on this account.")
    state.settle(server)
    return server


async def _action_from_body(request: web.Request) -> str:
    if request.content_type != JSON_TYPE:
        raise ApiError(
            415,
            "unsupported_media_type",
            f"The control request needs 'Content-Type: application/json', not '{request.content_type}'.",
        )
    raw = await request.read()
    try:
        body = json.loads(raw)
    except ValueError as exc:
        raise ApiError(400, "invalid_json", f"The request body is not valid JSON: {exc}.") from exc
    if not isinstance(body, dict):
        raise ApiError(400, "invalid_body", 'The request body must be a JSON object such as {"action": "restart"}.')
    if "action" not in body:
        raise ApiError(422, "missing_action", f"The request body needs 'action', one of {', '.join(ACTIONS)}.")
    action = body["action"]
    if action not in ACTIONS:
        raise ApiError(
            422, "invalid_action", f"'action' must be one of {', '.join(ACTIONS)}, not {json.dumps(action)}."
        )
    return action


# ---------------------------------------------------------------------- read operations


def _page_request(request: web.Request, default_size: int) -> tuple[int, int]:
    try:
        page = int(request.query.get("page", "1"))
        per_page = int(request.query.get("per_page", str(default_size)))
    except ValueError as exc:
        raise ApiError(400, "invalid_query", "page and per_page must be whole numbers.") from exc
    if page < 1 or not 1 <= per_page <= MAX_PER_PAGE:
        raise ApiError(400, "invalid_query", f"page must be >= 1 and per_page between 1 and {MAX_PER_PAGE}.")
    return page, per_page


def _next_url(request: web.Request, variant: str, page: int, per_page: int, default_size: int) -> str:
    query = f"page={page + 1}" if per_page == default_size else f"page={page + 1}&per_page={per_page}"
    return f"{request.scheme}://{request.host}{BASES[variant]}/servers?{query}"


def _servers_json(state: PanelState, servers: list[Server]) -> str:
    now = state.clock.now()
    churn = state.settings.player_churn
    encode = bodies.server_json
    parts = []
    for server in servers:
        if server.phases or server.pending:  # idle servers have nothing to settle: skip the call
            state.settle(server)
        parts.append(encode(server, now, churn))
    return bodies.servers_json(parts)


def read_list(
    request: web.Request, state: PanelState, variant: str, server: Server | None, account: Account
) -> web.Response:
    del server
    servers = state.account_servers[account.name]
    style = state.settings.live_list_style if variant == LIVE else "planned"
    if style in ("array", "envelope"):
        items = _servers_json(state, servers)
        return raw_json_response(items if style == "array" else f'{{"servers": {items}}}')
    default_size = state.settings.page_size
    page, per_page = _page_request(request, default_size)
    start = (page - 1) * per_page
    items = _servers_json(state, servers[start : start + per_page])
    next_url = _next_url(request, variant, page, per_page, default_size) if start + per_page < len(servers) else None
    if style == "link_header":
        return raw_json_response(items, headers={"Link": f'<{next_url}>; rel="next"'} if next_url else None)
    key = "servers" if style == "paged_body" else "data"
    return raw_json_response(f'{{"{key}": {items}, "next": {json.dumps(next_url)}}}')


def read_server(
    request: web.Request, state: PanelState, variant: str, server: Server, account: Account
) -> web.Response:
    del request, variant, account
    return raw_json_response(bodies.server_json(server, state.clock.now(), state.settings.player_churn))


def read_players(
    request: web.Request, state: PanelState, variant: str, server: Server, account: Account
) -> web.Response:
    del request, variant, account
    return json_response(bodies.players_body(server, state.clock.now(), state.settings.player_churn, state.clock))


def read_metrics(
    request: web.Request, state: PanelState, variant: str, server: Server, account: Account
) -> web.Response:
    del request, variant, account
    return json_response(bodies.metrics_body(server, state.clock.now(), state.settings.player_churn, state.clock))


def read_console(
    request: web.Request, state: PanelState, variant: str, server: Server, account: Account
) -> web.Response:
    del request, variant, account
    return json_response(bodies.console_body(server, state.clock.now(), state.clock))


def read_resources(
    request: web.Request, state: PanelState, variant: str, server: Server, account: Account
) -> web.Response:
    del request, variant, account
    return json_response(bodies.resources_body(server, state.clock.now(), state.settings.player_churn))


READERS: dict[str, t.Callable[..., web.Response]] = {
    "list": read_list,
    "server": read_server,
    "players": read_players,
    "metrics": read_metrics,
    "console": read_console,
    "resources": read_resources,
}
