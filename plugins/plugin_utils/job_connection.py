# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: The connection a job's task gets from the inventory and from variables.

The connection is written once, in the inventory file: the ``gamepanel.panel.servers``
inventory puts the settings it used on its group ``gamepanel`` (on ``account_<account>`` with
the option ``account``) as ``gamepanel_connection``, never the token. Beside the settings it names
where its token came from, so a job reads each host's token where that host's own source did:
``api_token_env`` (a variable's name), ``api_token_file`` (a path) or ``api_token_inventory`` (the
inventory file whose ``api_token`` holds it, read again by the job: vault and templates work, and
the token goes into no variable). It also carries ``api_token_digest`` (a one-way digest of that
token) and ``api_token_origin`` (words naming where it came from, for messages).

The token of a task, in this order: the task's own ``api_token`` (``module_defaults`` are merged
into the arguments by ansible-core before an action plugin runs), the host's variable
``gamepanel_api_token`` (a vault file, an AWX credential), what the host's source names, then
``GAMEPANEL_API_TOKEN`` and ``GAMEPANEL_API_TOKEN_FILE``. A task about to send a token other than
the one its host's source read that panel with stops before sending anything (check_token_matches):
one account's token never reaches another account's panel.

The other settings, per option: the task's own arguments > ``gamepanel_connection`` > the
``GAMEPANEL_*`` environment (the options' fallbacks, applied when the module validates its arguments).

A task delegated to a host of the inventory acts with that host's connection and token (the fleet
jobs act on each account through one of its hosts); a host outside the inventory takes the
inventory's connection only while the inventory has one.
"""

from __future__ import annotations

import os
import re

from ansible_collections.gamepanel.panel.plugins.module_utils._api.client import CONNECTION_OPTIONS, check_base_url
from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import PanelError
from ansible_collections.gamepanel.panel.plugins.module_utils._api.token_file import (
    TOKEN_FILE_OPTION,
    environment_token,
    in_file,
    in_inventory_file,
    in_variable,
    read_token_file,
    token_digest,
)
from ansible_collections.gamepanel.panel.plugins.plugin_utils.inventory_naming import (
    ACCOUNT_GROUP_PREFIX,
    ACCOUNT_VARIABLE,
    ALL_SERVERS_GROUP,
)

CONNECTION_VARIABLE = "gamepanel_connection"
TOKEN_VARIABLE = "gamepanel_api_token"
# The inventory group ALL_SERVERS_GROUP carries CONNECTION_VARIABLE (every host of the inventory is in it); the
# account groups (ACCOUNT_GROUP_PREFIX) carry it instead when the sources name their accounts.

# The connection options the inventory hands on: every shared option but the token.
CONNECTION_KEYS = CONNECTION_OPTIONS.without("api_token").names

# The connection's keys that are no option of the tasks: where the source's token is (names and
# paths, never the token), its digest and the words for messages.
TOKEN_ENV_KEY = "api_token_env"
TOKEN_FILE_KEY = "api_token_file"
TOKEN_INVENTORY_KEY = "api_token_inventory"
TOKEN_DIGEST_KEY = "api_token_digest"
TOKEN_ORIGIN_KEY = "api_token_origin"
TOKEN_KEYS = (TOKEN_ENV_KEY, TOKEN_FILE_KEY, TOKEN_INVENTORY_KEY, TOKEN_DIGEST_KEY, TOKEN_ORIGIN_KEY)
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class ConnectionVariableError(ValueError):
    """``gamepanel_connection`` or ``gamepanel_api_token`` cannot be used; the message names which and why."""


class TokenMismatch(ConnectionVariableError):
    """A task would send a token other than the one its host's source read that panel with: the job stops."""


def task_arguments(args, variables, inventory_token=None):
    """``args`` completed by the connection ``variables`` hold, where ``args`` sets nothing.

    ``variables``: a mapping with the (templated) values of ``gamepanel_connection`` and
    ``gamepanel_api_token`` when the host has them. ``inventory_token``: a function of an inventory
    file's path giving the ``api_token`` written there (the action plugin's loader reads it).
    Returns a new dict; raises ConnectionVariableError for an unusable value or a token that is not
    the one the host's source read its panel with, before anything is sent.
    """
    completed = dict(args)
    connection = check_connection(variables.get(CONNECTION_VARIABLE))
    source = dict((key, connection.pop(key)) for key in TOKEN_KEYS if key in connection)
    for key, value in connection.items():
        if completed.get(key) is None:
            completed[key] = value
    token, origin = _task_token(completed, variables, source, inventory_token)
    if token is not None:
        completed["api_token"] = token
        if completed.get("base_url") == connection.get("base_url"):
            check_token_matches(token, origin, source, variables.get(ACCOUNT_VARIABLE) or connection.get("base_url"))
    return completed


def _task_token(args, variables, source, inventory_token):
    """``(token, origin)`` of a task (the module docstring's order), or ``(None, None)`` for the module's fallbacks to find."""
    if args.get("api_token") is not None:
        return args["api_token"], "the task's api_token"
    if TOKEN_VARIABLE in variables:
        return check_token(variables[TOKEN_VARIABLE]), "the variable %s" % TOKEN_VARIABLE
    if TOKEN_ENV_KEY in source:
        name = source[TOKEN_ENV_KEY]
        return token_from_env(name), in_variable(name)
    try:
        if TOKEN_FILE_KEY in source:
            path = source[TOKEN_FILE_KEY]
            return read_token_file(path, "api_token_file of the inventory"), in_file(path, TOKEN_FILE_OPTION)
        if TOKEN_INVENTORY_KEY in source and inventory_token is not None:
            path = source[TOKEN_INVENTORY_KEY]
            return check_token(inventory_token(path), in_inventory_file(path)), in_inventory_file(path)
        if TOKEN_DIGEST_KEY in source:
            # the source read with the environment's token: the one this task's fallbacks would find
            return environment_token()
    except PanelError as error:
        raise ConnectionVariableError(str(error)) from None
    return None, None


def check_token_matches(token, origin, source, account):
    """ConnectionVariableError when ``token`` is not the one the host's source read its panel with.

    Before anything is sent: a token of another account must never reach this panel (and this
    account's token stays away from the other's).
    """
    expected = source.get(TOKEN_DIGEST_KEY)
    if expected is None or token_digest(token) == expected:
        return
    raise TokenMismatch(
        "account %s: this task would use the token from %s, but the inventory read this account's panel with the "
        "token from %s. Nothing was sent. Give the task this account's token (or remove the other one), so that one "
        "account's token never reaches another account's panel." % (account, origin, source.get(TOKEN_ORIGIN_KEY))
    )


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
    """The templated ``gamepanel_connection``, ``gamepanel_api_token`` and ``gamepanel_account`` a task's host has.

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
    for name in (CONNECTION_VARIABLE, TOKEN_VARIABLE, ACCOUNT_VARIABLE):
        if name in task_vars:
            variables[name] = templar.template(task_vars[name])
    if CONNECTION_VARIABLE not in variables:
        connection = inventory_connection(task_vars)
        if connection is not None:
            variables[CONNECTION_VARIABLE] = templar.template(connection)
    return variables


def inventory_connection(task_vars):
    """The one connection the inventory's hosts carry, or None; ConnectionVariableError when its accounts differ.

    One host per account is read (the first of each account group the inventory made, and of the fleet
    group): every host of such a group carries that group's connection. A group of the user's own that
    is only named like an account group (its first host's account is another) is passed by.
    """
    groups = task_vars.get("groups") or {}
    hostvars = task_vars.get("hostvars")
    if hostvars is None:
        return None
    readers = [
        names[0]
        for group, names in groups.items()
        if group.startswith(ACCOUNT_GROUP_PREFIX)
        and names
        and hostvars[names[0]].get(ACCOUNT_VARIABLE) == group[len(ACCOUNT_GROUP_PREFIX) :]
    ]
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
    unknown = sorted(str(key) for key in connection if key not in CONNECTION_KEYS + TOKEN_KEYS)
    if unknown:
        hint = " (the token goes in %s or GAMEPANEL_API_TOKEN)" % TOKEN_VARIABLE if "api_token" in unknown else ""
        raise ConnectionVariableError(
            "%s has unknown key(s) %s%s; it takes %s."
            % (CONNECTION_VARIABLE, ", ".join(unknown), hint, ", ".join(CONNECTION_KEYS))
        )
    settings = dict((key, value) for key, value in connection.items() if value is not None)
    if TOKEN_ENV_KEY in settings:
        check_token_env(settings[TOKEN_ENV_KEY])
    for key in TOKEN_KEYS:
        if not isinstance(settings.get(key, ""), str):
            raise ConnectionVariableError(
                "%s: %s must be a string, not %r." % (CONNECTION_VARIABLE, key, settings[key])
            )
    if "base_url" in settings:
        try:
            check_base_url(settings["base_url"])
        except PanelError as error:
            raise ConnectionVariableError("%s: %s" % (CONNECTION_VARIABLE, error)) from None
    return settings


def check_token(token, where=TOKEN_VARIABLE):
    """The token ``where`` (``gamepanel_api_token`` by default) holds; ConnectionVariableError for an empty or non-text one."""
    if not isinstance(token, str):
        # the value is never shown: it may be the token in another form
        raise ConnectionVariableError("%s must be a string (the API token)." % where)
    if not token.strip():
        raise ConnectionVariableError(
            "%s is empty: give it the API token (a vault file, an AWX credential), or leave it unset and "
            "set GAMEPANEL_API_TOKEN or GAMEPANEL_API_TOKEN_FILE." % where
        )
    return token
