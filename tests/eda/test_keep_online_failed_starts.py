# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""keep_online keeps a down server's start going: a real ansible-rulebook against the emulator with faults.

* The panel refuses mc-01's first start (its own HTTP 503 before queueing): the run sends it again
  after the backoff, and mc-01 comes up; one start was queued, two POSTs sent, no start failed.
  In an outage of three servers the refusal does not stop the run: the other two are started by
  the same run.
* The answer to mc-01's start is lost (the connection dropped after the panel queued it) while its
  agent is away: the start is followed for keep_online_retry_after seconds, then sent again; once
  the agent checks in mc-01 is online, and no third start is sent.
* The panel refuses every start of mc-01, asking to come back later than retry_timeout: each run
  gives up on it at once; the crash, then each refused start is an incident, and at the third
  (keep_online_crash_limit) the rulebook gives up on it with its count; its change from offline to
  stopped afterwards is no crash and starts nothing.
"""

from __future__ import annotations

from emulator.harness import EmulatorProcess

from test_keep_online import posts, wait_until

NEVER = 3600.0  # a check-in interval that means "not during this test"
CONTROL = r"^/servers/mc-01/control$"
RETRY_AFTER = 4
VARIABLES = {
    "keep_online_interval": 1,
    "keep_online_budget_share": 1,
    "keep_online_wait_timeout": 3,
    "keep_online_retry_after": RETRY_AFTER,
    # the built-in fleet has servers stopped from the start: these tests are about mc-01 alone
    "keep_online_start_found_stopped": False,
}


def fleet_reads(emulator):
    return sum(routes.get("live GET /servers", 0) for routes in emulator.control.counters()["requests"].values())


def wait_for_reads(emulator, count):
    """Until ``count`` more fleet reads were answered (the watcher's, once no playbook runs)."""
    target = fleet_reads(emulator) + count
    wait_until(lambda: fleet_reads(emulator) >= target, 30, "%d more fleet reads" % count)


def crash_with_fault(rulebook, emulator, crashing=("mc-01",), **fault):
    """Start the rulebook, make mc-01's start requests meet ``fault``, crash ``crashing``; returns the rulebook."""
    watcher = rulebook(emulator.live_url, VARIABLES)
    watcher.wait_for(r"baseline read \(6 servers\)", timeout=60)
    emulator.control.add_fault(method="POST", path=CONTROL, **fault)
    for server_id in crashing:
        emulator.control.set_server(server_id, status="offline", uptime_seconds=0)
    return watcher


def last_word(emulator, watcher):
    """After three more reads (nothing may be sent meanwhile): the counters and the output, the rulebook stopped."""
    wait_for_reads(emulator, 3)
    counters, output = emulator.control.counters(), watcher.output()
    watcher.stop()
    assert "gp-test-owner-control" not in output
    return counters, output


def test_a_start_the_panel_refused_is_sent_again_by_the_same_run(rulebook):
    with EmulatorProcess() as emulator:
        control = emulator.control
        watcher = crash_with_fault(rulebook, emulator, kind="status", status=503, phase="before", count=1)

        wait_until(lambda: posts(emulator, "mc-01") == 2, 90, "the second start of mc-01")
        wait_until(lambda: control.server("mc-01")["status"] == "online", 60, "mc-01 online")
        watcher.wait_for(r"ensure_online: 1 server\(s\): 1 started", timeout=60)
        counters, output = last_word(emulator, watcher)

        assert counters["posts"] == {"mc-01": 2}, counters["posts"]
        assert counters["actions_queued"] == {"mc-01": 1}
        assert "start_failed mc-01" not in output and "keep_online gives up" not in output


def test_a_refusal_in_an_outage_leaves_no_server_of_it_down(rulebook):
    with EmulatorProcess() as emulator:
        control = emulator.control
        # mc-01 is first in the fleet: its refusal comes before mc-02 and ark-01 are sent, and the
        # run goes on with them (one refusal never stops a task), then sends mc-01 again
        down = ("mc-01", "mc-02", "ark-01")
        watcher = crash_with_fault(rulebook, emulator, down, kind="status", status=503, phase="before", count=1)
        wait_until(
            lambda: all(control.server(server_id)["status"] == "online" for server_id in down),
            120,  # far below the 15 minutes after which a hand-out nothing came of is handed out again
            "the outage's servers online",
        )
        watcher.wait_for(r"ensure_online: \d+ server\(s\): 3 started", timeout=60)
        counters, output = last_word(emulator, watcher)

        assert counters["posts"] == {"mc-01": 2, "mc-02": 1, "ark-01": 1}, counters["posts"]
        assert counters["actions_queued"] == {"mc-01": 1, "mc-02": 1, "ark-01": 1}
        assert "start_failed" not in output


def test_a_start_whose_answer_was_lost_is_sent_again_once_retry_after_passed(rulebook):
    with EmulatorProcess() as emulator:
        control = emulator.control
        control.set_server("mc-01", checkin_interval=NEVER, checkin_jitter=0)  # its agent is away
        watcher = crash_with_fault(rulebook, emulator, kind="drop", phase="after", count=1)

        first = wait_until(lambda: posts(emulator, "mc-01") == 1, 90, "the first start of mc-01")
        watcher.wait_for(r"start_failed mc-01 \(offline\): its start did not bring it up \(answer_lost", timeout=90)
        second = wait_until(lambda: posts(emulator, "mc-01") == 2, 90, "the second start of mc-01")
        assert second - first >= RETRY_AFTER  # followed for retry_after first: not sent at the next read
        # the second start was accepted and waits for the agent like the first: nothing more is sent
        watcher.wait_for(r"queued, not yet applied", timeout=60)
        wait_for_reads(emulator, 3)
        assert posts(emulator, "mc-01") == 2
        control.checkin("mc-01")  # the agent is back: it applies both, the second changes nothing
        control.advance(120)
        wait_until(lambda: control.server("mc-01")["status"] == "online", 30, "mc-01 online")
        watcher.wait_for(r"status_changed mc-01 \(\w+ -> online", timeout=30)
        counters, output = last_word(emulator, watcher)

        assert counters["posts"] == {"mc-01": 2}, counters["posts"]
        assert counters["actions_queued"] == {"mc-01": 2} and counters["actions_applied"] == {"mc-01": 2}
        assert output.count("start_failed mc-01") == 1


def test_a_server_whose_starts_keep_failing_is_given_up_on_with_its_count(rulebook):
    with EmulatorProcess() as emulator:
        control = emulator.control
        # Retry-After past retry_timeout (60 s): each run gives up on the start at its first refusal
        watcher = crash_with_fault(rulebook, emulator, kind="status", status=503, phase="before", retry_after=120)

        # the crash (1), then two refused starts (2, 3): given up on at the third incident
        watcher.wait_for(
            r"keep_online gives up on Survival \(mc-01\): it crashed, restarted unexpectedly or failed to start 3 "
            r"times within the crash window",
            timeout=120,
        )
        assert posts(emulator, "mc-01") == 2
        watcher.wait_for(r"start_failed mc-01 \(offline\).*crash_limit 3 reached: it is given up on", timeout=10)
        wait_for_reads(emulator, 3)
        control.set_server("mc-01", status="stopped")  # down already: no crash, no start
        watcher.wait_for(r"status_changed mc-01 \(offline -> stopped", timeout=30)
        counters, output = last_word(emulator, watcher)

        assert counters["posts"] == {"mc-01": 2} and counters["actions_queued"] == {}, counters
        assert output.count("start_failed mc-01") == 2
        assert output.count("keep_online gives up on Survival (mc-01)") == 1
        assert control.server("mc-01")["status"] == "stopped"
