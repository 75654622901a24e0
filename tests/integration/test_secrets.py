# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The API token appears in no output, message, traceback, cache, state file or log.

One test, one token with a value found nowhere else.  It runs the collection the ways a
user does, at -vvvv, through success and failure (unknown id, an ambiguous POST, a
panel that echoes the token back in its error pages, then the token revoked), and
then searches every byte the runs left behind.
"""

from __future__ import annotations

import os
import re
import secrets
from pathlib import Path

import pytest

from emulator.harness import EmulatorProcess
from panel_doubles import CannedPanel

SUCCESS_AND_FAILURE = """
- name: Everything a job does, at -vvvv
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Read one server
      gamepanel.panel.server_info:
        id: mc-01
        include: [players, metrics, console, resources]
    - name: Restart one server
      gamepanel.panel.server_control:
        id: mc-02
        state: restarted
        poll_interval: 0.2
        wait_timeout: 20
    - name: Read an unknown server
      gamepanel.panel.server_info:
        id: no-such-server
      ignore_errors: true
    - name: Restart whose answer is lost
      gamepanel.panel.server_control:
        id: ark-01
        state: restarted
        poll_interval: 0.2
        wait_timeout: 2
      ignore_errors: true
"""

AGAINST_AN_ECHOING_PANEL = """
- name: A panel that quotes the token back
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Read
      gamepanel.panel.server_info:
        id: mc-01
        retry_timeout: 0
      ignore_errors: true
    - name: Restart
      gamepanel.panel.server_control:
        id: mc-01
        state: restarted
        retry_timeout: 0
      ignore_errors: true
"""


@pytest.fixture
def logged_emulator(tmp_path):
    log = tmp_path / "emulator.log"
    with open(log, "wb") as stderr:
        process = EmulatorProcess(stderr=stderr)
        process.start()
        try:
            yield process, log
        finally:
            process.stop()


def files_under(*roots):
    for root in roots:
        for path in Path(root).rglob("*"):
            if path.is_file():
                yield path


def test_the_token_is_nowhere(ansible, logged_emulator, tmp_path):
    emulator, log = logged_emulator
    token = "gp-probe-" + secrets.token_hex(16)
    emulator.control.create_token("acme", "olivia", "probe", "control", value=token)
    cache_dir = tmp_path / "inventory-cache"
    inventory = (
        "plugin: gamepanel.panel.servers\ncache: true\ncache_plugin: ansible.builtin.jsonfile\n"
        "cache_connection: %s\n" % cache_dir
    )
    runs = []
    # ansible-core prints tracebacks only when asked (ANSIBLE_DISPLAY_TRACEBACK).
    traceback_env = {"ANSIBLE_DISPLAY_TRACEBACK": "always"}

    def playbook(text, **kwargs):
        run = ansible.playbook(
            text, token=token, verbosity=4, env=dict(traceback_env, ANSIBLE_STDOUT_CALLBACK="default"), **kwargs
        )
        runs.append(run)
        return run

    # Success and failure against the emulator; one POST's answer is lost after queueing.
    emulator.control.add_fault(kind="status", status=502, method="POST", phase="after", path="ark-01")
    run = playbook(SUCCESS_AND_FAILURE, base_url=emulator.live_url)
    assert run.rc == 0, run.describe()
    assert "ignored=1" in run.stdout and emulator.control.faults()[0]["fired"] == 1, run.stdout[-3000:]
    runs.append(
        ansible.inventory(
            inventory, token=token, base_url=emulator.live_url, args=("--list", "-vvvv"), env=traceback_env
        )
    )
    assert cache_dir.exists() and any(cache_dir.iterdir()), runs[-1].describe()

    # A panel that echoes the token in its error pages (HTML, JSON, a plain 200).
    for status, body in (
        (500, "<html>bad token %s</html>" % token),
        (404, '{"error": {"message": "unknown token %s"}}' % token),
        (200, "welcome %s" % token),
    ):
        with CannedPanel(status, body, {"Content-Type": "text/html"}) as canned:
            run = playbook(AGAINST_AN_ECHOING_PANEL, base_url=canned.root + "/v1")
            assert "ignored=2" in run.stdout, run.describe()

    # The token revoked: every entry point fails, verbosely.
    emulator.control.revoke_token("probe")
    run = playbook(SUCCESS_AND_FAILURE, base_url=emulator.live_url)
    assert run.rc != 0 and "HTTP 401" in run.stdout, run.describe()
    runs.append(
        ansible.inventory(
            inventory.replace("cache: true", "cache: false"),
            token=token,
            base_url=emulator.live_url,
            args=("--list", "-vvvv"),
            env=traceback_env,
        )
    )
    assert "HTTP 401" in " ".join(runs[-1].stderr.split()), runs[-1].describe()
    # A traceback was printed too (the inventory's failure at -vvv and more), so it is searched below.
    assert any(
        re.search(r'File "[^"]+", line [0-9]+, in ', item.stdout + item.stderr) for item in runs
    ), "no traceback was produced to search"

    emulator.stop()  # flush the emulator's log
    searched = {"outputs": 0, "files": 0}
    for item in runs:
        for stream in (item.stdout, item.stderr):
            assert token not in stream, item.describe()
            searched["outputs"] += 1
    leftovers = list(files_under(cache_dir, ansible.state_dir, ansible.home, ansible.local_temp, ansible.workdir))
    leftovers.append(log)
    for path in leftovers:
        assert token.encode() not in path.read_bytes(), path
        searched["files"] += 1
    assert any(path.parent == ansible.state_dir for path in leftovers), "no shared-state file was written"
    assert searched["outputs"] >= 14 and searched["files"] >= 3, searched
    assert os.path.getsize(log) >= 0
