# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The connection a job's task takes from the inventory (gamepanel_connection) and gamepanel_api_token."""

from __future__ import annotations

import pytest

from ansible_collections.gamepanel.panel.plugins.module_utils._api.token_file import token_digest
from ansible_collections.gamepanel.panel.plugins.module_utils._entry.connection import panel_argument_spec
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


class TestSeveralAccounts:
    EU = dict(CONNECTION, api_token_env="GAMEPANEL_EU_TOKEN")
    US = {"base_url": "https://us.example.com/api/v1", "api_token_env": "GAMEPANEL_US_TOKEN"}

    def test_the_token_comes_from_the_variable_the_connection_names(self, monkeypatch):
        monkeypatch.setenv("GAMEPANEL_EU_TOKEN", SECRET)
        args = task_arguments({"id": "mc-01"}, {"gamepanel_connection": self.EU})
        assert args["api_token"] == SECRET and "api_token_env" not in args

    def test_the_task_and_the_token_variable_come_before_it(self, monkeypatch):
        monkeypatch.setenv("GAMEPANEL_EU_TOKEN", SECRET)
        variables = {"gamepanel_connection": self.EU, "gamepanel_api_token": "from-the-group"}
        assert task_arguments({}, variables)["api_token"] == "from-the-group"
        assert task_arguments({"api_token": "from-the-task"}, variables)["api_token"] == "from-the-task"

    def test_an_unset_variable_fails_naming_it_and_sends_nothing(self, monkeypatch):
        monkeypatch.delenv("GAMEPANEL_EU_TOKEN", raising=False)
        with pytest.raises(ConnectionVariableError, match="environment variable GAMEPANEL_EU_TOKEN .* not set"):
            task_arguments({}, {"gamepanel_connection": self.EU})

    def test_a_bad_variable_name_is_refused(self):
        with pytest.raises(ConnectionVariableError, match="api_token_env must name an environment variable"):
            task_arguments({}, {"gamepanel_connection": dict(CONNECTION, api_token_env="$EU")})

    def test_a_task_delegated_to_a_host_of_another_account_takes_that_hosts_connection_and_token(self):
        delegated = {"gamepanel_connection": self.US, "gamepanel_api_token": "us-token"}
        task_vars = {"gamepanel_connection": self.EU, "ansible_delegated_vars": {"us_Survival": delegated}}
        assert job_connection.host_variables(CopyingTemplar(), task_vars, "us_Survival") == delegated

    def test_a_task_delegated_to_localhost_keeps_its_hosts_connection(self):
        task_vars = {"gamepanel_connection": self.EU, "ansible_delegated_vars": {"localhost": {"other": 1}}}
        assert job_connection.host_variables(Templar(), task_vars, "localhost") == {"gamepanel_connection": self.EU}

    def test_outside_the_inventory_one_account_among_several_is_never_guessed(self):
        task_vars = {
            "inventory_hostname": "localhost",
            "groups": {"gamepanel": ["eu_a", "us_a"], "account_eu": ["eu_a"], "account_us": ["us_a"]},
            "hostvars": HostVars(
                {
                    "eu_a": {"gamepanel_connection": self.EU, "gamepanel_account": "eu"},
                    "us_a": {"gamepanel_connection": self.US, "gamepanel_account": "us"},
                }
            ),
        }
        with pytest.raises(ConnectionVariableError, match=r"several gamepanel accounts .* \(on localhost\)"):
            job_connection.host_variables(Templar(), task_vars)

    def test_outside_the_inventory_accounts_of_one_connection_give_it(self):
        task_vars = {
            "groups": {"gamepanel": ["eu_a", "eu_b"], "account_eu": ["eu_a"], "account_eu2": ["eu_b"]},
            "hostvars": HostVars(
                {
                    "eu_a": {"gamepanel_connection": self.EU, "gamepanel_account": "eu"},
                    "eu_b": {"gamepanel_connection": self.EU, "gamepanel_account": "eu2"},
                }
            ),
        }
        assert job_connection.host_variables(Templar(), task_vars) == {"gamepanel_connection": self.EU}

    def test_a_users_own_group_named_like_an_account_is_no_account(self):
        # account_all holds a host of another account first: its connection is not read as account_all's
        task_vars = {
            "groups": {"gamepanel": ["eu_a"], "account_eu": ["eu_a"], "account_all": ["us_a", "eu_a"]},
            "hostvars": HostVars(
                {
                    "eu_a": {"gamepanel_connection": self.EU, "gamepanel_account": "eu"},
                    "us_a": {"gamepanel_connection": self.US, "gamepanel_account": "us"},
                }
            ),
        }
        assert job_connection.host_variables(Templar(), task_vars) == {"gamepanel_connection": self.EU}


class TestTheSourcesToken:
    """Each host through the token its own source read its panel with."""

    def connection(self, token, **source):
        origin = source.pop("origin", "the file /etc/eu-token (api_token_file)")
        return dict(CONNECTION, api_token_digest=token_digest(token), api_token_origin=origin, **source)

    def test_a_token_file_the_source_read_is_read_again_by_the_job(self, tmp_path, monkeypatch):
        path = tmp_path / "eu-token"
        path.write_text(SECRET + "\n")
        path.chmod(0o600)
        monkeypatch.setenv("GAMEPANEL_API_TOKEN", "the-environments-token")
        connection = self.connection(SECRET, api_token_file=str(path))
        args = task_arguments({"id": "mc-01"}, {"gamepanel_connection": connection})
        assert args["api_token"] == SECRET and not set(job_connection.TOKEN_KEYS) & set(args)

    def test_a_token_written_in_the_inventory_file_is_read_from_it_again(self):
        connection = self.connection(SECRET, api_token_inventory="/inv/eu.gamepanel.yml", origin="api_token in x")
        asked = []
        args = task_arguments(
            {}, {"gamepanel_connection": connection}, inventory_token=lambda path: asked.append(path) or SECRET
        )
        assert args["api_token"] == SECRET and asked == ["/inv/eu.gamepanel.yml"]

    def test_the_environments_token_where_the_source_read_with_it(self, monkeypatch):
        monkeypatch.setenv("GAMEPANEL_API_TOKEN", SECRET)
        args = task_arguments({}, {"gamepanel_connection": self.connection(SECRET, origin="GAMEPANEL_API_TOKEN")})
        assert args["api_token"] == SECRET

    @pytest.mark.parametrize(
        "task, variables, used",
        [
            ({"api_token": "gp-us-9911"}, {}, "the task's api_token"),
            ({}, {"gamepanel_api_token": "gp-us-9911"}, "the variable gamepanel_api_token"),
            ({}, {}, "GAMEPANEL_API_TOKEN"),
        ],
    )
    def test_another_token_stops_the_task_naming_the_account_and_both_sources(self, monkeypatch, task, variables, used):
        monkeypatch.setenv("GAMEPANEL_API_TOKEN", "gp-us-9911")
        variables = dict(variables, gamepanel_account="us", gamepanel_connection=self.connection(SECRET))
        with pytest.raises(ConnectionVariableError) as stopped:
            task_arguments(task, variables)
        message = str(stopped.value)
        assert message.startswith("account us: this task would use the token from %s" % used)
        assert "the token from the file /etc/eu-token (api_token_file)" in message and "Nothing was sent" in message
        assert "gp-us-9911" not in message and SECRET not in message

    def test_a_task_sent_to_another_panel_is_not_held_to_this_ones_token(self):
        args = task_arguments(
            {"base_url": "https://elsewhere.example.com/v1", "api_token": "other"},
            {"gamepanel_connection": self.connection(SECRET)},
        )
        assert args["api_token"] == "other"

    def test_a_source_that_names_nothing_leaves_the_token_to_the_modules_fallbacks(self, monkeypatch):
        monkeypatch.setenv("GAMEPANEL_API_TOKEN", SECRET)
        assert "api_token" not in task_arguments({}, {"gamepanel_connection": CONNECTION})


class CopyingTemplar(Templar):
    """A templar whose copy must be the one used for a delegated host's variables."""

    def copy_with_new_env(self, available_variables):
        copy = Templar()
        copy.available_variables = available_variables
        return copy
