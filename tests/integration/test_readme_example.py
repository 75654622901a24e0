# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The README's quick example, taken from the README as it is and run against the emulator's default fleet."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def quick_example():
    """The shell block and the YAML block of the README's "Quick example" section."""
    section = README.read_text(encoding="utf-8").split("## Quick example", 1)[1].split("\n## ", 1)[0]
    shell, playbook = re.findall(r"```(?:yaml)?\n(.*?)```", section, flags=re.S)[:2]
    return shell, playbook


def test_the_status_command_of_the_quick_example_runs(ansible, emulator):
    shell, _playbook = quick_example()
    inventory = re.search(r"printf '(.*?)\\n' > fleet\.gamepanel\.yml", shell).group(1) + "\n"
    name = re.search(r"ansible-playbook (gamepanel\.panel\.\w+) -i fleet\.gamepanel\.yml", shell).group(1)
    run = ansible.playbook("- name: README\n  ansible.builtin.import_playbook: %s\n" % name, inventory=inventory)
    assert run.rc == 0, run.describe()
    assert "Survival" in run.stdout and "Rust Main" in run.stdout  # one line per server of the fleet
    assert not any(emulator.control.counters()["posts"].values())  # a status job sends no action


def test_the_quick_example_playbook_restarts_only_the_empty_online_minecraft_servers(ansible, emulator):
    emulator.control.settings(checkin_interval=0.05, checkin_jitter=0)
    _shell, playbook = quick_example()
    run = ansible.playbook(playbook)
    assert run.rc == 0, run.describe()
    counters = emulator.control.counters()
    # Minecraft: Survival (mc-01) has 3 players, Creative (mc-02) none, Modded (mc-03) is offline.
    assert {server: count for server, count in counters["posts"].items() if count} == {"mc-02": 1}
    assert counters["restarts"] == {"mc-02": 1}
