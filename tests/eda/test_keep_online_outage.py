# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""keep_online at fleet scale, end to end: a real ansible-rulebook against the emulator.

* A mass outage: 20 of 30 servers go offline at once. keep_online starts each of them exactly
  once, in one ensure_online run (two when the outage straddles a read), with an inventory whose
  hosts are named by id and nothing said about naming to the rulebook. One server of the outage
  crashes again once it is back: with keep_online_crash_limit 2 that is a crash loop, and it is
  given up on, not started a second time.
* The connection written only in the inventory file (base_url, rate_limit), the token only in
  GAMEPANEL_API_TOKEN: the source reads the panel named there, paced at the file's rate_limit,
  and the ensure_online run it starts reaches the same panel.
* The token only in a file (GAMEPANEL_API_TOKEN_FILE, as a systemd credential or a container
  secret gives it): the source and the ensure_online run it starts both read it there.
* A budget_share outside (0, 1]: the source stops at start and says why.
"""

from __future__ import annotations

import re
import time

from emulator.harness import EmulatorProcess

from conftest import TOKEN
from test_keep_online import wait_until

FLEET = ["srv-%05d" % number for number in range(1, 31)]
OUTAGE = FLEET[:20]
LOOPING = OUTAGE[7]


def ensure_online_runs(output):
    """The summary line each ensure_online run prints: 'ensure_online: N server(s): ...'."""
    return re.findall(r"ensure_online: (\d+) server\(s\)", output)


def test_a_mass_outage_is_started_in_one_run_with_hosts_named_by_id_and_a_crash_loop_given_up_on(rulebook):
    with EmulatorProcess(fleet_size=len(FLEET)) as emulator:
        control = emulator.control
        for server_id in FLEET:  # the generated fleet has every tenth server offline: all online here
            control.set_server(server_id, status="online", uptime_seconds=3600)
        watcher = rulebook(
            emulator.live_url,
            {
                "keep_online_interval": 2,
                "keep_online_crash_limit": 2,
                "keep_online_wait_timeout": 60,
            },
            inventory="plugin: gamepanel.panel.servers\nhostname_source: id\n",
        )
        watcher.wait_for(r"baseline read \(30 servers\)", timeout=60)

        for server_id in OUTAGE:
            control.set_server(server_id, status="offline", uptime_seconds=0)
        wait_until(
            lambda: all(control.counters()["posts"].get(server_id) == 1 for server_id in OUTAGE),
            120,
            "one start of each server of the outage",
        )
        wait_until(
            lambda: all(control.server(server_id)["status"] == "online" for server_id in OUTAGE),
            60,
            "the outage's servers online",
        )
        # the runs are over (their summaries count 20 servers) and the watcher saw the looping server
        # online again; then it crashes again: its second incident within the window
        wait_until(lambda: sum(int(count) for count in ensure_online_runs(watcher.output())) == 20, 60, "the runs' end")
        watcher.wait_for(r"status_changed %s \(\w+ -> online" % LOOPING, timeout=60)
        control.set_server(LOOPING, status="offline", uptime_seconds=0)
        watcher.wait_for(r"keep_online gives up on \w+ 00008 \(%s\)" % LOOPING, timeout=60)
        time.sleep(5)  # two more reads: nothing else may be started
        counters = control.counters()
        output = watcher.output()
        watcher.stop()

        assert {server_id: counters["posts"].get(server_id) for server_id in OUTAGE} == dict.fromkeys(OUTAGE, 1)
        assert set(counters["posts"]) == set(OUTAGE), counters["posts"]  # nothing else was started
        assert control.server(LOOPING)["status"] == "offline"
        runs = ensure_online_runs(output)
        assert 1 <= len(runs) <= 2 and sum(int(count) for count in runs) == 20, runs
        assert "Could not match supplied host pattern" not in output
        assert counters["rate_limited"] == 0
        assert "gp-test-owner-control" not in output
        print("ensure_online runs for the outage of 20: %s" % runs)


def one_crash_started(watcher, emulator):
    """After the baseline read, ark-01 goes offline: the watcher's ensure_online run starts it once. Its output."""
    watcher.wait_for(r"baseline read \(6 servers\)", timeout=60)
    emulator.control.set_server("ark-01", status="offline", uptime_seconds=0)
    wait_until(lambda: emulator.control.counters()["posts"].get("ark-01") == 1, 90, "the start of ark-01")
    watcher.wait_for(r"ensure_online: \d+ server\(s\)", timeout=90)
    output = watcher.output()
    watcher.stop()
    assert emulator.control.counters()["posts"] == {"ark-01": 1}
    return output


def test_the_source_takes_the_connection_from_the_inventory_file_alone(rulebook):
    with EmulatorProcess() as emulator:
        watcher = rulebook(
            None,  # no GAMEPANEL_BASE_URL: only the token is in the environment
            {"keep_online_interval": 1, "keep_online_start_found_stopped": False},
            inventory="plugin: gamepanel.panel.servers\nbase_url: %s\nrate_limit: 50\n" % emulator.live_url,
        )
        # the playbook the rulebook runs takes the same connection (the inventory's gamepanel_connection)
        output = one_crash_started(watcher, emulator)
        assert re.search(r"inventory \S*fleet.gamepanel.yml gives base_url, rate_limit", output), output
        assert "watching %s every 1 s (rate_limit 50 per minute" % emulator.live_url in output
        # 1 request a read, 0.25 x 50 = 12.5 a minute: every 4.8 s, said once
        assert output.count("the source reads every 5 s instead") == 1, output
        assert "gp-test-owner-control" not in output


def test_the_source_and_its_jobs_read_the_token_from_the_file_the_environment_names(rulebook, tmp_path):
    token_file = tmp_path / "credentials" / "gamepanel-token"
    token_file.parent.mkdir()
    token_file.write_text(TOKEN + "\n", encoding="utf-8")
    token_file.chmod(0o600)
    with EmulatorProcess() as emulator:
        watcher = rulebook(
            emulator.live_url,
            {"keep_online_interval": 1, "keep_online_start_found_stopped": False},
            # an empty GAMEPANEL_API_TOKEN counts as unset: the file is the only place the token is
            env={"GAMEPANEL_API_TOKEN": "", "GAMEPANEL_API_TOKEN_FILE": str(token_file)},
        )
        output = one_crash_started(watcher, emulator)
        # every request, the source's reads and the job's start, carried the file's token
        requests = emulator.control.counters()["requests"]
        assert set(requests) == {"owner-control"}, requests
        assert TOKEN not in output


def test_a_budget_share_outside_zero_to_one_stops_the_source_at_start(rulebook):
    with EmulatorProcess() as emulator:
        watcher = rulebook(emulator.live_url, {"keep_online_budget_share": 1.5})
        watcher.wait_for(r"budget_share must be a fraction of the token's rate_limit greater than 0 and at most 1", 60)
        assert emulator.control.counters()["requests_total"] == 0
