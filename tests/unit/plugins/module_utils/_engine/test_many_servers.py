# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The many-servers engine (server_control with ids) on a fake clock: decisions, schedule, exactly once."""

from __future__ import annotations

import pytest

from ansible_collections.gamepanel.panel.plugins.module_utils._engine.result import ControlFailed
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.request import ControlRequest
from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import PanelAmbiguousError, PanelAuthError
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.many_servers import run_many_servers
from ansible_collections.gamepanel.panel.plugins.module_utils._state.ledger import Ledger
from ansible_collections.gamepanel.panel.plugins.module_utils._state.files import StateFiles

from panel_fakes import FakeClient, server  # pylint: disable=import-error

PANEL = "live https://panel.example.test/api/v1"


def fleet(count, **fields):
    defaults = dict(players=0, uptime=86400)
    defaults.update(fields)
    return FakeClient(*(server("srv-%02d" % number, "Server %d" % number, **defaults) for number in range(count)))


def ledger_for(client, directory):
    return Ledger(StateFiles("k" * 64, str(directory)), PANEL, client.clock)


def restart_applies(client, delay=3.0):
    """The agent applies a restart ``delay`` seconds after its POST: the uptime starts again."""

    def react(server_id, action):
        client.later(delay, server_id, uptime_seconds=1, status="online")

    client.on_post = react


def run(client, ids=None, state="restarted", ledger=None, check_mode=False, diff=False, **options):
    ids = list(client.servers) if ids is None else ids
    request = ControlRequest(state, ids=ids, **options)
    return run_many_servers(client, request, ids, ledger=ledger, check_mode=check_mode, diff=diff)


def posted(client):
    return [server_id for unused, what, server_id in client.posts]


def by_id(result):
    return dict((line["id"], line) for line in result["servers"])


def test_one_list_read_decides_sends_and_confirms_every_server(tmp_path):
    client = fleet(5)
    restart_applies(client)
    result = run(client, ledger=ledger_for(client, tmp_path))
    assert posted(client) == ["srv-%02d" % number for number in range(5)]
    assert len(client.lists) == 2  # the read the actions rest on, and one confirming read
    assert client.reads == []
    assert result["changed"] is True
    assert result["summary"] == dict(total=5, changed=5, unchanged=0, skipped=0, failed=0, converged=5, pending=0)
    assert all(line["converged"] and line["action"] == "restart" for line in result["servers"])
    # the first confirming read waits one poll_interval after the last answer
    assert client.lists[1][0] == pytest.approx(client.posts[-1][0] + 5.0)


def test_a_second_run_changes_nothing_and_sends_nothing(tmp_path):
    client = fleet(3)
    restart_applies(client)
    ledger = ledger_for(client, tmp_path)
    run(client, ledger=ledger, min_uptime=600)
    again = run(client, ledger=ledger, min_uptime=600)
    assert len(client.posts) == 3
    assert again["changed"] is False
    assert again["summary"]["unchanged"] == 3


def test_check_mode_sends_nothing_and_shows_a_diff_per_server(tmp_path):
    client = fleet(2)
    client.servers["srv-01"]["status"] = "online"
    result = run(client, state="stopped", ledger=ledger_for(client, tmp_path), check_mode=True, diff=True)
    assert client.posts == []
    assert result["changed"] is True
    assert [line["action"] for line in result["servers"]] == ["stop", "stop"]
    assert result["diff"][0] == dict(
        before={"status": "online"}, after={"status": "offline"}, before_header="srv-00", after_header="srv-00"
    )


def test_an_id_listed_twice_is_controlled_once_and_the_order_is_kept():
    client = fleet(3)
    restart_applies(client)
    result = run(client, ids=["srv-02", "srv-00", "srv-02"])
    assert posted(client) == ["srv-00", "srv-02"]  # the panel's order of pages
    assert [line["id"] for line in result["servers"]] == ["srv-02", "srv-00"]


def test_the_fleet_is_read_only_as_far_as_the_servers_asked_for():
    client = fleet(6)
    client.page_size = 2
    restart_applies(client)
    run(client, ids=["srv-00", "srv-03"])
    first_pass = [entry for entry in client.log if entry[1] == "LIST"][:2]
    assert len(first_pass) == 2
    # pages 1 and 2 (srv-00, srv-03) then the confirming reads of those two pages only: page 3 is never read
    assert len(client.lists) == 4


def test_a_busy_server_is_skipped_and_on_busy_fail_fails_the_task_naming_it():
    client = fleet(2)
    client.servers["srv-01"]["players"] = {"current": 4, "max": 20}
    restart_applies(client)
    result = run(client, max_players=0)
    assert posted(client) == ["srv-00"]
    assert "4 players online" in by_id(result)["srv-01"]["skipped_reason"]
    with pytest.raises(ControlFailed) as failure:
        run(client, max_players=0, on_busy="fail", min_uptime=600)
    assert failure.value.message.startswith("1 of 2 servers failed: srv-01: ")
    assert "on_busy=fail" in failure.value.message


def test_players_draining_are_waited_for_then_the_action_is_sent_on_a_fresh_read():
    client = fleet(2)
    client.servers["srv-01"]["players"] = {"current": 2, "max": 20}
    client.later(12, "srv-01", players={"current": 0, "max": 20})
    restart_applies(client)
    result = run(client, max_players=0, drain_timeout=60)
    assert posted(client) == ["srv-00", "srv-01"]
    sent_at = client.posts[1][0]
    assert 12 <= sent_at - 1000.0 <= 12 + 5.0 + 0.001
    assert result["summary"]["converged"] == 2


def test_an_agent_that_does_not_check_in_fails_its_server_only_and_the_rerun_sends_nothing(tmp_path):
    client = fleet(2)
    client.on_post = lambda server_id, action: (
        client.later(3, server_id, uptime_seconds=1) if server_id == "srv-00" else None
    )
    ledger = ledger_for(client, tmp_path)
    with pytest.raises(ControlFailed) as failure:
        run(client, ledger=ledger, wait_timeout=60)
    line = by_id(failure.value.result)["srv-01"]
    assert line["failed"] and line["changed"] and line["converged"] is False
    assert "queued, not yet applied" in line["msg"]
    assert by_id(failure.value.result)["srv-00"]["converged"] is True
    # the wait for srv-01 ended on the first read that started after its answer plus wait_timeout
    assert client.lists[-1][0] >= client.posts[1][0] + 60
    with pytest.raises(ControlFailed) as again:
        run(client, ids=["srv-01"], ledger=ledger, wait_timeout=30)
    assert posted(client) == ["srv-00", "srv-01"]  # the open restart of srv-01 is followed, never sent again
    assert "Nothing new was sent" in again.value.result["servers"][0]["msg"]
    # within min_uptime the queued restart counts as the restart: nothing to wait for
    counted = run(client, ids=["srv-01"], ledger=ledger, min_uptime=600)
    assert counted["changed"] is False and counted["servers"][0]["pending"]["state"] == "queued"


def test_a_lost_answer_is_never_sent_again_and_a_read_showing_the_restart_settles_it(tmp_path):
    client = fleet(1)
    restart_applies(client)
    client.post_error = PanelAmbiguousError("The answer was lost.", what="POST /servers/srv-00/control")
    ledger = ledger_for(client, tmp_path)
    result = run(client, ledger=ledger)
    assert len(client.posts) == 1
    assert result["servers"][0]["changed"] is True and result["servers"][0]["converged"] is True
    assert ledger.entries("srv-00")[0]["state"] == "done"


def test_a_lost_answer_without_wait_and_no_change_fails_saying_it_was_not_resent():
    client = fleet(1)
    client.post_error = PanelAmbiguousError("The answer was lost.", what="POST /servers/srv-00/control")
    with pytest.raises(ControlFailed) as failure:
        run(client, wait=False)
    assert "may already be queued" in failure.value.result["servers"][0]["msg"]
    assert len(client.posts) == 1


def test_an_unknown_id_fails_that_server_only():
    client = fleet(2)
    restart_applies(client)
    with pytest.raises(ControlFailed) as failure:
        run(client, ids=["srv-00", "ghost"])
    assert posted(client) == ["srv-00"]
    assert by_id(failure.value.result)["ghost"]["failed"] is True
    assert by_id(failure.value.result)["srv-00"]["converged"] is True
    assert failure.value.message.startswith("1 of 2 servers failed: ghost: ")


def test_a_refused_token_stops_the_sending_and_the_rest_is_reported_not_sent():
    client = fleet(3)
    client.post_error = PanelAuthError("The panel refused the token (HTTP 401).", status=401)
    with pytest.raises(ControlFailed) as failure:
        run(client)
    assert len(client.posts) == 1
    lines = by_id(failure.value.result)
    assert "refused the token" in lines["srv-00"]["msg"]
    assert lines["srv-01"]["msg"].startswith("Not sent: the task stopped before it came to this server")
    assert not any(line["changed"] for line in lines.values())


# -- refusals: the panel's own error answer to a POST ------------------------------------------------


def test_a_refused_server_is_put_back_and_sent_again_while_the_others_go_on(tmp_path):
    client = fleet(5)
    restart_applies(client)
    client.refusals = {"srv-01": 1, "srv-03": 2}  # the panel's own 503, Retry-After: 2
    ledger = ledger_for(client, tmp_path)
    result = run(client, ledger=ledger, min_uptime=600)
    # the first round goes through every server: a refusal holds up nobody behind it
    assert posted(client)[:5] == ["srv-00", "srv-01", "srv-02", "srv-03", "srv-04"]
    assert sorted(posted(client)[5:]) == ["srv-01", "srv-03", "srv-03"]
    times = [(when, server_id) for when, unused, server_id in client.posts]
    first_refusal = [when for when, server_id in times if server_id == "srv-03"]
    assert first_refusal[1] - first_refusal[0] >= 2.0 and first_refusal[2] - first_refusal[1] >= 2.0  # Retry-After
    assert all(client.hand_backs)  # refusals are handed back to the engine, never waited for by the client
    assert result["summary"]["converged"] == 5 and result["summary"]["failed"] == 0
    assert all(entry["state"] == "done" for server_id in client.servers for entry in ledger.entries(server_id))
    again = run(client, ledger=ledger, min_uptime=600)  # each restarted once: the re-run sends nothing
    assert again["changed"] is False and len(client.posts) == 8


def test_a_server_refused_past_retry_timeout_fails_alone_and_the_task_goes_on(tmp_path):
    client = fleet(4)
    restart_applies(client)
    client.retry_timeout = 5.0
    client.refusals = {"srv-01": 100}
    with pytest.raises(ControlFailed) as failure:
        run(client, ledger=ledger_for(client, tmp_path))
    lines = by_id(failure.value.result)
    assert [server_id for server_id, line in lines.items() if line["converged"]] == ["srv-00", "srv-02", "srv-03"]
    message = lines["srv-01"]["msg"]
    assert message.startswith("The panel refused POST /servers/srv-01/control (restart) with HTTP 503 (busy)")
    assert "nothing was queued" in message and "refused for retry_timeout=5 s while the task went on" in message
    assert (lines["srv-01"]["changed"], lines["srv-01"]["action"]) == (False, None)
    assert 3 <= posted(client).count("srv-01") <= 4  # sent again every 2 s for 5 s, then given up
    assert failure.value.message.startswith("1 of 4 servers failed: srv-01")


def test_a_panel_refusing_everything_past_retry_timeout_stops_the_task_and_says_so():
    client = fleet(3)
    client.retry_timeout = 5.0
    client.refusals = dict((server_id, 100) for server_id in client.servers)
    with pytest.raises(ControlFailed) as failure:
        run(client)
    lines = by_id(failure.value.result)
    said = [line["msg"] for line in lines.values()]
    assert any("the panel refused every action of the task for retry_timeout=5 s" in msg for msg in said), said
    assert all("nothing was queued" in msg for msg in said)
    assert not any(line["changed"] for line in lines.values())
    assert len(client.posts) <= 12  # every 2 s for 5 s, per server


def test_one_refusal_never_stops_the_task_with_a_canary(tmp_path):
    client = fleet(3)
    restart_applies(client)
    client.refusals = {"srv-00": 1}  # the canary itself is refused once
    result = run(client, ledger=ledger_for(client, tmp_path), canary=1)
    assert result["canary"]["ids"] == ["srv-00"] and result["canary"]["confirmed"] is True
    assert posted(client) == ["srv-00", "srv-00", "srv-01", "srv-02"]
    assert result["summary"]["converged"] == 3


def test_a_read_older_than_max_read_age_is_read_again_before_the_next_action():
    client = fleet(4)
    # each POST takes 4 s (a slow plan's pace); a player joins srv-03 after 6 s
    client.on_post = lambda server_id, action: client.clock.sleep(4)
    client.later(6, "srv-03", players={"current": 5, "max": 20})
    result = run(client, max_read_age=10, max_players=0, wait=False)
    assert posted(client) == ["srv-00", "srv-01", "srv-02"]
    assert len(client.lists) == 2  # the page, and the page again before the fourth action
    assert "5 players online" in by_id(result)["srv-03"]["skipped_reason"]


def test_an_open_entry_of_another_process_is_followed_not_sent(tmp_path):
    client = fleet(1)
    ledger = ledger_for(client, tmp_path)
    ledger.claim("srv-00", "restart", {"status": "online", "uptime_seconds": 86400})
    result = run(client, ledger=ledger, wait=False)
    assert client.posts == []
    assert result["servers"][0]["pending"]["state"] == "sending"
    assert "Nothing new was sent" in result["servers"][0]["msg"]


def test_a_problem_in_the_request_fails_before_any_request():
    client = fleet(1)
    with pytest.raises(ControlFailed) as failure:
        run(client, confirm_only=True)
    assert "confirm_only works on one server" in failure.value.message
    assert client.log == []


def test_the_ledger_marks_of_a_burst_and_of_a_pass_are_written_together_and_every_entry_ends_done(tmp_path):
    client = fleet(40)
    restart_applies(client)
    ledger = ledger_for(client, tmp_path)
    marks = []
    mark_many = ledger.mark_many
    ledger.mark_many = lambda entries, state: marks.append((state, len(entries))) or mark_many(entries, state)
    result = run(client, ledger=ledger)
    assert result["summary"]["converged"] == 40
    # one write of the 40 queued marks after the burst, one of the 40 done marks after the confirming pass
    assert marks == [("queued", 40), ("done", 40)]
    assert sorted(entry["state"] for entry in ledger.entries()) == ["done"] * 40
