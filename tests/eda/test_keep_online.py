# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""gamepanel.panel.keep_online end to end: a real ansible-rulebook against the emulator.

One rulebook process, interval 1 s, on the emulator's built-in fleet, while a restart job runs
on the same token:

* mc-01 goes offline (emulator control): keep_online starts it, exactly once;
* mc-02 is stopped by the collection (a ledger entry, then the stop POST): it stays stopped;
* mc-03 is in keep_online_leave_alone and goes offline: it stays stopped;
* ark-01 goes offline three times: started twice, then given up on (crash_limit 3), and the
  rulebook says so;
* rust-01 and rust-02 are restarted by gamepanel.panel.restart_fleet meanwhile; the panel's
  limit is tightened to RATE a minute and every process (watcher, the playbooks it runs, the
  restart job, this test's client) uses rate_limit RATE through the one shared budget: the panel
  answers no 429 at all.

RATE is 60 (about 50 requests are sent in the 25 s the test takes, so the budget is not
saturated). $GAMEPANEL_EDA_TEST_RATE=40 saturates it (the watcher alone wants 60 a minute): the
processes are then paced, still with no 429, and the test takes 70 to 130 s.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from emulator.harness import EmulatorProcess

from ansible_collections.gamepanel.panel.plugins.module_utils._api.client import PanelClient
from ansible_collections.gamepanel.panel.plugins.module_utils._state.ledger import Ledger
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.entry_states import QUEUED

RATE = int(os.environ.get("GAMEPANEL_EDA_TEST_RATE", "60"))


def posts(emulator, server_id):
    return emulator.control.counters()["posts"].get(server_id, 0)


def wait_until(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return time.monotonic()
        time.sleep(0.1)
    raise AssertionError("%s did not happen within %s s" % (what, timeout))


def test_keep_online_starts_the_crashed_spares_the_stopped_and_gives_up_on_a_crash_loop(
    rulebook, tmp_path, monkeypatch
):
    with EmulatorProcess() as emulator:
        control = emulator.control
        control.settings(rate_limits={"team": RATE})
        control.set_server("mc-03", status="online", uptime_seconds=500)
        control.set_server("rust-02", status="online", uptime_seconds=500)
        env = {"GAMEPANEL_RATE_LIMIT": str(RATE)}
        watcher = rulebook(
            emulator.live_url,
            {
                "keep_online_interval": 1,
                # the whole budget for the watcher: reads every second even at RATE 60 (at 0.25, every 4 s)
                "keep_online_budget_share": 1,
                "keep_online_leave_alone": ["mc-03"],
                "keep_online_wait_timeout": 60,
            },
            env=env,
        )
        watcher.wait_for(r"baseline read \(6 servers\)", timeout=60)

        # The restart job, on the same token, all along.
        job = subprocess.Popen(  # pylint: disable=consider-using-with
            [
                os.path.join(os.path.dirname(watcher.command[0]), "ansible-playbook"),
                "gamepanel.panel.restart_fleet",
                "-i",
                "fleet.gamepanel.yml",
                "-e",
                "target=game_rust",
                "-e",
                "rolling_restart_min_uptime=0",
                "-e",
                "rolling_restart_max_players=null",  # rust-01 has players on
                "-e",
                "ansible_python_interpreter=%s" % os.path.join(os.path.dirname(watcher.command[0]), "python"),
            ],
            cwd=tmp_path,
            env=watcher.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            # mc-02: stopped by the collection (its ledger entry, then the POST), as server_control does.
            monkeypatch.setenv("GAMEPANEL_STATE_DIR", str(watcher.state_dir))  # the watcher's budget and ledger
            client = PanelClient(emulator.live_url, "gp-test-owner-control", rate_limit=RATE)
            ledger = Ledger.for_client(client)
            entry = ledger.claim("mc-02", "stop", before={"status": "online"})[0]
            client.queue_action("mc-02", "stop")
            ledger.mark(entry, QUEUED)

            down_at = time.monotonic()
            control.set_server("mc-01", status="offline")
            control.set_server("mc-03", status="offline")
            control.set_server("ark-01", status="offline")
            posted_at = wait_until(lambda: posts(emulator, "mc-01") == 1, 60, "the start of mc-01")
            print("time from mc-01 going down to its start POST: %.1f s" % (posted_at - down_at))

            # ark-01: started after its first and second unexpected stops, given up on at the third.
            for round_number in (1, 2):
                wait_until(lambda: posts(emulator, "ark-01") == round_number, 60, "start %d of ark-01" % round_number)
                # The ensure_online run ends once it has seen ark-01 online; the watcher has seen it too.
                wait_until(
                    lambda: watcher.output().count("ARK_Island: started") == round_number,
                    60,
                    "the end of ensure_online run %d for ark-01" % round_number,
                )
                watcher.wait_for(
                    r"status_changed ark-01 \(\w+ -> online", timeout=30, since=len(watcher.output()) - 5000
                )
                time.sleep(1.5)  # one more read
                control.set_server("ark-01", status="offline")
            watcher.wait_for(r"keep_online gives up on ARK Island \(ark-01\)", timeout=30)
            watcher.wait_for(r"keep_online leaves Creative \(mc-02\) stopped", timeout=10)
            watcher.wait_for(r"keep_online leaves Modded \(mc-03\) stopped: it is in", timeout=10)
            output = job.communicate(timeout=120)[0]
            assert job.returncode == 0, output
        finally:
            if job.poll() is None:
                job.kill()
                job.wait()
        time.sleep(3)  # a few more reads: nothing else may be started

        counters = control.counters()
        watcher.stop()
        assert counters["posts"].get("mc-01") == 1, counters  # started exactly once
        assert control.server("mc-01")["status"] == "online"
        assert counters["posts"].get("mc-02") == 1 and control.server("mc-02")["status"] == "offline"  # our stop only
        assert "mc-03" not in counters["posts"] and control.server("mc-03")["status"] == "offline"
        assert counters["posts"].get("ark-01") == 2 and control.server("ark-01")["status"] == "offline"
        assert counters["restarts"].get("rust-01") == 1 and counters["restarts"].get("rust-02") == 1
        assert counters["rate_limited"] == 0 and "429" not in counters["responses"], counters
        sent = sum(counters["requests"]["owner-control"].values())
        print(
            "requests sent: %d, budget %d a minute (%s)" % (sent, RATE, "saturated" if sent > RATE else "not saturated")
        )
        output = watcher.output()
        assert "gp-test-owner-control" not in output
        print("requests the panel received: %s" % counters["requests"], file=sys.stderr)
