# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Per-token request limit per minute (specification section 8), counted over a sliding or a fixed minute.

The specification says "per token, per minute" and leaves open which minute.  The emulator
counts either (setting ``rate_limit_window``):

* ``sliding`` (the default): the last 60 seconds before each request.
* ``fixed``: the calendar minute of the emulated wall clock (xx:xx:00 to xx:xx:59), which
  allows a whole minute's requests at the end of one minute and again at the start of the
  next; a 429's Retry-After then counts the seconds to the next minute.
"""

from __future__ import annotations

import collections
import math

WINDOW_SECONDS = 60.0
WINDOW_KINDS = ("sliding", "fixed")


class MinuteLimiter:
    """Counts the requests each token made in the last minute (or this calendar minute) of the emulated clock.

    Only admitted requests are counted: a client that backs off after a 429 gets its budget back
    as the window slides (or the minute turns), however many 429s it collected meanwhile.
    ``now`` is the emulated wall clock (Unix time), so calendar minutes fall where a real
    panel's would.
    """

    def __init__(self) -> None:
        self._admitted: dict[str, collections.deque] = {}

    def admit(self, key: str, limit: int, now: float, window: str = "sliding") -> float | None:
        """Record a request and return None, or return how many seconds until one is allowed."""
        stamps = self._admitted.get(key)
        if stamps is None:
            stamps = self._admitted[key] = collections.deque()
        horizon = now - WINDOW_SECONDS
        while stamps and stamps[0] <= horizon:  # both kinds only ever look back a minute at most
            stamps.popleft()
        if window == "fixed":
            minute_start = math.floor(now / WINDOW_SECONDS) * WINDOW_SECONDS
            in_minute = sum(1 for stamp in stamps if stamp >= minute_start)
            if in_minute >= limit:
                return max(minute_start + WINDOW_SECONDS - now, 0.001)
        elif len(stamps) >= limit:
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
