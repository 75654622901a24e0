# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Exactly once whatever the token, the disk or the file: the ledger follows the panel and never fails silently.

Real ansible-playbook runs against the emulator; its counters prove what reached the panel
(``posts``: action requests received, ``restarts``: restarts the agents applied).
"""

from __future__ import annotations

import glob
import hashlib
import json
import os

import pytest

from test_server_control import QUEUED_MESSAGE, control
from test_server_control_ledger import FINISH, NEVER, posts, restarts

OFF = "exactly once across runs is off"


def rotate(emulator, name="rotated-control"):
    """The rotation the panel documents: a new token first, then the old one revoked; returns the new value."""
    value = emulator.control.create_token("acme", "olivia", name, "control")
    emulator.control.revoke_token("owner-control")
    return value


def ledger_files(state_dir):
    return sorted(glob.glob(os.path.join(str(state_dir), "panel-*.ledger.[0-9][0-9]")))


def test_a_rotated_token_sees_the_restart_queued_with_the_old_one(ansible, emulator):
    emulator.control.disconnect("mc-01")
    first = control(ansible, id="mc-01", state="restarted", wait_timeout=2, expect_failure=True)
    assert QUEUED_MESSAGE in first["msg"] and posts(emulator, "mc-01") == 1

    new_token = rotate(emulator)
    again = control(ansible, id="mc-01", state="restarted", wait_timeout=2, token=new_token, expect_failure=True)
    assert (again["changed"], again["action"], again["pending"]["action"]) == (False, None, "restart")
    assert "Nothing new was sent" in again["msg"]
    assert posts(emulator, "mc-01") == 1

    emulator.control.reconnect("mc-01")
    emulator.control.advance(FINISH)
    final = control(ansible, id="mc-01", state="restarted", min_uptime=600, token=new_token)
    assert (final["changed"], final["action"]) == (False, None)
    assert (posts(emulator, "mc-01"), restarts(emulator, "mc-01")) == (1, 1)


def test_inside_the_read_lag_another_token_restarts_nobody(ansible, emulator):
    emulator.control.settings(checkin_interval=NEVER, checkin_jitter=0, read_lag_seconds=300)
    assert control(ansible, id="mc-02", state="restarted", wait=False)["changed"] is True
    emulator.control.checkin("mc-02")
    emulator.control.advance(FINISH)
    ci_token = emulator.control.create_token("acme", "olivia", "ci-control", "control")
    rerun = control(ansible, id="mc-02", state="restarted", min_uptime=600, wait_timeout=2, token=ci_token)
    assert rerun["server"]["uptime_seconds"] > 600  # the lagging read alone would restart it again
    assert (rerun["changed"], rerun["action"], rerun["pending"]["action"]) == (False, None, "restart")
    assert (posts(emulator, "mc-02"), restarts(emulator, "mc-02")) == (1, 1)


def test_an_unusable_state_directory_is_said_and_promises_nothing(ansible, emulator, tmp_path):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the state directory should be")
    env = {"GAMEPANEL_STATE_DIR": str(blocker / "state")}
    emulator.control.disconnect("mc-01")
    first = control(ansible, id="mc-01", state="restarted", wait_timeout=2, env=env, expect_failure=True)
    assert any(warning.startswith(OFF) for warning in first["warnings"]), first.get("warnings")
    assert "waits for it instead of queueing a second" not in first["msg"]
    assert "running this again before then would queue a second restart" in first["msg"]
    info = control_info(ansible, env)
    assert any(warning.startswith(OFF) for warning in info["warnings"])


def control_info(ansible, env):
    run = ansible.playbook("server_info/registered.yml", env=env)
    assert run.rc == 0, run.describe()
    return run.result("Registered")["msg"]["info"]


DAMAGE = {
    "truncated": b'{"entries": {"x": {"id": "mc-0',
    "not_json": b"\x00\x01 this is no ledger",
    "wrong_shape": json.dumps({"entries": ["a", "list"]}).encode(),
    "empty": b"",
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_ledger_file_is_kept_aside_and_its_servers_are_not_acted_on_blind(ansible, emulator, damage):
    emulator.control.disconnect("mc-01")
    control(ansible, id="mc-01", state="restarted", wait=False)
    assert posts(emulator, "mc-01") == 1
    (holding,) = [path for path in ledger_files(ansible.state_dir) if "mc-01" in open(path).read()]
    with open(holding, "wb") as broken:
        broken.write(DAMAGE[damage])

    again = control(ansible, id="mc-01", state="restarted", wait=False, expect_failure=True)
    assert again["failed"] is True and again["changed"] is False and posts(emulator, "mc-01") == 1
    assert "could not be read" in again["msg"] and "ignore_pending" in again["msg"]
    (kept,) = glob.glob(holding + ".damaged-*")
    assert open(kept, "rb").read() == DAMAGE[damage]  # kept as it was, for inspection
    assert any(kept in warning for warning in again["warnings"])
    # The next run still knows: the mark outlives the run that found the damage.
    still = control(ansible, id="mc-01", state="restarted", wait=False, expect_failure=True)
    assert still["changed"] is False and kept in still["msg"] and posts(emulator, "mc-01") == 1

    # A server of another bucket acts normally.
    other = next(sid for sid in ("rust-01", "ark-01", "mc-02") if bucket_of(sid) != bucket_of("mc-01"))
    assert control(ansible, id=other, state="restarted", wait=False)["changed"] is True

    # Checked by a person: ignore_pending sends it once, and clears the mark for that server.
    checked = control(ansible, id="mc-01", state="restarted", wait=False, ignore_pending=True)
    assert checked["changed"] is True and posts(emulator, "mc-01") == 2
    assert control(ansible, id="mc-01", state="restarted", wait=False)["changed"] is False


def test_deleting_the_kept_aside_file_clears_the_damage(ansible, emulator):
    emulator.control.settings(checkin_interval=NEVER, checkin_jitter=0)
    control(ansible, id="mc-02", state="restarted", wait=False)
    (holding,) = [path for path in ledger_files(ansible.state_dir) if "mc-02" in open(path).read()]
    with open(holding, "wb") as broken:
        broken.write(DAMAGE["truncated"])
    held = control(ansible, id="mc-02", state="stopped", wait=False, expect_failure=True)
    assert held["changed"] is False and posts(emulator, "mc-02") == 1
    for kept in glob.glob(holding + ".damaged-*"):
        os.unlink(kept)
    assert control(ansible, id="mc-02", state="stopped", wait=False)["changed"] is True
    assert posts(emulator, "mc-02") == 2


def bucket_of(server_id):
    return int(hashlib.sha256(server_id.encode()).hexdigest()[:8], 16) % 32
