# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""A wall clock that jumps during the wait (an NTP step, a resumed VM) confirms no restart that did not happen.

The uptime reset is judged on the time that surely passed between two reads: measured on the wall
clock, a step forward of an hour makes an uptime that only grew look an hour short, i.e. reset.
The fake clock's ``time()`` jumps here while its ``monotonic()`` runs on as usual; the servers'
uptimes never go back, so no restart may be confirmed, and each wait lasts its wait_timeout.
"""

from __future__ import annotations

import pytest

from ansible_collections.gamepanel.panel.plugins.module_utils._engine.many_servers import run_many_servers
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.one_server import run_one_server
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.request import ControlRequest
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.result import ControlFailed

from panel_fakes import FakeClient, request, server

WAIT = 30
# (seconds after the POST, jump of the wall clock): forward, back, and forward then back past the start
STEPS = {
    "forward an hour": [(5, 3600)],
    "back an hour": [(5, -3600)],
    "forward then back": [(4, 3600), (12, -7200)],
    "forward a day twice": [(3, 86400), (9, 86400)],
}


def step_the_wall_clock_after_the_post(client, steps):
    """The wall clock jumps as ``steps`` say, counted from the first POST."""

    def react(server_id, action):
        if len(client.posts) == 1:
            for delay, seconds in steps:
                client.clock.step_wall(delay, seconds)

    client.on_post = react


@pytest.mark.parametrize("steps", list(STEPS.values()), ids=list(STEPS))
def test_one_server_a_stepped_wall_clock_confirms_no_restart(steps):
    client = FakeClient(server(players=0, uptime=86400))
    client.live_uptime("mc-01", horizon=WAIT + 20)  # grows with the clock, never goes back
    step_the_wall_clock_after_the_post(client, steps)
    with pytest.raises(ControlFailed) as failure:
        run_one_server(client, request("restarted", wait_timeout=WAIT, poll_interval=2))
    result = failure.value.result
    assert (result["changed"], result["converged"]) == (True, False)
    assert "queued, not yet applied" in failure.value.message
    assert result["server"]["uptime_seconds"] > 86400  # the reads saw the uptime grow all along
    # the wait ran its wait_timeout on the monotonic clock, whatever the wall clock said
    assert WAIT <= result["elapsed"] <= WAIT + 3


@pytest.mark.parametrize("steps", list(STEPS.values()), ids=list(STEPS))
def test_one_server_a_real_restart_is_still_confirmed_across_a_step(steps):
    client = FakeClient(server(players=0, uptime=86400))
    client.live_uptime("mc-01", restart_at=8, horizon=WAIT + 20)
    step_the_wall_clock_after_the_post(client, steps)
    result = run_one_server(client, request("restarted", wait_timeout=WAIT, poll_interval=2))
    assert (result["changed"], result["converged"]) == (True, True)
    assert result["elapsed"] < WAIT


@pytest.mark.parametrize("steps", list(STEPS.values()), ids=list(STEPS))
def test_many_servers_a_stepped_wall_clock_confirms_only_the_restart_that_happened(steps):
    ids = ["srv-00", "srv-01", "srv-02"]
    client = FakeClient(*(server(server_id, "Server %s" % server_id, players=0, uptime=86400) for server_id in ids))
    client.live_uptime("srv-00", restart_at=6, horizon=WAIT + 40)  # the one restart that happens
    for server_id in ids[1:]:
        client.live_uptime(server_id, horizon=WAIT + 40)
    step_the_wall_clock_after_the_post(client, steps)
    started = client.clock.monotonic()
    with pytest.raises(ControlFailed) as failure:
        run_many_servers(
            client, ControlRequest("restarted", ids=ids, wait_timeout=WAIT, poll_interval=2), ids, ledger=None
        )
    lines = dict((line["id"], line) for line in failure.value.result["servers"])
    assert lines["srv-00"]["converged"] is True
    for server_id in ids[1:]:
        assert (lines[server_id]["changed"], lines[server_id]["converged"]) == (True, False), lines[server_id]
        assert "queued, not yet applied" in lines[server_id]["msg"]
        assert lines[server_id]["uptime_seconds"] > 86400
    # the waits ended with their wait_timeout, on the monotonic clock
    assert WAIT <= client.clock.monotonic() - started <= WAIT + 20
