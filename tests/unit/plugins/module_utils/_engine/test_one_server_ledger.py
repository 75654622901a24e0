# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""server_control with a ledger: what it records around a POST, and what a later run decides from it.

A fake panel and clock (test_control's), a real Ledger in a temporary state directory.
"""

from __future__ import annotations

import multiprocessing
import os

import pytest

from ansible_collections.gamepanel.panel.plugins.module_utils._engine.one_server import run_one_server
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.result import ControlFailed
from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import PanelAmbiguousError, PanelApiError
from ansible_collections.gamepanel.panel.plugins.module_utils._state.ledger import Ledger
from ansible_collections.gamepanel.panel.plugins.module_utils._state.files import StateFiles

from panel_fakes import FakeClient, server
from test_one_server import request

PANEL = "live https://panel.example/api/v1"


class Crash(BaseException):
    """A process dying at one step (not an error the module handles)."""


def ledger_for(client, directory):
    return Ledger(StateFiles("k" * 64, str(directory)), PANEL, client.clock)


def run(client, directory, state="restarted", check_mode=False, **options):
    return run_one_server(
        client, request(state, **options), check_mode=check_mode, ledger=ledger_for(client, directory)
    )


def fail(client, directory, state="restarted", **options):
    with pytest.raises(ControlFailed) as caught:
        run(client, directory, state, **options)
    return caught.value


def entries(client, directory):
    return ledger_for(client, directory).entries("mc-01")


def restart_applied(client, delay=3):
    client.agent_applies_after(delay, (0, {"status": "stopping"}), (1, {"status": "online", "uptime_seconds": 0}))


# -- what is recorded -----------------------------------------------------------------------------


def test_a_confirmed_restart_ends_done_with_the_read_it_rested_on(tmp_path):
    client = FakeClient()
    restart_applied(client)
    result = run(client, tmp_path, poll_interval=1)
    assert (result["changed"], result["converged"], result["pending"]) == (True, True, None)
    [entry] = entries(client, tmp_path)
    assert (entry["action"], entry["state"]) == ("restart", "done")
    assert entry["before"]["status"] == "online" and entry["before"]["uptime_seconds"] == 86400
    assert entry["before"]["read_at"] <= entry["queued_at"]


def test_without_wait_the_entry_stays_queued(tmp_path):
    client = FakeClient()
    run(client, tmp_path, wait=False)
    assert [entry["state"] for entry in entries(client, tmp_path)] == ["queued"]


def test_a_lost_answer_leaves_may_be_queued_and_the_next_run_sends_nothing(tmp_path):
    client = FakeClient()
    client.post_error = PanelAmbiguousError("lost")
    fail(client, tmp_path, wait=False)
    assert [entry["state"] for entry in entries(client, tmp_path)] == ["may_be_queued"]
    client.post_error = None
    result = run(client, tmp_path, wait=False)
    assert (result["changed"], result["pending"]["state"]) == (False, "may_be_queued")
    assert "its answer was lost" in result["msg"] and "Nothing new was sent" in result["msg"]
    assert len(client.posts) == 1


def test_a_post_that_surely_failed_leaves_no_entry(tmp_path):
    client = FakeClient()
    client.post_error = PanelApiError("The panel answered 400: bad request.", status=400)
    fail(client, tmp_path, wait=False)
    assert entries(client, tmp_path) == []
    client.post_error = None
    assert run(client, tmp_path, wait=False)["changed"] is True
    assert len(client.posts) == 2


def test_a_refused_post_leaves_a_note_with_its_status_and_the_panels_retry_after(tmp_path):
    client = FakeClient()
    refusal = PanelApiError("The panel refused it with HTTP 503.", status=503)
    refusal.retry_after = 40.0  # as the client keeps the panel's Retry-After
    client.post_error = refusal
    fail(client, tmp_path, wait=False)
    (note,) = ledger_for(client, tmp_path).not_queued_of(["mc-01"])["mc-01"]
    assert (note["action"], note["status"], note["retry_at"]) == ("restart", 503, note["noted_at"] + 40.0)


# -- what a later run decides ---------------------------------------------------------------------


def test_an_open_entry_is_reported_without_wait(tmp_path):
    client = FakeClient()
    run(client, tmp_path, wait=False)
    result = run(client, tmp_path, wait=False)
    assert (result["changed"], result["action"], result["converged"]) == (False, None, None)
    assert set(result["pending"]) == {"id", "action", "queued_at", "state"}
    assert result["pending"]["state"] == "queued"
    assert "was queued at 2023-11-14" in result["msg"] and "Nothing new was sent" in result["msg"]
    assert len(client.posts) == 1


def test_an_open_entry_is_waited_for_and_its_outcome_is_success_without_change(tmp_path):
    client = FakeClient()
    run(client, tmp_path, wait=False)
    client.later(4, status="online", uptime_seconds=1)  # the agent applies the first run's restart
    result = run(client, tmp_path, poll_interval=1)
    assert (result["changed"], result["converged"], result["pending"]["action"]) == (False, True, "restart")
    assert [entry["state"] for entry in entries(client, tmp_path)] == ["done"]
    assert len(client.posts) == 1


def test_waiting_for_an_open_entry_times_out_saying_when_it_was_queued(tmp_path):
    client = FakeClient()
    run(client, tmp_path, wait=False)
    failure = fail(client, tmp_path, wait_timeout=10, poll_interval=1)
    assert "was queued at" in failure.message and "Within wait_timeout (10 s)" in failure.message
    assert "Nothing new was sent" in failure.message and "ignore_pending" in failure.message
    assert (failure.result["changed"], failure.result["converged"]) == (False, False)
    assert len(client.posts) == 1


def test_ignore_pending_sends_and_replaces_the_entry(tmp_path):
    client = FakeClient()
    run(client, tmp_path, wait=False)
    first = entries(client, tmp_path)[0]
    client.clock.sleep(5)
    result = run(client, tmp_path, wait=False, ignore_pending=True)
    assert result["changed"] is True and len(client.posts) == 2
    [entry] = entries(client, tmp_path)
    assert entry["queued_at"] > first["queued_at"] and entry["state"] == "queued"


def test_a_different_action_is_sent_and_the_pending_one_named(tmp_path):
    client = FakeClient()
    run(client, tmp_path, wait=False)
    result = run(client, tmp_path, state="stopped", wait=False)
    assert (result["changed"], result["action"], result["pending"]["action"]) == (True, "stop", "restart")
    assert "ledger still held a restart queued at" in result["msg"]
    assert [entry["action"] for entry in entries(client, tmp_path)] == ["restart", "stop"]


def test_a_restart_held_within_min_uptime_counts_despite_the_old_uptime(tmp_path):
    client = FakeClient()
    run(client, tmp_path, wait=False)
    client.clock.sleep(100)
    client.servers["mc-01"]["uptime_seconds"] = 86500  # a lagging read: the old uptime, still counting
    result = run(client, tmp_path, min_uptime=600)
    assert (result["changed"], result["action"], result["pending"]["action"]) == (False, None, "restart")
    assert "less than min_uptime (600 s) ago" in result["msg"]
    client.clock.sleep(600)  # outside min_uptime the entry no longer counts as the restart
    client.servers["mc-01"]["uptime_seconds"] = 87100  # still the old uptime, counting on
    assert run(client, tmp_path, min_uptime=600, wait=False)["changed"] is False  # still open: followed, not sent
    assert len(client.posts) == 1


def test_a_done_restart_within_min_uptime_counts_too(tmp_path):
    client = FakeClient()
    restart_applied(client, delay=1)
    run(client, tmp_path, poll_interval=1)
    client.agent_applies_after(1000)  # no more agent reactions
    client.servers["mc-01"]["uptime_seconds"] = 90000  # a lagging read after the restart
    result = run(client, tmp_path, min_uptime=600)
    assert (result["changed"], result["pending"]["state"]) == (False, "done")
    assert len(client.posts) == 1


def test_a_read_proves_other_open_entries_done(tmp_path):
    client = FakeClient(server(status="offline", uptime=0))
    run(client, tmp_path, state="started", wait=False)
    client.servers["mc-01"].update(status="online", uptime_seconds=3)
    run(client, tmp_path, state="stopped", wait=False)  # its read shows the start applied
    states = dict((entry["action"], entry["state"]) for entry in entries(client, tmp_path))
    assert states == {"start": "done", "stop": "queued"}


def test_check_mode_consults_the_ledger_and_writes_nothing(tmp_path):
    client = FakeClient()
    run(client, tmp_path, wait=False)
    path = ledger_for(client, tmp_path).path("mc-01")
    written = open(path, "rb").read()
    client.servers["mc-01"]["uptime_seconds"] = 1  # a read that would prove the entry done
    result = run(client, tmp_path, check_mode=True, state="stopped")
    assert (result["changed"], result["action"]) == (True, "stop")
    assert open(path, "rb").read() == written
    assert len(client.posts) == 1


def test_check_mode_with_an_open_entry_predicts_nothing_sent(tmp_path):
    client = FakeClient()
    run(client, tmp_path, wait=False)
    result = run(client, tmp_path, check_mode=True)
    assert (result["changed"], result["pending"]["state"]) == (False, "queued")


# -- a crash between each step --------------------------------------------------------------------


def crash_once(target, name, when="before"):
    """Make ``target.name`` raise Crash once, before or after doing its work."""
    original = getattr(target, name)

    def crashing(*args, **kwargs):
        setattr(target, name, original)
        if when == "before":
            raise Crash()
        original(*args, **kwargs)
        raise Crash()

    setattr(target, name, crashing)


def crash_on_the_first_read_after_the_post(client):
    original = client.queue_action

    def post_then_arm(*args, **kwargs):
        answer = original(*args, **kwargs)
        crash_once(client, "get_server", "before")
        return answer

    client.queue_action = post_then_arm


STEPS = {
    "entry written, nothing sent": lambda client, ledger: crash_once(client, "queue_action", "before"),
    "POST sent, answer not read": lambda client, ledger: crash_once(client, "queue_action", "after"),
    "answer read, entry not updated": lambda client, ledger: crash_once(ledger, "mark_many", "before"),
    "entry updated, outcome not read": lambda client, ledger: crash_on_the_first_read_after_the_post(client),
}


@pytest.mark.parametrize("step", sorted(STEPS))
@pytest.mark.parametrize("wait", [True, False])
def test_a_crash_at_any_step_neither_double_sends_nor_waits_silently(tmp_path, step, wait):
    client = FakeClient()
    ledger = ledger_for(client, tmp_path)
    STEPS[step](client, ledger)
    with pytest.raises(Crash):
        run_one_server(client, request("restarted", wait=True, poll_interval=1, wait_timeout=5), ledger=ledger)
    posted = len(client.posts)
    [entry] = entries(client, tmp_path)
    assert entry["state"] == ("queued" if step == "entry updated, outcome not read" else "sending")
    assert posted == (0 if step == "entry written, nothing sent" else 1)

    client.queue_action = FakeClient.queue_action.__get__(client)
    client.get_server = FakeClient.get_server.__get__(client)
    if wait:
        failure = fail(client, tmp_path, wait_timeout=5, poll_interval=1)
        message, result = failure.message, failure.result
        assert "Within wait_timeout (5 s)" in message
    else:
        result = run(client, tmp_path, wait=False)
        message = result["msg"]
    assert len(client.posts) == posted  # nothing sent again
    assert result["pending"]["state"] == entry["state"]
    assert "Nothing new was sent" in message and "ignore_pending" in message
    if entry["state"] == "sending":
        assert "stopped before it learned the panel's answer" in message


# -- several processes at once --------------------------------------------------------------------


def _race(directory, barrier, posts_file):
    client = FakeClient()
    reads = client.get_server

    def read_then_meet(server_id):
        answer = reads(server_id)
        barrier.wait(10)  # both processes have read before either claims
        return answer

    client.get_server = read_then_meet

    def post(server_id, action, hand_back=False):
        with open(posts_file, "a") as stream:
            stream.write("%s %s\n" % (os.getpid(), action))

    client.queue_action = post
    run_one_server(client, request("restarted", wait=False), ledger=ledger_for(client, directory))


def test_two_processes_deciding_at_once_send_one_post(tmp_path):
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(2)
    posts_file = str(tmp_path / "posts")
    processes = [context.Process(target=_race, args=(str(tmp_path), barrier, posts_file)) for unused in range(2)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(30)
    assert [process.exitcode for process in processes] == [0, 0]
    assert len(open(posts_file).read().splitlines()) == 1
