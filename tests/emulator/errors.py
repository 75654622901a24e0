# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Error answers of the emulated panel: ``{"error": {"code": ..., "message": ...}}``."""

from __future__ import annotations

import json

from aiohttp import web

JSON_TYPE = "application/json"


class ApiError(Exception):
    """Raised anywhere while handling a request; turned into one JSON error answer."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or {}

    def response(self) -> web.Response:
        return error_response(self.status, self.code, self.message, self.headers)


def error_response(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> web.Response:
    body = json.dumps({"error": {"code": code, "message": message}}).encode("utf-8")
    return web.Response(status=status, body=body, content_type=JSON_TYPE, headers=headers)


def json_response(payload: object, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(
        status=status, body=json.dumps(payload).encode("utf-8"), content_type=JSON_TYPE, headers=headers
    )


def raw_json_response(text: str, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    """For bodies already encoded (the server list is assembled from pre-encoded parts)."""
    return web.Response(status=status, body=text.encode("utf-8"), content_type=JSON_TYPE, headers=headers)
