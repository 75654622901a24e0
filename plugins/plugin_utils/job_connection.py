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

Several accounts: a source with the option ``account`` puts its connection on its account's
group, so each host carries its own; ``gamepanel_connection`` may then name the environment
variable holding that account's token (``api_token_env``, the name only), read after
``gamepanel_api_token``. A task delegated to a host of the inventory acts with that host's
connection and token (the fleet jobs act on each account through one of its hosts); a host
outside the inventory takes the inventory's connection only while the inventory has one.
"""

from __future__ import annotations

import os
import re

from ansible_collections.gamepanel.panel.plugins.module_utils.api.client import check_base_url
from ansible_collections.gamepanel.panel.plugins.module_utils.api.errors import PanelError
from ansible_collections.gamepanel.panel.plugins.plugin_utils.inventory_naming import (
    ACCOUNT_GROUP_PREFIX,
    ALL_SERVERS_GROUP,
)

CONNECTION_VARIABLE = "gamepanel_connection"
TOKEN_VARIABLE = "gamepanel_api_token"
# The inventory group ALL_SERVERS_GROUP carries CONNECTION_VARIABLE (every host of the inventory is in it); the
# account groups (ACCOUNT_GROUP_PREFIX) carry it instead when the sources name their accounts.

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

# The connection's one key that is no option of the tasks: the name of the variable holding the token.
TOKEN_ENV_KEY = "api_token_env"
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


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
    token_env = connection.pop(TOKEN_ENV_KEY, None)
    for key, value in connection.items():
        if completed.get(key) is None:
            completed[key] = value
    if completed.get("api_token") is None and TOKEN_VARIABLE in variables:
        completed["api_token"] = check_token(variables[TOKEN_VARIABLE])
    if completed.get("api_token") is None and token_env is not None:
        completed["api_token"] = token_from_env(token_env)
    return completed


def token_from_env(name, environ=None):
    """The token in the environment variable ``name`` (api_token_env); ConnectionVariableError when it is unset."""
    token = (os.environ if environ is None else environ).get(name)
    if not token or not token.strip():
        raise ConnectionVariableError(unset_token_env_message(name))
    return token


def unset_token_env_message(name):
    return (
        "%s names the environment variable %s for this account's token, but it is not set or empty: export it "
        "(an AWX credential can inject it), or set %s for this account's hosts." % (TOKEN_ENV_KEY, name, TOKEN_VARIABLE)
    )


def check_token_env(name):
    """``name`` when it can name an environment variable; ConnectionVariableError else."""
    if not isinstance(name, str) or not _ENV_NAME.match(name):
        raise ConnectionVariableError(
            "%s must name an environment variable (letters, digits and underscores), not %r." % (TOKEN_ENV_KEY, name)
        )
    return name


def host_variables(templar, task_vars, delegate_to=None):
    """The templated ``gamepanel_connection`` and ``gamepanel_api_token`` a task's host has.

    A task delegated to a host of the inventory (one that carries a connection) takes that
    host's: the fleet jobs act on each account through one of its hosts. A host outside the
    inventory (the report's localhost, a task delegated to it) takes the connection of the
    inventory's hosts all the same, while they have one; with several accounts it must be told.
    """
    delegated = ((task_vars.get("ansible_delegated_vars") or {}).get(delegate_to) or {}) if delegate_to else {}
    if CONNECTION_VARIABLE in delegated:
        task_vars = delegated
        templar = templar.copy_with_new_env(available_variables=delegated)
    variables = {}
    for name in (CONNECTION_VARIABLE, TOKEN_VARIABLE):
        if name in task_vars:
            variables[name] = templar.template(task_vars[name])
    if CONNECTION_VARIABLE not in variables:
        connection = inventory_connection(task_vars)
        if connection is not None:
            variables[CONNECTION_VARIABLE] = templar.template(connection)
    return variables


def inventory_connection(task_vars):
    """The one connection the inventory's hosts carry, or None; ConnectionVariableError when its accounts differ.

    One host per account is read (the first of each account group, and of the fleet group):
    every host of a group carries that group's connection.
    """
    groups = task_vars.get("groups") or {}
    hostvars = task_vars.get("hostvars")
    if hostvars is None:
        return None
    readers = [names[0] for group, names in groups.items() if group.startswith(ACCOUNT_GROUP_PREFIX) and names]
    readers += list(groups.get(ALL_SERVERS_GROUP) or ())[:1]
    connections = []
    for host in readers:
        connection = hostvars[host].get(CONNECTION_VARIABLE)
        if connection is not None and connection not in connections:
            connections.append(connection)
    if len(connections) > 1:
        raise ConnectionVariableError(
            "the inventory holds several gamepanel accounts with different connections: this task runs outside them "
            "(on %s), so it cannot tell which panel to use. Delegate it to a host of the account (delegate_to), or "
            "give it base_url and api_token." % (task_vars.get("inventory_hostname") or "a host outside the inventory")
        )
    return connections[0] if connections else None


def check_connection(connection):
    """The usable ``gamepanel_connection`` dict (keys with a null value dropped); ConnectionVariableError else."""
    if connection is None:
        return {}
    if not isinstance(connection, dict):
        raise ConnectionVariableError(
            "%s must be a dictionary of connection settings (%s), not %s."
            % (CONNECTION_VARIABLE, ", ".join(CONNECTION_KEYS), type(connection).__name__)
        )
    unknown = sorted(str(key) for key in connection if key not in CONNECTION_KEYS + (TOKEN_ENV_KEY,))
    if unknown:
        hint = " (the token goes in %s or GAMEPANEL_API_TOKEN)" % TOKEN_VARIABLE if "api_token" in unknown else ""
        raise ConnectionVariableError(
            "%s has unknown key(s) %s%s; it takes %s."
            % (CONNECTION_VARIABLE, ", ".join(unknown), hint, ", ".join(CONNECTION_KEYS))
        )
    settings = dict((key, value) for key, value in connection.items() if value is not None)
    if TOKEN_ENV_KEY in settings:
        check_token_env(settings[TOKEN_ENV_KEY])
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
