# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The guides' examples (docs/examples/*.yml, quoted as they are by the guides: make docs-check) run.

Every playbook passes ansible-playbook --syntax-check with the installed collection; the ones that
can run against the emulator's default fleet in a test's time do, unchanged, over a plain
gamepanel.panel.servers inventory; the inventory examples are read by ansible-inventory.
(ansible-lint lints them all: make lint.)
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import BIN_DIR

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
PLAYBOOKS = sorted(path.name for path in EXAMPLES.glob("*.yml") if not path.name.endswith(".gamepanel.yml"))
INVENTORY = "plugin: gamepanel.panel.servers\n"


def posts(emulator):
    return {server: count for server, count in emulator.control.counters()["posts"].items() if count}


@pytest.fixture
def fast_agents(emulator):
    emulator.control.settings(checkin_interval=0.05, checkin_jitter=0)
    return emulator


def test_there_are_examples():
    assert len(PLAYBOOKS) >= 5 and len(list(EXAMPLES.glob("*.gamepanel.yml"))) >= 2


@pytest.mark.parametrize("name", PLAYBOOKS)
def test_example_playbook_passes_syntax_check(ansible, name):
    completed = subprocess.run(
        [str(BIN_DIR / "ansible-playbook"), "--syntax-check", "-i", "localhost,", str(EXAMPLES / name)],
        env=ansible.environment(playbook=False),
        cwd=ansible.workdir,
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    # no inventory is given: only the host patterns go unmatched
    warnings = [line for line in completed.stderr.splitlines() if "WARNING" in line and "host pattern" not in line]
    assert not warnings, completed.stderr


def test_groups_example_groups_by_players_and_composes_free_slots(ansible):
    run = ansible.inventory(str(EXAMPLES / "groups.gamepanel.yml"))
    assert run.rc == 0, run.describe()
    groups = run.json
    assert set(groups["players_busy"]["hosts"]) == {"Survival", "Rust_Main"}
    assert "Creative" in groups["players_empty"]["hosts"]
    assert "nearly_full" not in groups  # nobody is near capacity in the default fleet
    assert groups["_meta"]["hostvars"]["Survival"]["free_slots"] == 17


def test_filters_example_keeps_the_matching_online_servers_only(ansible, emulator):
    emulator.control.set_server("mc-02", name="EU-Creative")
    run = ansible.inventory(str(EXAMPLES / "filters.gamepanel.yml"))
    assert run.rc == 0, run.describe()
    assert set(run.json["_meta"]["hostvars"]) == {"EU-Creative"}


def test_per_host_example_restarts_the_empty_minecraft_servers(ansible, fast_agents):
    run = ansible.playbook(str(EXAMPLES / "inventory_per_host.yml"), inventory=INVENTORY)
    assert run.rc == 0, run.describe()
    restarted = posts(fast_agents)
    assert restarted.get("mc-02") == 1 and "mc-01" not in restarted  # Survival has 3 players on
    assert not set(restarted) - {"mc-01", "mc-02", "mc-03"}  # Minecraft only


def test_queue_then_confirm_example_restarts_every_online_server(ansible, fast_agents):
    run = ansible.playbook(str(EXAMPLES / "queue_then_confirm.yml"), inventory=INVENTORY)
    assert run.rc == 0, run.describe()
    assert posts(fast_agents) == {"mc-01": 1, "mc-02": 1, "rust-01": 1, "ark-01": 1}
    assert fast_agents.control.counters()["restarts"] == {"mc-01": 1, "mc-02": 1, "rust-01": 1, "ark-01": 1}


def test_one_task_example_restarts_the_empty_servers_up_an_hour(ansible, fast_agents):
    run = ansible.playbook(str(EXAMPLES / "restart_in_one_task.yml"), inventory=INVENTORY)
    assert run.rc == 0, run.describe()
    # mc-01 and rust-01 have players on; mc-02 (2 h) and ark-01 (1 h) are empty and up long enough
    assert posts(fast_agents) == {"mc-02": 1, "ark-01": 1}


def test_maintenance_example_sends_nothing_outside_its_window(ansible, fast_agents):
    run = ansible.playbook(
        str(EXAMPLES / "maintenance_rust.yml"),
        inventory=INVENTORY,
        extra_vars={"maintenance_now": "2026-07-01T12:00:00-05:00"},  # noon in Chicago: outside 04:00-06:00
    )
    assert run.rc == 0, run.describe()
    assert posts(fast_agents) == {}


def test_maintenance_example_restarts_the_empty_rust_servers_inside_its_window(ansible, fast_agents):
    fast_agents.control.set_server("rust-01", players={"current": 0, "max": 100})
    run = ansible.playbook(
        str(EXAMPLES / "maintenance_rust.yml"),
        inventory=INVENTORY,
        extra_vars={"maintenance_now": "2026-07-01T05:00:00-05:00", "maintenance_poll_interval": 0.3},
    )
    assert run.rc == 0, run.describe()
    assert posts(fast_agents) == {"rust-01": 1}  # up two days, now empty; rust-02 is offline
