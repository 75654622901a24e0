# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A sliced job as Automation Platform runs it: slices of one job at once, each in an environment of its own.

Two ansible-runner jobs start together on the two halves of one fleet (as job slicing splits the
inventory), with the same token and nothing shared on disk: each has an empty state directory of
its own, so neither the rate budget nor the ledger is shared. Each slice is given half the plan's
rate (what docs/awx.md tells users to set). Every online server must be restarted exactly once and
no host may fail; 429s, if the two slices meet at the panel's limit, must all be absorbed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from emulator.harness import EmulatorProcess
from test_awx_runner import PLAYBOOK, RUNNER_TIMEOUT, credential_type, inject

FLEET = 40
SLICES = 2
TEAM_RATE = 600


@pytest.fixture
def runner_bin(tool) -> Path:
    return tool("runner", "ansible-runner").parent


def halves(runner: Path, inventory: Path, env: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """The inventory's server hosts, and the server id of each."""
    listed = subprocess.run(
        [str(runner / "ansible-inventory"), "-i", str(inventory), "--list"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    hostvars = json.loads(listed.stdout)["_meta"]["hostvars"]

    def plain(value):  # the newest ansible-inventory marks untrusted strings
        return value.get("__ansible_unsafe") if isinstance(value, dict) else value

    ids = {host: plain(variables.get("gamepanel_id")) for host, variables in hostvars.items()}
    return sorted(host for host, server_id in ids.items() if server_id), ids


def slice_dir(root: Path, number: int, envvars: dict[str, str], hosts: list[str]) -> Path:
    pdd = root / ("slice-%d" % number)
    for part in ("project", "inventory", "env"):
        (pdd / part).mkdir(parents=True)
    (pdd / "inventory" / "fleet.gamepanel.yml").write_text("plugin: gamepanel.panel.servers\n", encoding="utf-8")
    (pdd / "env" / "envvars").write_text(yaml.safe_dump(envvars), encoding="utf-8")
    (pdd / "env" / "extravars").write_text(
        yaml.safe_dump({"target": ",".join(hosts), "batch": 10, "rolling_restart_max_players": None}), encoding="utf-8"
    )
    return pdd


def test_two_slices_with_state_of_their_own_restart_every_server_exactly_once(tmp_path, runner_bin, collections_path):
    with EmulatorProcess(fleet_size=FLEET, python=sys.executable) as emulator:
        token = emulator.control.create_token("acme", "olivia", "sliced-job", "control")
        credential_env = inject(credential_type(), {"token": token, "base_url": emulator.live_url, "variant": "live"})
        base_env = {key: value for key, value in os.environ.items() if not key.startswith(("ANSIBLE_", "GAMEPANEL_"))}
        base_env["PATH"] = f"{runner_bin}{os.pathsep}{base_env.get('PATH', '')}"
        inventory = tmp_path / "fleet.gamepanel.yml"
        inventory.write_text("plugin: gamepanel.panel.servers\n", encoding="utf-8")
        listing = {"ANSIBLE_COLLECTIONS_PATH": str(collections_path), "ANSIBLE_HOME": str(tmp_path / "home")}
        hosts, ids = halves(runner_bin, inventory, {**base_env, **listing, **credential_env})
        fleet = set(ids.values())
        online = {
            server["id"]
            for server in emulator.control.state()["servers"]
            if server["id"] in fleet and server["status"] == "online"
        }
        assert len(hosts) == FLEET and len(online) > FLEET // 2

        jobs = []
        for number in range(SLICES):
            envvars = {
                "ANSIBLE_COLLECTIONS_PATH": str(collections_path),
                "ANSIBLE_PYTHON_INTERPRETER": str(runner_bin / "python"),
                "ANSIBLE_HOME": str(tmp_path / ("ansible-home-%d" % number)),
                "GAMEPANEL_STATE_DIR": str(tmp_path / ("state-%d" % number)),  # nothing shared on disk
                "GAMEPANEL_RATE_LIMIT": str(TEAM_RATE // SLICES),  # each slice's share of the token's minute
                **credential_env,
            }
            pdd = slice_dir(tmp_path, number, envvars, hosts[number::SLICES])
            command = [str(runner_bin / "ansible-runner"), "run", str(pdd), "--playbook", PLAYBOOK, "--quiet"]
            command += ["--ident", "slice"]
            jobs.append((pdd, subprocess.Popen(command, env=base_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)))
        for pdd, job in jobs:
            unused, stderr = job.communicate(timeout=RUNNER_TIMEOUT)
            stdout = (pdd / "artifacts" / "slice" / "stdout").read_text(encoding="utf-8")
            assert job.returncode == 0, "%s\n%s" % (stderr.decode(errors="replace"), stdout)
            assert "failed=0" in stdout and "failed=1" not in stdout

        counters = emulator.control.counters()
        posts = {server_id: count for server_id, count in counters["posts"].items() if count}
        assert posts == dict.fromkeys(sorted(online), 1)
        assert {server_id: counters["restarts"].get(server_id, 0) for server_id in online} == dict.fromkeys(online, 1)
        with open(os.environ.get("GAMEPANEL_SLICED_REPORT", os.devnull), "a", encoding="utf-8") as report:
            report.write(json.dumps({"rate_limited": counters.get("rate_limited"), "posts": len(posts)}) + "\n")
