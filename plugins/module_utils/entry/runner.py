# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: what every gamepanel.panel module shares: its connection options, its client, its one failure path.

The options are documented once, in the ``gamepanel.panel.panel`` doc fragment;
keep the two in step.
"""

from __future__ import annotations

from ansible.module_utils.basic import AnsibleModule, env_fallback, missing_required_lib

from ansible_collections.gamepanel.panel.plugins.module_utils.api.client import (
    CONNECTION_DEFAULTS,
    HAS_REQUESTS,
    PanelClient,
)
from ansible_collections.gamepanel.panel.plugins.module_utils.api.errors import PanelError
from ansible_collections.gamepanel.panel.plugins.module_utils.api.token_file import (
    TOKEN_ENV,
    api_token_fallback,
    token_from_environment,
)


def panel_argument_spec():
    """The argument spec of the shared connection options (a new dict on every call).

    ``api_token`` and ``base_url`` are not ``required`` in the spec, so that a missing
    one is reported by ``client_from_params`` (through PanelClient) with a message that says where to get it.
    """
    return dict(
        api_token=dict(type="str", no_log=True, fallback=(api_token_fallback, [TOKEN_ENV])),
        base_url=dict(type="str", fallback=(env_fallback, ["GAMEPANEL_BASE_URL"])),
        api_variant=dict(
            type="str", choices=["live", "planned"], default="live", fallback=(env_fallback, ["GAMEPANEL_API_VARIANT"])
        ),
        validate_certs=dict(type="bool", default=True),
        request_timeout=dict(type="float", default=CONNECTION_DEFAULTS["request_timeout"]),
        rate_limit=dict(
            type="int", default=CONNECTION_DEFAULTS["rate_limit"], fallback=(env_fallback, ["GAMEPANEL_RATE_LIMIT"])
        ),
        retry_timeout=dict(type="float", default=CONNECTION_DEFAULTS["retry_timeout"]),
        allow_insecure_http=dict(
            type="bool", default=False, fallback=(env_fallback, ["GAMEPANEL_ALLOW_INSECURE_HTTP"])
        ),
    )


class TaskFailed(Exception):
    """The task fails with ``msg``; ``result`` holds its other return values."""

    def __init__(self, msg, **result):
        super(TaskFailed, self).__init__(msg)
        self.msg = msg
        self.result = result


def failure_from_error(error, client=None, msg=None, **result):
    """The one shape of every failure: TaskFailed with ``msg`` (``error``'s message by default),
    ``status`` (None without one) and, given a client, ``api`` stats.

    ``result`` holds any return values the task already has (``changed``, ``server``...).
    """
    result["status"] = getattr(error, "status", None)
    if client is not None:
        result["api"] = client.stats
    return TaskFailed(str(error) if msg is None else msg, **result)


def fail_task(module, failure):
    """Fail the module with a TaskFailed, the way the action plugins report one."""
    module.fail_json(msg=failure.msg, **failure.result)


def client_from_params(params):
    """A PanelClient configured from a task's parameters; TaskFailed on bad settings."""
    if not HAS_REQUESTS:
        raise TaskFailed(missing_required_lib("requests"))
    try:
        return PanelClient(
            params["base_url"],
            # None only when the fallback found no usable token: a bad token file is named now
            params["api_token"] if params["api_token"] is not None else token_from_environment(),
            api_variant=params["api_variant"],
            validate_certs=params["validate_certs"],
            request_timeout=params["request_timeout"],
            rate_limit=params["rate_limit"],
            retry_timeout=params["retry_timeout"],
            allow_insecure_http=params["allow_insecure_http"],
        )
    except PanelError as error:
        raise failure_from_error(error) from None


def run_task_module(spec, task):
    """Run a task (a ``tasks`` function) as a module: validate by ``spec``, exit with its result or its failure."""
    module = AnsibleModule(**spec.module_kwargs())
    try:
        result = task(module.params, check_mode=module.check_mode, diff=module._diff)
    except TaskFailed as failure:
        fail_task(module, failure)
    module.exit_json(**result)
