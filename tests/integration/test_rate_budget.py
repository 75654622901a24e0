# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The shared rate budget against the emulator's limiter, for a sliding and a fixed (calendar) minute.

The client runs with a clock whose ``sleep`` advances the emulator's clock instead of
sleeping: every wait the budget or a retry asks for happens at once, so the tests are
deterministic in what the panel sees and assert nothing about time.
"""

from __future__ import annotations

import time

import pytest
import requests

from ansible_collections.gamepanel.panel.plugins.module_utils._api.client import PanelClient
from ansible_collections.gamepanel.panel.plugins.module_utils._api.ratelimit import SharedBudget
from ansible_collections.gamepanel.panel.plugins.module_utils._state.files import key_for_token

TOKEN = "gp-test-owner-control"  # the team account acme
OTHER_TOKEN = "gp-test-owner-read"  # the same account, its own limit
RATE = 20


class EmulatedClock:
    """Real time plus every wait asked for, each wait moving the emulator's clock as far."""

    def __init__(self, emulator):
        self.emulator = emulator
        self.offset = 0.0
        self.sleeps = []

    def monotonic(self):
        return time.monotonic() + self.offset

    def time(self):
        return time.time() + self.offset

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.emulator.control.advance(seconds)
        self.offset += seconds


def make_client(emulator, state_dir, clock):
    """A client as a module process builds it, with its budget in ``state_dir``."""
    budget = SharedBudget(key_for_token(TOKEN), RATE, directory=str(state_dir), clock=clock)
    client = PanelClient(
        emulator.live_url, TOKEN, rate_limit=RATE, allow_insecure_http=True, clock=clock, budget=budget
    )
    return client, budget


def responses(emulator):
    return emulator.control.counters()["responses"]


@pytest.fixture(params=["sliding", "fixed"])
def window(request, emulator):
    """The minute kind; a fixed minute's test starts within the first second of a calendar minute.

    Another token of the account, limited to 1 a minute, is refused with the whole seconds to
    the next minute: advancing by that lands there, and the test has the rest of that minute."""
    control = emulator.control
    control.settings(rate_limits={"team": 1}, rate_limit_window=request.param)
    if request.param == "fixed":
        aligner = requests.Session()
        aligner.headers["Authorization"] = "Bearer " + OTHER_TOKEN
        aligner.get(emulator.live_url + "/servers/mc-01")
        refused = aligner.get(emulator.live_url + "/servers/mc-01")
        assert refused.status_code == 429
        control.advance(int(refused.headers["Retry-After"]))
    control.reset()
    control.settings(rate_limits={"team": RATE}, rate_limit_window=request.param)
    return request.param


def test_a_fresh_token_spends_its_whole_minute_at_once_then_the_rate_without_a_429(emulator, window, tmp_path):
    clock = EmulatedClock(emulator)
    client, budget = make_client(emulator, tmp_path, clock)
    for unused in range(RATE):
        client.get_server("mc-01")
    assert clock.sleeps == []  # the first minute went at once: nothing waited for a probe or a pace
    for unused in range(RATE + 5):
        client.get_server("mc-01")
    assert clock.sleeps  # then the budget waited for the minute to pass
    assert responses(emulator) == {"200": 2 * RATE + 5}  # and the panel refused nothing
    assert budget.shared


def test_a_later_run_starts_from_what_this_controller_sent_in_the_last_minute(emulator, window, tmp_path):
    clock = EmulatedClock(emulator)
    first, unused = make_client(emulator, tmp_path, clock)
    for unused in range(RATE - 5):
        first.get_server("mc-01")
    later, unused = make_client(emulator, tmp_path, clock)  # another process, the same state directory
    for unused in range(10):
        later.get_server("mc-01")
    assert clock.sleeps  # only 5 were left of the minute
    assert "429" not in responses(emulator)


def test_a_second_consumer_spending_half_the_minute_costs_429s_but_no_failure(emulator, window, tmp_path):
    """Another tool on the same token, which this controller cannot see, spent half the minute 5 s ago.

    The budget learns of it from the 429 (Retry-After), pauses every request for that long,
    then goes at the plan's pace: every request is answered, none fails."""
    foreign = requests.Session()
    foreign.headers["Authorization"] = "Bearer " + TOKEN
    assert {foreign.get(emulator.live_url + "/servers/mc-02").status_code for unused in range(RATE // 2)} == {200}
    emulator.control.advance(5)
    clock = EmulatedClock(emulator)
    client, unused = make_client(emulator, tmp_path, clock)
    answers = [client.get_server("mc-01") for unused in range(2 * RATE)]
    assert len(answers) == 2 * RATE
    counted = responses(emulator)
    assert counted["200"] == RATE // 2 + 2 * RATE
    assert 1 <= int(counted.get("429", 0)) <= 2  # the evidence, learnt once (at most once more per minute kind)
    assert client.stats["retries"] == int(counted.get("429", 0))
