# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""keep_online survives its own restarts: a server that crashed while the rulebook was down is started once.

A real ansible-rulebook watches the emulator's fleet, is stopped (as the EDA controller stops an
activation it restarts), and while nobody watches mc-01 crashes. The rulebook starts again: its
first read finds mc-01 stopped with no stop of the collection to explain it (``found_stopped``)
and starts it, exactly once. mc-02, stopped by the collection, and mc-03, in
keep_online_leave_alone, stay stopped.
"""

from __future__ import annotations

import time

from emulator.harness import EmulatorProcess

from ansible_collections.gamepanel.panel.plugins.module_utils._api.client import PanelClient
from ansible_collections.gamepanel.panel.plugins.module_utils._state.ledger import Ledger
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.entry_states import QUEUED

from test_keep_online import posts, wait_until

VARIABLES = {
    "keep_online_interval": 1,
    "keep_online_budget_share": 1,
    "keep_online_leave_alone": ["mc-03"],
    "keep_online_wait_timeout": 60,
}


def test_a_server_that_crashed_while_the_rulebook_was_down_is_started_once(rulebook, monkeypatch):
    with EmulatorProcess() as emulator:
        control = emulator.control
        control.set_server("rust-02", status="online", uptime_seconds=500)
        first = rulebook(emulator.live_url, VARIABLES)
        first.wait_for(r"baseline read \(6 servers\)", timeout=60)

        # mc-02: stopped by the collection (its ledger entry, then the POST), as server_control does.
        monkeypatch.setenv("GAMEPANEL_STATE_DIR", str(first.state_dir))
        client = PanelClient(emulator.live_url, "gp-test-owner-control")
        ledger = Ledger.for_client(client)
        entry = ledger.claim("mc-02", "stop", before={"status": "online"})[0]
        client.queue_action("mc-02", "stop")
        ledger.mark(entry, QUEUED)
        wait_until(lambda: control.server("mc-02")["status"] == "offline", 30, "the stop of mc-02")
        first.stop()  # the activation goes away ...

        control.set_server("mc-01", status="offline")  # ... and meanwhile mc-01 crashes

        again = rulebook(emulator.live_url, VARIABLES)
        again.wait_for(r"found_stopped mc-01 \(None -> offline, expected False\)", timeout=60)
        wait_until(lambda: posts(emulator, "mc-01") == 1, 60, "the start of mc-01")
        again.wait_for(r"status_changed mc-01 \(\w+ -> online", timeout=60)
        time.sleep(3)  # a few more reads: nothing else may be started
        counters = control.counters()
        again.stop()

        assert counters["posts"].get("mc-01") == 1, counters  # started exactly once
        assert control.server("mc-01")["status"] == "online"
        assert counters["posts"].get("mc-02") == 1 and control.server("mc-02")["status"] == "offline"  # our stop only
        assert "mc-03" not in counters["posts"] and control.server("mc-03")["status"] == "offline"
        assert "found_stopped mc-02" not in again.output()
        assert "gp-test-owner-control" not in again.output()
