# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: Run a module's task in the controller's worker process when it runs on the controller.

A module task costs a new Python interpreter, plus packing and unpacking the module,
per host; over a fleet of a few hundred inventory hosts on a small controller that is
most of the run.  The collection's modules only talk HTTP to the panel, so when the
task would run on the controller anyway (a local connection: ``localhost``, or the
inventory hosts of the ``gamepanel.panel.servers`` plugin, which sets
``ansible_connection: local``), the action plugin calls the same implementation
(module_utils/_entry/specs.py) directly.  Everywhere else it executes the module as usual:

* the task is delegated to (or runs on) a host reached through any other connection;
* ``become`` (the module would run as another user), or ``async``;
* the controller's Python lacks ``requests`` (the module's interpreter may have it).

What a module gets from AnsibleModule, the in-process path does alike: the same
argument spec and constraints (ArgumentSpecValidator), environment fallbacks read from
the controller's environment overlaid with the task's ``environment:``, check and diff
mode, the ``invocation`` key, and every ``no_log`` value (the token) masked in the result.

ansible-core has no public way to get a validation's ``no_log`` values (ValidationResult keeps
them in ``_no_log_values``; ``parameters._list_no_log_values`` is private too). The one access to
it, ``no_log_values_of``, fails closed: on an ansible-core that keeps them elsewhere the task is
not run here (nothing could be masked for sure) but the module is executed, as on any other host.

On both paths the task's arguments are first completed with the connection the inventory
hands on and the token variable (job_connection.py).
"""

from __future__ import annotations

import inspect
import os
from contextlib import contextmanager

from ansible import constants as C
from ansible.errors import AnsibleError
from ansible.module_utils.errors import UnsupportedError
from ansible.module_utils.basic import remove_values
from ansible.parsing.dataloader import DataLoader
from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

from ansible_collections.gamepanel.panel.plugins.module_utils._api.client import HAS_REQUESTS
from ansible_collections.gamepanel.panel.plugins.module_utils._entry.failure import TaskFailed
from ansible_collections.gamepanel.panel.plugins.plugin_utils import job_connection

display = Display()

# Connection types (the connection plugin's ``transport``) that run tasks on the controller itself.
CONTROLLER_TRANSPORTS = ("local",)


class InProcessAction(ActionBase):
    """Base of the collection's action plugins: set TASK_SPEC and implement ``perform``."""

    TASK_SPEC = None  # a module_utils._entry.specs.TaskSpec
    _supports_check_mode = True
    _supports_async = True

    def perform(self, params, check_mode, diff, task_vars):
        """Run the task with validated ``params`` (``task_vars``: the host's variables); return its result or raise TaskFailed."""
        raise NotImplementedError

    def runs_in_process(self):
        """Whether this task may run here, in the worker process (see the module docstring)."""
        return (
            HAS_REQUESTS
            and getattr(self._connection, "transport", None) in CONTROLLER_TRANSPORTS
            and not self._play_context.become
            and not self._task.async_val
        )

    def run(self, tmp=None, task_vars=None):
        result = super(InProcessAction, self).run(tmp, task_vars)
        task_vars = task_vars or {}
        environment = {}
        self._compute_environment_string(environment)
        try:
            # the token a task takes from the environment is the one the task's environment gives
            with _environment_overlay(environment):
                args = job_connection.task_arguments(
                    self._task.args,
                    job_connection.host_variables(self._templar, task_vars, self._task.delegate_to),
                    inventory_token=self._inventory_token,
                )
        except job_connection.ConnectionVariableError as error:
            result.update(failed=True, msg=str(error))
            if isinstance(error, job_connection.TokenMismatch):
                result["token_mismatch"] = True  # the fleet jobs stop whole on it (job_accounts.py)
            return result
        if not self.runs_in_process():
            return self._run_module(result, args, task_vars)
        module_name = self._task.resolved_action or self._task.action
        # The task's environment applies to the whole run, as it would to the module's
        # process: to the options' fallbacks and to GAMEPANEL_STATE_DIR alike.
        with _environment_overlay(environment):
            validation = self.TASK_SPEC.validate(args)
            no_log_values = no_log_values_of(validation)
            if no_log_values is not None:
                return self._run_here(result, validation, no_log_values, module_name, task_vars)
        # Failing closed: what this validation marks no_log is unknown, so nothing is run here.
        display.vvv("%s: no no_log values from this ansible-core's validation: the module runs instead" % module_name)
        return self._run_module(result, args, task_vars)

    def _inventory_token(self, path):
        """The ``api_token`` the inventory file at ``path`` holds, decrypted and templated as the inventory did."""
        try:
            data = self._loader.load_from_file(path, **_TRUSTED)
        except AnsibleError as error:
            raise job_connection.ConnectionVariableError(
                "the inventory file %s, whose api_token this host's source read its panel with, cannot be read "
                "again: %s" % (path, _first_line(error))
            ) from None
        token = data.get("api_token") if isinstance(data, dict) else None
        if token is not None and not isinstance(token, (str, dict, list, bool, int, float)):
            token = str(token)  # a vaulted value (its class differs by ansible-core version) decrypts as text
        if isinstance(token, str) and self._templar.is_template(token):
            token = self._templar.template(token)
        return token

    def _run_here(self, result, validation, no_log_values, module_name, task_vars):
        """Run the task in this process on a validation; its result with every ``no_log`` value masked."""
        if validation.error_messages:
            message = validation.errors.msg
            if isinstance(validation.errors[0], UnsupportedError):
                message = "Unsupported parameters for (%s) module: %s" % (module_name, message)
            result.update(failed=True, msg=message)
            self._add_invocation(result, validation.validated_parameters, task_vars)
            return remove_values(result, no_log_values)
        params = validation.validated_parameters
        try:
            result.update(self.perform(params, bool(self._task.check_mode), bool(self._task.diff), task_vars))
        except TaskFailed as failure:
            result.update(failure.result)
            result.update(failed=True, msg=failure.msg)
        self._add_invocation(result, params, task_vars)
        return remove_values(result, no_log_values)

    def _run_module(self, result, args, task_vars):
        """Execute the module (on the task's host, through its connection) and return its result."""
        result.update(self._execute_module(module_args=args, task_vars=task_vars))
        return self.after_module(result, args, task_vars)

    def after_module(self, result, args, task_vars):
        """What the action adds to the executed module's result, so both paths return the same; by default nothing."""
        return result

    @staticmethod
    def _add_invocation(result, params, task_vars):
        """``invocation``, as a module returns it: as INJECT_INVOCATION says, or always where ansible-core has no such setting."""
        try:
            inject = C.config.get_config_value("INJECT_INVOCATION", variables=task_vars)
        except AnsibleError:
            inject = True  # an ansible-core without the setting always returns it
        if inject:
            result["invocation"] = {"module_args": params}


# ansible-core 2.19 renders a template only from trusted text: an inventory file is, as it was for the inventory.
_TRUSTED = (
    {"trusted_as_template": True}
    if "trusted_as_template" in inspect.signature(DataLoader.load_from_file).parameters
    else {}
)


def _first_line(error):
    """The first line of an error's message: a loader's error may quote the file, which holds a secret."""
    return str(getattr(error, "message", error)).splitlines()[0] if str(error) else type(error).__name__


def no_log_values_of(validation):
    """The ``no_log`` values a validation found (a set), or None where this ansible-core does not keep them as expected."""
    values = getattr(validation, "_no_log_values", None)
    if not isinstance(values, (set, frozenset)):
        return None
    return values


@contextmanager
def _environment_overlay(environment):
    """The task's ``environment:`` over the controller's, for the options' environment fallbacks."""
    saved = dict((name, os.environ.get(name)) for name in environment)
    try:
        for name, value in environment.items():
            os.environ[name] = str(value)
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
