# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""keep_online's runs do not take turns: a real ansible-rulebook against the emulator.

mc-01 crashes while its agent is away: its ensure_online run queues the start and waits for it (up
to keep_online_wait_timeout, 120 s here). mc-02 crashes meanwhile: its run starts at once, beside
the first, and mc-02 is online long before the first run's wait could end. Then mc-01's agent
checks in: it comes up from its one start, followed all along and never sent again.
"""

from __future__ import annotations

import time

from emulator.harness import EmulatorProcess

from test_keep_online import posts, wait_until

NEVER = 3600.0  # a check-in interval that means "not during this test"
WAIT_TIMEOUT = 120
VARIABLES = {
    "keep_online_interval": 1,
    "keep_online_budget_share": 1,
    "keep_online_wait_timeout": WAIT_TIMEOUT,
    "keep_online_start_found_stopped": False,
}


def test_a_second_crash_is_started_while_the_first_ones_start_still_waits_for_its_agent(rulebook):
    with EmulatorProcess() as emulator:
        control = emulator.control
        control.set_server("mc-01", checkin_interval=NEVER, checkin_jitter=0)  # its agent is away
        watcher = rulebook(emulator.live_url, VARIABLES)
        watcher.wait_for(r"baseline read \(6 servers\)", timeout=60)

        control.set_server("mc-01", status="offline", uptime_seconds=0)
        first_sent = wait_until(lambda: posts(emulator, "mc-01") == 1, 90, "the start of mc-01")
        control.set_server("mc-02", status="offline", uptime_seconds=0)
        crashed = time.monotonic()
        second_sent = wait_until(lambda: posts(emulator, "mc-02") == 1, 90, "the start of mc-02")
        up = wait_until(lambda: control.server("mc-02")["status"] == "online", 90, "mc-02 online")
        watcher.wait_for(r"ensure_online: 1 server\(s\): 1 started", timeout=60)
        print(
            "mc-02 started %.1f s after its crash (online after %.1f s), %.1f s after mc-01's start, whose run waits up "
            "to %d s" % (second_sent - crashed, up - crashed, second_sent - first_sent, WAIT_TIMEOUT)
        )
        # the first run still waits for mc-01: its start neither timed out nor was sent again
        assert up - first_sent < WAIT_TIMEOUT / 2
        output = watcher.output()
        assert "queued, not yet applied" not in output
        assert control.server("mc-01")["status"] == "offline" and posts(emulator, "mc-01") == 1

        control.checkin("mc-01")  # the agent is back: it applies the one start queued
        control.advance(120)
        wait_until(lambda: control.server("mc-01")["status"] == "online", 60, "mc-01 online")
        watcher.wait_for(r"status_changed mc-01 \(\w+ -> online", timeout=60)
        time.sleep(3)  # three more reads: nothing else may be sent
        counters, output = control.counters(), watcher.output()
        watcher.stop()

        assert counters["posts"] == {"mc-01": 1, "mc-02": 1}, counters["posts"]
        assert counters["actions_queued"] == {"mc-01": 1, "mc-02": 1}
        assert "start_failed" not in output and "keep_online gives up" not in output
        assert "gp-test-owner-control" not in output
