# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""server_control across runs: the ledger keeps a re-run from queueing an action again.

Real ansible-playbook runs against the emulator, one state directory per test (so one
ledger); the emulator's counters prove what reached the panel: ``posts`` (action
requests received) and ``restarts`` (restarts the agents applied).  Agents act only when
the test says so (a disconnected agent, or a check-in interval no test outlasts).
"""

from __future__ import annotations

from background import Background, wait_for_counters
from test_server_control import QUEUED_MESSAGE, control, registered

NEVER = 3600.0
FINISH = 5  # emulator seconds that let a restart's stop and boot finish


def posts(emulator, server_id):
    return emulator.control.counters()["posts"].get(server_id, 0)


def restarts(emulator, server_id):
    return emulator.control.counters()["restarts"].get(server_id, 0)


def test_scenario_1_a_rerun_while_the_agent_is_away_sends_nothing(ansible, emulator):
    emulator.control.disconnect("mc-01")
    first = control(ansible, id="mc-01", state="restarted", wait_timeout=2, expect_failure=True)
    assert first["failed"] is True and QUEUED_MESSAGE in first["msg"]
    assert "waits for it instead of queueing a second restart" in first["msg"]
    assert posts(emulator, "mc-01") == 1

    # The same task again: it follows the entry, and fails saying why and that nothing was sent.
    again = control(ansible, id="mc-01", state="restarted", wait_timeout=2, expect_failure=True)
    assert again["failed"] is True and again["changed"] is False and again["action"] is None
    assert again["pending"]["action"] == "restart" and again["pending"]["state"] == "queued"
    assert "was queued at" in again["msg"] and "Nothing new was sent" in again["msg"]
    assert "ignore_pending" in again["msg"]
    # As the docs recommend for re-runs: min_uptime counts the queued restart as the restart.
    with_min_uptime = control(ansible, id="mc-01", state="restarted", min_uptime=600, wait_timeout=2)
    assert (with_min_uptime["changed"], with_min_uptime["action"]) == (False, None)
    assert with_min_uptime["pending"]["state"] == "queued" and "Nothing new was sent" in with_min_uptime["msg"]
    # Without wait: reported, not sent.
    reported = control(ansible, id="mc-01", state="restarted", wait=False)
    assert (reported["changed"], reported["pending"]["action"]) == (False, "restart")
    assert "Nothing new was sent" in reported["msg"]
    assert (posts(emulator, "mc-01"), restarts(emulator, "mc-01")) == (1, 0)

    emulator.control.reconnect("mc-01")  # it checks in at once and runs the one queued restart
    emulator.control.advance(FINISH)
    final = control(ansible, id="mc-01", state="restarted", min_uptime=600)
    assert (final["changed"], final["action"]) == (False, None)
    assert (posts(emulator, "mc-01"), restarts(emulator, "mc-01")) == (1, 1)


def test_a_rerun_that_waits_for_the_pending_restart_succeeds_without_sending(ansible, emulator):
    emulator.control.settings(checkin_interval=NEVER, checkin_jitter=0)
    first = control(ansible, id="mc-02", state="restarted", wait=False)
    assert first["changed"] is True and posts(emulator, "mc-02") == 1
    background = Background(lambda: control(ansible, id="mc-02", state="restarted", wait_timeout=60))
    wait_for_counters(
        emulator, lambda counters: counters["requests"].get("owner-control", {}).get("live GET /servers/{id}", 0) >= 3
    )
    emulator.control.checkin("mc-02")
    emulator.control.advance(FINISH)
    result = background.join()
    assert (result["changed"], result["converged"], result["pending"]["action"]) == (False, True, "restart")
    assert "Nothing new was sent" in result["msg"]
    assert (posts(emulator, "mc-02"), restarts(emulator, "mc-02")) == (1, 1)


def test_scenario_2_a_rerun_inside_the_read_lag_sends_nothing(ansible, emulator):
    emulator.control.settings(checkin_interval=NEVER, checkin_jitter=0, read_lag_seconds=300)
    first = control(ansible, id="mc-02", state="restarted", wait=False)
    assert first["changed"] is True
    emulator.control.checkin("mc-02")  # the agent applies the restart
    emulator.control.advance(FINISH)
    assert restarts(emulator, "mc-02") == 1
    # Reads still say "online, up two hours": only the ledger knows better.
    rerun = control(ansible, id="mc-02", state="restarted", min_uptime=600, wait_timeout=2)
    assert rerun["server"]["uptime_seconds"] > 600
    assert (rerun["changed"], rerun["action"], rerun["pending"]["action"]) == (False, None, "restart")
    # Without min_uptime the open entry is followed: the wait runs out inside the lag, nothing is sent.
    plain = control(ansible, id="mc-02", state="restarted", wait_timeout=2, expect_failure=True)
    assert plain["failed"] is True and plain["changed"] is False and "Nothing new was sent" in plain["msg"]
    assert (posts(emulator, "mc-02"), restarts(emulator, "mc-02")) == (1, 1)
    emulator.control.advance(300)  # the lag is over: a read proves the restart
    after = control(ansible, id="mc-02", state="restarted", min_uptime=600)
    assert (after["changed"], after["action"]) == (False, None)
    assert (posts(emulator, "mc-02"), restarts(emulator, "mc-02")) == (1, 1)


def test_a_restart_answered_by_a_proxys_503_page_is_followed_and_an_immediate_rerun_sends_no_second(ansible, emulator):
    # The panel queues the restart, the proxy in front of it answers 503 with its own HTML page.
    emulator.control.settings(checkin_interval=NEVER, checkin_jitter=0)
    emulator.control.add_fault(kind="proxy", method="POST", phase="after", count=1)
    first = control(ansible, id="mc-02", state="restarted", wait=False, expect_failure=True)
    assert first["failed"] is True and first["changed"] is True and first["action"] == "restart"
    assert "may already be queued" in first["msg"] and "HTTP 503" in first["msg"]
    assert emulator.control.counters()["actions_queued"] == {"mc-02": 1}

    # An immediate re-run, in a new process: the may-be-queued entry stands, nothing is sent.
    again = control(ansible, id="mc-02", state="restarted", min_uptime=600, wait=False)
    assert (again["changed"], again["action"], again["pending"]["state"]) == (False, None, "may_be_queued")
    assert "Nothing new was sent" in again["msg"]
    assert posts(emulator, "mc-02") == 1

    # The agent runs the one restart; a re-run with wait confirms it by the uptime reset, sends nothing.
    emulator.control.checkin("mc-02")
    emulator.control.advance(FINISH)
    confirmed = control(ansible, id="mc-02", state="restarted", min_uptime=600)
    assert (confirmed["changed"], confirmed["action"]) == (False, None)
    assert (posts(emulator, "mc-02"), restarts(emulator, "mc-02")) == (1, 1)


def test_a_different_action_is_sent_and_names_the_pending_one(ansible, emulator):
    emulator.control.disconnect("mc-01")
    control(ansible, id="mc-01", state="restarted", wait=False)
    stop = control(ansible, id="mc-01", state="stopped", wait=False)
    assert (stop["changed"], stop["action"]) == (True, "stop")
    assert stop["pending"]["action"] == "restart" and "restart queued at" in stop["msg"]
    assert posts(emulator, "mc-01") == 2


def test_two_processes_on_one_server_send_one_post(ansible, emulator):
    emulator.control.disconnect("mc-01")
    runs = [
        Background(lambda: control(ansible, id="mc-01", state="restarted", wait_timeout=6, expect_failure=True))
        for unused in range(2)
    ]
    results = [run.join() for run in runs]
    assert posts(emulator, "mc-01") == 1
    assert sorted(result["changed"] for result in results) == [False, True]
    follower = [result for result in results if not result["changed"]][0]
    assert follower["pending"]["action"] == "restart" and "Nothing new was sent" in follower["msg"]


def test_ignore_pending_four_steps_after_a_lost_post(ansible, emulator):
    # A POST dropped before the panel saw it: the ledger holds a restart that may be queued.
    emulator.control.add_fault(kind="drop", method="POST", path="/servers/mc-02/", count=1)
    lost = control(ansible, id="mc-02", state="restarted", wait=False, expect_failure=True)
    assert lost["failed"] is True and "may already be queued" in lost["msg"]
    held = control(ansible, id="mc-02", state="restarted", wait=False)
    assert (held["changed"], held["pending"]["state"]) == (False, "may_be_queued")
    assert emulator.control.counters()["actions_queued"].get("mc-02", 0) == 0

    extra_vars = dict(
        control_url=emulator.control_url,
        server_id="mc-02",
        desired_state="restarted",
        min_uptime=600,
        ignore_pending=True,
    )
    steps = registered(ansible, "server_control/four_steps.yml", extra_vars=extra_vars)
    check = steps["check_before"]
    assert (check["changed"], check["action"]) == (True, "restart")
    apply = steps["apply"]
    assert (apply["changed"], apply["action"], apply["converged"]) == (True, "restart", True)
    for again in (steps["apply_again"], steps["check_after"]):
        assert (again["changed"], again["action"]) == (False, None)
    counters = emulator.control.counters()
    assert (counters["actions_queued"]["mc-02"], counters["restarts"]["mc-02"]) == (1, 1)


def test_check_mode_reports_the_pending_entry_and_writes_nothing(ansible, emulator):
    emulator.control.disconnect("mc-01")
    control(ansible, id="mc-01", state="restarted", wait=False)
    state_dir = ansible.state_dir
    ledgers = sorted(path for path in state_dir.glob("*.ledger.*") if not path.name.endswith(".lock"))
    assert len(ledgers) == 1  # mc-01's bucket, the only one written
    written = ledgers[0].read_bytes()
    checked = control(ansible, id="mc-01", state="restarted", check=True)
    assert (checked["changed"], checked["pending"]["action"]) == (False, "restart")
    assert ledgers[0].read_bytes() == written
    assert posts(emulator, "mc-01") == 1


INFO_PLAYBOOK = """
- hosts: localhost
  gather_facts: false
  tasks:
    - name: Read
      gamepanel.panel.server_info:
      register: info
    - name: Registered
      ansible.builtin.debug:
        msg: "{{ info }}"
"""


def info(ansible):
    return registered(ansible, INFO_PLAYBOOK)


def test_server_info_lists_what_the_ledger_holds_open_until_a_read_shows_it_applied(ansible, emulator):
    assert info(ansible)["pending"] == []
    emulator.control.disconnect("mc-01")
    queued = control(ansible, id="mc-01", state="restarted", wait=False)
    assert queued["changed"] is True

    pending = info(ansible)["pending"]
    assert [(entry["id"], entry["action"], entry["state"]) for entry in pending] == [("mc-01", "restart", "queued")]
    assert set(pending[0]) == {"id", "action", "queued_at", "state"}
    assert isinstance(pending[0]["queued_at"], float)

    emulator.control.reconnect("mc-01")
    emulator.control.advance(FINISH)
    assert info(ansible)["pending"] == []  # the read shows the uptime reset: no longer pending
    assert (posts(emulator, "mc-01"), restarts(emulator, "mc-01")) == (1, 1)
