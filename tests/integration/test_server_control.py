# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""gamepanel.panel.server_control run by ansible-playbook against the emulator.

The emulator's counters are the evidence of what reached the panel.  Nothing here sleeps
and hopes: a wait that must not end is held open by an agent that never checks in on its
own (a huge check-in interval, or a disconnected agent), and the test itself decides when
the agent acts, once the module was seen polling.
"""

from __future__ import annotations

import pytest

from background import Background, wait_for_counters

CONTROL = "server_control/control.yml"
QUEUED_MESSAGE = "queued, not yet applied: the agent has not checked in"
NEVER = 3600.0  # a check-in interval that means "not during this test"


def posts(counters, server_id):
    return counters["posts"].get(server_id, 0)


def requests_of(counters, route, token="owner-control"):
    return counters["requests"].get(token, {}).get(route, 0)


def registered(ansible, playbook, **kwargs):
    """Run a playbook of ours; returns what its last task, "Registered", hands over.

    The stdout callback replaces a result's "action" with the task's module name, so
    the playbooks pass their registered results on through a debug task instead.
    """
    run = ansible.playbook(playbook, **kwargs)
    assert run.rc == 0, run.describe()
    return run.result("Registered")["msg"]


def control(ansible, **options):
    """Run the one-task playbook with ``sc_<option>`` extra vars; returns the task's result."""
    run_options = {key: options.pop(key) for key in ("token", "variant", "check", "diff", "env") if key in options}
    extra_vars = {"sc_" + key: value for key, value in options.items()}
    return registered(ansible, CONTROL, extra_vars=extra_vars, **run_options)["control"]


# -- the four steps ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "server_id, desired_state, extra",
    [
        ("mc-03", "started", {}),
        ("mc-02", "stopped", {}),
        ("mc-02", "restarted", {"min_uptime": 600}),
    ],
    ids=["started", "stopped", "restarted"],
)
def test_four_steps(ansible, emulator, server_id, desired_state, extra):
    action = {"started": "start", "stopped": "stop", "restarted": "restart"}[desired_state]
    extra_vars = dict(control_url=emulator.control_url, server_id=server_id, desired_state=desired_state, **extra)
    steps = registered(ansible, "server_control/four_steps.yml", extra_vars=extra_vars, diff=True)

    check = steps["check_before"]
    assert (check["changed"], check["action"], check["converged"]) == (True, action, None)
    assert check["server"]["status"] == check["before"]["status"]
    assert check["diff"]["before"]["status"] == check["before"]["status"]
    assert (
        check["diff"]["after"]["status"]
        == {"started": "online", "stopped": "offline", "restarted": "online"}[desired_state]
    )
    assert posts(steps["counters_after_check"], server_id) == 0

    apply = steps["apply"]
    assert (apply["changed"], apply["action"], apply["converged"], apply["skipped_reason"]) == (
        True,
        action,
        True,
        None,
    )
    assert apply["diff"]["after"]["status"] == apply["server"]["status"]
    assert apply["api"]["requests"] >= 3  # read, POST, at least one read back
    assert posts(steps["counters_after_apply"], server_id) == 1
    assert steps["counters_after_apply"]["actions_applied"][server_id] == 1

    for again in (steps["apply_again"], steps["check_after"]):
        assert (again["changed"], again["action"], again["converged"]) == (False, None, None)
    counters = emulator.control.counters()
    assert posts(counters, server_id) == 1  # steps 3 and 4 sent nothing
    assert counters["actions_applied"][server_id] == 1
    if desired_state == "restarted":
        assert counters["restarts"][server_id] == 1


# -- restart detection ---------------------------------------------------------------------


def test_fast_restart_is_seen_by_the_uptime_reset(ansible, emulator):
    emulator.control.settings(fast_restart=True)
    result = control(ansible, id="mc-01", state="restarted")
    assert (result["changed"], result["converged"]) == (True, True)
    assert result["server"]["status"] == "online"  # it never left online
    assert result["server"]["uptime_seconds"] < result["before"]["uptime_seconds"]
    assert emulator.control.counters()["restarts"]["mc-01"] == 1


def test_stale_online_reads_from_a_slow_agent_do_not_end_the_wait(ansible, emulator):
    emulator.control.set_server("mc-01", checkin_interval=NEVER, checkin_jitter=0)
    background = Background(lambda: control(ansible, id="mc-01", state="restarted"))
    # The module queued the restart and has read the stale "online" server several times since.
    route = "live GET /servers/{id}"
    wait_for_counters(emulator, lambda counters: posts(counters, "mc-01") == 1 and requests_of(counters, route) >= 4)
    assert background.thread.is_alive(), "the wait ended on a stale online read"
    assert emulator.control.counters()["actions_applied"].get("mc-01", 0) == 0
    emulator.control.checkin("mc-01")  # now the agent picks the restart up
    result = background.join()
    assert (result["changed"], result["converged"]) == (True, True)
    assert result["server"]["uptime_seconds"] < result["before"]["uptime_seconds"]
    counters = emulator.control.counters()
    assert (posts(counters, "mc-01"), counters["restarts"]["mc-01"]) == (1, 1)


def test_restart_of_a_server_up_briefly_completing_between_polls_is_confirmed(ansible, emulator):
    # Up 3 s, an agent that acts only when the test says so, a fast restart (status stays
    # online), first poll 10 s after queueing.  The restart is applied as soon as the POST
    # is seen, so that poll shows an uptime above the 3 s read before, but well below the
    # 13 s the server would show without a restart.
    emulator.control.set_server("mc-02", uptime_seconds=3, fast_restart=True, checkin_interval=NEVER, checkin_jitter=0)
    background = Background(
        lambda: control(ansible, id="mc-02", state="restarted", poll_interval=10, wait_timeout=25, expect_failure=True)
    )
    wait_for_counters(emulator, lambda counters: posts(counters, "mc-02") == 1)
    emulator.control.checkin("mc-02")
    result = background.join()
    assert result.get("failed") is not True, result.get("msg")
    assert (result["changed"], result["converged"]) == (True, True)
    assert result["server"]["uptime_seconds"] > result["before"]["uptime_seconds"]  # the old rule's blind spot
    counters = emulator.control.counters()
    assert (posts(counters, "mc-02"), counters["restarts"]["mc-02"]) == (1, 1)


def test_disconnected_agent_fails_the_wait_and_the_restart_runs_once_on_reconnect(ansible, emulator):
    emulator.control.disconnect("mc-01")
    result = control(ansible, id="mc-01", state="restarted", wait_timeout=2, expect_failure=True)
    assert result["failed"] is True
    assert QUEUED_MESSAGE in result["msg"]
    assert "Survival (mc-01)" in result["msg"]
    assert (result["changed"], result["action"], result["converged"]) == (True, "restart", False)
    counters = emulator.control.counters()
    assert (posts(counters, "mc-01"), counters["actions_queued"]["mc-01"]) == (1, 1)
    assert counters["actions_applied"].get("mc-01", 0) == 0
    emulator.control.reconnect("mc-01")
    counters = emulator.control.counters()
    assert (posts(counters, "mc-01"), counters["actions_applied"]["mc-01"], counters["restarts"]["mc-01"]) == (1, 1, 1)


def test_min_uptime_counts_a_recent_start_as_restarted(ansible, emulator):
    result = control(ansible, id="mc-02", state="restarted", min_uptime=10000)  # mc-02 is up for 7200 s
    assert (result["changed"], result["action"], result["converged"]) == (False, None, None)
    assert posts(emulator.control.counters(), "mc-02") == 0


# -- player gates --------------------------------------------------------------------------


def test_busy_server_is_skipped_or_refused(ansible, emulator):
    results = registered(ansible, "server_control/player_gates.yml", extra_vars={"server_id": "mc-01"})  # 3 players
    skipped = results["skipped"]
    assert (skipped["changed"], skipped["action"]) == (False, None)
    assert "3 players online, more than max_players (0)" in skipped["skipped_reason"]
    refused = results["refused"]
    assert refused["failed"] is True and "on_busy=fail" in refused["msg"]
    assert refused["changed"] is False
    assert posts(emulator.control.counters(), "mc-01") == 0


def test_drain_queues_once_the_players_have_left(ansible, emulator):
    background = Background(lambda: control(ansible, id="mc-01", state="restarted", max_players=0, drain_timeout=60))
    # The module is draining: it has read the busy server more than once and sent nothing.
    wait_for_counters(emulator, lambda counters: requests_of(counters, "live GET /servers/{id}") >= 3)
    assert background.thread.is_alive() and posts(emulator.control.counters(), "mc-01") == 0
    emulator.control.set_server("mc-01", players=0)
    result = background.join()
    assert (result["changed"], result["action"], result["converged"], result["skipped_reason"]) == (
        True,
        "restart",
        True,
        None,
    )
    assert result["before"]["players"]["current"] == 3
    assert emulator.control.counters()["restarts"]["mc-01"] == 1


def test_a_server_stopped_while_players_drain_is_left_stopped(ansible, emulator):
    """only_if_status judges the read the restart would be sent on, not the read that started the drain."""
    background = Background(
        lambda: control(
            ansible, id="mc-01", state="restarted", only_if_status=["online"], max_players=0, drain_timeout=60
        )
    )
    wait_for_counters(emulator, lambda counters: requests_of(counters, "live GET /servers/{id}") >= 3)
    assert background.thread.is_alive() and posts(emulator.control.counters(), "mc-01") == 0
    emulator.control.set_server("mc-01", status="offline", players=0)
    result = background.join()
    assert (result["changed"], result["action"], result["converged"]) == (False, None, None)
    assert result["skipped_reason"] == (
        "Survival (mc-01) has status offline, not one of only_if_status (online): no restart sent."
    )
    assert result["server"]["status"] == "offline"
    counters = emulator.control.counters()
    assert posts(counters, "mc-01") == 0 and counters["actions_queued"].get("mc-01", 0) == 0
    assert emulator.control.server("mc-01")["status"] == "offline"


@pytest.mark.parametrize("check", [True, False], ids=["check", "apply"])
def test_restart_only_if_online_sends_nothing_to_a_stopped_server(ansible, emulator, check):
    result = control(ansible, id="mc-03", state="restarted", only_if_status=["online"], check=check)
    assert (result["changed"], result["action"]) == (False, None)
    assert "has status offline, not one of only_if_status (online)" in result["skipped_reason"]
    assert posts(emulator.control.counters(), "mc-03") == 0


# -- permissions ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "token, cause",
    [
        ("gp-test-owner-read", "read-only"),
        ("gp-test-member-control", "owner or admin"),
    ],
)
def test_tokens_that_may_not_control_get_a_clear_error(ansible, emulator, token, cause):
    result = control(ansible, id="mc-01", state="restarted", token=token, expect_failure=True)
    assert result["failed"] is True
    assert result["status"] == 403
    assert "HTTP 403" in result["msg"] and cause in result["msg"]
    assert (result["changed"], result["action"]) == (False, None)
    assert token not in result["msg"]
    assert emulator.control.counters()["actions_queued"].get("mc-01", 0) == 0


# -- open status set -----------------------------------------------------------------------


def test_unknown_statuses_are_started_and_stopped(ansible, emulator):
    emulator.control.set_server("mc-03", status="crashed")
    emulator.control.set_server("mc-02", status="installing")
    results = registered(
        ansible, "server_control/unknown_status.yml", extra_vars={"start_id": "mc-03", "stop_id": "mc-02"}
    )
    started = results["started"]
    assert (started["before"]["status"], started["action"], started["converged"]) == ("crashed", "start", True)
    assert started["server"]["status"] == "online"
    stopped = results["stopped"]
    assert (stopped["before"]["status"], stopped["action"], stopped["converged"]) == ("installing", "stop", True)
    assert stopped["server"]["status"] == "offline"


def test_unknown_status_is_returned_raw_in_check_mode(ansible, emulator):
    emulator.control.set_server("mc-01", status="rebooting-weirdly")
    result = control(ansible, id="mc-01", state="started", check=True, diff=True)
    assert (result["changed"], result["action"]) == (True, "start")
    assert result["server"]["status"] == "rebooting-weirdly"
    assert result["diff"] == {"before": {"status": "rebooting-weirdly"}, "after": {"status": "online"}}
    assert posts(emulator.control.counters(), "mc-01") == 0


# -- planned variant -----------------------------------------------------------------------


def test_planned_variant_restarts_and_refuses_start(ansible, emulator):
    results = registered(
        ansible,
        "server_control/planned.yml",
        variant="planned",
        extra_vars={"restart_id": "mc-02", "start_id": "mc-03"},
    )
    restarted = results["restarted"]
    assert (restarted["changed"], restarted["converged"]) == (True, True)
    refused = results["refused"]
    assert refused["failed"] is True and "planned API variant" in refused["msg"]
    counters = emulator.control.counters()
    assert requests_of(counters, "planned POST /servers/{id}/restart") == 1
    assert (counters["restarts"]["mc-02"], posts(counters, "mc-03")) == (1, 0)


# -- ambiguous POST ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fault",
    [
        {"kind": "drop"},
        {"kind": "status", "status": 502},
        {"kind": "proxy"},
    ],
    ids=["dropped", "502", "proxy-503-page"],
)
def test_post_answer_lost_after_queueing_is_not_resent(ansible, emulator, fault):
    emulator.control.add_fault(method="POST", phase="after", count=1, **fault)
    result = control(ansible, id="mc-02", state="restarted")
    assert (result["changed"], result["converged"]) == (True, True)
    counters = emulator.control.counters()
    assert (posts(counters, "mc-02"), counters["restarts"]["mc-02"]) == (1, 1)


def test_the_panels_own_503_to_the_restart_is_a_refusal_sent_again_after_retry_after(ansible, emulator):
    emulator.control.add_fault(kind="status", status=503, method="POST", phase="before", count=2, retry_after=1)
    result = control(ansible, id="mc-02", state="restarted")
    assert (result["changed"], result["converged"]) == (True, True)
    assert result["api"]["retries"] == 2
    counters = emulator.control.counters()
    assert (posts(counters, "mc-02"), counters["actions_queued"]["mc-02"], counters["restarts"]["mc-02"]) == (3, 1, 1)


def test_a_panel_refusing_the_restart_past_retry_timeout_fails_saying_nothing_was_queued(ansible, emulator):
    emulator.control.add_fault(kind="status", status=503, method="POST", phase="before", retry_after=1)
    result = control(ansible, id="mc-02", state="restarted", retry_timeout=2, expect_failure=True)
    assert result["failed"] is True
    assert "The panel refused POST /servers/mc-02/control (restart) with HTTP 503" in result["msg"]
    assert "nothing was queued" in result["msg"] and "refused every time" in result["msg"]
    assert "may already be queued" not in result["msg"]
    assert (result["changed"], result["action"]) == (False, None)
    counters = emulator.control.counters()
    assert 2 <= posts(counters, "mc-02") <= 3
    assert counters["actions_queued"].get("mc-02", 0) == 0 and counters["restarts"].get("mc-02", 0) == 0


# -- selecting by name ---------------------------------------------------------------------


def test_server_selected_by_name(ansible, emulator):
    result = control(ansible, name="Creative", state="started")
    assert (result["changed"], result["before"]["id"]) == (False, "mc-02")


def test_unknown_name_lists_candidates(ansible, emulator):
    result = control(ansible, name="Survivl", state="started", expect_failure=True)
    assert result["failed"] is True
    assert "No server is named exactly 'Survivl'" in result["msg"]
    assert "Survival (mc-01)" in result["msg"]
    assert posts(emulator.control.counters(), "mc-01") == 0


# -- many waiters --------------------------------------------------------------------------


def test_fleet_restart_shares_list_reads_between_forks(ansible, emulator):
    fleet = ["mc-01", "mc-02", "rust-01", "ark-01"]
    for server_id in fleet:
        emulator.control.set_server(server_id, checkin_interval=NEVER, checkin_jitter=0)

    def restart_fleet():
        run = ansible.playbook("server_control/fleet_restart.yml", inventory=fleet, env={"ANSIBLE_FORKS": len(fleet)})
        assert run.rc == 0, run.describe()
        return {item.host: item["msg"]["restart"] for item in run.results("Registered")}

    background = Background(restart_fleet)
    # Every fork queued its restart, and the waiters (all still waiting: no agent checks
    # in) have answered their reads with one list read instead of one GET each.
    wait_for_counters(
        emulator,
        lambda counters: all(posts(counters, server_id) == 1 for server_id in fleet)
        and requests_of(counters, "live GET /servers") >= 1,
    )
    assert background.thread.is_alive()
    for server_id in fleet:
        emulator.control.checkin(server_id)
    results = background.join()
    assert sorted(results) == sorted(fleet)
    for server_id, result in results.items():
        assert (result["changed"], result["converged"]) == (True, True), server_id
        assert result["server"]["uptime_seconds"] < result["before"]["uptime_seconds"]
    counters = emulator.control.counters()
    assert all((posts(counters, server_id), counters["restarts"][server_id]) == (1, 1) for server_id in fleet)
