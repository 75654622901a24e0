# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The many-servers engine (server_control with ids) on a fake clock: decisions, schedule, exactly once."""

from __future__ import annotations

import pytest

from ansible_collections.gamepanel.panel.plugins.module_utils.control.one_server import ControlFailed
from ansible_collections.gamepanel.panel.plugins.module_utils.control.request import ControlRequest
from ansible_collections.gamepanel.panel.plugins.module_utils.api.errors import PanelAmbiguousError, PanelAuthError
from ansible_collections.gamepanel.panel.plugins.module_utils.fleet.many_servers import run_fleet_control
from ansible_collections.gamepanel.panel.plugins.module_utils.fleet.reads import pass_interval
from ansible_collections.gamepanel.panel.plugins.module_utils.state.ledger import Ledger
from ansible_collections.gamepanel.panel.plugins.module_utils.state.files import StateFiles

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
    return run_fleet_control(client, request, ids, ledger=ledger, check_mode=check_mode, diff=diff)


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


def test_a_read_older_than_max_read_age_is_read_again_before_the_next_action():
    client = fleet(4)
    # each POST takes 4 s (a slow plan's pace); a player joins srv-03 after 6 s
    client.on_post = lambda server_id, action: client.clock.sleep(4)
    client.later(6, "srv-03", players={"current": 5, "max": 20})
    result = run(client, max_read_age=10, max_players=0, wait=False)
    assert posted(client) == ["srv-00", "srv-01", "srv-02"]
    assert len(client.lists) == 2  # the page, and the page again before the fourth action
    assert "5 players online" in by_id(result)["srv-03"]["skipped_reason"]


def test_a_wait_is_judged_on_reads_so_a_long_sending_phase_fails_nobody():
    client = fleet(3)

    def slow_post(server_id, action):
        client.later(1, server_id, uptime_seconds=1)  # applied a second later
        client.clock.sleep(50)  # each answer takes 50 s: the first wait is long past its 30 s by the last POST

    client.on_post = slow_post
    result = run(client, wait_timeout=30)
    assert result["summary"]["converged"] == 3


def test_the_confirming_reads_cover_only_pages_still_waited_for():
    client = fleet(4)
    client.page_size = 2
    delays = {"srv-00": 1, "srv-01": 1, "srv-02": 1, "srv-03": 20}
    # uptimes a live panel shows: counting on until the restart, then from 0 again
    client.on_post = lambda server_id, action: client.live_uptime(server_id, restart_at=delays[server_id], horizon=60)
    run(client)
    pages_read = [when for when, what, unused_id in client.log if what == "LIST"]
    last_answer = client.posts[-1][0]
    # 2 pages to act, 2 pages in the first pass (it shows three restarts), then only the second
    # page until srv-03 shows: at the arriving pace for a poll_interval after those outcomes
    # (no closer than the two pages' share of the rate allows, then one a second), then backing off
    assert [round(when - last_answer, 2) for when in pages_read[2:]] == [5.0, 5.0, 7.0, 8.0, 9.0, 10.0, 17.5, 28.75]


def confirming_passes(client):
    """When each list read after the first came, in seconds after the last answer to a POST."""
    return [round(when - client.posts[-1][0], 2) for when, what, unused_id in client.log if what == "LIST"][1:]


def outcomes_spread(client):
    """Agents that take 6 to 20 s (2 s apart), each restart showing at once: outcomes arrive one by one."""
    return lambda server_id, action: client.live_uptime(server_id, restart_at=6 + 2 * int(server_id[4:]), horizon=30)


def boots_seen(client):
    """Every agent takes its restart after 8 s and boots until 20 s, as real agents do (all at once)."""

    def react(server_id, action):
        client.live_uptime(server_id, restart_at=8, horizon=30)
        client.later(8, server_id, status="starting")
        client.later(20, server_id, status="online")

    return react


@pytest.mark.parametrize("count, agents", [(8, outcomes_spread), (2, boots_seen)], ids=["outcomes", "on_their_way"])
def test_once_the_agents_are_at_work_the_passes_come_at_the_pace_the_rate_allows(count, agents):
    client = fleet(count)
    client.on_post = agents(client)
    result = run(client, rate_limit=600)
    assert result["summary"]["converged"] == count
    # backing off until a pass shows the first outcome or a server starting (at 12.5 s: the first
    # pass, 5 s after the last answer, saw nothing yet), then a pass a second until the last shows
    # at 20 s, where the backoff alone would have read next at 23.75 s
    assert confirming_passes(client) == [5.0, 12.5, 13.5, 14.5, 15.5, 16.5, 17.5, 18.5, 19.5, 20.5]


def test_a_server_whose_agent_never_acts_costs_a_poll_interval_of_quick_passes_then_the_backoff():
    client = fleet(2)
    # srv-00 restarts 3 s after its POST; srv-01's agent never takes its restart (its uptime runs on)
    client.on_post = lambda server_id, action: client.live_uptime(
        server_id, restart_at=3 if server_id == "srv-00" else None, horizon=200
    )
    with pytest.raises(ControlFailed) as failure:
        run(client, rate_limit=600, wait_timeout=60)
    assert failure.value.message.startswith("1 of 2 servers failed: srv-01: ")
    # srv-00 shows at 5 s; srv-01 is read a second apart for a poll_interval, then the backoff goes on
    assert confirming_passes(client)[:8] == [5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 17.5, 28.75]


def test_answers_spread_over_time_are_confirmed_by_one_pass_after_the_last():
    client = fleet(5)

    def slow_post(server_id, action):
        client.later(3, server_id, uptime_seconds=1)  # applied 3 s after its POST
        client.clock.sleep(1)  # the answers come a second apart

    client.on_post = slow_post
    result = run(client)
    assert result["summary"]["converged"] == 5
    pages_read = [when for when, what, unused_id in client.log if what == "LIST"]
    # the read to act, then one pass when the last answer is a poll_interval old: it shows them all
    assert len(pages_read) == 1 + 1
    assert pages_read[1] == pytest.approx(client.posts[-1][0] + 1 + 5.0)  # the last answer came 1 s after its POST


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


@pytest.mark.parametrize(
    "pages, rate_limit, poll, expected",
    [(1, 120, 5.0, 5.0), (100, 600, 5.0, 20.0), (10, 120, 5.0, 10.0), (100, 0, 5.0, 5.0)],
)
def test_confirming_passes_take_at_most_half_the_minute(pages, rate_limit, poll, expected):
    assert pass_interval(pages, rate_limit, poll) == pytest.approx(expected)


def late_lost_answer_beside_a_drain(client, then=None):
    """srv-01's players leave after 12 s, srv-00's after 40 s; srv-01's answer comes 9 s late and is lost.

    srv-00, still draining, is then due for a read of their shared page less than a poll_interval
    after srv-01's lost answer; ``then`` runs right after that answer.
    """
    client.servers["srv-00"]["players"] = {"current": 2, "max": 20}
    client.servers["srv-01"]["players"] = {"current": 2, "max": 20}
    client.later(12, "srv-01", players={"current": 0, "max": 20})
    client.later(40, "srv-00", players={"current": 0, "max": 20})
    lost = PanelAmbiguousError("The answer was lost.", what="POST /servers/srv-01/control")

    def post(server_id, action):
        client.post_error = lost if server_id == "srv-01" else None
        if server_id == "srv-01":
            client.clock.sleep(9)
            if then is not None:
                then()
        client.later(4, server_id, uptime_seconds=1)  # each agent acts 4 s after the answer

    client.on_post = post


def test_a_page_read_for_another_server_does_not_judge_a_lost_answer_before_its_agent_had_time():
    client = fleet(2)
    late_lost_answer_beside_a_drain(client)

    result = run(client, max_players=0, drain_timeout=120, wait=False)
    lines = by_id(result)
    assert posted(client) == ["srv-01", "srv-00"]
    # srv-00, still draining, was due for a read less than a poll_interval after srv-01's lost answer
    lost_answer = client.posts[0][0] + 9
    reads = [when for when, what, unused_id in client.log if what == "LIST"]
    assert any(lost_answer < when < lost_answer + 4 for when in reads)
    # that read was not taken as srv-01's outcome: a read after its agent's time shows the restart
    assert lines["srv-01"]["failed"] is False and lines["srv-01"]["changed"] is True
    assert lines["srv-00"]["failed"] is False and lines["srv-00"]["changed"] is True
    assert len(client.posts) == 2


def test_a_failed_page_read_fails_only_the_servers_it_was_made_for():
    client = fleet(2)
    refused = PanelAuthError("The panel refused the token (HTTP 401).", status=401)
    late_lost_answer_beside_a_drain(client, then=lambda: client.read_failures.append(refused))
    with pytest.raises(ControlFailed) as failure:
        run(client, max_players=0, drain_timeout=120, wait=False)
    lines = by_id(failure.value.result)
    # the read was srv-00's: srv-00 fails; srv-01 keeps its own schedule and a later read shows its restart
    assert failure.value.message.startswith("1 of 2 servers failed: srv-00: ")
    assert "refused the token" in lines["srv-00"]["msg"]
    assert lines["srv-01"]["failed"] is False and lines["srv-01"]["changed"] is True
    assert posted(client) == ["srv-01"]


def test_a_read_after_the_deadline_showing_the_old_uptime_by_coincidence_is_read_once_more():
    # srv-01 was up 10 s when read; its restart is confirmed only after a long sending phase, by a
    # read whose whole-second uptime happens to equal the old one (10 s up again since the restart).
    client = fleet(2, uptime=10)

    def slow_post(server_id, action):
        if server_id == "srv-01":
            client.live_uptime("srv-01", restart_at=3, horizon=60)  # 10 s up again at the first pass, 13 s later
        else:
            client.later(1, server_id, uptime_seconds=1)
        client.clock.sleep(8)

    client.on_post = slow_post
    result = run(client, wait_timeout=3, poll_interval=5)
    assert result["summary"]["converged"] == 2
    assert not by_id(result)["srv-01"]["failed"]
    pages_read = [when for when, what, unused_id in client.log if what == "LIST"]
    assert len(pages_read) == 1 + 2  # the read to act, the pass that could not tell, one more read
    assert pages_read[2] - pages_read[1] == pytest.approx(2.0)  # soon after: a live uptime has moved on


def test_an_uptime_frozen_at_the_old_value_still_ends_the_wait():
    # a panel answering the pre-restart uptime over and over (a cached answer) proves nothing: the
    # second such read after the deadline fails the server, saying the agent was not seen to act
    client = fleet(1, uptime=60)
    client.on_post = lambda server_id, action: client.clock.sleep(8)
    with pytest.raises(ControlFailed) as failure:
        run(client, wait_timeout=3, poll_interval=5)
    assert "queued, not yet applied" in failure.value.result["servers"][0]["msg"]
    assert len(client.lists) == 1 + 2
