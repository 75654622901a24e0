# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A deliberately plain HTTP client for the suite (http.client): what a test sends is what goes on the wire."""

from __future__ import annotations

import dataclasses
import http.client
import json
import time
import typing as t
import urllib.parse

OWNER = "gp-test-owner-control"
OWNER_READ = "gp-test-owner-read"
ADMIN = "gp-test-admin-control"
MEMBER = "gp-test-member-control"
REVOKED = "gp-test-revoked"
PRO = "gp-test-pro-control"
STARTER = "gp-test-starter"
UNPAID = "gp-test-unpaid"
NO_TOKEN = object()  # send no Authorization header at all
# Transition times while the ``still`` fixture is in use: long enough that the real time a
# loaded machine spends between two requests never completes a transition behind a test's back.
STOP_TIME = 20.0
BOOT_TIME = 30.0


@dataclasses.dataclass
class Reply:
    status: int
    headers: http.client.HTTPMessage
    raw: bytes

    @property
    def json(self) -> t.Any:
        return json.loads(self.raw)

    @property
    def error_code(self) -> str:
        return self.json["error"]["code"]


class Api:
    """Requests against one base URL (live or planned) of a running emulator, over one keep-alive connection."""

    def __init__(self, base_url: str, token: t.Any = OWNER, timeout: float = 10.0) -> None:
        parsed = urllib.parse.urlsplit(base_url)
        self.base_path = parsed.path.rstrip("/")
        self.netloc = parsed.netloc
        self.token = token
        self.timeout = timeout
        self._connection: http.client.HTTPConnection | None = None

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def request(
        self,
        method: str,
        path: str,
        *,
        token: t.Any = None,
        body: t.Any = None,
        raw_body: bytes | None = None,
        content_type: str | None = "application/json",
        headers: dict[str, str] | None = None,
    ) -> Reply:
        """``path`` is relative to the base URL, or absolute (a ``next`` link)."""
        if path.startswith("http://"):
            parsed = urllib.parse.urlsplit(path)
            target = parsed.path + (f"?{parsed.query}" if parsed.query else "")
        else:
            target = self.base_path + path
        send_headers = dict(headers or {})
        token = self.token if token is None else token
        if token is not NO_TOKEN:
            send_headers["Authorization"] = f"Bearer {token}"
        data = raw_body
        if body is not None:
            data = json.dumps(body).encode("utf-8")
        if data is not None and content_type is not None:
            send_headers["Content-Type"] = content_type
        if self._connection is None:
            self._connection = http.client.HTTPConnection(self.netloc, timeout=self.timeout)
        try:
            self._connection.request(method, target, body=data, headers=send_headers)
            response = self._connection.getresponse()
            reply = Reply(response.status, response.headers, response.read())
        except (OSError, http.client.HTTPException):
            self.close()
            raise
        if response.will_close:
            self.close()
        return reply

    def get(self, path: str, **kwargs: t.Any) -> Reply:
        return self.request("GET", path, **kwargs)

    def control(self, server_id: str, action: t.Any, **kwargs: t.Any) -> Reply:
        return self.request("POST", f"/servers/{server_id}/control", body={"action": action}, **kwargs)

    def server(self, server_id: str, **kwargs: t.Any) -> dict[str, t.Any]:
        reply = self.get(f"/servers/{server_id}", **kwargs)
        assert reply.status == 200, reply.raw
        return reply.json


def wait_until(condition: t.Callable[[], t.Any], timeout: float = 10.0, interval: float = 0.02) -> t.Any:
    """Poll ``condition`` until it returns something truthy, or fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        time.sleep(interval)
