# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The typed key under which the aiohttp application holds the panel state."""

from __future__ import annotations

from aiohttp import web

from .state import PanelState

STATE_KEY = web.AppKey("panel_state", PanelState)
