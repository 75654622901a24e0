# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The client and the shared budget together: every answer feeds the budget, over a scripted panel."""

from __future__ import annotations

import json

import pytest

from ansible_collections.gamepanel.panel.plugins.module_utils._api.ratelimit import SharedBudget

from panel_fakes import TOKEN

SERVER = {"id": "mc-01", "name": "Survival", "status": "online"}


class RecordingBudget:
    def __init__(self):
        self.answers = []

    def acquire(self, max_wait=None):
        return 0.0

    def observe(self, status, headers):
        self.answers.append((status, dict(headers)))


def test_every_answer_reaches_the_budget_with_its_headers(panel):
    budget = RecordingBudget()
    panel.reply(429, json={"error": {"code": "rate_limited"}}, headers={"Retry-After": "1"})
    panel.reply(200, json=SERVER, headers={"X-RateLimit-Remaining": "7"})
    panel.client(budget=budget).get_server("mc-01")
    assert [status for status, unused in budget.answers] == [429, 200]
    assert budget.answers[1][1]["X-RateLimit-Remaining"] == "7"


def test_a_panel_telling_of_foreign_requests_makes_the_client_wait(panel, tmp_path):
    budget = SharedBudget(panel.client().state_key, 5, directory=str(tmp_path), clock=panel.clock)
    client = panel.client(budget=budget)
    panel.reply(200, json=SERVER, headers={"RateLimit-Remaining": "1", "RateLimit-Reset": "20"})
    panel.reply(200, json=SERVER)
    panel.reply(200, json=SERVER)
    client.get_server("mc-01")
    client.get_server("mc-01")  # the one request left
    assert panel.clock.sleeps == []
    client.get_server("mc-01")  # waits for the panel's window to reset
    assert sum(panel.clock.sleeps) == pytest.approx(20.0)
    assert client.stats["waited_seconds"] == pytest.approx(20.0)


def test_a_429_pauses_the_other_processes_too(panel, tmp_path):
    key = panel.client().state_key
    budget = SharedBudget(key, 100, directory=str(tmp_path), clock=panel.clock)
    other = SharedBudget(key, 100, directory=str(tmp_path), clock=panel.clock)
    panel.reply(429, json={"error": {"code": "rate_limited"}}, headers={"Retry-After": "3"})
    panel.reply(200, json=SERVER)
    panel.client(budget=budget).get_server("mc-01")
    # The retry waited Retry-After; a process that asks now waits for what remains of the pause
    # and for the window's slots, which free one by one at the plan's pace.
    assert other.acquire() == pytest.approx(60.0 / 100, abs=0.05)


def test_the_state_files_hold_no_token(panel, tmp_path):
    budget = SharedBudget(panel.client().state_key, 5, directory=str(tmp_path), clock=panel.clock)
    panel.reply(200, json=SERVER, headers={"X-RateLimit-Remaining": "4"})
    panel.client(budget=budget).get_server("mc-01")
    for path in tmp_path.iterdir():
        assert TOKEN not in path.read_text()
        json.loads(path.read_text())


def test_a_limit_the_panel_announces_other_than_rate_limit_is_warned_of_once(panel):
    for unused in range(3):
        panel.reply(200, json=SERVER, headers={"X-RateLimit-Limit": "600"})
    client = panel.client(rate_limit=120)
    for unused in range(3):
        client.get_server("mc-01")
    assert len(client.warnings) == 1 and "set rate_limit: 600" in client.warnings[0]
    assert client.pace == "paced at 120 requests a minute (rate_limit)"


@pytest.mark.parametrize("rate_limit, announced", [(600, "600"), (0, "600"), (120, None)])
def test_no_warning_when_the_limits_agree_pacing_is_off_or_the_panel_says_nothing(panel, rate_limit, announced):
    panel.reply(200, json=SERVER, headers={"X-RateLimit-Limit": announced} if announced else {})
    client = panel.client(rate_limit=rate_limit)
    client.get_server("mc-01")
    assert client.warnings == []
