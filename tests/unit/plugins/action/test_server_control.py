# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the server_control action hands to the task's logic: the host's ledger fact and how many hosts run the task."""

from __future__ import annotations

from unittest import mock

import pytest

from ansible_collections.gamepanel.panel.plugins.action import server_control as control_action

PARAMS = {"id": "mc-01", "state": "restarted"}


def perform(run_once=False, task_vars=None):
    task = mock.MagicMock()
    task.run_once = run_once
    plugin = control_action.ActionModule(
        task, mock.MagicMock(), mock.MagicMock(), loader=None, templar=None, shared_loader_obj=None
    )
    with mock.patch.object(control_action, "server_control", return_value={"changed": False}) as logic:
        plugin.perform(dict(PARAMS), False, False, task_vars or {})
    return logic.call_args.kwargs


@pytest.mark.parametrize(
    "run_once, batch, batch_hosts",
    [
        (False, ["mc-01", "mc-02", "mc-03", "rust-01"], 4),
        (True, ["mc-01", "mc-02", "mc-03", "rust-01"], 1),
        (False, None, 0),
    ],
)
def test_the_hosts_of_the_play_batch_are_the_peers_unless_the_task_runs_once(run_once, batch, batch_hosts):
    task_vars = {} if batch is None else {"ansible_play_batch": batch}
    assert perform(run_once, task_vars)["batch_hosts"] == batch_hosts


def test_the_host_ledger_fact_is_carried_and_anything_else_is_ignored():
    entries = [{"id": "mc-01", "action": "restart", "queued_at": 1.0, "state": "queued"}]
    assert perform(task_vars={"ansible_facts": {"gamepanel_ledger": entries}})["fact_entries"] == entries
    assert perform(task_vars={"ansible_facts": {"gamepanel_ledger": "not a list"}})["fact_entries"] == []


def executed_module(args, task_vars, module_result):
    """The result the action returns when the module was executed (not run in the worker)."""
    plugin = control_action.ActionModule(
        mock.MagicMock(), mock.MagicMock(), mock.MagicMock(), loader=None, templar=None, shared_loader_obj=None
    )
    return plugin.after_module(dict(module_result), args, task_vars)


def test_an_executed_module_keeps_the_entries_the_host_fact_carried_for_other_servers():
    other = {"id": "mc-09", "action": "stop", "queued_at": 1.0, "state": "queued"}
    old = {"id": "mc-01", "action": "restart", "queued_at": 1.0, "state": "queued"}
    mine = {"id": "mc-01", "action": "restart", "queued_at": 1.0, "state": "done"}
    task_vars = {"ansible_facts": {"gamepanel_ledger": [other, old]}}
    result = executed_module(PARAMS, task_vars, {"ansible_facts": {"gamepanel_ledger": [mine]}})
    assert sorted(result["ansible_facts"]["gamepanel_ledger"], key=lambda entry: entry["id"]) == [mine, other]


def test_an_executed_module_without_the_fact_is_left_as_it_is():
    failed = {"failed": True, "msg": "Unsupported parameters"}
    assert executed_module(PARAMS, {"ansible_facts": {"gamepanel_ledger": []}}, failed) == failed
    fleet = {"ledger": {"mc-01": []}}
    assert executed_module({"ids": ["mc-01"], "state": "restarted"}, {}, fleet) == fleet
