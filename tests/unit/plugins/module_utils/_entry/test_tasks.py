# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""_entry/tasks.py: what server_info reports of the ledger (the tasks' HTTP runs are the integration tests')."""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.module_utils._entry.tasks import still_open
from ansible_collections.gamepanel.panel.plugins.module_utils._state.files import StateFiles
from ansible_collections.gamepanel.panel.plugins.module_utils._state.ledger import Ledger

from panel_fakes import FakeClock, server

PANEL = "live https://panel.example.test/api/v1"


def test_server_info_shows_the_open_entries_its_reads_do_not_prove_and_writes_nothing(tmp_path):
    ledger = Ledger(StateFiles("k" * 64, str(tmp_path)), PANEL, FakeClock())
    start, unused = ledger.claim("mc-01", "start", {"status": "offline"})
    stop, unused = ledger.claim("mc-02", "stop", {"status": "online"})
    read_started = ledger.clock.time() + 1
    servers = [server("mc-01", status="online"), server("mc-02", status="online"), {"name": "no id"}]
    assert still_open(ledger, servers, read_started) == [
        {"id": "mc-02", "action": "stop", "queued_at": stop["queued_at"], "state": "sending"}
    ]
    assert ledger.find("mc-01", "start")["state"] == "sending"  # proven by the read, but not marked
