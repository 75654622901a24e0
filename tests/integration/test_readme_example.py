# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The README's quick example, taken from the README as it is and run against the emulator's default fleet."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def quick_example():
    """The inventory file, the shell block and the playbook of the README's "Quick example" section."""
    section = README.read_text(encoding="utf-8").split("## Quick example", 1)[1].split("\n## ", 1)[0]
    inventory, shell, playbook = re.findall(r"```(?:yaml)?\n(.*?)```", section, flags=re.S)[:3]
    return inventory, shell, playbook


def readme_inventory(emulator):
    """The README's inventory file, with the emulator's address for the panel's."""
    inventory, _shell, _playbook = quick_example()
    assert re.search(r"^base_url: https://", inventory, flags=re.M), inventory
    return re.sub(r"^base_url: .*$", "base_url: %s" % emulator.live_url, inventory, flags=re.M)


def readme_command(playbook):
    """The ready playbook the README's shell block runs, as a play importing it."""
    _inventory, shell, _playbook = quick_example()
    assert re.search(r"ansible-playbook gamepanel\.panel\.%s -i fleet\.gamepanel\.yml\n" % playbook, shell), shell
    return "- name: README\n  ansible.builtin.import_playbook: gamepanel.panel.%s\n" % playbook


def test_the_status_command_of_the_quick_example_runs(ansible, emulator):
    # the connection from the inventory file alone: no GAMEPANEL_BASE_URL, the token in the environment
    run = ansible.playbook(
        readme_command("status"), inventory=readme_inventory(emulator), env={"GAMEPANEL_BASE_URL": None}
    )
    assert run.rc == 0, run.describe()
    assert "Survival" in run.stdout and "Rust Main" in run.stdout  # one line per server of the fleet
    assert not any(emulator.control.counters()["posts"].values())  # a status job sends no action


def test_the_restart_command_of_the_quick_example_restarts_the_empty_online_servers_only(ansible, emulator):
    emulator.control.settings(checkin_interval=0.05, checkin_jitter=0)
    for server_id in ("mc-02", "ark-01"):  # up long enough for the default rolling_restart_min_uptime
        emulator.control.set_server(server_id, uptime_seconds=3600)
    run = ansible.playbook(
        readme_command("restart_fleet"),
        inventory=readme_inventory(emulator),
        env={"GAMEPANEL_BASE_URL": None},
        extra_vars={"rolling_restart_poll_interval": 0.3},
    )
    assert run.rc == 0, run.describe()
    counters = emulator.control.counters()
    # Survival (mc-01) has 3 players and Rust Main (rust-01) 5: nobody is kicked
    assert {server: count for server, count in counters["posts"].items() if count} == {"mc-02": 1, "ark-01": 1}
    assert "Survival: 3 players online, more than rolling_restart_max_players (0): left alone" in run.stdout


def test_the_quick_example_playbook_restarts_only_the_empty_online_minecraft_servers(ansible, emulator):
    emulator.control.settings(checkin_interval=0.05, checkin_jitter=0)
    _inventory, _shell, playbook = quick_example()
    run = ansible.playbook(playbook)
    assert run.rc == 0, run.describe()
    counters = emulator.control.counters()
    # Minecraft: Survival (mc-01) has 3 players, Creative (mc-02) none, Modded (mc-03) is offline.
    assert {server: count for server, count in counters["posts"].items() if count} == {"mc-02": 1}
    assert counters["restarts"] == {"mc-02": 1}
