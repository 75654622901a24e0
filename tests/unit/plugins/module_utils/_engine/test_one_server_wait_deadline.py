# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""wait_timeout is a limit: retries inside one read end with the wait (test_follow_up.py: one server and many).

A real PanelClient on a scripted transport and the fake clock: time moves only by the
client's own sleeps, so the total time a run took is exact, never measured.
"""

from __future__ import annotations

import pytest

from ansible_collections.gamepanel.panel.plugins.module_utils._engine.one_server import run_one_server
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.result import ControlFailed
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.request import ControlRequest
from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import PanelRateLimitError
from ansible_collections.gamepanel.panel.plugins.module_utils._api.ratelimit import SharedBudget

from panel_fakes import TOKEN, FakePanel


def server(uptime=86400, status="online"):
    return {
        "id": "mc-01",
        "name": "Survival",
        "status": status,
        "uptime_seconds": uptime,
        "players": {"current": 0, "max": 20},
    }


def restart(panel, **options):
    options.setdefault("wait_timeout", 30)
    options.setdefault("poll_interval", 5)
    client = panel.client(retry_timeout=options.pop("retry_timeout", 60))
    started = panel.clock.monotonic()
    try:
        result = run_one_server(client, ControlRequest("restarted", server_id="mc-01", rate_limit=0, **options))
    except ControlFailed as failure:
        return failure, panel.clock.monotonic() - started
    return result, panel.clock.monotonic() - started


def test_a_failure_that_waiting_cannot_cure_still_ends_the_wait_at_once():
    panel = FakePanel()
    panel.reply(json=server()).reply(status=202, json={"state": "queued"})
    panel.reply(status=401, json={"error": {"message": "token revoked"}})
    failure, elapsed = restart(panel, wait_timeout=300)
    assert isinstance(failure, ControlFailed) and "HTTP 401" in failure.message
    assert elapsed == 5  # one poll interval, then the failed read
    assert TOKEN not in failure.message


def test_an_outage_lasting_past_the_wait_says_the_reads_failed():
    panel = FakePanel()
    panel.reply(json=server()).reply(status=202, json={"state": "queued"})
    for _reply in range(40):
        panel.reply(status=503, json={"error": {"message": "down"}}, headers={"Retry-After": "4"})
    failure, elapsed = restart(panel, wait_timeout=20, retry_timeout=60)
    assert elapsed <= 20
    assert "The last read failed" in failure.message and "HTTP 503" in failure.message
    assert failure.result["converged"] is False


def test_the_client_deadline_bounds_retries_and_marks_the_give_up_transient():
    panel = FakePanel()
    for _reply in range(3):
        panel.reply(status=429, headers={"Retry-After": "4"})
    client = panel.client(retry_timeout=600)
    with client.deadline(10, "wait_timeout=10 s"):
        with pytest.raises(PanelRateLimitError) as caught:
            client.get_server("mc-01")
    assert caught.value.transient is True
    assert "wait_timeout=10 s" in str(caught.value)
    assert panel.clock.sleeps == [4, 4]
    assert client._deadline is None  # the block restored the policy


def test_the_time_left_before_a_deadline_is_known_inside_its_block_only():
    panel = FakePanel()
    client = panel.client()
    assert client.deadline_left() is None
    with client.deadline(10, "wait_timeout=10 s"):
        panel.clock.sleep(4)
        assert client.deadline_left() == 6
        panel.clock.sleep(20)
        assert client.deadline_left() == 0
    assert client.deadline_left() is None


def test_outside_a_deadline_retry_timeout_alone_decides():
    panel = FakePanel()
    panel.reply(status=429, headers={"Retry-After": "4"}).reply(json=server())
    client = panel.client(retry_timeout=5)
    assert client.get_server("mc-01")["id"] == "mc-01"
    assert panel.clock.sleeps == [4]


def test_waiting_for_the_shared_rate_budget_does_not_carry_the_wait_past_wait_timeout(tmp_path):
    # A rate limit of 3 a minute: another process has just spent one request, the read
    # before queueing and the POST spend the other two, so the wait's first read would have
    # to queue for the budget for a minute, far past the 20 s wait.
    panel = FakePanel()
    budget = SharedBudget("k" * 64, 3, directory=str(tmp_path), clock=panel.clock)
    budget.acquire()
    budget.observe(200, {})  # the other process's answer came back
    panel.reply(json=server()).reply(status=202, json={"state": "queued"})
    client = panel.client(budget=budget, retry_timeout=60)
    started = panel.clock.monotonic()
    with pytest.raises(ControlFailed) as caught:
        run_one_server(
            client, ControlRequest("restarted", server_id="mc-01", rate_limit=3, wait_timeout=20, poll_interval=5)
        )
    elapsed = panel.clock.monotonic() - started
    assert elapsed <= 20
    assert "rate budget" in caught.value.message and "wait_timeout" in caught.value.message
    assert len([sent for sent in panel.sent if sent.method == "POST"]) == 1


# -- the wait for players to leave (drain_timeout) is a limit too ------------------------------


def busy_panel():
    """A panel whose read before queueing shows 3 players on the server."""
    return FakePanel().reply(json=dict(server(), players={"current": 3, "max": 20}))


def drain(panel, on_busy="skip", **options):
    """A restart with max_players 0 that waits drain_timeout for the players to leave."""
    return restart(panel, max_players=0, on_busy=on_busy, **options)


def test_a_long_retry_after_during_the_drain_fails_at_drain_timeout_with_on_busy_fail():
    panel = busy_panel()
    for _reply in range(10):
        panel.reply(status=429, json={"error": {"message": "slow down"}}, headers={"Retry-After": "20"})
    failure, elapsed = drain(panel, on_busy="fail", drain_timeout=10, poll_interval=4, retry_timeout=60)
    assert isinstance(failure, ControlFailed)
    assert elapsed <= 10
    assert "after waiting drain_timeout (10 s)" in failure.message and "on_busy=fail" in failure.message
    assert failure.result["changed"] is False
    assert not [sent for sent in panel.sent if sent.method == "POST"]


def test_an_outage_shorter_than_the_drain_does_not_end_it():
    panel = busy_panel()
    for _reply in range(4):  # each read's retries run out (retry_timeout 3 s), the drain polls on
        panel.reply(status=503, body="<html>maintenance</html>")
    panel.reply(json=server())  # the players have left
    panel.reply(status=202, json={"state": "queued"}).reply(json=server(uptime=4))
    result, elapsed = drain(panel, drain_timeout=300, retry_timeout=3)
    assert isinstance(result, dict), result.message
    assert (result["action"], result["converged"]) == ("restart", True)
    assert elapsed < 300
    assert not panel.unused
