# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


import pytest

from ansible_collections.gamepanel.panel.plugins.module_utils.engine.polling import (
    LONGEST_POLL_INTERVAL,
    poll_ceiling,
    poll_until,
)

from panel_fakes import FakeClock


def clock_from_zero():
    """The shared fake clock from 0 s, wall time equal to monotonic time."""
    return FakeClock(start=0.0, wall_offset=0.0)


def test_ceiling_fits_many_waiters_into_the_pro_budget():
    assert poll_ceiling(5, 120) == 25.0


def test_ceiling_with_a_larger_budget_keeps_the_poll_interval():
    assert poll_ceiling(5, 600) == 5.0


def test_ceiling_never_exceeds_the_longest_interval_unless_asked():
    assert poll_ceiling(1, 10) == LONGEST_POLL_INTERVAL
    assert poll_ceiling(45, 10) == 45.0


def test_intervals_grow_by_half_up_to_the_ceiling():
    clock = clock_from_zero()
    outcome = poll_until(clock, lambda: "x", lambda value: False, timeout=100, poll_interval=4, ceiling=10)
    assert clock.sleeps[:5] == [4, 6, 9, 10, 10]
    assert outcome.done is False


def test_no_sleep_runs_past_the_deadline_and_a_last_read_happens_at_it():
    clock = clock_from_zero()
    read_times = []

    def read():
        read_times.append(clock.now)
        return clock.now

    outcome = poll_until(clock, read, lambda value: False, timeout=12, poll_interval=5, ceiling=30)
    assert clock.sleeps == [5, 7]  # 5 + 7.5 would pass 12: the second sleep is cut short
    assert read_times[-1] == 12
    assert clock.now == 12
    assert outcome.reads == len(read_times)


def test_stops_at_the_first_read_that_is_done():
    clock = clock_from_zero()
    values = iter([1, 2, 3, 4])
    outcome = poll_until(clock, lambda: next(values), lambda value: value == 3, timeout=100, poll_interval=1, ceiling=1)
    assert (outcome.last, outcome.done, outcome.reads) == (3, True, 3)
    assert clock.now == 3


def test_first_read_comes_after_one_interval():
    clock = clock_from_zero()
    read_times = []
    poll_until(clock, lambda: read_times.append(clock.now), lambda value: True, timeout=10, poll_interval=2, ceiling=2)
    assert read_times == [2]


def test_zero_timeout_reads_once_without_sleeping():
    clock = clock_from_zero()
    outcome = poll_until(clock, lambda: "v", lambda value: False, timeout=0, poll_interval=5, ceiling=5)
    assert (outcome.reads, clock.sleeps) == (1, [])


def test_read_errors_propagate():
    clock = clock_from_zero()

    def read():
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        poll_until(clock, read, lambda value: True, timeout=10, poll_interval=1, ceiling=1)
