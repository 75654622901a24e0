# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: server_control with ``hosts``: a fleet job's batch in one task, each host through its own account.

Each host of ``hosts`` stands for its server (``gamepanel_id``) on its own account: its connection,
account and token are its own variables (job_connection.py), read here from ``hostvars``. The hosts
are grouped by them (job_accounts.account_key: account, connection, token variable), each group's
arguments completed and checked as a task of its own would be (the same argument spec, the same
token rules, its token's ``no_log``), and the groups run at once in one engine
(module_utils/_engine/many_accounts.py). A host without a server id fails alone (its line says so) and
the others go on: a fleet job's batch may hold a host of the user's that is no server. Anything else
wrong with a host or a group (two hosts for one server, a token that is not its source's, a bad
setting) fails the task before anything is sent.

It needs the inventory's variables, so it runs in the controller's worker only: the module, executed
elsewhere, refuses ``hosts``.
"""

from __future__ import annotations

from ansible.module_utils.basic import remove_values

from ansible_collections.gamepanel.panel.plugins.module_utils._engine import messages as say
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.result import failure_message, many_servers_result
from ansible_collections.gamepanel.panel.plugins.module_utils._entry.failure import TaskFailed
from ansible_collections.gamepanel.panel.plugins.module_utils._entry.ledger_fact import batch_entries
from ansible_collections.gamepanel.panel.plugins.module_utils._entry.specs import SERVER_CONTROL
from ansible_collections.gamepanel.panel.plugins.module_utils._entry.tasks import server_control_hosts
from ansible_collections.gamepanel.panel.plugins.plugin_utils import job_connection
from ansible_collections.gamepanel.panel.plugins.plugin_utils.action_in_process import (
    _environment_overlay,
    no_log_values_of,
)
from ansible_collections.gamepanel.panel.plugins.plugin_utils.inventory_naming import ACCOUNT_VARIABLE
from ansible_collections.gamepanel.panel.plugins.plugin_utils.job_accounts import account_key, account_label

SERVER_VARIABLE = "gamepanel_id"
_HOST_VARIABLES = (job_connection.CONNECTION_VARIABLE, job_connection.TOKEN_VARIABLE, ACCOUNT_VARIABLE)


class HostsRefused(ValueError):
    """The task's hosts cannot be run as given; the message says which and why. Nothing was sent."""


def run_hosts_task(action, result, task_vars):
    """The ``hosts`` form of server_control, for the action plugin ``action``; returns the task's result."""
    args = dict(action._task.args)
    hosts = args.pop("hosts")
    environment = {}
    action._compute_environment_string(environment)
    try:
        with _environment_overlay(environment):
            groups, no_log_values = _checked_groups(action, args, hosts, task_vars)
    except HostsRefused as refused:
        result.update(failed=True, msg=str(refused))
        return result
    except job_connection.ConnectionVariableError as error:
        result.update(failed=True, msg=str(error), token_mismatch=isinstance(error, job_connection.TokenMismatch))
        return result
    groups, missing = groups
    try:
        if groups:
            result.update(
                server_control_hosts(
                    groups,
                    check_mode=bool(action._task.check_mode),
                    diff=bool(action._task.diff),
                    fact_entries=batch_entries(task_vars, hosts),
                )
            )
    except TaskFailed as failure:
        result.update(failure.result)
        result.update(failed=True, msg=failure.msg)
    if missing:
        _fail_missing(result, missing, bool(action._task.diff))
    action._add_invocation(result, dict(args, hosts=list(hosts)), task_vars)
    return remove_values(result, no_log_values)


def _checked_groups(action, args, hosts, task_vars):
    """``(([(account, params, [(server id, host)])], hosts without a server id), no_log values)``.

    Two hosts of one server are left for server_control_hosts to refuse, with those of other accounts.

    Raises HostsRefused or ConnectionVariableError.
    """
    if not isinstance(hosts, list) or not all(isinstance(host, str) for host in hosts):
        raise HostsRefused("hosts must be a list of inventory host names, such as ansible_play_batch.")
    hostvars = task_vars.get("hostvars") or {}
    found, missing = {}, []
    for host in hosts:
        if host not in hostvars:
            raise HostsRefused("hosts: %s is no host of the inventory." % host)
        variables = hostvars[host]
        server_id = variables.get(SERVER_VARIABLE)
        if server_id is None or not str(server_id).strip():
            missing.append(host)
            continue
        key = account_key(variables)
        if key not in found:
            found[key] = (dict((name, variables[name]) for name in _HOST_VARIABLES if name in variables), [])
        found[key][1].append((str(server_id), host))
    groups, no_log_values = [], set()
    for variables, servers in found.values():
        completed = job_connection.task_arguments(args, variables, inventory_token=action._inventory_token)
        validation = SERVER_CONTROL.validate(dict(completed, ids=list(dict(servers))))
        found_no_log = no_log_values_of(validation)
        if found_no_log is None:
            raise HostsRefused("hosts needs an ansible-core whose argument check names its no_log values (2.19+).")
        no_log_values.update(found_no_log)
        if validation.error_messages:
            raise HostsRefused(remove_values(validation.errors.msg, found_no_log))
        label = account_label(variables.get(ACCOUNT_VARIABLE), variables.get(job_connection.CONNECTION_VARIABLE))
        groups.append((label, validation.validated_parameters, servers))
    return (groups, missing), no_log_values


def _no_server_line(host):
    """The line of a host without a server id: failed, nothing sent to it."""
    return {
        "id": None,
        "host": host,
        "account": None,
        "name": None,
        "changed": False,
        "action": None,
        "converged": None,
        "skipped_reason": None,
        "pending": None,
        "status": None,
        "uptime_seconds": None,
        "players": None,
        "held_by": None,
        "counted": False,
        "in_state": False,
        "drained": False,
        "msg": say.no_server_id(host, SERVER_VARIABLE),
        "failed": True,
    }


def _fail_missing(result, missing, diff):
    """``result`` with a failed line for each host of ``missing`` (no server id), and the task failed naming them."""
    lines = list(result.get("servers") or []) + [_no_server_line(host) for host in missing]
    merged = many_servers_result(lines, diff, result.get("elapsed") or 0.0, result.get("api") or {})
    result.update(servers=merged["servers"], summary=merged["summary"], failed=True)
    result.setdefault("changed", merged["changed"])
    failed = [dict(line, id=line["host"]) for line in lines if line["failed"]]
    canary = result.get("canary") or {}
    lost = " " + canary["msg"] if canary.get("confirmed") is False and canary.get("msg") else ""
    result["msg"] = failure_message(failed, len(lines)) + lost
