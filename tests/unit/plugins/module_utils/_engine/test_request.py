# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""_engine/request.py: what a server_control task asks for, built from its parameters and checked."""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.module_utils._api.client import CONNECTION_DEFAULTS
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.request import (
    REQUEST_OPTIONS,
    SERVER_CONTROL_OPTIONS,
    ControlRequest,
)
from ansible_collections.gamepanel.panel.plugins.module_utils._entry.specs import SERVER_CONTROL
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.convergence import DEFAULT_STOPPED_STATUSES


def test_request_from_module_params():
    params = {
        "id": None,
        "name": "Survival",
        "state": "stopped",
        "wait": False,
        "wait_timeout": 10,
        "poll_interval": 1.5,
        "min_uptime": None,
        "max_players": 0,
        "drain_timeout": 30,
        "on_busy": "fail",
        "stopped_statuses": ["offline"],
        "only_if_status": ["online"],
        "api_variant": "planned",
        "rate_limit": 600,
        "api_token": "x",
    }
    built = ControlRequest.from_params(params)
    assert (built.name, built.state, built.wait, built.poll_interval, built.on_busy) == (
        "Survival",
        "stopped",
        False,
        1.5,
        "fail",
    )
    assert (built.stopped_statuses, built.api_variant, built.rate_limit, built.action) == (
        ("offline",),
        "planned",
        600,
        "stop",
    )
    assert built.only_if_status == ("online",)
    assert ControlRequest.from_params(dict(params, only_if_status=None)).only_if_status is None
    assert built.problems() == []


def test_an_empty_stopped_statuses_is_refused_not_replaced_by_the_default():
    params = {"state": "stopped", "id": "mc-01", "stopped_statuses": []}
    assert ControlRequest.from_params(params).problems() == ["stopped_statuses must name at least one status."]
    assert ControlRequest.from_params(dict(params, stopped_statuses=None)).stopped_statuses == ("offline", "stopped")


def test_each_option_is_declared_once_and_read_by_the_spec_and_the_request():
    spec = SERVER_CONTROL.argument_spec
    assert set(spec) == set(SERVER_CONTROL_OPTIONS.names)
    request = ControlRequest("restarted", server_id="mc-01")
    for option in REQUEST_OPTIONS:
        expected = list(option.default) if isinstance(option.default, tuple) else option.default
        assert spec[option.name].get("default") == expected, option.name
        assert getattr(request, option.name) == option.default, option.name
    assert request.stopped_statuses == DEFAULT_STOPPED_STATUSES
    assert request.rate_limit == CONNECTION_DEFAULTS["rate_limit"] == spec["rate_limit"]["default"]


def test_options_that_only_work_with_ids_or_with_one_server_are_refused_elsewhere():
    assert "confirm_only works on one server" in " ".join(
        ControlRequest("restarted", ids=["a"], confirm_only=True).problems()
    )
    assert "canary works with ids" in " ".join(ControlRequest("restarted", server_id="a", canary=1).problems())
    assert ControlRequest("restarted", ids=[" "]).problems() == ["ids must not hold an empty id."]
