# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: The connection a job's task gets from the inventory and from variables.

The connection is written once, in the inventory file: the ``gamepanel.panel.servers``
inventory puts the settings it used on its group ``gamepanel`` as ``gamepanel_connection``
(never the token). The token reaches a job from the variable ``gamepanel_api_token`` (a vault
file, an AWX credential), else ``GAMEPANEL_API_TOKEN``, else ``GAMEPANEL_API_TOKEN_FILE`` (api/token_file.py).

Precedence, per option: the task's own arguments (``module_defaults`` are merged into them
by ansible-core before an action plugin runs) > ``gamepanel_connection`` /
``gamepanel_api_token`` > the ``GAMEPANEL_*`` environment (the options' fallbacks, applied
when the module validates its arguments).
"""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.module_utils.api.client import check_base_url
from ansible_collections.gamepanel.panel.plugins.module_utils.api.errors import PanelError

CONNECTION_VARIABLE = "gamepanel_connection"
TOKEN_VARIABLE = "gamepanel_api_token"
# The inventory group that carries CONNECTION_VARIABLE (every host of the inventory is in it).
FLEET_GROUP = "gamepanel"
# The connection options the inventory hands on: every shared option but the token.
CONNECTION_KEYS = (
    "base_url",
    "api_variant",
    "rate_limit",
    "validate_certs",
    "request_timeout",
    "retry_timeout",
    "allow_insecure_http",
)


class ConnectionVariableError(ValueError):
    """``gamepanel_connection`` or ``gamepanel_api_token`` cannot be used; the message names which and why."""


def task_arguments(args, variables):
    """``args`` completed by the connection ``variables`` hold, where ``args`` sets nothing.

    ``variables``: a mapping with the (templated) values of ``gamepanel_connection`` and
    ``gamepanel_api_token`` when the host has them. Returns a new dict; raises
    ConnectionVariableError for an unusable value, before anything is sent.
    """
    completed = dict(args)
    connection = check_connection(variables.get(CONNECTION_VARIABLE))
    for key, value in connection.items():
        if completed.get(key) is None:
            completed[key] = value
    if completed.get("api_token") is None and TOKEN_VARIABLE in variables:
        completed["api_token"] = check_token(variables[TOKEN_VARIABLE])
    return completed


def host_variables(templar, task_vars):
    """The templated ``gamepanel_connection`` and ``gamepanel_api_token`` a task's host has.

    A host outside the inventory (the report's localhost, a task delegated to it) takes the
    connection of the inventory's group all the same: the inventory is where it is written.
    """
    variables = {}
    for name in (CONNECTION_VARIABLE, TOKEN_VARIABLE):
        if name in task_vars:
            variables[name] = templar.template(task_vars[name])
    fleet_hosts = (task_vars.get("groups") or {}).get(FLEET_GROUP) or ()
    hostvars = task_vars.get("hostvars")
    if CONNECTION_VARIABLE not in variables and fleet_hosts and hostvars is not None:
        connection = hostvars[fleet_hosts[0]].get(CONNECTION_VARIABLE)
        if connection is not None:
            variables[CONNECTION_VARIABLE] = templar.template(connection)
    return variables


def check_connection(connection):
    """The usable ``gamepanel_connection`` dict (keys with a null value dropped); ConnectionVariableError else."""
    if connection is None:
        return {}
    if not isinstance(connection, dict):
        raise ConnectionVariableError(
            "%s must be a dictionary of connection settings (%s), not %s."
            % (CONNECTION_VARIABLE, ", ".join(CONNECTION_KEYS), type(connection).__name__)
        )
    unknown = sorted(str(key) for key in connection if key not in CONNECTION_KEYS)
    if unknown:
        hint = " (the token goes in %s or GAMEPANEL_API_TOKEN)" % TOKEN_VARIABLE if "api_token" in unknown else ""
        raise ConnectionVariableError(
            "%s has unknown key(s) %s%s; it takes %s."
            % (CONNECTION_VARIABLE, ", ".join(unknown), hint, ", ".join(CONNECTION_KEYS))
        )
    settings = dict((key, value) for key, value in connection.items() if value is not None)
    if "base_url" in settings:
        try:
            check_base_url(settings["base_url"])
        except PanelError as error:
            raise ConnectionVariableError("%s: %s" % (CONNECTION_VARIABLE, error)) from None
    return settings


def check_token(token):
    """The token ``gamepanel_api_token`` holds; ConnectionVariableError for an empty or non-text one."""
    if not isinstance(token, str):
        # the value is never shown: it may be the token in another form
        raise ConnectionVariableError("%s must be a string (the API token)." % TOKEN_VARIABLE)
    if not token.strip():
        raise ConnectionVariableError(
            "%s is empty: give it the API token (a vault file, an AWX credential), or leave it unset and "
            "set GAMEPANEL_API_TOKEN or GAMEPANEL_API_TOKEN_FILE." % TOKEN_VARIABLE
        )
    return token
