# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""server_info's EXAMPLES, run as documented against the emulator's default fleet.

Only the addresses change: the example panel address becomes the emulator's, the vault
variable holds the test token, and the planned-variant example runs with the planned
variant's address in GAMEPANEL_BASE_URL, as a user of that variant would have it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import yaml

MODULE = Path(__file__).resolve().parents[2] / "plugins" / "modules" / "server_info.py"
EXAMPLE_PANEL = "https://panel.example.com/api/v1"
OWNER_TOKEN = "gp-test-owner-control"  # a control token of the emulator's default fixture


def examples(base_url):
    """The EXAMPLES tasks, with the example panel address replaced by ``base_url``."""
    tree = ast.parse(MODULE.read_text(encoding="utf-8"))
    text = next(node.value.value for node in tree.body
                if isinstance(node, ast.Assign) and node.targets[0].id == "EXAMPLES")
    assert EXAMPLE_PANEL in text  # the substitution below must keep meaning something
    return yaml.safe_load(text.replace(EXAMPLE_PANEL, base_url))


def is_planned(task):
    return (task.get("gamepanel.panel.server_info") or {}).get("api_variant") == "planned"


def play(tasks):
    return yaml.safe_dump([{"name": "server_info examples", "hosts": "localhost", "gather_facts": False,
                            "tasks": tasks}], sort_keys=False)


def test_the_documented_examples_run(ansible, emulator):
    tasks = examples(emulator.live_url)
    live = [task for task in tasks if not is_planned(task)]
    planned = [task for task in tasks if is_planned(task)]
    assert live and planned

    run = ansible.playbook(play(live), extra_vars={"vault_gamepanel_token": OWNER_TOKEN})
    assert run.rc == 0, run.describe()
    offline = run.result("Show the servers that are not online")["msg"]
    assert sorted(offline) == ["Modded", "Rust Test"]
    assert run.result("Show who is playing")["mc01.servers[0].details.players"]  # mc-01 has 3 players
    # the block under module_defaults: its address and token are the example's, pointed at the emulator
    survival = run.result('Online Minecraft servers whose name starts with "Survival"')["servers"]
    assert [server["id"] for server in survival] == ["mc-01"]
    assert sorted(server["id"] for server in run.result("Every Rust server, whatever its status")["servers"]) == [
        "rust-01", "rust-02"]

    run = ansible.playbook(play(planned), variant="planned")
    assert run.rc == 0, run.describe()
    assert not any(emulator.control.counters()["posts"].values())  # reading sends no action
