# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: the argument specs of server_info and server_control (TaskSpec), and the main() of their modules.

Both ways a task runs validate its parameters against the same TaskSpec: AnsibleModule when the
module is executed (``run_task_module``), the action plugin in the controller's worker otherwise
(plugin_utils/action_in_process.py).  What the task then does is entry/tasks.py's.
"""

from __future__ import annotations

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.gamepanel.panel.plugins.module_utils.engine.request import DEFAULTS as CONTROL_DEFAULTS
from ansible_collections.gamepanel.panel.plugins.module_utils.api.server_records import SUBRESOURCES
from ansible_collections.gamepanel.panel.plugins.module_utils.entry.connection import panel_argument_spec
from ansible_collections.gamepanel.panel.plugins.module_utils.entry.failure import TaskFailed, fail_task


class TaskSpec(object):
    """A task's argument spec and the constraints between its options."""

    def __init__(self, argument_spec, mutually_exclusive=(), required_one_of=()):
        self.argument_spec = argument_spec
        self.mutually_exclusive = [list(group) for group in mutually_exclusive]
        self.required_one_of = [list(group) for group in required_one_of]

    def validate(self, args):
        """The ValidationResult of ``args`` against this spec, as the action plugins check a task in process."""
        return ArgumentSpecValidator(
            self.argument_spec, mutually_exclusive=self.mutually_exclusive, required_one_of=self.required_one_of
        ).validate(args)

    def module_kwargs(self):
        """The keyword arguments AnsibleModule takes for this spec."""
        return dict(
            argument_spec=self.argument_spec,
            mutually_exclusive=self.mutually_exclusive,
            required_one_of=self.required_one_of,
            supports_check_mode=True,
        )


def _server_control_spec():
    spec = panel_argument_spec()
    spec.update(
        id=dict(type="str"),
        name=dict(type="str"),
        ids=dict(type="list", elements="str"),
        hosts=dict(type="list", elements="str"),
        state=dict(type="str", required=True, choices=["started", "stopped", "restarted"]),
        wait=dict(type="bool", default=CONTROL_DEFAULTS["wait"]),
        wait_timeout=dict(type="int", default=CONTROL_DEFAULTS["wait_timeout"]),
        poll_interval=dict(type="float", default=CONTROL_DEFAULTS["poll_interval"]),
        min_uptime=dict(type="int"),
        max_players=dict(type="int"),
        drain_timeout=dict(type="int", default=CONTROL_DEFAULTS["drain_timeout"]),
        on_busy=dict(type="str", choices=["skip", "fail"], default=CONTROL_DEFAULTS["on_busy"]),
        stopped_statuses=dict(type="list", elements="str", default=list(CONTROL_DEFAULTS["stopped_statuses"])),
        only_if_status=dict(type="list", elements="str"),
        ignore_pending=dict(type="bool", default=CONTROL_DEFAULTS["ignore_pending"]),
        confirm_only=dict(type="bool", default=CONTROL_DEFAULTS["confirm_only"]),
        max_read_age=dict(type="float", default=CONTROL_DEFAULTS["max_read_age"]),
        canary=dict(type="int", default=CONTROL_DEFAULTS["canary"]),
    )
    return TaskSpec(
        spec, mutually_exclusive=[("id", "name", "ids", "hosts")], required_one_of=[("id", "name", "ids", "hosts")]
    )


def _server_info_spec():
    spec = panel_argument_spec()
    spec.update(
        id=dict(type="str"),
        name=dict(type="list", elements="str"),
        game=dict(type="list", elements="str"),
        status=dict(type="list", elements="str"),
        include=dict(type="list", elements="str", choices=list(SUBRESOURCES), default=[]),
    )
    return TaskSpec(spec, mutually_exclusive=[("id", "name"), ("id", "game"), ("id", "status")])


SERVER_CONTROL = _server_control_spec()
SERVER_INFO = _server_info_spec()


def run_task_module(spec, task):
    """Run a task (a ``tasks`` function) as a module: validate by ``spec``, exit with its result or its failure."""
    module = AnsibleModule(**spec.module_kwargs())
    try:
        result = task(module.params, check_mode=module.check_mode, diff=module._diff)
    except TaskFailed as failure:
        fail_task(module, failure)
    module.exit_json(**result)
