# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Agents that disconnect mid-job and come back.

A restart queued for a disconnected agent is deferred, not refused: the job names the
deferred servers, the panel applies each action once when its agent reconnects, and a
re-run with min_uptime queues nothing more.
"""

from __future__ import annotations

import json

PLAYBOOK = "reliability/fleet_restart.yml"
ONLINE = ("mc-01", "mc-02", "rust-01", "ark-01")
AWAY = ("mc-02", "rust-01")
INVENTORY = (
    "---\n"
    + json.dumps(
        {
            "all": {
                "hosts": {server_id: {"gamepanel_id": server_id, "ansible_connection": "local"} for server_id in ONLINE}
            }
        }
    )
    + "\n"
)


def report_of(run):
    return json.loads(run.result("Report")["msg"])


def test_deferred_restarts_are_named_then_applied_once_when_the_agents_return(ansible, emulator):
    control = emulator.control
    for server_id in AWAY:
        control.disconnect(server_id)
    first = ansible.playbook(PLAYBOOK, inventory=INVENTORY, extra_vars={"batch": 2, "fleet_wait_timeout": 2})
    assert first.rc == 0, first.describe()
    report = report_of(first)
    assert sorted(report["restarted"]) == ["ark-01", "mc-01"]
    assert sorted(report["deferred"]) == sorted(AWAY)
    for result in first.results("Registered"):
        if result.host in AWAY:
            message = result["msg"]["restart"]["msg"]
            assert "(%s)" % result.host in message and "the agent has not checked in" in message
            assert "did not queue it again" in message
    counters = control.counters()
    assert counters["actions_queued"] == {server_id: 1 for server_id in ONLINE}
    assert {server_id: counters["restarts"].get(server_id, 0) for server_id in AWAY} == {"mc-02": 0, "rust-01": 0}

    for server_id in AWAY:  # the agents come back: each checks in at once and runs its queued restart
        control.reconnect(server_id)
    # Let the restarts finish on the emulator's clock (stop and boot), so that the re-run finds
    # the servers online again rather than half-way through their restart.
    control.advance(5)
    assert all(control.server(server_id)["status"] == "online" for server_id in AWAY)
    counters = control.counters()
    assert counters["restarts"] == {server_id: 1 for server_id in ONLINE}
    assert counters["posts"] == {server_id: 1 for server_id in ONLINE}

    second = ansible.playbook(PLAYBOOK, inventory=INVENTORY, extra_vars={"batch": 2, "fleet_min_uptime": 600})
    assert second.rc == 0, second.describe()
    assert sorted(report_of(second)["unchanged"]) == sorted(ONLINE)
    after = control.counters()
    assert after["posts"] == counters["posts"] and after["restarts"] == counters["restarts"]
