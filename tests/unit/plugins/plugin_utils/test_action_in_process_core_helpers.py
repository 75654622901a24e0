# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The two private ansible-core helpers action_in_process.py relies on still exist and behave as it expects.

ansible-core offers no public way to get the no_log values of a validation or the task's
environment in an action plugin; if a release moves either, this fails on that release's
lane of `make units`, naming the helper. Without the no_log values the action fails closed (it
executes the module instead, test_action_in_process.py): the in-process path would be lost silently.
"""

from __future__ import annotations

import inspect

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.plugins.action import ActionBase

TOKEN = "gp-secret-token-for-the-validation"


def test_a_validation_result_lists_the_no_log_values():
    result = ArgumentSpecValidator({"api_token": {"type": "str", "no_log": True}}).validate({"api_token": TOKEN})
    assert hasattr(
        result, "_no_log_values"
    ), "ValidationResult._no_log_values is gone: action_in_process.py executes every module"
    assert TOKEN in result._no_log_values


def test_action_base_computes_the_task_environment_into_a_dict():
    helper = getattr(ActionBase, "_compute_environment_string", None)
    assert (
        helper is not None
    ), "ActionBase._compute_environment_string is gone: action_in_process.py loses the task environment"
    assert list(inspect.signature(helper).parameters)[:2] == ["self", "raw_environment_out"]
