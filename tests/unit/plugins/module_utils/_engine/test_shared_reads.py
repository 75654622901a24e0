# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ansible_collections.gamepanel.panel.plugins.module_utils._state.files import StateFiles
from ansible_collections.gamepanel.panel.plugins.module_utils._engine import shared_reads as shared_reads_module
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.shared_reads import (
    SharedStatusReads,
    gather_seconds,
)

from panel_fakes import FakeClock


def clock_from_zero():
    """The shared fake clock from 0 s, wall time equal to monotonic time."""
    return FakeClock(start=0.0, wall_offset=0.0)


# -- shared status reads --------------------------------------------------------------------
#
# Several "processes" are played by several SharedStatusReads over one state directory,
# each with its own member name; the clock only moves when someone sleeps on it.

PANEL = "live http://panel/v1"
KEY = "k" * 64


class ListingClient:
    """A panel client stand-in that counts its GETs and list reads."""

    def __init__(self, clock, servers=None, pages=1):
        self.clock = clock
        self.servers = servers or {
            "a": {"id": "a", "status": "online"},
            "b": {"id": "b", "status": "offline"},
            "c": {"id": "c", "status": "online"},
        }
        self.pages = pages
        self.gets = []
        self.lists = []
        self.stats = {"requests": 0, "retries": 0, "waited_seconds": 0.0}
        self.limit_at = None  # the deadline of the wait a read serves (PanelClient.deadline()), None outside one

    def deadline_left(self):
        return None if self.limit_at is None else max(0.0, self.limit_at - self.clock.monotonic())

    def get_server(self, server_id):
        self.stats["requests"] += 1
        self.gets.append(server_id)
        self.clock.now += 0.01
        return dict(self.servers[server_id])

    def list_servers(self):
        self.stats["requests"] += self.pages
        self.lists.append(self.clock.now)
        self.clock.now += 0.01 * self.pages
        return [dict(server) for server in self.servers.values()]


def shared_reads(tmp_path, client, member, panel=PANEL, gather=1.0, batch_hosts=0):
    reads = SharedStatusReads(
        client, StateFiles(KEY, str(tmp_path)), panel, gather=gather, member=member, batch_hosts=batch_hosts
    )
    reads.join()
    return reads


def due_at(task, when, read_at):
    """Play another process that joined the list read of ``read_at`` at ``when``."""

    def change(readers):
        readers.setdefault("tasks", {})[task.member] = {"seen": when, "due": read_at}
        readers["next_read"] = read_at

    task.files.update("readers", change)


def three_forks(tmp_path, now, others_due):
    """Three tasks of one token reading through shared files at ``now``: the first is the one under
    test, the two others have joined the list read due at ``others_due`` (None: nobody has)."""
    clock = clock_from_zero()
    client = ListingClient(clock)
    clock.now = now
    tasks = [shared_reads(tmp_path, client, member) for member in "123"]
    if others_due is not None:
        for task in tasks[1:]:
            due_at(task, now, others_due)
    return clock, client, tasks


def put_snapshot(tmp_path, started, servers, panel=PANEL):
    StateFiles(KEY, str(tmp_path)).update(
        "snapshot",
        lambda document: document.update(started=started, finished=started + 0.01, panel=panel, servers=servers),
    )


def test_gathering_follows_the_plan():
    assert gather_seconds(120) == 2.5
    assert gather_seconds(300) == 1.0
    assert gather_seconds(600) == 0.75
    assert gather_seconds(10) == 2.5
    assert gather_seconds(0) == 0.75


def test_a_lone_task_reads_its_own_server_at_once(tmp_path):
    clock = clock_from_zero()
    client = ListingClient(clock)
    clock.now = 100.3
    server, started, finished = shared_reads(tmp_path, client, "1").read_before("a", not_before=100.3)
    assert server["id"] == "a" and (started, finished) == (100.3, pytest.approx(100.31))
    assert (client.gets, client.lists, clock.sleeps) == (["a"], [], [])


def batch_task(tmp_path):
    """A task at 100.3 s, alone in the readers file, that the play runs on 20 hosts."""
    clock = clock_from_zero()
    client = ListingClient(clock)
    clock.now = 100.3
    return clock, client, shared_reads(tmp_path, client, "1", batch_hosts=20)


def test_the_first_fork_of_a_batch_announces_a_list_read_the_others_then_join(tmp_path):
    clock, client, first = batch_task(tmp_path)
    others = []

    def the_others_register():
        others.extend(shared_reads(tmp_path, client, member) for member in "23")
        for task in others:
            due_at(task, 100.5, 101.3)

    clock.at(0.2, the_others_register)  # during the gathering the first task announced
    server, started, unused = first.read_before("a", not_before=100.3)
    assert server["id"] == "a" and started == pytest.approx(101.3)
    assert (client.lists, client.gets) == ([pytest.approx(101.3)], [])
    for task, server_id in zip(others, "bc"):
        assert task.read_before(server_id, not_before=100.5).started == pytest.approx(101.3)
    assert (len(client.lists), client.gets) == (1, [])  # three reads, one request


def test_a_batch_task_nobody_joins_reads_its_own_server_after_one_gathering(tmp_path):
    clock, client, task = batch_task(tmp_path)
    server, started, unused = task.read_before("a", not_before=100.3)
    assert (server["id"], client.gets, client.lists, clock.sleeps) == ("a", ["a"], [], [pytest.approx(1.0)])


def test_the_batch_hint_does_not_delay_a_waiters_reads(tmp_path):
    clock, client, task = batch_task(tmp_path)
    server, started, unused = task.read("a", not_before=100.3)
    assert (client.gets, client.lists, clock.sleeps) == (["a"], [], [])


def test_tasks_gathered_for_one_read_share_one_list_read(tmp_path):
    clock, client, (first, second, third) = three_forks(tmp_path, now=100.3, others_due=None)
    # The first announces a list read one gathering (1 s) ahead; the others join it.
    server, started, finished = first.read_before("a", not_before=100.3)
    assert clock.sleeps == [pytest.approx(1.0)]
    assert first.files.read("readers")["next_read"] == pytest.approx(101.3)
    # (Played one after the other here: the others' joins come in before the read.)
    assert (client.gets, len(client.lists)) == (["a"], 0)  # alone at 101.3: its own GET


def test_joined_tasks_are_answered_by_one_list_read(tmp_path):
    clock, client, (first, second, third) = three_forks(tmp_path, now=100.3, others_due=None)
    due_at(second, 100.5, 101.3)
    due_at(third, 100.6, 101.3)
    server, started, finished = first.read_before("a", not_before=100.3)
    assert server["status"] == "online" and started == pytest.approx(101.3) and finished == pytest.approx(101.31)
    assert client.lists == [pytest.approx(101.3)]
    server, started, unused = second.read_before("b", not_before=100.5)
    assert server["status"] == "offline" and started == pytest.approx(101.3)
    server, started, unused = third.read_before("c", not_before=100.6)
    assert (len(client.lists), client.gets) == (1, [])  # three reads, one request


def test_the_read_before_never_rests_on_a_read_that_started_before_the_task(tmp_path):
    clock, client, tasks = three_forks(tmp_path, now=100.5, others_due=None)
    put_snapshot(tmp_path, 100.0, {"a": {"id": "a", "status": "online"}})
    client.servers["a"]["status"] = "stopping"
    # A task starting at 100.5 may not use the list read of 100.0, although it is only half a second old.
    due_at(tasks[1], 100.5, 101.5)
    due_at(tasks[2], 100.5, 101.5)
    server, started, unused = tasks[0].read_before("a", not_before=100.5)
    assert server["status"] == "stopping" and started == pytest.approx(101.5)
    assert client.lists == [pytest.approx(101.5)]


def test_the_read_before_takes_any_snapshot_that_started_after_the_task(tmp_path):
    clock, client, tasks = three_forks(tmp_path, now=130.0, others_due=None)
    put_snapshot(tmp_path, 100.2, {"a": {"id": "a", "status": "online"}})
    server, started, finished = tasks[0].read_before("a", not_before=100.1)
    assert (started, finished, client.lists, client.gets, clock.sleeps) == (100.2, pytest.approx(100.21), [], [], [])


def test_a_waiter_never_gets_an_answer_older_than_its_post_nor_a_stale_one(tmp_path):
    clock, client, tasks = three_forks(tmp_path, now=205.0, others_due=None)
    put_snapshot(tmp_path, 200.0, {"a": {"id": "a", "status": "stopping"}})
    due_at(tasks[1], 205.0, 206.0)
    # The snapshot started after the POST (199) but is 5 s old: the waiter joins the next list read.
    server, view, unused = tasks[0].read("a", not_before=199.0)
    assert (server["status"], view, client.lists) == ("online", 206.0, [206.0])
    # A snapshot of half a second ago (less than a gathering) is fresh enough for the next waiter.
    clock.now = 206.5
    server, view, unused = tasks[1].read("b", not_before=199.5)
    assert (view, len(client.lists)) == (206.0, 1)
    # But never one that started before the waiter's POST was answered.
    server, view, unused = tasks[2].read("a", not_before=206.2)
    assert view >= 206.2


def test_a_list_read_costing_more_pages_than_tasks_is_not_used(tmp_path):
    clock = clock_from_zero()
    client = ListingClient(clock, pages=5)
    tasks = [shared_reads(tmp_path, client, member) for member in "123"]
    StateFiles(KEY, str(tmp_path)).update("readers", lambda document: document.update(cost=5))
    tasks[0].read_before("a", not_before=0.0)
    assert (client.lists, client.gets, clock.sleeps) == ([], ["a"], [])


def test_the_cost_of_a_list_read_is_measured(tmp_path):
    clock = clock_from_zero()
    client = ListingClient(clock, pages=2)
    clock.now = 10.0
    tasks = [shared_reads(tmp_path, client, member) for member in "1234"]
    for task in tasks[1:]:
        due_at(task, 10.0, 11.0)
    tasks[0].read_before("a", not_before=10.0)
    assert len(client.lists) == 1
    assert StateFiles(KEY, str(tmp_path)).read("readers")["cost"] == 2


def test_quiet_and_closed_tasks_stop_counting(tmp_path):
    clock = clock_from_zero()
    client = ListingClient(clock)
    shared_reads(tmp_path, client, "2")
    closed = shared_reads(tmp_path, client, "3")
    closed.close()
    clock.now += 61  # "2" has not been heard of for more than a minute
    shared_reads(tmp_path, client, "1").read_before("a", not_before=clock.now)
    assert (client.lists, client.gets, clock.sleeps) == ([], ["a"], [])
    readers = json.loads((tmp_path / (KEY + ".readers")).read_text())
    assert list(readers["tasks"]) == ["1"]


def test_a_snapshot_of_another_panel_is_ignored(tmp_path):
    clock, client, tasks = three_forks(tmp_path, now=0.5, others_due=None)
    put_snapshot(tmp_path, 5.0, {"a": {"id": "a", "status": "gone"}}, panel="planned http://other/v1")
    for task in tasks[1:]:
        due_at(task, 0.5, 1.5)
    server = tasks[0].read_before("a", not_before=0.5).server
    assert server["status"] == "online" and len(client.lists) == 1


def test_a_list_read_claimed_elsewhere_is_waited_for_then_taken_over(tmp_path, monkeypatch):
    monkeypatch.setattr(shared_reads_module, "LIST_READ_WAIT_SECONDS", 5.0)
    clock, client, tasks = three_forks(tmp_path, now=0.0, others_due=1.0)
    # Another process claimed the list read of 1.0 and never finishes it (it hangs).
    tasks[1].files.update(
        "readers", lambda document: document.update(claim={"member": "hung", "read_at": 1.0, "at": 1.0})
    )
    server, started, unused = tasks[0].read_before("a", not_before=0.5)
    assert server["id"] == "a" and len(client.gets) + len(client.lists) == 1
    # It waited for the announced read, then for the claimed read, until the claim had gone stale.
    assert started == pytest.approx(1.0 + 5.0, abs=0.1)


def test_a_wait_read_stops_waiting_for_a_hung_list_read_at_the_wait_deadline(tmp_path):
    clock, client, tasks = three_forks(tmp_path, now=0.5, others_due=1.0)
    # Another process claimed the list read of 1.0 and never publishes it (LIST_READ_WAIT_SECONDS is 75 s).
    tasks[1].files.update(
        "readers", lambda document: document.update(claim={"member": "hung", "read_at": 1.0, "at": 1.0})
    )
    client.limit_at = 2.5  # the wait this read serves ends at 2.5
    server, view, unused = tasks[0].read("a", not_before=0.5)
    # It joined the list read of 1.0, waited for it until 2.5, then read its own server.
    assert (server["id"], view, client.gets, client.lists) == ("a", pytest.approx(2.5), ["a"], [])
    assert StateFiles(KEY, str(tmp_path)).read("readers")["tasks"]["1"]["due"] is None


def test_a_wait_read_whose_list_read_would_come_after_the_deadline_reads_its_own_server_at_once(tmp_path):
    clock, client, tasks = three_forks(tmp_path, now=10.0, others_due=None)
    client.limit_at = 10.4  # less than one gathering (1 s) left
    server, view, unused = tasks[0].read("a", not_before=9.0)
    assert (view, client.gets, client.lists, clock.sleeps) == (10.0, ["a"], [], [])
    assert "next_read" not in StateFiles(KEY, str(tmp_path)).read("readers")  # nobody was told to wait for it


def test_a_wait_read_with_time_left_still_shares_the_list_read(tmp_path):
    clock, client, tasks = three_forks(tmp_path, now=10.0, others_due=11.0)
    client.limit_at = 11.5
    server, view, unused = tasks[0].read("a", not_before=9.0)
    assert (view, client.gets, client.lists) == (11.0, [], [11.0])


def test_the_claim_of_a_process_that_died_is_taken_over_at_once(tmp_path):
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    ).stdout.strip()
    clock, client, tasks = three_forks(tmp_path, now=0.0, others_due=1.0)
    tasks[1].files.update(
        "readers", lambda document: document.update(claim={"member": dead, "read_at": 1.0, "at": 1.0})
    )
    server, started, unused = tasks[0].read_before("a", not_before=0.5)
    assert (started, client.lists) == (1.0, [1.0])


def test_files_hold_no_token_and_an_unusable_directory_falls_back_to_gets(tmp_path):
    clock = clock_from_zero()
    client = ListingClient(clock)
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    reads = SharedStatusReads(client, StateFiles(KEY, str(blocker / "sub")), PANEL)
    reads.join()
    assert reads.read_before("a", not_before=0.0).server["id"] == "a"
    assert client.gets == ["a"] and reads.enabled is False
    reads.close()
