# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The emulator's clock: real monotonic time plus an offset that tests can advance."""

from __future__ import annotations

import datetime
import time


class EmulatedClock:
    """Every timed behaviour (check-ins, transitions, uptime, rate-limit windows) reads this clock.

    ``advance(seconds)`` moves it forward without sleeping, so tests can be deterministic:
    the lazily evaluated agents then see the check-ins and transitions that fell due.
    It never moves backwards, not even on reset, so timestamps already handed out stay ordered.
    """

    def __init__(self) -> None:
        self.offset = 0.0
        # Fixed once so that wall-clock timestamps move exactly with the emulated clock.
        self._wall_minus_monotonic = time.time() - time.monotonic()

    def now(self) -> float:
        return time.monotonic() + self.offset

    def advance(self, seconds: float) -> float:
        if seconds < 0:
            raise ValueError("the clock only moves forward")
        self.offset += seconds
        return self.now()

    def wall(self, instant: float) -> float:
        """Unix time of an emulated instant."""
        return instant + self._wall_minus_monotonic

    def iso(self, instant: float) -> str:
        stamp = datetime.datetime.fromtimestamp(self.wall(instant), tz=datetime.timezone.utc)
        return stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z")
