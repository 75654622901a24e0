# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The connection a job's task takes from the inventory (gamepanel_connection) and gamepanel_api_token."""

from __future__ import annotations

import pytest

from ansible_collections.gamepanel.panel.plugins.module_utils.entry.connection import panel_argument_spec
from ansible_collections.gamepanel.panel.plugins.plugin_utils import job_connection
from ansible_collections.gamepanel.panel.plugins.plugin_utils.job_connection import (
    CONNECTION_KEYS,
    ConnectionVariableError,
    task_arguments,
)

SECRET = "gp-unit-connection-secret-7"
CONNECTION = {"base_url": "https://panel.example.com/api/v1", "rate_limit": 600, "api_variant": "live"}


class Templar:
    def template(self, value):
        return value


class HostVars(dict):
    """hostvars: host name -> that host's variables."""


def test_the_keys_handed_on_are_every_shared_option_but_the_token():
    assert set(CONNECTION_KEYS) == set(panel_argument_spec()) - {"api_token"}


def test_the_inventory_connection_fills_what_the_task_does_not_set():
    args = task_arguments({"id": "mc-01", "rate_limit": 60}, {"gamepanel_connection": CONNECTION})
    assert args == {"id": "mc-01", "rate_limit": 60, "base_url": CONNECTION["base_url"], "api_variant": "live"}


def test_a_null_task_argument_counts_as_not_set_and_a_null_connection_value_as_absent():
    args = task_arguments({"base_url": None}, {"gamepanel_connection": dict(CONNECTION, retry_timeout=None)})
    assert args["base_url"] == CONNECTION["base_url"] and "retry_timeout" not in args


def test_the_token_variable_fills_only_a_missing_token():
    assert task_arguments({}, {"gamepanel_api_token": SECRET})["api_token"] == SECRET
    assert (
        task_arguments({"api_token": "from-the-task"}, {"gamepanel_api_token": SECRET})["api_token"] == "from-the-task"
    )


def test_nothing_set_leaves_the_arguments_alone():
    args = {"id": "mc-01"}
    assert task_arguments(args, {}) == args and task_arguments(args, {}) is not args


@pytest.mark.parametrize(
    "variables, message",
    [
        ({"gamepanel_connection": "https://panel.example.com/v1"}, "gamepanel_connection must be a dictionary"),
        ({"gamepanel_connection": {"ratelimit": 600}}, "gamepanel_connection has unknown key(s) ratelimit; it takes"),
        (
            {"gamepanel_connection": {"api_token": SECRET}},
            "the token goes in gamepanel_api_token or GAMEPANEL_API_TOKEN",
        ),
        ({"gamepanel_connection": {"base_url": "panel.example.com/v1"}}, "gamepanel_connection: base_url"),
        ({"gamepanel_connection": {"base_url": "https://p.example.com/v1?x=1"}}, "is not an http(s) URL"),
        ({"gamepanel_api_token": ""}, "gamepanel_api_token is empty"),
        ({"gamepanel_api_token": "  \n"}, "gamepanel_api_token is empty"),
        ({"gamepanel_api_token": 1234}, "gamepanel_api_token must be a string"),
    ],
)
def test_bad_values_are_refused_with_a_message_that_names_them(variables, message):
    with pytest.raises(ConnectionVariableError) as caught:
        task_arguments({}, variables)
    assert message in str(caught.value)
    assert SECRET not in str(caught.value)


def test_the_token_variable_is_not_checked_when_the_task_has_a_token():
    assert task_arguments({"api_token": SECRET}, {"gamepanel_api_token": ""})["api_token"] == SECRET


def test_host_variables_of_an_inventory_host():
    task_vars = {"gamepanel_connection": CONNECTION, "gamepanel_api_token": SECRET, "other": 1}
    assert job_connection.host_variables(Templar(), task_vars) == {
        "gamepanel_connection": CONNECTION,
        "gamepanel_api_token": SECRET,
    }


def test_a_host_outside_the_inventory_takes_the_connection_of_its_fleet_group():
    task_vars = {
        "groups": {"gamepanel": ["mc-01", "mc-02"], "all": ["mc-01", "mc-02"]},
        "hostvars": HostVars({"mc-01": {"gamepanel_connection": CONNECTION}, "mc-02": {}}),
    }
    assert job_connection.host_variables(Templar(), task_vars) == {"gamepanel_connection": CONNECTION}


def test_no_inventory_no_connection():
    assert job_connection.host_variables(Templar(), {"groups": {"all": []}, "hostvars": HostVars()}) == {}
