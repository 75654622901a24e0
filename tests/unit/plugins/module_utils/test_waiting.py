# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

import fcntl
import os

import pytest

from ansible_collections.gamepanel.panel.plugins.module_utils.waiting import (
    LIST_READ_WAIT_SECONDS,
    LONGEST_POLL_INTERVAL,
    SharedStatusReads,
    poll_ceiling,
    poll_until,
)


class RecordingClock:
    def __init__(self):
        self.now = 0.0
        self.sleeps = []

    def monotonic(self):
        return self.now

    def time(self):
        return self.now

    def sleep(self, seconds):
        self.sleeps.append(round(seconds, 6))
        self.now += seconds


def test_ceiling_fits_many_waiters_into_the_pro_budget():
    assert poll_ceiling(5, 120) == 25.0


def test_ceiling_with_a_larger_budget_keeps_the_poll_interval():
    assert poll_ceiling(5, 600) == 5.0


def test_ceiling_never_exceeds_the_longest_interval_unless_asked():
    assert poll_ceiling(1, 10) == LONGEST_POLL_INTERVAL
    assert poll_ceiling(45, 10) == 45.0


def test_intervals_grow_by_half_up_to_the_ceiling():
    clock = RecordingClock()
    outcome = poll_until(clock, lambda: "x", lambda value: False, timeout=100, poll_interval=4, ceiling=10)
    assert clock.sleeps[:5] == [4, 6, 9, 10, 10]
    assert outcome.done is False


def test_no_sleep_runs_past_the_deadline_and_a_last_read_happens_at_it():
    clock = RecordingClock()
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
    clock = RecordingClock()
    values = iter([1, 2, 3, 4])
    outcome = poll_until(clock, lambda: next(values), lambda value: value == 3, timeout=100, poll_interval=1, ceiling=1)
    assert (outcome.last, outcome.done, outcome.reads) == (3, True, 3)
    assert clock.now == 3


def test_first_read_comes_after_one_interval():
    clock = RecordingClock()
    read_times = []
    poll_until(clock, lambda: read_times.append(clock.now), lambda value: True, timeout=10, poll_interval=2, ceiling=2)
    assert read_times == [2]


def test_zero_timeout_reads_once_without_sleeping():
    clock = RecordingClock()
    outcome = poll_until(clock, lambda: "v", lambda value: False, timeout=0, poll_interval=5, ceiling=5)
    assert (outcome.reads, clock.sleeps) == (1, [])


def test_read_errors_propagate():
    clock = RecordingClock()

    def read():
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        poll_until(clock, read, lambda value: True, timeout=10, poll_interval=1, ceiling=1)


# -- shared status reads --------------------------------------------------------------------


class ListingClient:
    """A panel client stand-in that counts its GETs and list reads."""

    def __init__(self, clock, servers=None, pages=1):
        self.clock = clock
        self.servers = servers or {"a": {"id": "a", "status": "online"}, "b": {"id": "b", "status": "offline"}}
        self.pages = pages
        self.gets = []
        self.lists = 0
        self.stats = {"requests": 0, "retries": 0, "waited_seconds": 0.0}

    def get_server(self, server_id):
        self.stats["requests"] += 1
        self.gets.append(server_id)
        return dict(self.servers[server_id])

    def list_servers(self):
        self.stats["requests"] += self.pages
        self.lists += 1
        return [dict(server) for server in self.servers.values()]


def shared_reads(tmp_path, client, pid, panel="live http://panel/v1"):
    reads = SharedStatusReads(client, "k" * 64, str(tmp_path), panel)
    reads.pid = pid  # one process plays several waiters
    return reads


def other_waiters(tmp_path, clock, *pids):
    with open(tmp_path / ("k" * 64 + ".waiters"), "a", encoding="ascii") as handle:
        for pid in pids:
            handle.write("%s %.6f\n" % (pid, clock.time()))


def test_a_lone_waiter_reads_its_own_server(tmp_path):
    clock = RecordingClock()
    client = ListingClient(clock)
    server, view = shared_reads(tmp_path, client, "1").read("a", not_before=0.0)
    assert server["id"] == "a" and view == clock.time()
    assert (client.gets, client.lists) == (["a"], 0)


def test_many_waiters_share_one_list_read(tmp_path):
    clock = RecordingClock()
    client = ListingClient(clock)
    clock.now = 100.0
    other_waiters(tmp_path, clock, "2", "3")
    first = shared_reads(tmp_path, client, "1")
    server, view = first.read("a", not_before=99.0)
    assert server == {"id": "a", "status": "online"} and view == 100.0
    assert (client.gets, client.lists) == ([], 1)
    clock.now = 101.0
    second = shared_reads(tmp_path, client, "2")
    server, view = second.read("b", not_before=99.5)
    assert server["status"] == "offline" and view == 100.0
    assert client.lists == 1  # answered from the snapshot: no request at all


def test_a_snapshot_that_started_before_the_post_is_never_used(tmp_path):
    clock = RecordingClock()
    client = ListingClient(clock)
    clock.now = 100.0
    other_waiters(tmp_path, clock, "2", "3")
    shared_reads(tmp_path, client, "1").read("a", not_before=99.0)
    client.servers["a"]["status"] = "restarting"
    clock.now = 102.0
    server, view = shared_reads(tmp_path, client, "2").read("a", not_before=100.5)  # its POST was answered at 100.5
    assert server["status"] == "restarting" and view == 102.0
    assert client.lists == 2


def test_a_list_read_costing_more_than_it_saves_is_not_repeated(tmp_path):
    clock = RecordingClock()
    client = ListingClient(clock, pages=5)
    other_waiters(tmp_path, clock, "2", "3")
    reads = shared_reads(tmp_path, client, "1")
    reads.read("a", not_before=0.0)
    assert client.lists == 1  # the first list read measures the cost: 5 pages for 3 waiters
    clock.now += 1
    reads.read("a", not_before=clock.now)
    assert (client.lists, client.gets) == (1, ["a"])


def test_quiet_waiters_stop_counting(tmp_path):
    clock = RecordingClock()
    client = ListingClient(clock)
    other_waiters(tmp_path, clock, "2", "3")
    clock.now += 61
    shared_reads(tmp_path, client, "1").read("a", not_before=0.0)
    assert (client.lists, client.gets) == (0, ["a"])


def test_closed_waiters_stop_counting(tmp_path):
    clock = RecordingClock()
    client = ListingClient(clock)
    other_waiters(tmp_path, clock, "2")
    second = shared_reads(tmp_path, client, "3")
    second.read("a", not_before=0.0)  # registers: 2 waiters, too few
    second.close()
    shared_reads(tmp_path, client, "1").read("a", not_before=0.0)
    assert client.lists == 0


def test_a_snapshot_of_another_panel_is_ignored(tmp_path):
    clock = RecordingClock()
    client = ListingClient(clock)
    other_waiters(tmp_path, clock, "2", "3")
    shared_reads(tmp_path, client, "1", panel="planned http://other/v1").read("a", not_before=0.0)
    shared_reads(tmp_path, client, "2").read("a", not_before=0.0)
    assert client.lists == 2


def test_a_list_read_in_progress_elsewhere_is_waited_for_then_skipped(tmp_path):
    clock = RecordingClock()
    client = ListingClient(clock)
    other_waiters(tmp_path, clock, "2", "3")
    reads = shared_reads(tmp_path, client, "1")
    holder = os.open(str(tmp_path / ("k" * 64 + ".snapshot.lock")), os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(holder, fcntl.LOCK_EX)  # another process is reading the list and never finishes
        server, _view = reads.read("a", not_before=0.0)
    finally:
        os.close(holder)
    assert server["id"] == "a" and client.gets == ["a"] and client.lists == 0
    assert sum(clock.sleeps) == pytest.approx(LIST_READ_WAIT_SECONDS, abs=0.1)


def test_unusable_state_directory_falls_back_to_gets(tmp_path):
    clock = RecordingClock()
    client = ListingClient(clock)
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    reads = SharedStatusReads(client, "k" * 64, str(blocker / "sub"), "live x")
    assert reads.read("a", not_before=0.0)[0]["id"] == "a"
    assert client.gets == ["a"] and reads.enabled is False
    reads.close()
