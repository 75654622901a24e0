# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: how a one-server task paces its reads while it waits (``poll_until``, ``poll_ceiling``).

A queued action runs only when the server's agent next checks in, which may take tens of seconds,
and every read costs a request from the one budget the token shares with every other fork: so the
reads slow down geometrically, up to a ceiling derived from the rate limit (BACKOFF_FACTOR spaces the
follow-up passes of a task with ``ids`` too).
"""

from __future__ import annotations

import collections

from ansible_collections.gamepanel.panel.plugins.module_utils.rules.convergence import UNDECIDED_RECHECK_SECONDS

BACKOFF_FACTOR = 1.5

# The slowest a waiter ever polls (seconds) unless the user asked for slower:
# agents check in every ~30-60 s, so a longer gap only delays noticing the outcome.
LONGEST_POLL_INTERVAL = 30.0

# How many waiters polling at the ceiling together should fit into one token's
# per-minute budget (a fleet restart with many forks all waiting at once).
WAITERS_PER_BUDGET = 50


def poll_ceiling(poll_interval, rate_limit):
    """The slowest interval the backoff grows to, in seconds.

    At the ceiling, WAITERS_PER_BUDGET waiters together stay within ``rate_limit``
    requests per minute (25 s on the Pro plan's 120, 5 s on Team's 600), but the
    ceiling is never above LONGEST_POLL_INTERVAL nor below ``poll_interval``.
    """
    budget_interval = 60.0 * WAITERS_PER_BUDGET / max(float(rate_limit or 1), 1.0)
    return max(float(poll_interval), min(LONGEST_POLL_INTERVAL, budget_interval))


# What a poll ended with: the last value read, whether ``done`` held, how many reads.
PollOutcome = collections.namedtuple("PollOutcome", "last done reads")


def poll_until(clock, read, done, timeout, poll_interval, ceiling, undecided=None):
    """Call ``read()`` until ``done(value)`` is true or ``timeout`` seconds have passed.

    The first read comes after one ``poll_interval``: whatever is being waited for
    cannot have happened at the instant it was asked for.  Intervals then grow by
    BACKOFF_FACTOR up to ``ceiling``.  Sleeps are cut short at the deadline, and one
    last read is made at the deadline itself, so a wait never ends on a read older
    than its full timeout.  A value ``undecided(value)`` calls inconclusive does not
    end the wait at the deadline: one more read follows, UNDECIDED_RECHECK_SECONDS later.
    Errors raised by ``read`` propagate.
    """
    deadline = clock.monotonic() + max(float(timeout), 0.0)
    interval = max(float(poll_interval), 0.0)
    reads = 0
    while True:
        remaining = deadline - clock.monotonic()
        if remaining > 0:
            clock.sleep(min(interval, remaining))
        elif reads:
            clock.sleep(UNDECIDED_RECHECK_SECONDS)  # past the deadline only after an undecided read
        value = read()
        reads += 1
        if done(value):
            return PollOutcome(value, True, reads)
        if clock.monotonic() >= deadline and not (undecided is not None and undecided(value)):
            return PollOutcome(value, False, reads)
        interval = min(interval * BACKOFF_FACTOR, max(float(ceiling), interval))
