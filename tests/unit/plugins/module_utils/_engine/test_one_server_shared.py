# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""server_control with coalesced reads (SharedStatusReads over real state files), on the fake panel and clock.

Other forks are played by entries in the readers file: tasks that are active and due
at the same tick, so that this task's reads come from shared list reads.
"""

from __future__ import annotations

import pytest

from ansible_collections.gamepanel.panel.plugins.module_utils._engine.one_server import run_one_server
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.result import ControlFailed
from ansible_collections.gamepanel.panel.plugins.module_utils._state.files import StateFiles
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.shared_reads import SharedStatusReads

from panel_fakes import FakeClient, server
from test_one_server import request

PANEL = "live https://panel.example.test/api/v1"


class Fleet:
    """This task's SharedStatusReads plus two other forks that join every list read announced."""

    def __init__(self, tmp_path, client):
        self.client = client
        self.files = StateFiles("f" * 64, str(tmp_path))
        self.reads = SharedStatusReads(client, self.files, PANEL, gather=1.0, member="me")
        self.reads.join()
        self.hung = False  # once true, another fork claims every list read announced and never publishes it
        self.keep_others_due()

    def keep_others_due(self):
        """The other forks are active, and due at the list read announced, if any (re-armed on every sleep)."""
        now = self.client.clock.time()

        def change(readers):
            read_at = readers.get("next_read")
            due = read_at if isinstance(read_at, float) and read_at >= now - 1.0 else None
            tasks = readers.setdefault("tasks", {})
            for member in ("other-1", "other-2"):
                tasks[member] = {"seen": now, "due": due}
            if self.hung and due is not None:
                readers["claim"] = {"member": "other-1", "read_at": due, "at": now}

        self.files.update("readers", change)

    def run(self, state="restarted", **options):
        original_sleep = self.client.clock.sleep

        def sleep(seconds):
            original_sleep(seconds)
            self.keep_others_due()

        self.client.clock.sleep = sleep
        try:
            return run_one_server(
                self.client, request(state, **options), status_reads=self.reads, before_reads=self.reads
            )
        finally:
            self.client.clock.sleep = original_sleep


def kinds(client):
    return [entry[1] for entry in client.log]


def test_the_read_before_and_the_wait_come_from_list_reads(tmp_path):
    client = FakeClient(server(), server("mc-02", name="Creative"))
    client.clock.now = 1000.4
    client.agent_applies_after(1, (0, {"status": "stopping"}), (1, {"status": "online", "uptime_seconds": 0}))
    result = Fleet(tmp_path, client).run()
    assert (result["changed"], result["converged"]) == (True, True)
    assert kinds(client) == ["LIST", "POST restart", "LIST"]  # no GET at all
    assert client.log[0][0] >= 1000.4  # the read before started after the task did


def test_a_snapshot_from_before_the_task_started_is_never_decided_on(tmp_path):
    client = FakeClient(server(status="offline", uptime=0))
    client.clock.now = 1000.4
    # Another fork's list read of 1000.2 still shows mc-01 offline; it has come up since.
    fleet = Fleet(tmp_path, client)
    fleet.files.update(
        "snapshot",
        lambda document: document.update(
            started=client.clock.time() - 0.2,
            finished=client.clock.time() - 0.19,
            panel=PANEL,
            servers={"mc-01": server(status="offline", uptime=0)},
        ),
    )
    client.servers["mc-01"].update(status="online", uptime_seconds=5)
    result = fleet.run("started")
    assert (result["changed"], result["action"]) == (False, None)
    assert result["before"]["status"] == "online"
    assert client.posts == []


def test_uptime_reset_is_judged_from_the_end_of_the_shared_read_before(tmp_path):
    """A server up for 3 s restarts in place (fast restart) and is past 3 s of uptime again
    by the first read: only the time since the shared read ended shows it restarted."""
    client = FakeClient(server(uptime=3))
    client.clock.now = 1000.4
    client.live_uptime(restart_at=2.0)
    result = Fleet(tmp_path, client).run(poll_interval=5)
    assert (result["changed"], result["converged"]) == (True, True)
    assert result["server"]["uptime_seconds"] > result["before"]["uptime_seconds"]
    assert len(client.posts) == 1


def test_an_offline_agent_under_coalescing_times_out_without_a_second_post(tmp_path):
    client = FakeClient(server())
    client.clock.now = 1000.4
    client.live_uptime()  # the agent never applies anything: uptime keeps growing
    with pytest.raises(ControlFailed) as caught:
        Fleet(tmp_path, client).run(wait_timeout=30)
    assert "queued, not yet applied" in caught.value.message
    assert (caught.value.result["changed"], caught.value.result["converged"]) == (True, False)
    assert len(client.posts) == 1
    # Every read was a shared list read but the last, at wait_timeout itself: a list read
    # announced for after the deadline is not waited for, the task reads its own server.
    assert kinds(client).count("GET") == 1 and kinds(client)[-1] == "GET"
    assert client.log[-1][0] == pytest.approx(client.posts[0][0] + 30)


def test_a_fork_that_never_publishes_its_list_read_does_not_carry_the_wait_past_wait_timeout(tmp_path):
    client = FakeClient(server())
    client.clock.now = 1000.4
    client.live_uptime()  # no restart: the uptime grows, so the read at the deadline is conclusive
    fleet = Fleet(tmp_path, client)

    def hang(server_id, action):
        fleet.hung = True

    client.on_post = hang
    with pytest.raises(ControlFailed) as caught:
        fleet.run(wait_timeout=20, poll_interval=5)
    posted = client.posts[0][0]
    # The wait's read joined the list read, waited for the other fork until the deadline
    # (not LIST_READ_WAIT_SECONDS), then read its own server there.
    assert client.clock.now == pytest.approx(posted + 20, abs=0.05)  # give or take one look at the claim
    assert kinds(client)[1:] == ["POST restart", "GET"]
    assert "queued, not yet applied" in caught.value.message and "wait_timeout (20 s)" in caught.value.message
