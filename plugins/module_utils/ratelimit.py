# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: One request budget per API token, shared by every process on the controller.

How a panel counts, and how the budget follows it:

* **A sliding minute per token.**  Every attempt (retries included) takes a slot
  stamped with the time it was taken; a slot counts for COUNTED_SECONDS, the panel's
  minute plus a margin for the time a request spends on the wire (the panel stamps
  it when it arrives, a little after we did), so our stamp never ages out before
  the panel's does.
* **Rejected requests may or may not count.**  A request answered 429 keeps its slot
  (counting it is the safe assumption either way), and the 429 stops every process
  until the panel's ``Retry-After`` has passed; the window then counts as full, its
  slots freeing one by one at the plan's pace, so the waiting processes do not all
  rush out at once.
* **History we did not see.**  Another controller, or a process with another state
  directory, may have spent part of the minute.  So when the budget has seen no
  request in the last minute, the first request goes out alone (a probe): everyone
  else waits for its answer, whose rate-limit headers (when the panel sends any)
  tell how much of the minute is really left.  Any answer carrying them corrects
  the budget: when the panel says fewer requests remain than we think, the
  difference is recorded as foreign slots that age out when the panel's window resets.
  Headers are optional: ``X-RateLimit-Remaining`` / ``X-RateLimit-Reset``,
  ``RateLimit-Remaining`` / ``RateLimit-Reset`` and the combined
  ``RateLimit: remaining=..., reset=...`` are read; a panel sending none is paced
  by the count alone, and a 429 from a foreign spender is handled by retry.py.

State: the ``budget`` file of the token's StateFiles (state.py), a JSON object with
``stamps`` (sorted, at most ``rate_limit`` of the counted window), ``blocked_until``
and ``probe_until``.  When state cannot be shared the same rules run per process.
"""

from __future__ import annotations

import re

from ansible_collections.gamepanel.panel.plugins.module_utils.retry import SystemClock, parse_retry_after
from ansible_collections.gamepanel.panel.plugins.module_utils.state import StateFiles

WINDOW_SECONDS = 60.0
# Seconds a slot counts beyond the panel's minute: a request reaches the panel after we
# stamp it, and the panel's clock ticks in its own steps.
WIRE_MARGIN_SECONDS = 1.0
COUNTED_SECONDS = WINDOW_SECONDS + WIRE_MARGIN_SECONDS
# How long the others wait for the answer to a probe before spending anyway.
PROBE_SECONDS = 2.0
# A wait never shorter than this: avoids a busy loop on clock granularity.
_MIN_WAIT = 0.01
# A wait for a probe's answer is re-checked this often.
_PROBE_POLL = 0.02
# A Reset header above this is an epoch time stamp, below it a number of seconds.
_EPOCH_THRESHOLD = 1e9


class SharedBudget(object):
    """A sliding-window budget of ``rate_limit`` requests per minute for one token.

    ``key`` names the token's state (``PanelClient.state_key``; never the token).
    ``acquire()`` blocks (through ``clock.sleep``) until a slot is free, takes it and
    returns the seconds it waited; ``observe(status, headers)`` feeds back each answer.
    ``rate_limit`` of 0 or less disables pacing.  ``shared`` tells whether the budget is
    really shared across processes.
    """

    def __init__(self, key, rate_limit, directory=None, clock=None):
        self.rate_limit = int(rate_limit or 0)
        self.clock = clock or SystemClock()
        self.files = StateFiles(key, directory)
        self._local = {}

    @property
    def shared(self):
        return self.files.usable

    @property
    def path(self):
        return self.files.path("budget")

    def __repr__(self):
        return "<SharedBudget rate_limit=%d shared=%s>" % (self.rate_limit, self.shared)

    def acquire(self, max_wait=None):
        """Wait for a free slot, take it, and return the seconds waited.

        With ``max_wait`` (seconds), give up instead of waiting longer than that: no
        slot is taken and None is returned (a wait's own deadline must not be overrun
        by queueing for the budget).
        """
        if self.rate_limit <= 0:
            return 0.0
        waited = 0.0
        while True:
            wait = self._change(lambda budget: self._take_slot(budget, self.clock.time()))
            if wait is None:
                return waited
            if max_wait is not None and waited + wait > max_wait:
                return None
            self.clock.sleep(wait)
            waited += wait

    def observe(self, status, headers):
        """Correct the budget from one answer of the panel (its status and headers)."""
        if self.rate_limit <= 0:
            return
        now = self.clock.time()
        remaining, reset = rate_limit_headers(headers, now)
        retry_after = parse_retry_after(headers.get("Retry-After"), now) if status == 429 else None
        self._change(lambda budget: self._learn(budget, now, status, remaining, reset, retry_after))

    # -- the rules, applied to the budget document -------------------------------------

    def _take_slot(self, budget, now):
        """Take a slot at ``now`` (None), or return the seconds until one may be free."""
        stamps = _recent(budget.get("stamps"), now)
        budget["stamps"] = stamps
        blocked_until = _number(budget.get("blocked_until"))
        if now < blocked_until < now + 3600:  # later than an hour: a clock set back, ignore it
            return max(_MIN_WAIT, blocked_until - now)
        probe_until = _number(budget.get("probe_until"))
        if now < probe_until < now + PROBE_SECONDS + 1.0:
            return _PROBE_POLL  # the probe's answer will tell how much of the minute is left
        if len(stamps) >= self.rate_limit:
            return max(_MIN_WAIT, stamps[-self.rate_limit] + COUNTED_SECONDS - now)
        if not stamps:
            budget["probe_until"] = now + PROBE_SECONDS
        stamps.append(now)
        return None

    def _learn(self, budget, now, status, remaining, reset, retry_after):
        budget.pop("probe_until", None)
        stamps = _recent(budget.get("stamps"), now)
        if status == 429:
            pause = retry_after if retry_after is not None else reset
            if pause is None:  # no hint at all: wait until our oldest request has left the window
                pause = (stamps[0] + COUNTED_SECONDS - now) if stamps else WINDOW_SECONDS
            pause = max(pause, _MIN_WAIT)
            budget["blocked_until"] = max(_number(budget.get("blocked_until")), now + pause)
            # The panel's window is full.  Only the first slot is known to free after the
            # pause: count the rest as freeing one by one at the plan's pace after it, so
            # the processes waiting do not all rush out at once into a second 429.
            spacing = WINDOW_SECONDS / self.rate_limit
            foreign = self.rate_limit - len(stamps)
            stamps.extend(now + pause + index * spacing - COUNTED_SECONDS for index in range(max(0, foreign)))
        elif remaining is not None:
            # The panel knows of fewer free requests than we do: someone else spent them.
            # Record the difference as foreign slots that age out when its window resets.
            foreign = (self.rate_limit - len(stamps)) - max(0, remaining)
            ages_out = now + (reset if reset is not None else WINDOW_SECONDS)
            stamps.extend([ages_out - COUNTED_SECONDS] * max(0, foreign))
        budget["stamps"] = sorted(stamps)[-self.rate_limit :]

    def _change(self, rule):
        """Apply ``rule`` to the shared document, or to this process's own when sharing is off."""
        if self.files.usable:
            try:
                return self.files.update("budget", rule)
            except OSError:
                self.files.usable = False  # the file went away or became unwritable: degrade
        return rule(self._local)


def _number(value):
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def _recent(stamps, now):
    """The stamps still counted at ``now``, sorted.  Stamps from the future can only come
    from a clock set back: dropping them avoids waiting for an hour."""
    if not isinstance(stamps, list):
        return []
    return sorted(
        stamp for stamp in stamps if isinstance(stamp, (int, float)) and now - COUNTED_SECONDS < stamp <= now + 1.0
    )


_COMBINED_FIELD = re.compile(r"(remaining|reset)\s*=\s*([0-9.]+)", re.IGNORECASE)


def rate_limit_headers(headers, now):
    """(remaining, seconds until reset) from whichever rate-limit headers an answer has; None when absent."""
    remaining = _header_number(headers, ("X-RateLimit-Remaining", "RateLimit-Remaining"))
    reset = _header_number(headers, ("X-RateLimit-Reset", "RateLimit-Reset"))
    combined = headers.get("RateLimit")
    if combined and (remaining is None or reset is None):
        fields = dict((name.lower(), value) for name, value in _COMBINED_FIELD.findall(combined))
        remaining = remaining if remaining is not None else _to_number(fields.get("remaining"))
        reset = reset if reset is not None else _to_number(fields.get("reset"))
    if reset is not None and reset > _EPOCH_THRESHOLD:
        reset = reset - now
    if remaining is not None:
        remaining = int(remaining)
    return remaining, (max(0.0, reset) if reset is not None else None)


def _header_number(headers, names):
    for name in names:
        value = _to_number(headers.get(name))
        if value is not None:
            return value
    return None


def _to_number(value):
    try:
        number = float(str(value).strip().split(",", maxsplit=1)[0])
    except (TypeError, ValueError):
        return None
    return number if number >= 0 else None
