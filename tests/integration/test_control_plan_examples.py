# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The EXAMPLES of the control_plan filter, run as written against the emulator's default fleet."""

from __future__ import annotations

from pathlib import Path

import yaml

DOC = Path(__file__).resolve().parents[2] / "plugins" / "filter" / "control_plan.yml"


def test_the_documented_examples_run_and_act_only_where_the_filter_says(ansible, emulator):
    tasks = yaml.safe_load(yaml.safe_load(DOC.read_text())["EXAMPLES"])
    for task in tasks:
        if "gamepanel.panel.server_control" in task:
            task["gamepanel.panel.server_control"]["poll_interval"] = 0.3
    play = [{"name": "control_plan examples", "hosts": "localhost", "gather_facts": False, "tasks": tasks}]
    run = ansible.playbook(yaml.safe_dump(play, sort_keys=False))
    assert run.rc == 0, run.describe()
    counters = emulator.control.counters()
    # min_uptime 3600, max_players 0: mc-01 and rust-01 have players, mc-03 and rust-02 are offline
    assert {server: count for server, count in counters["posts"].items() if count} == {"mc-02": 1, "ark-01": 1}
    assert counters["restarts"] == {"mc-02": 1, "ark-01": 1}
    assert run.result("Say why a server is left alone")["msg"] == "recently_restarted"
