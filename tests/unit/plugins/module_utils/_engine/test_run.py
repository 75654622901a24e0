# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""_engine/run.py: the rules ControlRun applies to each read of a server, driven read by read (no driver, no schedule).

The drivers (one server, many servers) are tested in test_one_server*.py and test_many_servers.py;
here each step is called as a driver would, so that the rule itself is what the test sees.
"""

from __future__ import annotations

import pytest

from ansible_collections.gamepanel.panel.plugins.module_utils._engine.result import TaskStopped
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.run import ControlRun
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.server import DRAINING, FINISHED, UNREAD, WAITING
from ansible_collections.gamepanel.panel.plugins.module_utils._rules import decision
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.convergence import TimedRead
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.entry_states import (
    DONE,
    MAY_BE_QUEUED,
    QUEUED,
    SENDING,
)
from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import (
    PanelAmbiguousError,
    PanelApiError,
    PanelAuthError,
    PanelNotFoundError,
)
from ansible_collections.gamepanel.panel.plugins.module_utils._state.files import StateFiles
from ansible_collections.gamepanel.panel.plugins.module_utils._state.ledger import Ledger

from panel_fakes import FakeClient, request, server

PANEL = "live https://panel.example.test/api/v1"


def engine(client, tmp_path=None, check_mode=False, **options):
    """A ControlRun over mc-01 (with a ledger in ``tmp_path`` when given)."""
    ledger = None if tmp_path is None else Ledger(StateFiles("k" * 64, str(tmp_path)), PANEL, client.clock)
    run = ControlRun(client, request(options.pop("state", "restarted"), **options), ledger, check_mode=check_mode)
    return run, run.add(["mc-01"])[0]


def read_now(client, server_id="mc-01"):
    return TimedRead.made(client.clock, lambda: client.get_server(server_id))


def test_a_planned_action_is_sent_once_with_its_entry_claimed_then_queued_and_its_wait_set(tmp_path):
    client = FakeClient(server(players=0))
    run, target = engine(client, tmp_path, wait_timeout=60)
    assert run.decide(target, read_now(client)) == decision.SEND
    assert (target.stage, target.action, target.changed) == (UNREAD, "restart", False)  # planned, not sent
    run.send(target)
    assert [what for unused, what, unused_id in client.posts] == ["POST restart"]
    # the mark waits for the others of its burst: the entry stays open (sending) until it is written
    assert (target.stage, target.changed, target.entry["state"]) == (WAITING, True, SENDING)
    assert [entry["state"] for entry in run.ledger.entries("mc-01")] == [SENDING]
    run.write_marks()
    assert target.entry["state"] == QUEUED
    assert [entry["state"] for entry in run.ledger.entries("mc-01")] == [QUEUED]
    assert target.deadline == pytest.approx(client.clock.monotonic() + 60)  # deadlines are monotonic


def test_a_lost_answer_is_never_resent_and_its_entry_may_be_queued(tmp_path):
    client = FakeClient(server(players=0))
    client.post_error = PanelAmbiguousError("The connection closed.", server_id="mc-01")
    run, target = engine(client, tmp_path)
    run.decide(target, read_now(client))
    run.send(target)
    run.write_marks()
    assert (target.changed, target.entry["state"], target.lost) == (True, MAY_BE_QUEUED, client.post_error)
    run.send_planned(target)  # a second call sends nothing: the action is no longer planned
    assert len(client.posts) == 1


def test_the_marks_of_many_servers_are_written_together_older_than_a_bound_only_when_asked(tmp_path):
    fleet = [server(server_id="mc-%02d" % number, players=0) for number in range(1, 11)]
    client = FakeClient(*fleet)
    ledger = Ledger(StateFiles("k" * 64, str(tmp_path)), PANEL, client.clock)
    run = ControlRun(client, request("restarted"), ledger)
    targets = run.add([entry["id"] for entry in fleet])
    writes = []
    mark_many = ledger.mark_many
    ledger.mark_many = lambda entries, state: writes.append(len(entries)) or mark_many(entries, state)
    for target in targets:
        run.decide(target, read_now(client, target.id))
        run.send(target)
    run.write_marks(older_than=1.0)  # the oldest mark is not a second old: nothing written yet
    assert writes == [] and {entry["state"] for entry in ledger.entries()} == {SENDING}
    client.clock.sleep(1.0)
    run.write_marks(older_than=1.0)
    assert writes == [10] and {entry["state"] for entry in ledger.entries()} == {QUEUED}
    run.write_marks()  # nothing left to write
    assert writes == [10]


def test_a_refused_post_drops_its_entry_and_stops_the_task_unless_the_server_is_not_found(tmp_path):
    client = FakeClient(server(players=0))
    client.post_error = PanelAuthError("The token was refused.", status=401)
    run, target = engine(client, tmp_path)
    run.decide(target, read_now(client))
    with pytest.raises(TaskStopped):
        run.send(target)
    assert (target.failed, target.changed, target.entry) == (True, False, None)
    assert run.ledger.entries("mc-01") == []
    client.post_error = PanelNotFoundError("No server mc-01.", status=404)
    run, target = engine(client, tmp_path)
    run.decide(target, read_now(client))
    run.send(target)  # one server gone: that server fails, the task goes on
    assert target.failed and target.error is client.post_error


def test_an_open_entry_of_another_process_is_followed_not_sent(tmp_path):
    client = FakeClient(server(players=0))
    run, target = engine(client, tmp_path)
    run.decide(target, read_now(client))
    standing, unused = run.ledger.claim("mc-01", "restart")  # another process claims it meanwhile
    run.send(target)
    assert client.posts == [] and target.followed and target.pending["queued_at"] == standing["queued_at"]
    assert target.stage == WAITING


def test_a_read_that_shows_the_outcome_marks_the_entry_done_and_finishes(tmp_path):
    client = FakeClient(server(players=0))
    run, target = engine(client, tmp_path)
    run.decide(target, read_now(client))
    run.send(target)
    client.clock.sleep(5)
    client.servers["mc-01"]["uptime_seconds"] = 2
    run.observe(target, read_now(client))
    run.write_marks()
    assert (target.stage, target.converged, target.entry["state"]) == (FINISHED, True, DONE)


def test_a_read_past_the_deadline_ends_the_wait_unless_it_cannot_tell(tmp_path):
    client = FakeClient(server(players=0, uptime=500))
    run, target = engine(client, tmp_path, wait_timeout=10)
    run.decide(target, read_now(client))
    run.send(target)
    client.clock.sleep(11)
    client.servers["mc-01"]["uptime_seconds"] = 500  # the very uptime read before: undecided, read again
    run.observe(target, read_now(client))
    assert (target.stage, target.recheck) == (WAITING, True)
    client.clock.sleep(2)
    run.observe(target, read_now(client))  # the same again: an answer frozen in the past ends the wait
    assert target.failed and "not yet applied" in target.message


def test_a_transient_read_failure_waits_on_and_at_the_deadline_says_the_read_failed(tmp_path):
    client = FakeClient(server(players=0))
    run, target = engine(client, tmp_path, wait_timeout=10)
    run.decide(target, read_now(client))
    run.send(target)
    outage = PanelApiError("The panel answered 503.", status=503)
    outage.transient = True
    run.unread(target, outage)
    assert target.stage == WAITING and target.read_failure is outage
    client.clock.sleep(10)
    run.unread(target, outage)
    assert target.failed and target.error is outage and "The last read failed" in target.message


def test_a_followed_entry_whose_server_cannot_be_read_says_what_it_followed(tmp_path):
    client = FakeClient(server(players=0))
    run, target = engine(client, tmp_path)
    run.ledger.claim("mc-01", "restart", {"status": "online", "uptime_seconds": 86400})
    run, target = engine(client, tmp_path)  # a new run: it finds the open entry, which its read does not prove
    assert run.decide(target, read_now(client)) == decision.FOLLOW
    gone = PanelNotFoundError("No server mc-01.", status=404)
    run.unread(target, gone)
    assert target.failed and "was queued at" in target.message and "Nothing new was sent" in target.message


def test_a_draining_server_is_sent_once_its_players_leave_and_skipped_when_the_drain_runs_out():
    client = FakeClient(server(players=5))
    run, target = engine(client, max_players=0, drain_timeout=30)
    assert run.decide(target, read_now(client)) == decision.HELD and target.stage == DRAINING
    client.servers["mc-01"]["players"]["current"] = 0
    run.observe(target, read_now(client))
    assert (target.stage, client.posts[-1][1]) == (WAITING, "POST restart")
    client = FakeClient(server(players=5))
    run, target = engine(client, max_players=0, drain_timeout=30)
    run.decide(target, read_now(client))
    client.clock.sleep(30)
    run.observe(target, read_now(client))  # the read at the drain's end still shows the players
    assert client.posts == [] and "after waiting drain_timeout (30 s)" in target.skipped_reason


def test_check_mode_plans_and_says_it_changes_but_sends_and_writes_nothing(tmp_path):
    client = FakeClient(server(players=0))
    run, target = engine(client, tmp_path, check_mode=True)
    assert run.decide(target, read_now(client)) == decision.SEND
    assert (target.stage, target.changed) == (FINISHED, True)
    run.send_planned(target)
    assert client.posts == [] and run.ledger.entries("mc-01") == []


def test_the_last_read_settles_other_open_entries_it_proves(tmp_path):
    client = FakeClient(server(status="offline", players=0, uptime=0))
    run, target = engine(client, tmp_path, state="stopped")
    start, unused = run.ledger.claim("mc-01", "start", {"status": "offline"})
    run.ledger.mark(start, QUEUED)
    client.clock.sleep(1)
    run.decide(target, read_now(client))  # offline: nothing to stop; the start is not proven
    client.servers["mc-01"].update(status="online", uptime_seconds=1)
    target.take(read_now(client))  # a later read of the server, as a driver keeps it
    run.settle_last_reads()
    assert run.ledger.find("mc-01", "start")["state"] == DONE
