# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""_entry/tasks.py: what server_info reports of the ledger (the tasks' HTTP runs are the integration tests')."""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.module_utils._entry.failure import TaskFailed
from ansible_collections.gamepanel.panel.plugins.module_utils._entry.tasks import _one_host_a_server, still_open
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


class PanelClient(object):
    """What _one_host_a_server knows of a client: the panel it talks to."""

    def __init__(self, base_url, api_variant="live"):
        self.base_url = base_url
        self.api_variant = api_variant


def refusal(*clients):
    try:
        _one_host_a_server(list(clients))
    except TaskFailed as failure:
        return failure.msg
    return None


def test_two_hosts_of_one_server_of_one_panel_are_refused_in_one_account_or_two():
    eu = PanelClient("https://eu.example.test")
    # one account, two hosts with one server id
    message = refusal(("eu", {}, eu, [("ark-01", "ark_a"), ("mc-01", "mc"), ("ark-01", "ark_b")]))
    assert message.startswith(
        "hosts: ark_a (account eu) and ark_b (account eu) stand for the same server (ark-01) of one panel"
    )
    assert message.endswith("Nothing was sent.")
    # two accounts (two tokens) reading one panel
    message = refusal(("eu", {}, eu, [("ark-01", "eu_ark")]), ("us", {}, eu, [("ark-01", "us_ark")]))
    assert "eu_ark (account eu) and us_ark (account us) stand for the same server (ark-01)" in message
    # one server id on two panels is two servers; one host named twice is one host
    other = PanelClient("https://us.example.test")
    assert refusal(("eu", {}, eu, [("ark-01", "eu_ark")]), ("us", {}, other, [("ark-01", "us_ark")])) is None
    assert refusal(("eu", {}, eu, [("ark-01", "ark"), ("ark-01", "ark")])) is None
