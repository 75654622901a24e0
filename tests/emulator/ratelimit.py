# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Per-token request limit over a sliding 60-second window (specification section 8)."""

from __future__ import annotations

import collections
import math

WINDOW_SECONDS = 60.0


class SlidingWindowLimiter:
    """Counts the requests each token made in the last minute of the emulated clock.

    Only admitted requests are counted: a client that backs off after a 429 gets its budget back
    as the window slides, however many 429s it collected meanwhile.
    """

    def __init__(self) -> None:
        self._admitted: dict[str, collections.deque] = {}

    def admit(self, key: str, limit: int, now: float) -> float | None:
        """Record a request and return None, or return how many seconds until one is allowed."""
        stamps = self._admitted.get(key)
        if stamps is None:
            stamps = self._admitted[key] = collections.deque()
        horizon = now - WINDOW_SECONDS
        while stamps and stamps[0] <= horizon:
            stamps.popleft()
        if len(stamps) >= limit:
            # The request that must leave the window before one more fits (the limit may have
            # been lowered below what the window already holds; limits are at least 1).
            blocking = stamps[len(stamps) - limit]
            return max(blocking - horizon, 0.001)
        stamps.append(now)
        return None

    @staticmethod
    def retry_after_header(wait_seconds: float) -> str:
        # Whole seconds, rounded up, so a client that honours it is never early.
        return str(max(1, math.ceil(wait_seconds)))

    def reset(self) -> None:
        self._admitted.clear()
