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
* **History we recorded, not a spent minute.**  The budget starts from the stamps
  this controller recorded in its state file: with no request counted in the last
  minute, up to ``rate_limit`` requests may go at once (a burst), then ``rate_limit``
  a minute as their stamps age out.  At most ``rate_limit`` stamps ever fall in any
  COUNTED_SECONDS, which is safe whether the panel's minute slides or is a fixed
  (calendar) minute: a calendar minute is one of those windows, so the panel never
  sees more than ``rate_limit`` of ours in it (a fixed minute would even allow
  ``rate_limit`` at the end of one minute and again at the start of the next; the
  budget does not count on that, since a sliding minute would refuse it).
* **Evidence of other spenders.**  Another controller, another tool, or a process
  with another state directory may spend the same token.  The budget learns of it
  only from the panel: a 429 (above: everyone pauses for ``Retry-After``, or until
  our oldest stamp has left the window, then goes at the plan's pace), and
  rate-limit headers on any answer: when the panel says fewer requests remain
  than we think, the difference is recorded as foreign slots that age out when
  the panel's window resets.  Headers are optional: ``X-RateLimit-Remaining`` /
  ``X-RateLimit-Reset``, ``RateLimit-Remaining`` / ``RateLimit-Reset`` and the
  combined ``RateLimit: remaining=..., reset=...`` are read; a panel sending none
  is paced by the count alone, and the 429 itself is retried by _api/retry.py (always
  safe: the panel did nothing).  To leave part of the minute to other tools on the
  same token, set ``rate_limit`` to the share this collection may use.

State: the ``budget`` file of the token's StateFiles (_state/files.py), a JSON object with
``stamps`` (sorted, at most ``rate_limit`` of the counted window) and ``blocked_until``
(a ``probe_until`` left by an older version is ignored).  When state cannot be shared
the same rules run per process.
"""

from __future__ import annotations

import re

from ansible_collections.gamepanel.panel.plugins.module_utils._api.retry import SystemClock, parse_retry_after
from ansible_collections.gamepanel.panel.plugins.module_utils._state.files import StateFiles

WINDOW_SECONDS = 60.0
# Seconds a slot counts beyond the panel's minute: a request reaches the panel after we
# stamp it, and the panel's clock ticks in its own steps.
WIRE_MARGIN_SECONDS = 1.0
COUNTED_SECONDS = WINDOW_SECONDS + WIRE_MARGIN_SECONDS
# How far ahead of now a stamp may lie.  After a 429 the slots the panel frees one by one
# are stamped ahead (they free after the pause); stamps further ahead than this can only
# come from a clock set back, and are dropped so they block nothing for long.
_FUTURE_SECONDS = 2 * COUNTED_SECONDS
# A wait never shorter than this: avoids a busy loop on clock granularity.
_MIN_WAIT = 0.01
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
            # wall time: the slots are shared with every process of the token (a stepped clock: see _take_slot)
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
        now = self.clock.time()  # wall time: the panel's Reset may be an epoch time, and the budget is shared
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
        if len(stamps) >= self.rate_limit:
            return max(_MIN_WAIT, stamps[-self.rate_limit] + COUNTED_SECONDS - now)
        budget.pop("probe_until", None)  # written by older versions: nothing waits for a probe now
        stamps.append(now)
        return None

    def _learn(self, budget, now, status, remaining, reset, retry_after):
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
    """The stamps still counted at ``now``, sorted.  Stamps further in the future than a
    429's pacing puts them can only come from a clock set back: dropping them avoids
    waiting for an hour."""
    if not isinstance(stamps, list):
        return []
    return sorted(
        stamp
        for stamp in stamps
        if isinstance(stamp, (int, float)) and now - COUNTED_SECONDS < stamp <= now + _FUTURE_SECONDS
    )


_COMBINED_FIELD = re.compile(r"(remaining|reset)\s*=\s*([0-9.]+)", re.IGNORECASE)
_COMBINED_LIMIT = re.compile(r"(?:^|[,;\s])limit\s*=\s*([0-9.]+)", re.IGNORECASE)


def announced_limit(headers):
    """The requests a minute the panel says the token may make (its rate-limit headers), or None when it says nothing."""
    limit = _header_number(headers, ("X-RateLimit-Limit", "RateLimit-Limit"))
    if limit is None:
        found = _COMBINED_LIMIT.search(headers.get("RateLimit") or "")
        limit = _to_number(found.group(1)) if found else None
    return int(limit) if limit else None


def pace_words(rate_limit):
    """How the requests of a task are paced, in the words its result and the fleet jobs' summary use."""
    if not rate_limit or rate_limit <= 0:
        return "not paced (rate_limit 0)"
    return "paced at %d requests a minute (rate_limit)" % rate_limit


def limit_warning(announced, rate_limit):
    """What to tell a user whose rate_limit differs from the limit the panel announces for the token."""
    if announced > rate_limit:
        advice = "set rate_limit: %d to use all of it, or keep %d on purpose to leave the rest to other tools" % (
            announced,
            rate_limit,
        )
    else:
        advice = "set rate_limit: %d (or less), or the panel refuses the requests beyond it (429)" % announced
    return (
        "The panel's rate-limit headers allow this token %d requests a minute, but rate_limit is %d, so the "
        "requests are paced at %d: %s (the inventory file, GAMEPANEL_RATE_LIMIT or module_defaults)."
        % (announced, rate_limit, rate_limit, advice)
    )


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
