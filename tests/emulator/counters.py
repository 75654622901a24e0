# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What tests assert on: requests seen, answers sent, actions queued and applied."""

from __future__ import annotations

import typing as t

MISSING_TOKEN = "(missing)"
UNKNOWN_TOKEN = "(unknown)"


class Counters:
    """The exact document returned by ``control.counters()`` (see docs/development.md)."""

    def __init__(self) -> None:
        self.requests_total = 0
        self.requests: dict[str, dict[str, int]] = {}
        self.responses: dict[str, int] = {}
        self.rate_limited = 0
        self.posts: dict[str, int] = {}
        self.actions_queued: dict[str, int] = {}
        self.actions_applied: dict[str, int] = {}
        self.restarts: dict[str, int] = {}

    def count_request(self, token_label: str, endpoint: str) -> None:
        self.requests_total += 1
        per_token = self.requests.get(token_label)
        if per_token is None:
            per_token = self.requests[token_label] = {}
        per_token[endpoint] = per_token.get(endpoint, 0) + 1

    def count_response(self, status: int) -> None:
        key = str(status)
        self.responses[key] = self.responses.get(key, 0) + 1
        if status == 429:
            self.rate_limited += 1

    def count_post(self, server_id: str) -> None:
        self.posts[server_id] = self.posts.get(server_id, 0) + 1

    def count_queued(self, server_id: str) -> None:
        self.actions_queued[server_id] = self.actions_queued.get(server_id, 0) + 1

    def count_applied(self, server_id: str) -> None:
        self.actions_applied[server_id] = self.actions_applied.get(server_id, 0) + 1

    def count_restart(self, server_id: str) -> None:
        self.restarts[server_id] = self.restarts.get(server_id, 0) + 1

    def snapshot(self) -> dict[str, t.Any]:
        return {
            "requests_total": self.requests_total,
            "requests": {name: dict(per_endpoint) for name, per_endpoint in self.requests.items()},
            "responses": dict(self.responses),
            "rate_limited": self.rate_limited,
            "posts": dict(self.posts),
            "actions_queued": dict(self.actions_queued),
            "actions_applied": dict(self.actions_applied),
            "restarts": dict(self.restarts),
        }
