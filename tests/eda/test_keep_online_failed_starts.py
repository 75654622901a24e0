# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""keep_online keeps a down server's start going: a real ansible-rulebook against the emulator with faults.

The inventory sets retry_timeout 0: the ensure_online runs never try a refused POST again themselves,
so every start the panel refuses is the watcher's to send again.

* The panel refuses mc-01's first start (HTTP 503 before queueing): the start is sent again at
  the next read that still finds it down, and mc-01 comes up; one start was queued, two POSTs sent.
  The refusal is logged, and is no incident.
  In an outage of three servers the refusal also stops the run before the other two: they are
  handed out again at once with mc-01, not after the 15 minutes a hand-out nothing came of waits.
* The answer to mc-01's start is lost (the connection dropped after the panel queued it) while its
  agent is away: the start is followed for keep_online_retry_after seconds, then sent again; once
  the agent checks in mc-01 is online, and no third start is sent.
* The panel refuses mc-01's starts (HTTP 503 with Retry-After) four times, more than
  keep_online_crash_limit: each is sent again after a backoff no shorter than the Retry-After and
  growing with each refusal, mc-01 is started once the panel takes it, and it is never given up on.
"""

from __future__ import annotations

import re
import time

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


INVENTORY = "plugin: gamepanel.panel.servers\nretry_timeout: 0\n"


def crash_with_fault(rulebook, emulator, crashing=("mc-01",), **fault):
    """Start the rulebook, make mc-01's start requests meet ``fault``, crash ``crashing``; returns the rulebook."""
    watcher = rulebook(emulator.live_url, VARIABLES, inventory=INVENTORY)
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


def test_a_start_the_panel_refused_is_sent_again_at_the_next_read(rulebook):
    with EmulatorProcess() as emulator:
        control = emulator.control
        watcher = crash_with_fault(rulebook, emulator, kind="status", status=503, phase="before", count=1)

        watcher.wait_for(r"the panel refused the start of mc-01 1 time\(s\) in a row since", timeout=90)
        wait_until(lambda: posts(emulator, "mc-01") == 2, 90, "the second start of mc-01")
        wait_until(lambda: control.server("mc-01")["status"] == "online", 60, "mc-01 online")
        watcher.wait_for(r"ensure_online: 1 server\(s\): 1 started", timeout=60)
        counters, output = last_word(emulator, watcher)

        assert counters["posts"] == {"mc-01": 2}, counters["posts"]
        assert counters["actions_queued"] == {"mc-01": 1}
        assert "The panel refused POST /servers/mc-01/control (start) with HTTP 503" in output
        assert "(last: HTTP 503): the panel's state, not the server's, so no incident" in output
        assert "keep_online gives up" not in output


def test_a_refusal_in_an_outage_leaves_no_server_of_it_down(rulebook):
    with EmulatorProcess() as emulator:
        control = emulator.control
        # mc-01 is first in the fleet: its refusal comes before mc-02 and ark-01 are sent, and the
        # run stops there (server_control with ids sends no more after a refusal)
        down = ("mc-01", "mc-02", "ark-01")
        watcher = crash_with_fault(rulebook, emulator, down, kind="status", status=503, phase="before", count=1)
        wait_until(
            lambda: all(control.server(server_id)["status"] == "online" for server_id in down),
            120,  # far below the 15 minutes after which a hand-out nothing came of is handed out again
            "the outage's servers online",
        )
        watcher.wait_for(r"ensure_online: \d+ server\(s\): (2|3) started", timeout=60)
        counters, output = last_word(emulator, watcher)

        assert counters["posts"] == {"mc-01": 2, "mc-02": 1, "ark-01": 1}, counters["posts"]
        assert counters["actions_queued"] == {"mc-01": 1, "mc-02": 1, "ark-01": 1}
        assert "the panel refused the start of mc-01 1 time(s) in a row since" in output
        for server_id in ("mc-02", "ark-01"):  # not sent by the stopped run: handed out again, not counted
            assert "start_failed %s (offline): its start did not bring it up (run_stopped" % server_id in output
        assert output.count("before it came to this one); not counted as an incident") == 2


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


def post_times(emulator, server_id, count, timeout):
    """The monotonic times at which this test saw each of the first ``count`` POSTs for ``server_id``."""
    seen, deadline = [], time.monotonic() + timeout
    while len(seen) < count:
        if time.monotonic() > deadline:
            raise AssertionError("%d POSTs for %s within %s s: only %d" % (count, server_id, timeout, len(seen)))
        seen.extend([time.monotonic()] * (posts(emulator, server_id) - len(seen)))
        time.sleep(0.05)
    return seen


def test_a_panel_that_refuses_starts_for_a_while_is_outlasted_and_the_server_not_given_up_on(rulebook):
    with EmulatorProcess() as emulator:
        control = emulator.control
        refusals = 4  # more than keep_online_crash_limit (3)
        watcher = crash_with_fault(
            rulebook, emulator, kind="status", status=503, phase="before", count=refusals, retry_after=2
        )
        sent = post_times(emulator, "mc-01", refusals + 1, timeout=240)
        wait_until(lambda: control.server("mc-01")["status"] == "online", 60, "mc-01 online")
        watcher.wait_for(r"ensure_online: 1 server\(s\): 1 started", timeout=60)
        counters, output = last_word(emulator, watcher)

        assert counters["posts"] == {"mc-01": refusals + 1}, counters["posts"]
        assert counters["actions_queued"] == {"mc-01": 1}
        gaps = [later - earlier for earlier, later in zip(sent, sent[1:])]
        print("mc-01's refused starts were sent again after %s s" % ", ".join("%.1f" % gap for gap in gaps))
        # the panel's Retry-After (2 s) after the first refusal, then the backoff: 5, 10, 20 s
        assert gaps[0] >= 2 and gaps[1] >= 5 and gaps[2] >= 10 and gaps[3] >= 20, gaps
        assert "keep_online gives up" not in output and "crash_limit 3 reached" not in output
        # logged at the first refusal, then once a minute at most: fewer lines than refusals
        lines = re.findall(r"the panel refused the start of mc-01 (\d+) time", output)
        assert lines[0] == "1" and len(lines) <= 1 + (sent[-1] - sent[0]) // 60 < refusals, lines
