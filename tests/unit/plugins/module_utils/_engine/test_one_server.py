# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""server_control's logic on a fake panel and a fake clock: no HTTP, no real sleeping."""

from __future__ import annotations

import pytest

from ansible_collections.gamepanel.panel.plugins.module_utils._engine.one_server import run_one_server
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.result import ControlFailed
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.convergence import TimedRead
from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import (
    PanelAmbiguousError,
    PanelApiError,
    PanelForbiddenError,
    PanelNotFoundError,
)

from panel_fakes import FakeClient, request, server

RESULT_KEYS = {
    "changed",
    "action",
    "unconfirmed",
    "before",
    "server",
    "converged",
    "elapsed",
    "skipped_reason",
    "pending",
    "api",
}  # pending: the ledger entry relied on


def run(client, state, check_mode=False, diff=False, **options):
    return run_one_server(client, request(state, **options), check_mode=check_mode, diff=diff)


def fail(client, state, **options):
    check_mode = options.pop("check_mode", False)
    with pytest.raises(ControlFailed) as caught:
        run(client, state, check_mode=check_mode, **options)
    return caught.value


# -- read before write ----------------------------------------------------------------------


def test_started_on_online_server_queues_nothing():
    client = FakeClient()
    result = run(client, "started")
    assert set(result) == RESULT_KEYS
    assert (result["changed"], result["action"], result["converged"], result["skipped_reason"]) == (
        False,
        None,
        None,
        None,
    )
    assert result["before"]["status"] == "online" and result["server"] == result["before"]
    assert client.posts == []


@pytest.mark.parametrize("status", ["offline", "stopped", "crashed", "installing", None])
def test_started_on_any_other_status_queues_a_start(status):
    client = FakeClient(server(status=status, players=0, uptime=0))
    client.agent_applies_after(30, (0, {"status": "online", "uptime_seconds": 1}))
    result = run(client, "started")
    assert (result["changed"], result["action"], result["converged"]) == (True, "start", True)
    assert result["before"]["status"] == status  # the raw value, unknown or not
    assert result["server"]["status"] == "online"
    assert [entry[1] for entry in client.posts] == ["POST start"]


@pytest.mark.parametrize("status", ["offline", "stopped"])
def test_stopped_on_a_stopped_status_queues_nothing(status):
    client = FakeClient(server(status=status, players=0, uptime=0))
    result = run(client, "stopped")
    assert (result["changed"], result["action"]) == (False, None)
    assert client.posts == []


def test_stopped_statuses_are_configurable():
    client = FakeClient(server(status="halted", players=0))
    assert run(client, "stopped", stopped_statuses=["halted"])["changed"] is False
    result = run(client, "stopped", stopped_statuses=["offline"], wait=False)
    assert result["action"] == "stop"


@pytest.mark.parametrize("status", ["online", "crashed", "installing", "starting"])
def test_stopped_on_any_other_status_queues_a_stop(status):
    client = FakeClient(server(status=status, players=0))
    client.agent_applies_after(10, (0, {"status": "stopping"}), (5, {"status": "offline", "uptime_seconds": 0}))
    result = run(client, "stopped")
    assert (result["changed"], result["action"], result["converged"]) == (True, "stop", True)
    assert result["server"]["status"] == "offline"
    assert len(client.posts) == 1


def test_stop_converges_on_any_stopped_status():
    client = FakeClient(server(players=0))
    client.agent_applies_after(10, (0, {"status": "stopped"}))
    assert run(client, "stopped")["server"]["status"] == "stopped"


# -- restart --------------------------------------------------------------------------------


def test_restarted_always_restarts_without_min_uptime():
    client = FakeClient(server(uptime=5))
    client.agent_applies_after(20, (0, {"status": "restarting"}), (10, {"status": "online", "uptime_seconds": 2}))
    result = run(client, "restarted")
    assert (result["changed"], result["action"], result["converged"]) == (True, "restart", True)
    assert result["server"]["uptime_seconds"] == 2


def test_fast_restart_that_never_leaves_online_is_seen_by_the_uptime_drop():
    client = FakeClient()
    client.agent_applies_after(40, (0, {"uptime_seconds": 0}))
    result = run(client, "restarted")
    assert result["converged"] is True
    assert result["server"]["status"] == "online" and result["server"]["uptime_seconds"] == 0
    assert client.clock.now - 1000.0 >= 40


def test_stale_online_reads_do_not_end_the_wait():
    client = FakeClient()
    # A slow agent: for 100 s every read still shows the old uptime, growing as a live
    # panel's does (second by second: a value lagging 10 s behind would look like a reset).
    for second in range(0, 100):
        client.later(second, uptime_seconds=86400 + second)
    client.agent_applies_after(100, (0, {"uptime_seconds": 3}))
    result = run(client, "restarted")
    assert result["converged"] is True
    assert result["server"]["uptime_seconds"] == 3
    assert client.clock.now - 1000.0 >= 100
    assert len(client.reads) > 3  # it read the stale server several times and kept waiting


# -- restart detection: the uptime reset is judged against the uptime without a restart -----


def restarted_between_polls(restart_after_post, poll_interval=10, uptime=3, boot=None):
    """A server up ``uptime`` s whose restart completes ``restart_after_post`` s after the POST."""
    client = FakeClient(server(uptime=uptime))
    client.live_uptime(restart_at=restart_after_post)
    if boot is not None:  # status leaves online for `boot` seconds before the uptime restarts
        client.later(restart_after_post - boot, status="restarting")
        client.later(restart_after_post, status="online")
    result = run(client, "restarted", poll_interval=poll_interval, wait_timeout=120)
    return client, result


def test_brief_uptime_restarted_between_two_polls_is_seen_at_the_first_poll():
    # The defect: 3 s of uptime, a fast restart 2 s after queueing, first poll 10 s later.
    # That poll shows 8 s of uptime, more than the 3 s read before, yet 13 s would show
    # without a restart.
    client, result = restarted_between_polls(restart_after_post=2)
    assert (result["converged"], result["server"]["status"]) == (True, "online")
    assert result["server"]["uptime_seconds"] > result["before"]["uptime_seconds"]
    assert len(client.reads) == 2 and len(client.posts) == 1  # the read before, one poll
    assert client.clock.now - 1000.0 == pytest.approx(10)


def test_boot_shorter_than_the_poll_interval_is_seen():
    client, result = restarted_between_polls(restart_after_post=6, boot=2)  # restarting from 4 s to 6 s
    assert result["converged"] is True and len(client.reads) == 2


def test_restart_applied_just_after_queueing_is_seen():
    client, result = restarted_between_polls(restart_after_post=0.25)
    assert result["converged"] is True and len(client.reads) == 2


def test_slow_polls_see_a_restart_long_past():
    client, result = restarted_between_polls(restart_after_post=5, poll_interval=30)
    assert result["server"]["uptime_seconds"] == 25
    assert result["converged"] is True and len(client.reads) == 2


def test_live_uptime_without_a_restart_never_counts_and_the_wait_says_queued():
    client = FakeClient(server(uptime=3))
    client.live_uptime()  # the agent never checks in: the uptime just grows
    failure = fail(client, "restarted", poll_interval=10, wait_timeout=120)
    assert "queued, not yet applied" in failure.message
    assert len(client.reads) >= 5 and len(client.posts) == 1


def test_a_read_showing_the_uptime_read_before_queueing_is_not_a_reset():
    # A cached copy of the pre-restart state repeats the old uptime: it proves nothing.
    client = FakeClient(server(uptime=3))
    client.agent_applies_after(40, (0, {"uptime_seconds": 0}))
    result = run(client, "restarted", poll_interval=10)
    assert result["converged"] is True
    assert client.clock.now - 1000.0 >= 40  # the identical reads before 40 s did not end the wait


def test_the_last_read_of_a_wait_showing_the_old_uptime_by_coincidence_is_not_the_last():
    # up 3 s when read; restarted 17 s after the POST, so the read at the 20 s deadline shows 3 s
    # again: that read cannot tell, one more (2 s later) shows the restart
    client = FakeClient(server(uptime=3))
    client.live_uptime(restart_at=17)
    result = run(client, "restarted", poll_interval=10, wait_timeout=20)
    assert result["converged"] is True and result["server"]["uptime_seconds"] == 5
    assert [round(when - 1000.0) for when, what, unused in client.reads] == [0, 10, 20, 22]


def test_a_wait_ends_on_the_second_read_showing_the_old_uptime():
    client = FakeClient(server(uptime=3))  # a frozen answer: the old uptime, read after read
    failure = fail(client, "restarted", poll_interval=10, wait_timeout=20)
    assert "queued, not yet applied" in failure.message
    # the read at 10 s could not tell; the one at 20 s, the same again, is a frozen answer
    assert [round(when - 1000.0) for when, what, unused in client.reads] == [0, 10, 20]


def test_restart_converges_after_going_down_even_without_uptime():
    client = FakeClient(server(uptime=None))
    client.agent_applies_after(10, (0, {"status": "restarting"}), (10, {"status": "online"}))
    result = run(client, "restarted")
    assert result["converged"] is True


def test_restart_of_an_offline_server_converges_on_online():
    client = FakeClient(server(status="offline", players=0, uptime=0))
    client.agent_applies_after(10, (0, {"status": "online", "uptime_seconds": 1}))
    result = run(client, "restarted", min_uptime=600)  # an offline server's uptime 0 is not a recent restart
    assert (result["action"], result["converged"]) == ("restart", True)


def test_every_wait_read_comes_after_the_post():
    client = FakeClient()
    client.agent_applies_after(12, (0, {"uptime_seconds": 0}))
    run(client, "restarted", poll_interval=2)
    post_time = client.posts[0][0]
    reads_after = [entry for entry in client.log if entry[0] > post_time]
    assert reads_after and all(entry[1] == "GET" for entry in reads_after)
    assert client.log[-1][0] >= post_time + 2


def test_restart_with_uptime_at_min_uptime_restarts():
    client = FakeClient(server(uptime=600))
    client.agent_applies_after(5, (0, {"uptime_seconds": 0}))
    assert run(client, "restarted", min_uptime=600)["action"] == "restart"


def test_min_uptime_counts_a_recently_started_server_as_restarted():
    client = FakeClient(server(uptime=120))
    result = run(client, "restarted", min_uptime=600)
    assert (result["changed"], result["action"], result["converged"]) == (False, None, None)
    assert client.posts == []


def test_min_uptime_rerun_after_a_restart_restarts_nobody_twice():
    client = FakeClient()
    client.agent_applies_after(10, (0, {"uptime_seconds": 0}))
    assert run(client, "restarted", min_uptime=3600)["changed"] is True
    assert run(client, "restarted", min_uptime=3600)["changed"] is False
    assert len(client.posts) == 1


# -- wait runs out --------------------------------------------------------------------------


def test_wait_that_runs_out_says_queued_not_applied_and_never_requeues():
    client = FakeClient()  # the agent never checks in
    failure = fail(client, "restarted", wait_timeout=60)
    assert "queued, not yet applied: the agent has not checked in" in failure.message
    assert "Survival (mc-01)" in failure.message
    assert failure.result["changed"] is True
    assert failure.result["action"] == "restart"
    assert failure.result["converged"] is False
    assert len(client.posts) == 1
    assert failure.result["elapsed"] == pytest.approx(60, abs=0.01)
    assert client.clock.now == pytest.approx(1060)  # never sleeps past the deadline


def test_wait_that_runs_out_after_a_move_says_what_was_seen():
    client = FakeClient(server(players=0))
    client.agent_applies_after(5, (0, {"status": "stopping"}))
    failure = fail(client, "stopped", wait_timeout=30)
    assert "moved from status online to stopping" in failure.message
    assert "Last status seen: stopping" in failure.message
    assert "a stopped status (offline, stopped)" in failure.message
    assert failure.result["server"]["status"] == "stopping"
    assert failure.result["changed"] is True and len(client.posts) == 1


def test_read_error_during_the_wait_fails_without_requeueing():
    client = FakeClient()
    client.read_error_after = 2
    failure = fail(client, "restarted")
    assert "reading the server back failed" in failure.message
    assert "did not send it again" in failure.message
    assert failure.result["changed"] is True
    assert isinstance(failure.error, PanelApiError)
    assert len(client.posts) == 1


def test_without_wait_nothing_is_read_after_the_post():
    client = FakeClient()
    result = run(client, "restarted", wait=False)
    assert (result["changed"], result["action"], result["converged"]) == (True, "restart", None)
    assert client.log[-1][1] == "POST restart"


def test_reads_slow_down_as_the_wait_grows():
    client = FakeClient()
    fail(client, "restarted", wait_timeout=300, poll_interval=5, rate_limit=120)
    # the follow-up's pace (_engine/follow_up.py, tested there): poll_interval plus a share of the time waited
    assert [round(sleep, 3) for sleep in client.clock.sleeps[:4]] == [5, 5.2, 5.408, 5.624]
    assert len(client.reads) < 35  # a 300 s wait costs fewer requests than one a poll_interval (60)


# -- player gates ---------------------------------------------------------------------------


def test_busy_server_is_skipped():
    client = FakeClient(server(players=3))
    result = run(client, "restarted", max_players=0)
    assert (result["changed"], result["action"]) == (False, None)
    assert "3 players online, more than max_players (0)" in result["skipped_reason"]
    assert client.posts == []


def test_busy_server_fails_with_on_busy_fail():
    client = FakeClient(server(players=3))
    failure = fail(client, "stopped", max_players=2, on_busy="fail")
    assert "3 players online" in failure.message and "on_busy=fail" in failure.message
    assert failure.result["changed"] is False
    assert client.posts == []


def test_server_within_max_players_is_restarted():
    client = FakeClient(server(players=2))
    client.agent_applies_after(5, (0, {"uptime_seconds": 0}))
    assert run(client, "restarted", max_players=2)["action"] == "restart"


def test_drain_waits_until_players_leave_then_queues():
    client = FakeClient(server(players=3))
    client.later(45, players={"current": 0, "max": 20})
    client.agent_applies_after(5, (0, {"uptime_seconds": 0}))
    result = run(client, "restarted", max_players=0, drain_timeout=120)
    assert (result["changed"], result["action"], result["converged"]) == (True, "restart", True)
    assert client.posts[0][0] >= 1045  # queued only once the players had left


def test_drain_that_runs_out_skips_with_the_reason():
    client = FakeClient(server(players=3))
    result = run(client, "stopped", max_players=0, drain_timeout=60)
    assert result["changed"] is False
    assert "after waiting drain_timeout (60 s)" in result["skipped_reason"]
    assert client.clock.now == pytest.approx(1060)
    assert client.posts == []


def test_drain_that_runs_out_fails_with_on_busy_fail():
    client = FakeClient(server(players=3))
    failure = fail(client, "stopped", max_players=0, drain_timeout=30, on_busy="fail")
    assert "after waiting drain_timeout (30 s)" in failure.message
    assert client.posts == []


def test_server_that_stops_on_its_own_during_the_drain_needs_nothing():
    client = FakeClient(server(players=3))
    client.later(20, status="offline", players={"current": 0, "max": 20})
    result = run(client, "stopped", max_players=0, drain_timeout=120)
    assert (result["changed"], result["skipped_reason"]) == (False, None)
    assert client.posts == []


def test_unknown_player_count_counts_as_busy():
    client = FakeClient(server(players=None))
    result = run(client, "restarted", max_players=5)
    assert "reports no player count" in result["skipped_reason"]


def test_player_gate_does_not_apply_to_start_or_to_a_stopped_server():
    client = FakeClient(server(status="offline", players=4))
    client.agent_applies_after(5, (0, {"status": "online"}))
    assert run(client, "started", max_players=0)["action"] == "start"
    client = FakeClient(server(status="offline", players=4, uptime=0))
    client.agent_applies_after(5, (0, {"status": "online"}))
    assert run(client, "restarted", max_players=0)["action"] == "restart"


# -- status gate (only_if_status) ----------------------------------------------------------


@pytest.mark.parametrize("status", ["offline", "stopped", "starting", "maintenance", "brand-new-status"])
def test_restart_only_if_online_leaves_any_other_status_alone(status):
    client = FakeClient(server(status=status, players=0, uptime=0))
    result = run(client, "restarted", only_if_status=["online"])
    assert (result["changed"], result["action"], result["converged"]) == (False, None, None)
    assert result["skipped_reason"] == (
        "Survival (mc-01) has status %s, not one of only_if_status (online): no restart sent." % status
    )
    assert client.posts == []


def test_restart_only_if_online_restarts_an_online_server():
    client = FakeClient(server())
    client.agent_applies_after(5, (0, {"uptime_seconds": 0}))
    result = run(client, "restarted", only_if_status=["online"])
    assert (result["changed"], result["action"], result["converged"], result["skipped_reason"]) == (
        True,
        "restart",
        True,
        None,
    )


def test_a_server_already_in_the_state_is_unchanged_not_skipped():
    client = FakeClient(server(status="online"))
    result = run(client, "started", only_if_status=["offline", "stopped"])
    assert (result["changed"], result["skipped_reason"]) == (False, None)


def test_start_only_from_a_stopped_status_leaves_maintenance_alone():
    client = FakeClient(server(status="maintenance", players=0))
    result = run(client, "started", only_if_status=["offline", "stopped"])
    assert result["changed"] is False and "has status maintenance" in result["skipped_reason"]
    assert client.posts == []


def test_check_mode_applies_the_status_gate():
    client = FakeClient(server(status="offline", players=0))
    result = run(client, "restarted", check_mode=True, only_if_status=["online"])
    assert (result["changed"], result["action"]) == (False, None)
    assert "not one of only_if_status" in result["skipped_reason"]


def test_a_server_stopped_while_players_drain_is_not_started():
    client = FakeClient(server(players=3))
    client.later(30, status="offline", players={"current": 0, "max": 20}, uptime_seconds=0)
    result = run(client, "restarted", only_if_status=["online"], max_players=0, drain_timeout=300)
    assert (result["changed"], result["action"]) == (False, None)
    assert "has status offline, not one of only_if_status (online)" in result["skipped_reason"]
    assert client.posts == []
    assert client.clock.now < 1000 + 300  # the drain ended when the status changed, not at drain_timeout


def test_without_only_if_status_a_server_stopped_while_draining_is_restarted():
    """The documented default: state=restarted starts a server that is not online."""
    client = FakeClient(server(players=3))
    client.later(30, status="offline", players={"current": 0, "max": 20}, uptime_seconds=0)
    client.agent_applies_after(5, (0, {"status": "online"}))
    assert run(client, "restarted", max_players=0, drain_timeout=300)["action"] == "restart"


def test_an_empty_only_if_status_is_refused_before_any_request():
    client = FakeClient()
    failure = fail(client, "restarted", only_if_status=[])
    assert "only_if_status must name at least one status" in failure.message
    assert client.log == []


# -- check mode and diff --------------------------------------------------------------------


@pytest.mark.parametrize(
    "state, status, action",
    [
        ("started", "offline", "start"),
        ("stopped", "online", "stop"),
        ("restarted", "online", "restart"),
        ("started", "online", None),
        ("stopped", "offline", None),
    ],
)
def test_check_mode_predicts_and_sends_nothing(state, status, action):
    client = FakeClient(server(status=status, players=0))
    result = run(client, state, check_mode=True)
    assert (result["changed"], result["action"], result["converged"]) == (action is not None, action, None)
    assert client.posts == []
    assert [entry[1] for entry in client.log] == ["GET"]


def test_check_mode_does_not_wait_for_a_drain():
    client = FakeClient(server(players=3))
    result = run(client, "restarted", check_mode=True, max_players=0, drain_timeout=600)
    assert result["changed"] is False
    assert "Check mode does not wait drain_timeout" in result["skipped_reason"]
    assert client.clock.now == 1000.0


def test_diff_shows_status_before_and_expected_after():
    client = FakeClient(server(status="crashed", players=0))
    result = run(client, "stopped", check_mode=True, diff=True)
    assert result["diff"] == {"before": {"status": "crashed"}, "after": {"status": "offline"}}
    result = run(client, "started", check_mode=True, diff=True)
    assert result["diff"] == {"before": {"status": "crashed"}, "after": {"status": "online"}}


def test_diff_after_a_converged_wait_shows_the_status_reached():
    client = FakeClient(server(players=0))
    client.agent_applies_after(5, (0, {"status": "stopped"}))
    result = run(client, "stopped", diff=True)
    assert result["diff"] == {"before": {"status": "online"}, "after": {"status": "stopped"}}


def test_diff_without_change_is_equal():
    result = run(FakeClient(), "started", diff=True)
    assert result["diff"]["before"] == result["diff"]["after"] == {"status": "online"}


# -- planned variant ------------------------------------------------------------------------


def test_planned_variant_restarts():
    client = FakeClient(variant="planned")
    client.agent_applies_after(5, (0, {"uptime_seconds": 0}))
    result = run(client, "restarted", api_variant="planned")
    assert result["action"] == "restart"
    assert [entry[1] for entry in client.posts] == ["POST restart"]


@pytest.mark.parametrize("state, action", [("started", "start"), ("stopped", "stop")])
def test_planned_variant_refuses_start_and_stop_before_any_request(state, action):
    client = FakeClient(variant="planned")
    failure = fail(client, state, api_variant="planned")
    assert "planned API variant (api_variant=planned) has no %s action" % action in failure.message
    assert failure.result["changed"] is False
    assert client.log == []


# -- ambiguous POST -------------------------------------------------------------------------


def ambiguous():
    return PanelAmbiguousError("The connection closed before the panel answered the POST.", server_id="mc-01")


def test_ambiguous_post_that_converges_succeeds_without_resending():
    client = FakeClient()
    client.post_error = ambiguous()
    client.agent_applies_after(10, (0, {"uptime_seconds": 0}))
    result = run(client, "restarted")
    assert (result["changed"], result["converged"], result["action"]) == (True, True, "restart")
    assert len(client.posts) == 1


def test_ambiguous_post_that_never_shows_fails_without_resending():
    client = FakeClient()
    client.post_error = ambiguous()
    failure = fail(client, "restarted", wait_timeout=30)
    assert "may already be queued, not confirmed" in failure.message and "It was not sent again" in failure.message
    assert failure.result["changed"] is True
    assert failure.error is client.post_error
    assert len(client.posts) == 1


def test_a_failure_says_its_message_once_the_result_holds_no_msg_of_its_own():
    # the task's failure message is the failure's: a "msg" in the result too would clash with it
    failure = fail(FakeClient(), "restarted", wait_timeout=30)
    assert "not yet applied" in failure.message and "msg" not in failure.result


def test_ambiguous_post_without_wait_reads_back_once():
    client = FakeClient(server(status="offline", players=0, uptime=0))
    client.post_error = ambiguous()
    client.on_post = lambda server_id, action: client.servers[server_id].update(status="starting")
    result = run(client, "started", wait=False)
    assert (result["changed"], result["server"]["status"]) == (True, "starting")
    assert [entry[1] for entry in client.log] == ["GET", "POST start", "GET"]


def test_ambiguous_post_without_wait_and_no_sign_fails():
    client = FakeClient()
    client.post_error = ambiguous()
    failure = fail(client, "restarted", wait=False)
    assert "may already be queued" in failure.message
    assert failure.result["changed"] is True
    assert len(client.posts) == 1


def test_refused_post_reports_no_change():
    client = FakeClient()
    client.post_error = PanelForbiddenError(
        "The token's user is a member; controlling servers needs owner or admin.", status=403
    )
    failure = fail(client, "restarted")
    assert "member" in failure.message
    assert (failure.result["changed"], failure.result["action"]) == (False, None)
    assert failure.error is client.post_error


# -- selecting the server -------------------------------------------------------------------


def test_select_by_exact_name():
    client = FakeClient(server(), server("mc-02", "Creative"))
    result = run(client, "started", server_id=None, name="Creative")
    assert result["before"]["id"] == "mc-02"


def test_name_matching_several_servers_lists_them():
    client = FakeClient(server("a-1", "Lobby"), server("b-2", "Lobby"), server("c-3", "Other"))
    failure = fail(client, "started", server_id=None, name="Lobby")
    assert "2 servers are named 'Lobby': Lobby (a-1), Lobby (b-2)" in failure.message
    assert client.posts == []


def test_name_matching_nothing_lists_candidates():
    client = FakeClient(server(), server("mc-02", "Creative"))
    failure = fail(client, "started", server_id=None, name="Nope")
    assert "No server is named exactly 'Nope'" in failure.message
    assert "Survival (mc-01), Creative (mc-02)" in failure.message


def test_name_matching_nothing_prefers_similar_names():
    client = FakeClient(server(), server("mc-02", "Creative"))
    failure = fail(client, "started", server_id=None, name="survival")
    assert "Similar names: Survival (mc-01)." in failure.message


def test_name_is_not_a_pattern():
    client = FakeClient(server("a-1", "Lobby*"), server("b-2", "Lobby 2"))
    assert run(client, "started", server_id=None, name="Lobby*")["before"]["id"] == "a-1"


def test_listed_server_without_id_cannot_be_controlled():
    client = FakeClient(server(server_id=None, name="Ghost"))
    client.servers = {"x": server(server_id=None, name="Ghost")}
    failure = fail(client, "restarted", server_id=None, name="Ghost")
    assert "without an id" in failure.message
    assert client.posts == []


def test_unknown_id_fails_with_the_panel_message():
    failure = fail(FakeClient(), "started", server_id="nope")
    assert isinstance(failure.error, PanelNotFoundError)
    assert "No server with id nope." in failure.message
    assert failure.result["changed"] is False and failure.result["before"] is None


# -- validation and results -----------------------------------------------------------------


def test_invalid_options_fail_before_any_request():
    client = FakeClient()
    failure = fail(client, "restarted", poll_interval=0, max_players=-1)
    assert "poll_interval must be more than 0 seconds." in failure.message
    assert "max_players must not be negative." in failure.message
    assert client.log == []


def test_result_reports_api_stats_and_elapsed_on_the_injected_clock():
    client = FakeClient()
    client.agent_applies_after(20, (0, {"uptime_seconds": 0}))
    result = run(client, "restarted")
    assert result["api"] == client.stats and result["api"]["requests"] == len(client.log)
    assert result["elapsed"] == pytest.approx(client.clock.now - 1000.0, abs=0.001)  # rounded to the millisecond


# -- shared status reads --------------------------------------------------------------------


class RecordingStatusReads:
    """Answers wait reads like SharedStatusReads would, recording each ``not_before``."""

    def __init__(self, client):
        self.client = client
        self.asked = []

    def read(self, server_id, not_before):
        self.asked.append(not_before)
        view = self.client.clock.time()
        return TimedRead(self.client.get_server(server_id), view)


def test_wait_reads_go_through_shared_reads_never_older_than_the_post():
    client = FakeClient()
    client.agent_applies_after(10, (0, {"uptime_seconds": 0}))
    reads = RecordingStatusReads(client)
    result = run_one_server(client, request("restarted"), status_reads=reads)
    assert result["converged"] is True
    post_answered = client.clock.monotonic() - (client.clock.now - client.posts[0][0])  # monotonic, as every wait time
    assert reads.asked[0] == pytest.approx(post_answered)
    assert all(later > earlier for earlier, later in zip(reads.asked, reads.asked[1:]))
    assert len(reads.asked) == len(client.reads) - 1  # every read after the POST, not the one before it


def test_check_mode_and_no_wait_make_no_shared_reads():
    client = FakeClient()
    reads = RecordingStatusReads(client)
    run_one_server(client, request("restarted"), check_mode=True, status_reads=reads)
    run_one_server(client, request("restarted", wait=False), status_reads=reads)
    assert reads.asked == []
