# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: the argument specs of server_info and server_control (TaskSpec), and the main() of their modules.

Each spec is derived from the options' one declaration: server_control's in _engine/request.py
(SERVER_CONTROL_OPTIONS, which ControlRequest's defaults come from too), server_info's here.

Both ways a task runs validate its parameters against the same TaskSpec: AnsibleModule when the
module is executed (``run_task_module``), the action plugin in the controller's worker otherwise
(plugin_utils/action_in_process.py).  What the task then does is _entry/tasks.py's.
"""

from __future__ import annotations

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.gamepanel.panel.plugins.module_utils._engine.request import SERVER_CONTROL_OPTIONS, TARGETS
from ansible_collections.gamepanel.panel.plugins.module_utils._api.client import CONNECTION_OPTIONS
from ansible_collections.gamepanel.panel.plugins.module_utils._api.options import Option, Options
from ansible_collections.gamepanel.panel.plugins.module_utils._api.server_records import SUBRESOURCES
from ansible_collections.gamepanel.panel.plugins.module_utils._entry.failure import TaskFailed, fail_task


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


# server_info's filters of the fleet list: none of them goes with ``id`` (one server's own read).
SERVER_INFO_FILTERS = Options(
    Option("name", "list", elements="str"),
    Option("game", "list", elements="str"),
    Option("status", "list", elements="str"),
)
# server_info's own options, declared once beside the connection options it shares.
SERVER_INFO_OPTIONS = (
    Options(Option("id", "str"))
    + SERVER_INFO_FILTERS
    + Options(Option("include", "list", elements="str", choices=SUBRESOURCES, default=()))
    + CONNECTION_OPTIONS
)


def _server_control_spec():
    targets = [TARGETS.names]
    return TaskSpec(SERVER_CONTROL_OPTIONS.argument_spec(), mutually_exclusive=targets, required_one_of=targets)


def _server_info_spec():
    return TaskSpec(
        SERVER_INFO_OPTIONS.argument_spec(), mutually_exclusive=[("id", name) for name in SERVER_INFO_FILTERS.names]
    )


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
