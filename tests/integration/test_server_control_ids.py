# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""server_control with ``ids``: many servers in one task, against the emulator over real HTTP.

The emulator's counters are the evidence of what reached the panel: POSTs, restarts, requests by route.
"""

from __future__ import annotations

import pytest

from emulator.harness import EmulatorProcess
from test_server_control import CONTROL, QUEUED_MESSAGE, control, registered  # pylint: disable=import-error

FLEET_SIZE = 1000
LIST_ROUTE = "live GET /servers"


def posts(emulator, server_id):
    return emulator.control.counters()["posts"].get(server_id, 0)


def lines(result):
    return dict((line["id"], line) for line in result["servers"])


@pytest.mark.parametrize(
    "server_ids, desired_state, extra",
    [
        (["mc-03", "rust-02"], "started", {}),
        (["mc-02", "ark-01"], "restarted", {"min_uptime": 600}),
    ],
    ids=["started", "restarted"],
)
def test_four_steps_for_many_servers(ansible, emulator, server_ids, desired_state, extra):
    action = {"started": "start", "restarted": "restart"}[desired_state]
    extra_vars = dict(control_url=emulator.control_url, server_ids=server_ids, desired_state=desired_state, **extra)
    steps = registered(ansible, "server_control/four_steps.yml", extra_vars=extra_vars, diff=True)

    check = steps["check_before"]
    assert check["changed"] is True and check["summary"]["changed"] == 2
    assert [line["action"] for line in check["servers"]] == [action, action]
    assert [entry["before_header"] for entry in check["diff"]] == server_ids
    assert sum(steps["counters_after_check"]["posts"].values()) == 0

    apply = steps["apply"]
    assert apply["changed"] is True
    assert [(line["id"], line["action"], line["converged"], line["failed"]) for line in apply["servers"]] == [
        (server_id, action, True, False) for server_id in server_ids
    ]
    assert apply["summary"] == dict(total=2, changed=2, unchanged=0, skipped=0, failed=0, converged=2, pending=0)
    for server_id in server_ids:
        assert steps["counters_after_apply"]["posts"][server_id] == 1

    for again in (steps["apply_again"], steps["check_after"]):
        assert again["changed"] is False and again["summary"]["unchanged"] == 2
    counters = emulator.control.counters()
    assert [counters["posts"][server_id] for server_id in server_ids] == [1, 1]  # steps 3 and 4 sent nothing
    assert [counters["actions_applied"][server_id] for server_id in server_ids] == [1, 1]


def test_busy_servers_are_skipped_and_the_others_restarted(ansible, emulator):
    result = control(ansible, ids=["mc-01", "rust-01", "ark-01"], state="restarted", max_players=0)
    by_id = lines(result)
    assert "3 players online" in by_id["mc-01"]["skipped_reason"]
    assert "5 players online" in by_id["rust-01"]["skipped_reason"]
    assert by_id["ark-01"]["converged"] is True
    assert result["summary"]["skipped"] == 2 and result["summary"]["changed"] == 1
    assert (posts(emulator, "mc-01"), posts(emulator, "rust-01"), posts(emulator, "ark-01")) == (0, 0, 1)


def test_the_canary_is_the_first_server_sent_to_and_comes_back_before_the_rest_is_sent(ansible, emulator):
    # mc-01 and rust-01 have players on: the canary is ark-01, the first of ids the task acts on
    ids = ["mc-01", "rust-01", "ark-01", "mc-02"]
    result = control(ansible, ids=ids, state="restarted", max_players=0, canary=1)
    assert result["canary"] == dict(
        ids=["ark-01"], confirmed=True, msg="The canary (ark-01) came back before anything else was sent."
    )
    assert [posts(emulator, server_id) for server_id in ids] == [0, 0, 1, 1]
    history = dict((server["id"], server["history"]) for server in emulator.control.state()["servers"])
    assert history["mc-02"][-1]["queued_at"] > history["ark-01"][-1]["applied_at"]


def test_with_no_server_to_send_the_canary_sends_nothing(ansible, emulator):
    result = control(ansible, ids=["mc-01", "rust-01"], state="restarted", max_players=0, canary=1)
    assert result["changed"] is False
    assert result["canary"]["ids"] == [] and result["canary"]["msg"].startswith("No server was to be sent")
    assert sum(emulator.control.counters()["posts"].values()) == 0


def test_a_canary_whose_agent_is_gone_stops_the_task_before_anything_else_is_sent(ansible, emulator):
    emulator.control.disconnect("mc-02")
    failed = control(ansible, ids=["mc-02", "ark-01"], state="restarted", wait_timeout=2, canary=1, expect_failure=True)
    assert failed["msg"].startswith("1 of 2 servers failed: mc-02: ")
    assert failed["msg"].endswith("The canary (mc-02) did not come back: nothing else was sent.")
    assert lines(failed)["ark-01"]["skipped_reason"].startswith("Not sent: the canary (mc-02) did not come back")
    assert (posts(emulator, "mc-02"), posts(emulator, "ark-01")) == (1, 0)


def test_the_pace_is_said_and_a_limit_the_panel_announces_is_warned_of_once(ansible, emulator):
    emulator.control.settings(rate_limit_headers=True)  # the Team token's 600, where rate_limit is left at 120
    result = control(ansible, ids=["mc-02", "ark-01"], state="restarted")
    assert result["pace"] == "paced at 120 requests a minute (rate_limit)"
    said = [warning for warning in result.get("warnings", []) if "rate-limit headers" in warning]
    assert len(said) == 1 and "allow this token 600 requests a minute, but rate_limit is 120" in said[0]
    assert "set rate_limit: 600" in said[0]
    emulator.control.reset()
    quiet = control(ansible, ids=["mc-02"], state="restarted")  # the panel announces nothing: nothing to say
    assert quiet["pace"] == "paced at 120 requests a minute (rate_limit)"
    assert not any("rate-limit headers" in warning for warning in quiet.get("warnings", []))


def test_a_deferred_agent_fails_its_server_only_and_a_rerun_sends_nothing_again(ansible, emulator):
    emulator.control.disconnect("mc-02")
    first = control(ansible, ids=["mc-02", "ark-01"], state="restarted", wait_timeout=2, expect_failure=True)
    assert first["failed"] is True
    assert first["msg"].startswith("1 of 2 servers failed: mc-02: ")
    assert QUEUED_MESSAGE in lines(first)["mc-02"]["msg"]
    assert lines(first)["ark-01"]["converged"] is True

    again = control(ansible, ids=["mc-02"], state="restarted", wait_timeout=2, expect_failure=True)
    assert "Nothing new was sent" in lines(again)["mc-02"]["msg"]
    counted = control(ansible, ids=["mc-02", "ark-01"], state="restarted", min_uptime=600)
    assert counted["changed"] is False and lines(counted)["mc-02"]["pending"]["state"] == "queued"
    assert (posts(emulator, "mc-02"), posts(emulator, "ark-01")) == (1, 1)

    emulator.control.reconnect("mc-02")  # it checks in at once and runs the one queued restart
    final = control(ansible, ids=["mc-02"], state="restarted", min_uptime=600)
    assert final["changed"] is False
    assert emulator.control.counters()["restarts"]["mc-02"] == 1


def test_a_lost_answer_is_not_sent_again(ansible, emulator):
    emulator.control.add_fault(kind="drop", method="POST", phase="after", path="mc-02", count=1)
    result = control(ansible, ids=["mc-02", "ark-01"], state="restarted")
    assert [(line["changed"], line["converged"]) for line in result["servers"]] == [(True, True), (True, True)]
    counters = emulator.control.counters()
    assert [counters["posts"][server_id] for server_id in ("mc-02", "ark-01")] == [1, 1]
    assert [counters["restarts"][server_id] for server_id in ("mc-02", "ark-01")] == [1, 1]


def test_429_answers_are_retried_and_nothing_is_sent_twice(ansible, emulator):
    emulator.control.add_fault(kind="status", status=429, method="POST", phase="before", count=2, retry_after=1)
    emulator.control.add_fault(kind="status", status=429, method="GET", phase="before", count=1, retry_after=1)
    result = control(ansible, ids=["mc-02", "ark-01"], state="restarted")
    assert result["summary"]["converged"] == 2
    assert result["api"]["retries"] >= 3
    counters = emulator.control.counters()
    assert [counters["restarts"][server_id] for server_id in ("mc-02", "ark-01")] == [1, 1]


def test_an_unknown_id_fails_only_that_server(ansible, emulator):
    result = control(ansible, ids=["ghost-01", "mc-03"], state="started", expect_failure=True)
    assert result["failed"] is True and result["msg"].startswith("1 of 2 servers failed: ghost-01: ")
    assert lines(result)["mc-03"]["converged"] is True and lines(result)["ghost-01"]["failed"] is True


def test_ids_with_id_is_refused_before_any_request(ansible, emulator):
    result = control(ansible, ids=["mc-02"], id="mc-02", state="restarted", expect_failure=True)
    assert "mutually exclusive" in result["msg"]
    assert sum(emulator.control.counters()["posts"].values()) == 0


@pytest.fixture(scope="module")
def large_fleet():
    with EmulatorProcess(fleet_size=FLEET_SIZE) as process:
        yield process


def test_a_thousand_servers_in_one_task_each_once_from_one_read(ansible, large_fleet):
    control_api = large_fleet.control
    control_api.reset()
    # a limit this test does not reach: what it is about is one task for the fleet, the rate is the bench's
    control_api.settings(rate_limits={"team": 100000})
    control_api.settings(checkin_interval=2.5, checkin_jitter=0.0, boot_time=2.0, stop_time=0.0)
    fleet = [server["id"] for server in control_api.state()["servers"] if server["id"].startswith("srv-")]
    for server_id in fleet:
        control_api.set_server(server_id, status="online", players=0, uptime_seconds=86400)
    extra_vars = {"sc_ids": fleet, "sc_state": "restarted", "sc_min_uptime": 600, "sc_poll_interval": 2}
    env = {"GAMEPANEL_RATE_LIMIT": "100000"}
    result = registered(ansible, CONTROL, extra_vars=extra_vars, base_url=large_fleet.live_url, env=env, timeout=600)[
        "control"
    ]
    assert result["summary"]["converged"] == FLEET_SIZE and result["summary"]["failed"] == 0
    counters = control_api.counters()
    assert all(counters["restarts"].get(server_id) == 1 for server_id in fleet)
    requests = sum(counters["requests"]["owner-control"].values())
    pages = counters["requests"]["owner-control"][LIST_ROUTE]
    assert requests <= 1.2 * FLEET_SIZE, counters["requests"]
    print("1,000 servers: %d requests, %d list pages" % (requests, pages))
    assert counters.get("responses", {}).get("429", 0) == 0

    again = registered(ansible, CONTROL, extra_vars=extra_vars, base_url=large_fleet.live_url, env=env, timeout=600)[
        "control"
    ]
    assert again["changed"] is False and again["summary"]["unchanged"] == FLEET_SIZE
    assert sum(control_api.counters()["posts"].values()) == FLEET_SIZE


def test_some_posts_refused_by_the_panel_are_sent_again_and_every_server_restarts_once(ansible, emulator):
    # The panel's own 503 (its JSON error, nothing queued) to the first three POSTs, Retry-After 1 s.
    emulator.control.add_fault(kind="status", status=503, method="POST", phase="before", count=3, retry_after=1)
    ids = ["mc-01", "mc-02", "rust-01", "ark-01"]
    result = control(ansible, ids=ids, state="restarted")
    assert result["summary"] == dict(total=4, changed=4, unchanged=0, skipped=0, failed=0, converged=4, pending=0)
    counters = emulator.control.counters()
    assert [counters["restarts"].get(server_id, 0) for server_id in ids] == [1, 1, 1, 1]
    assert sum(counters["posts"].get(server_id, 0) for server_id in ids) == 4 + 3
    assert counters["responses"]["503"] == 3


def test_a_proxys_503_page_after_queueing_in_an_ids_task_is_followed_never_resent(ansible, emulator):
    emulator.control.add_fault(kind="proxy", method="POST", phase="after", path="mc-02", count=1)
    result = control(ansible, ids=["mc-02", "ark-01"], state="restarted", min_uptime=600)
    assert [line["converged"] for line in result["servers"]] == [True, True]
    again = control(ansible, ids=["mc-02", "ark-01"], state="restarted", min_uptime=600)
    assert again["changed"] is False
    counters = emulator.control.counters()
    assert (counters["posts"]["mc-02"], counters["restarts"]["mc-02"], counters["restarts"]["ark-01"]) == (1, 1, 1)
