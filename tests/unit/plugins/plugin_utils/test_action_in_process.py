# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The action plugins' in-process path: validation, environment, modes, no_log, and the module fallback.

The task's logic (module_utils/_entry/specs.py) is replaced by a recorder here; that it gives
the module's results is proven against the emulator in tests/integration/test_action_path.py.
"""

from __future__ import annotations

import os
from unittest import mock

import pytest
from ansible.errors import AnsibleError

from ansible_collections.gamepanel.panel.plugins.action import server_control as control_action
from ansible_collections.gamepanel.panel.plugins.action import server_info as info_action
from ansible_collections.gamepanel.panel.plugins.module_utils._entry.failure import TaskFailed
from ansible_collections.gamepanel.panel.plugins.module_utils._entry.specs import TaskSpec
from ansible_collections.gamepanel.panel.plugins.plugin_utils import action_in_process

SECRET = "gp-unit-action-secret-42"
MODULE_RESULT = {"changed": False, "servers": [], "from": "the module"}


class Templar:
    def template(self, value):
        return value


def action(
    module=control_action,
    args=None,
    transport="local",
    environment=None,
    check_mode=False,
    diff=False,
    become=False,
    async_val=0,
    perform=None,
):
    task = mock.MagicMock()
    task.args = dict(args or {})
    task.action = task.resolved_action = "gamepanel.panel.%s" % module.__name__.rsplit(".", 1)[-1]
    task.environment = environment
    task.check_mode, task.diff, task.async_val = check_mode, diff, async_val
    connection = mock.MagicMock()
    connection.transport = transport
    connection._shell.tmpdir = None
    play_context = mock.MagicMock()
    play_context.become = become
    plugin = module.ActionModule(task, connection, play_context, loader=None, templar=Templar(), shared_loader_obj=None)
    plugin.calls = []

    def record(params, check_mode, diff, task_vars):
        plugin.calls.append((dict(params), check_mode, diff, dict(os.environ)))
        if perform is not None:
            return perform(params)
        return {"changed": True, "echo": params.get("api_token")}

    plugin.perform = record
    plugin._execute_module = mock.MagicMock(return_value=dict(MODULE_RESULT))
    return plugin


CONTROL_ARGS = {"id": "mc-01", "state": "restarted", "api_token": SECRET, "base_url": "http://panel.test/v1"}


def test_runs_in_the_worker_with_validated_parameters_and_defaults():
    plugin = action(args=CONTROL_ARGS)
    result = plugin.run(task_vars={})
    assert not plugin._execute_module.called
    params, check_mode, diff, unused = plugin.calls[0]
    assert (params["state"], params["wait"], params["wait_timeout"], params["rate_limit"]) == (
        "restarted",
        True,
        300,
        120,
    )
    assert params["stopped_statuses"] == ["offline", "stopped"] and params["api_variant"] == "live"
    assert (check_mode, diff) == (False, False)
    assert result["changed"] is True and "failed" not in result


@pytest.fixture
def invocation_injected(monkeypatch):
    """INJECT_INVOCATION on (ansible-core 2.19 has no such setting and always injects)."""
    monkeypatch.setattr(
        action_in_process.C.config,
        "get_config_value",
        lambda name, variables=None: True if name == "INJECT_INVOCATION" else None,
    )


def test_invocation_follows_the_setting(monkeypatch):
    monkeypatch.setattr(action_in_process.C.config, "get_config_value", lambda name, variables=None: False)
    assert "invocation" not in action(args=CONTROL_ARGS).run(task_vars={})

    def unknown(name, variables=None):
        raise AnsibleError("Requested entry (%s) was not defined in configuration." % name)

    monkeypatch.setattr(action_in_process.C.config, "get_config_value", unknown)
    assert action(args=CONTROL_ARGS).run(task_vars={})["invocation"]["module_args"]["id"] == "mc-01"


def test_the_token_is_masked_in_the_result_and_the_invocation(invocation_injected):
    result = action(args=CONTROL_ARGS).run(task_vars={})
    assert SECRET not in repr(result)
    assert result["echo"] != SECRET
    assert result["invocation"]["module_args"]["api_token"] != SECRET
    assert result["invocation"]["module_args"]["id"] == "mc-01"


def test_environment_fallbacks_come_from_the_task_environment_and_do_not_leak():
    environment = [{"GAMEPANEL_API_TOKEN": SECRET, "GAMEPANEL_RATE_LIMIT": "600", "GAMEPANEL_STATE_DIR": "/tmp/x"}]
    plugin = action(args={"id": "mc-01", "state": "started"}, environment=environment)
    before = dict(os.environ)
    result = plugin.run(task_vars={})
    params, seen_environment = plugin.calls[0][0], plugin.calls[0][3]
    assert (params["api_token"], params["rate_limit"]) == (SECRET, 600)
    assert seen_environment["GAMEPANEL_STATE_DIR"] == "/tmp/x"  # the task's environment holds while it runs
    assert dict(os.environ) == before
    assert SECRET not in repr(result)


def test_the_inventory_connection_and_the_token_variable_complete_the_arguments_on_both_paths():
    task_vars = {
        "gamepanel_connection": {"base_url": "http://panel.test/v1", "rate_limit": 600},
        "gamepanel_api_token": SECRET,
    }
    plugin = action(args={"id": "mc-01", "state": "started", "rate_limit": 60})
    result = plugin.run(task_vars=dict(task_vars))
    params = plugin.calls[0][0]
    assert (params["base_url"], params["rate_limit"], params["api_token"]) == ("http://panel.test/v1", 60, SECRET)
    assert SECRET not in repr(result)

    remote = action(args={"id": "mc-01", "state": "started"}, transport="ssh")
    remote.run(task_vars=dict(task_vars))
    module_args = remote._execute_module.call_args.kwargs["module_args"]
    assert (module_args["base_url"], module_args["rate_limit"], module_args["api_token"]) == (
        "http://panel.test/v1",
        600,
        SECRET,
    )


def test_a_bad_connection_variable_fails_the_task_before_anything_runs():
    plugin = action(args={"id": "mc-01", "state": "started"})
    result = plugin.run(task_vars={"gamepanel_connection": {"colour": "blue"}})
    assert result["failed"] and "gamepanel_connection has unknown key(s) colour" in result["msg"]
    assert plugin.calls == [] and not plugin._execute_module.called


def test_check_and_diff_modes_are_passed_on():
    plugin = action(args=CONTROL_ARGS, check_mode=True, diff=True)
    plugin.run(task_vars={})
    assert plugin.calls[0][1:3] == (True, True)


@pytest.mark.parametrize(
    "args, expected",
    [
        (
            dict(CONTROL_ARGS, colour="blue"),
            "Unsupported parameters for (gamepanel.panel.server_control) module: colour",
        ),
        (dict(CONTROL_ARGS, name="Survival"), "parameters are mutually exclusive: id|name"),
        ({"state": "restarted"}, "one of the following is required: id, name"),
        (dict(CONTROL_ARGS, state="rebooted"), "value of state must be one of: started, stopped, restarted"),
        (dict(CONTROL_ARGS, wait_timeout="soon"), "wait_timeout"),
    ],
)
def test_bad_arguments_fail_like_the_module_and_nothing_runs(args, expected):
    plugin = action(args=args)
    result = plugin.run(task_vars={})
    assert result["failed"] is True and expected in result["msg"], result["msg"]
    assert plugin.calls == []
    assert SECRET not in repr(result)


def test_a_failing_task_keeps_its_return_values():
    def fail(params):
        raise TaskFailed("The panel said no.", changed=True, action="restart", status=403)

    result = action(args=CONTROL_ARGS, perform=fail).run(task_vars={})
    assert (result["failed"], result["msg"], result["changed"], result["status"]) == (
        True,
        "The panel said no.",
        True,
        403,
    )


@pytest.mark.parametrize(
    "options", [dict(transport="ssh"), dict(transport="elsewhere"), dict(become=True), dict(async_val=30)]
)
def test_anywhere_but_in_the_controller_itself_the_module_runs(options):
    plugin = action(module=info_action, args={"api_token": SECRET}, **options)
    result = plugin.run(task_vars={"x": 1})
    assert plugin.calls == []
    plugin._execute_module.assert_called_once_with(module_args={"api_token": SECRET}, task_vars={"x": 1})
    assert result["from"] == "the module"


def test_without_requests_on_the_controller_the_module_runs(monkeypatch):
    monkeypatch.setattr(action_in_process, "HAS_REQUESTS", False)
    plugin = action(module=info_action, args={})
    plugin.run(task_vars={})
    assert plugin.calls == [] and plugin._execute_module.called


def test_server_info_validates_its_own_spec():
    plugin = action(module=info_action, args={"id": "mc-01", "game": ["rust"], "api_token": SECRET})
    result = plugin.run(task_vars={})
    assert result["failed"] is True and "mutually exclusive: id|game" in result["msg"]
    plugin = action(module=info_action, args={"name": "Survival", "include": ["players"]})
    plugin.run(task_vars={})
    params = plugin.calls[0][0]
    assert (params["name"], params["include"], params["id"]) == (["Survival"], ["players"], None)


def test_the_no_log_values_of_this_ansible_core_validation_are_found():
    validation = TaskSpec({"api_token": {"type": "str", "no_log": True}, "base_url": {"type": "str"}}).validate(
        {"api_token": SECRET, "base_url": "http://panel.test/v1"}
    )
    assert action_in_process.no_log_values_of(validation) == {SECRET}


@pytest.mark.parametrize("kept", [None, [SECRET], "gp-unit-action-secret-42"])
def test_no_log_values_kept_otherwise_are_not_trusted(kept):
    validation = mock.MagicMock(spec=["validated_parameters", "error_messages"])
    if kept is not None:
        validation._no_log_values = kept
    assert action_in_process.no_log_values_of(validation) is None


def test_without_the_no_log_values_the_module_runs_instead(monkeypatch):
    monkeypatch.setattr(action_in_process, "no_log_values_of", lambda validation: None)
    plugin = action(args=CONTROL_ARGS)
    result = plugin.run(task_vars={})
    assert plugin.calls == [] and plugin._execute_module.called
    assert result["from"] == "the module" and SECRET not in str(result)
