# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Running the emulator: the start line, signals, --no-controls, --fleet-size, fixture files."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from emulator.fixture import FixtureError, load_fixture
from emulator.harness import RUN_SCRIPT, EmulatorError, EmulatorProcess

from .apiclient import OWNER, Api


def test_start_line_sigterm_and_exit_code():
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, RUN_SCRIPT, "--port", "0"], stdout=subprocess.PIPE
    )  # pylint: disable=consider-using-with
    try:
        announcement = json.loads(process.stdout.readline())
        elapsed = time.monotonic() - started
        assert set(announcement) == {"live", "planned", "control", "pid"}
        assert announcement["pid"] == process.pid
        assert announcement["live"].startswith("http://127.0.0.1:") and announcement["live"].endswith("/v1")
        assert announcement["planned"].endswith("/planned/v1")
        assert announcement["control"].endswith("/_emulator")
        # "Starts in under a second" on a quiet machine; a loaded CI runner gets some slack.
        assert elapsed < 5, f"start took {elapsed:.2f} s"
        api = Api(announcement["live"])
        assert api.get("/servers", token=OWNER).status == 200
        api.close()
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0
        process.stdout.close()


def test_sigint_stops_it_cleanly_too():
    with EmulatorProcess() as emulator:
        os.kill(emulator.pid, signal.SIGINT)
        deadline = time.monotonic() + 10
        while emulator.running and time.monotonic() < deadline:
            time.sleep(0.02)
        assert emulator.stop() == 0


def test_no_controls_flag():
    with EmulatorProcess(controls=False) as emulator:
        assert emulator.control_url is None and emulator.control is None
        api = Api(emulator.live_url)
        root = emulator.live_url[: -len("/v1")]
        assert api.get(root + "/_emulator/state").status == 404
        assert api.get("/servers", token=OWNER).status == 200
        api.close()


def test_fleet_size_generates_servers_and_lists_them_fast():
    with EmulatorProcess(fleet_size=10000) as emulator:
        emulator.control.settings(rate_limits={"team": 100000})
        api = Api(emulator.live_url)
        started = time.monotonic()
        servers = api.get("/servers").json
        elapsed = time.monotonic() - started
        api.close()
        assert len(servers) == 10000
        assert servers[0]["id"] == "srv-00001" and servers[-1]["id"] == "srv-10000"
        assert {server["status"] for server in servers} == {"online", "offline", "installing"}
        assert len({server["game"] for server in servers}) >= 5
        assert elapsed < 3, f"listing 10,000 servers took {elapsed:.2f} s"
        # Other accounts keep their fixture servers.
        pro = Api(emulator.live_url, token="gp-test-pro-control")
        assert pro.get("/servers").json[0]["id"] == "pro-01"
        pro.close()


def test_custom_json_fixture(tmp_path):
    fixture = {
        "defaults": {"checkin_interval": 1000, "checkin_jitter": 0},
        "accounts": [
            {
                "name": "solo",
                "plan": "pro",
                "paid": True,
                "users": {"kim": "owner"},
                "tokens": [{"name": "kim", "user": "kim", "scope": "control", "value": "kim-secret"}],
                "servers": [{"id": "only-1", "name": "Only", "game": "factorio", "status": "crashed"}],
            }
        ],
    }
    path = tmp_path / "fixture.json"
    path.write_text(json.dumps(fixture), encoding="utf-8")
    with EmulatorProcess(fixture=str(path)) as emulator:
        api = Api(emulator.live_url, token="kim-secret")
        servers = api.get("/servers").json
        api.close()
        assert [(server["id"], server["status"], server["game"]) for server in servers] == [
            ("only-1", "crashed", "factorio")
        ]
        assert emulator.control.server("only-1")["agent"]["checkin_interval"] == 1000


@pytest.mark.parametrize(
    "document, complaint",
    [
        ("accounts: []", "defines no accounts"),
        ("accounts: [{name: a, plan: gold}]", "plan must be one of"),
        (
            "accounts: [{name: a, plan: pro, users: {u: owner}, tokens: [{name: t, user: v, scope: control, value: x}]}]",
            "is not a user",
        ),
        ("accounts: [{name: a, plan: pro, servers: [{id: s, players: {current: 5, max: 2}}]}]", "above players.max"),
        ("accounts: [{name: a, plan: pro, servers: [{id: s}, {id: s}]}]", "duplicate server id"),
        ("accounts: [{name: a, plan: pro, servers: [{id: s, checkin_interval: 0}]}]", "checkin_interval must be >"),
        ("defaults: {boot_time: soon}\naccounts: [{name: a, plan: pro}]", "boot_time must be a number"),
        ("{not yaml", "not valid YAML"),
    ],
)
def test_bad_fixtures_are_refused_with_a_reason(tmp_path, document, complaint):
    path = tmp_path / "bad.yaml"
    path.write_text(document, encoding="utf-8")
    with pytest.raises(FixtureError, match=complaint):
        load_fixture(str(path))


def test_a_bad_fixture_stops_the_start_with_exit_code_2(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("accounts: []", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, RUN_SCRIPT, "--fixture", str(path)], capture_output=True, text=True, timeout=30, check=False
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith("run.py: ") and "defines no accounts" in result.stderr
    with pytest.raises(EmulatorError, match="exited with code 2"):
        EmulatorProcess(fixture=str(path)).start()
