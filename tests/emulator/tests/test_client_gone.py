# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A client that gives up during an injected delay: nothing is queued, and the emulator's log stays clean."""

from __future__ import annotations

import socket

import pytest

from emulator.harness import EmulatorProcess

from .apiclient import Api, wait_until


def test_a_post_abandoned_during_latency_queues_nothing_and_logs_no_traceback(tmp_path):
    log = tmp_path / "emulator.log"
    with open(log, "wb") as stderr, EmulatorProcess(stderr=stderr) as emulator:
        emulator.control.add_fault(kind="latency", seconds=0.5, method="POST", count=1)
        impatient = Api(emulator.live_url, timeout=0.1)
        with pytest.raises((socket.timeout, TimeoutError)):
            impatient.control("mc-01", "restart")
        impatient.close()
        wait_until(lambda: emulator.control.faults()[0]["fired"] == 1)
        live = Api(emulator.live_url)
        wait_until(lambda: live.get("/servers/mc-01").status == 200)  # the emulator still answers
        live.close()
        wait_until(lambda: emulator.control.counters()["posts"].get("mc-01") == 1)
        assert emulator.control.counters()["actions_queued"] == {}
    assert b"Traceback" not in log.read_bytes(), log.read_text()
