# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""_rules/open_entries.py: what the ledger's entries mean for a decision, given as plain data (no ledger, no I/O)."""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.module_utils._rules import open_entries
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.convergence import TimedRead
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.entry_states import (
    DONE,
    MAY_BE_QUEUED,
    QUEUED,
    SENDING,
)

from panel_fakes import server

STOPPED = ("offline", "stopped")


def entry(action, state, queued_at=100.0, **before):
    return {"id": "mc-01", "action": action, "state": state, "queued_at": queued_at, "before": before}


def test_a_read_older_than_an_entry_proves_nothing():
    start = entry("start", QUEUED, status="offline")
    assert open_entries.proves(start, TimedRead(server(), 101.0), ("offline",)) is True
    assert open_entries.proves(start, TimedRead(server(), 99.0), ("offline",)) is False


def test_a_restart_is_proven_by_an_uptime_that_went_back_against_the_read_it_rested_on():
    restart = entry("restart", QUEUED, status="online", uptime_seconds=5000, read_at=99.0)
    assert open_entries.proves(restart, TimedRead(server(uptime=5010), 110.0), STOPPED) is False
    assert open_entries.proves(restart, TimedRead(server(uptime=4), 110.0), STOPPED) is True


def test_proven_and_open_after_split_the_open_entries_by_what_one_read_shows():
    start = entry("start", QUEUED, status="offline")
    stop = entry("stop", MAY_BE_QUEUED, status="online")
    done = entry("restart", DONE)
    read = TimedRead(server(status="online", uptime=3), 120.0)
    assert open_entries.proven([start, stop, done], read, STOPPED) == [start]
    assert open_entries.open_after([start, stop, done], read, STOPPED) == [stop]
    assert start["state"] == QUEUED  # pure: nothing is marked


def test_only_an_open_entry_of_the_same_action_holds_the_action_back():
    entries = [entry("restart", DONE), entry("stop", SENDING), entry("restart", MAY_BE_QUEUED, queued_at=150.0)]
    assert open_entries.same_action(entries, "restart") is entries[2]
    assert open_entries.same_action(entries, "start") is None
    assert open_entries.other_actions(entries, "restart") == [entries[1]]
    assert open_entries.latest(entries, "restart") is entries[2]


def test_a_queued_or_done_restart_within_min_uptime_is_the_restart():
    entries = [entry("restart", DONE, queued_at=1000.0)]
    assert open_entries.recent_restart(entries, 1500.0, 600) is entries[0]
    assert open_entries.recent_restart(entries, 1700.0, 600) is None
    assert open_entries.recent_restart(entries, 1500.0, None) is None
    assert open_entries.recent_restart([entry("restart", SENDING, queued_at=1000.0)], 1500.0, 600) is None


def test_a_restart_queued_in_the_future_counts_only_while_it_is_less_than_min_uptime_ahead():
    # queued_at is a wall time: a clock set back since (or another machine's clock ahead) puts it in the future
    entries = [entry("restart", DONE, queued_at=2000.0)]
    assert open_entries.recent_restart(entries, 1500.0, 600) is entries[0]  # 500 s ahead: a small skew, counted
    # far ahead: not a restart just made for days to come; the server's own uptime decides instead
    assert open_entries.recent_restart(entries, 1000.0, 600) is None
    assert open_entries.recent_restart(entries, 2000.0 - 86400, 600) is None


def test_an_entry_read_time_in_the_future_counts_no_elapsed_time_for_the_uptime_reset():
    # the entry's read (another process's wall clock, ahead) must not make a later read's
    # uptime look short: the time between them is taken as 0, never negative
    restart = entry("restart", QUEUED, queued_at=100.0, status="online", uptime_seconds=500, read_at=5000.0)
    assert open_entries.proves(restart, TimedRead(server(uptime=520), 110.0), STOPPED) is False
    assert open_entries.proves(restart, TimedRead(server(uptime=3), 110.0), STOPPED) is True


def test_an_entry_keeps_only_status_uptime_and_the_read_times_of_the_read_it_rested_on():
    kept = open_entries.before_of(TimedRead(server(players=7), 10.0, 10.5))
    assert kept == {"status": "online", "uptime_seconds": 86400, "read_started": 10.0, "read_at": 10.5}
