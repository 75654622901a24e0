# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The aiohttp application: controls (optional) first, then everything else to the panel API."""

from __future__ import annotations

from aiohttp import web

from . import panel_api
from .appkey import STATE_KEY
from .controls import add_control_routes
from .state import PanelState


def build_app(state: PanelState, controls: bool = True) -> web.Application:
    app = web.Application()
    app[STATE_KEY] = state
    if controls:
        add_control_routes(app)
    # One catch-all route: the panel API does its own routing so that authentication comes
    # before "no such route" (a 404 must not tell an anonymous caller which paths exist).
    app.router.add_route("*", "/{tail:.*}", panel_api.handle)
    return app
