# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The fast fleet pattern's two steps: queue with wait=false (``unconfirmed``), then confirm_only.

confirm_only never sends; it waits for the ledger's entry of the action, from one poll_interval
after it was queued.  A fake panel and clock (test_control's), a real Ledger in a temporary directory.
"""

from __future__ import annotations

import tempfile

from hypothesis import given
from hypothesis import strategies as st

from ansible_collections.gamepanel.panel.plugins.module_utils._engine.one_server import run_one_server
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.result import ControlFailed
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.request import ControlRequest
from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import PanelAmbiguousError

from panel_fakes import FakeClient
from test_one_server import request
from test_one_server_ledger import entries, fail, restart_applied, run
from test_one_server_properties import PROFILE, reads, scene
from test_one_server_properties import entries as ledger_entries

QUEUED_MESSAGE = "queued, not yet applied: the agent has not checked in"


def test_a_queued_restart_is_left_unconfirmed_and_the_second_task_confirms_it_sending_nothing(tmp_path):
    client = FakeClient()
    restart_applied(client, delay=3)  # the agent's reaction to the POST
    queued = run(client, tmp_path, wait=False)
    assert (queued["changed"], queued["unconfirmed"], queued["converged"]) == (True, True, None)
    confirmed = run(client, tmp_path, confirm_only=True, poll_interval=2)
    assert (confirmed["changed"], confirmed["action"], confirmed["converged"]) == (False, None, True)
    assert confirmed["unconfirmed"] is False and confirmed["pending"]["action"] == "restart"
    assert [entry["state"] for entry in entries(client, tmp_path)] == ["done"]
    assert len(client.posts) == 1


def test_the_first_confirming_read_waits_one_poll_interval_after_the_action_was_queued(tmp_path):
    client = FakeClient()
    run(client, tmp_path, wait=False)
    [(posted_at, unused, unused_id)] = client.posts
    client.later(1, status="online", uptime_seconds=0)
    before = len(client.reads)
    run(client, tmp_path, confirm_only=True, poll_interval=4)
    confirming = client.reads[before:]
    # no read spent before the outcome could show; the first one already sees it
    assert len(confirming) == 1 and confirming[0][0] >= posted_at + 4


def test_a_read_that_already_proves_it_confirms_at_once(tmp_path):
    client = FakeClient()
    run(client, tmp_path, wait=False)
    client.later(2, status="online", uptime_seconds=0)
    client.clock.sleep(10)
    before = len(client.reads)
    result = run(client, tmp_path, confirm_only=True)
    assert result["converged"] is True and len(client.reads) == before + 1
    assert "shows applied (ledger state done)" in result["msg"] and len(client.posts) == 1


def test_an_entry_proven_done_earlier_confirms_without_waiting(tmp_path):
    client = FakeClient()
    restart_applied(client, delay=3)
    run(client, tmp_path, poll_interval=1)  # queued and confirmed by one task: the entry is done
    result = run(client, tmp_path, confirm_only=True)
    assert (result["converged"], result["unconfirmed"], result["changed"]) == (True, False, False)
    assert "shows applied (ledger state done)" in result["msg"]
    assert len(client.posts) == 1


def test_nothing_in_the_ledger_means_nothing_to_confirm_and_nothing_sent(tmp_path):
    client = FakeClient()
    result = run(client, tmp_path, confirm_only=True)
    assert (result["changed"], result["converged"], result["unconfirmed"]) == (False, None, False)
    assert "holds no restart" in result["msg"] and "nothing was sent" in result["msg"]
    assert client.posts == []


def test_a_wait_that_runs_out_fails_like_the_wait_of_the_task_that_queued_it(tmp_path):
    client = FakeClient()
    run(client, tmp_path, wait=False)
    failure = fail(client, tmp_path, confirm_only=True, wait_timeout=10, poll_interval=1)
    assert QUEUED_MESSAGE in failure.message and "Nothing new was sent (confirm_only)" in failure.message
    assert (failure.result["changed"], failure.result["converged"], failure.result["unconfirmed"]) == (
        False,
        False,
        True,
    )
    assert len(client.posts) == 1
    assert [entry["state"] for entry in entries(client, tmp_path)] == ["queued"]


def test_a_lost_answer_is_unconfirmed_and_the_confirm_step_waits_for_it(tmp_path):
    client = FakeClient()
    client.post_error = PanelAmbiguousError("lost")
    failure = fail(client, tmp_path, wait=False)
    assert failure.result["unconfirmed"] is True and failure.result["action"] == "restart"
    client.post_error = None
    client.later(3, status="online", uptime_seconds=0)  # the panel had it after all
    result = run(client, tmp_path, confirm_only=True, poll_interval=1)
    assert result["converged"] is True and len(client.posts) == 1


def test_min_uptime_does_not_turn_the_just_queued_restart_into_nothing_to_wait_for(tmp_path):
    client = FakeClient()
    run(client, tmp_path, wait=False, min_uptime=600)
    failure = fail(client, tmp_path, confirm_only=True, min_uptime=600, wait_timeout=5, poll_interval=1)
    assert QUEUED_MESSAGE in failure.message and len(client.posts) == 1


def test_check_mode_confirms_nothing_and_waits_for_nothing(tmp_path):
    client = FakeClient()
    run(client, tmp_path, wait=False)
    started = client.clock.now
    result = run(client, tmp_path, confirm_only=True, check_mode=True)
    assert (result["changed"], result["converged"], result["unconfirmed"]) == (False, None, False)
    assert client.clock.now - started < 1 and len(client.posts) == 1


def test_a_wait_that_converged_leaves_nothing_unconfirmed_and_one_that_ran_out_does(tmp_path):
    client = FakeClient()
    restart_applied(client)
    assert run(client, tmp_path, poll_interval=1)["unconfirmed"] is False
    client = FakeClient()
    failure = fail(client, tmp_path / "other", wait_timeout=4, poll_interval=1)
    assert failure.result["unconfirmed"] is True


def test_confirm_only_and_ignore_pending_contradict_each_other():
    problems = ControlRequest("restarted", server_id="mc-01", confirm_only=True, ignore_pending=True).problems()
    assert problems == [
        "confirm_only sends nothing and ignore_pending asks to send the action anyway: choose one of them."
    ]


@PROFILE
@given(reads, ledger_entries, st.sampled_from(["started", "stopped", "restarted"]))
def test_confirm_only_never_sends_whatever_the_ledger_and_the_read(read, entry, state):
    with tempfile.TemporaryDirectory() as directory:
        client, ledger, unused = scene(directory, read, entry)
        try:
            result = run_one_server(
                client, request(state, confirm_only=True, wait_timeout=3, poll_interval=1), ledger=ledger
            )
        except ControlFailed as failure:
            result = failure.result
            assert "Nothing new was sent" in failure.message  # a wait that ran out says so
        assert client.posts == [] and result["changed"] is False and result["action"] is None


def test_a_list_read_another_fork_made_once_the_outcome_could_show_confirms_without_a_request(tmp_path):
    from panel_fakes import server
    from test_one_server_ledger import ledger_for
    from test_one_server_shared import PANEL, Fleet

    def confirm(snapshot_delay, uptime_seen):
        client = FakeClient()
        ledger = ledger_for(client, tmp_path / str(snapshot_delay))
        run_one_server(client, request("restarted", wait=False), ledger=ledger)
        queued_at = ledger.find("mc-01", "restart")["queued_at"]
        client.clock.sleep(30)  # the batch's other hosts were queued meanwhile; mc-01 restarted
        client.servers["mc-01"].update(uptime_seconds=20)
        fleet = Fleet(tmp_path / ("shared-%s" % snapshot_delay), client)  # other forks confirm too
        fleet.files.update(
            "snapshot",
            lambda document: document.update(
                started=queued_at + snapshot_delay,
                finished=queued_at + snapshot_delay + 0.1,
                panel=PANEL,
                servers={"mc-01": server(uptime=uptime_seen)},
            ),
        )
        before = len(client.log)
        result = run_one_server(
            client, request("restarted", confirm_only=True, poll_interval=5), ledger=ledger, before_reads=fleet.reads
        )
        return result, client.log[before:]

    # another fork's list read, started once the outcome could show (queued_at + poll_interval): taken as it is
    result, made = confirm(6, uptime_seen=20)
    assert result["converged"] is True and made == []
    # one started too early to show it is not taken: the task reads the panel
    result, made = confirm(1, uptime_seen=86401)
    assert result["converged"] is True and len(made) == 1 and made[0][1] in ("GET", "LIST")
