# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""_rules/convergence.py: what a read says, and when a read proves an action applied (no client, no clock)."""

from __future__ import annotations

import pytest

from ansible_collections.gamepanel.panel.plugins.module_utils._engine.request import ControlRequest
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.convergence import (
    Convergence,
    Goal,
    players_of,
    uptime_of,
)

from panel_fakes import server


@pytest.mark.parametrize(
    "uptime_now, elapsed, reset",
    [
        (3, 0.5, False),  # the same second
        (12, 10.0, False),  # grew a little less than the time that passed: whole seconds, not a reset
        (11, 10.0, False),  # exactly before + elapsed - tolerance
        (10, 10.0, True),  # below it
        (8, 10.0, True),
        (2, 0.1, True),  # below the uptime before: always a reset
        (3, 100.0, False),  # the very value read before (a cached read)
        (200, 10.0, False),
    ],
)
def test_uptime_reset_rule(uptime_now, elapsed, reset):
    convergence = Convergence(ControlRequest("restarted", server_id="mc-01"), server(uptime=3), before_read_at=500.0)
    assert convergence.uptime_reset(server(uptime=uptime_now), read_started=500.0 + elapsed) is reset
    assert convergence.observe(server(uptime=uptime_now), 500.0 + elapsed) is reset


def test_uptime_reset_needs_both_read_times_for_anything_but_a_drop():
    convergence = Convergence(ControlRequest("restarted", server_id="mc-01"), server(uptime=3))
    assert convergence.uptime_reset(server(uptime=5), read_started=600.0) is False
    assert convergence.uptime_reset(server(uptime=1), read_started=None) is True


def test_a_started_or_stopped_goal_is_reached_on_its_status_alone():
    started = Convergence(Goal("started", ("offline",)), server(status="offline", uptime=0))
    assert started.observe(server(status="starting")) is False and started.moved is True
    assert started.observe(server(status="online", uptime=1)) is True
    stopped = Convergence(Goal("stopped", ("offline", "stopped")), server())
    assert stopped.observe(server(status="stopped")) is True


def test_the_same_uptime_once_is_undecided_twice_an_answer_frozen_in_the_past():
    convergence = Convergence(Goal("restarted", ("offline",)), server(uptime=40), before_read_at=100.0)
    assert convergence.observe(server(uptime=40), 200.0) is False and convergence.undecided is True
    assert convergence.observe(server(uptime=40), 202.0) is False and convergence.undecided is False


def test_what_a_read_says_ignores_values_of_the_wrong_type():
    assert uptime_of({"uptime_seconds": True}) is None and uptime_of({"uptime_seconds": 5.5}) == 5.5
    assert players_of({"players": {"current": 3}}) == 3
    assert players_of({"players": {"current": "3"}}) is None and players_of({}) is None


def test_the_target_is_said_as_a_wait_that_ran_out_names_it():
    assert Convergence(Goal("started", ()), server()).target() == "status online"
    assert "offline, stopped" in Convergence(Goal("stopped", ("offline", "stopped")), server()).target()
    assert "uptime that restarted after the 86400 s read" in Convergence(Goal("restarted", ()), server()).target()
