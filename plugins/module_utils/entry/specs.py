# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: What a server_info or server_control task does, given its validated parameters.

A task runs in one of two ways, with this one implementation:

* as a module (``plugins/modules/``), on whichever host runs it: AnsibleModule
  validates the parameters and these functions do the rest;
* through the action plugins of the same names (``plugins/action/``), in the
  controller's worker process itself when the task runs on the controller: no
  interpreter is started and nothing is copied.  They validate the parameters against
  the same ``TaskSpec`` and call the same functions.

Each function takes ``(params, check_mode, diff)`` and returns the task's result dict or
raises TaskFailed (entry/runner.py: every failure has that one shape, built by
``failure_from_error``) holding the message and the result as far as the task got;
neither ever holds the token.
"""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.module_utils.control.one_server import ControlFailed, run_control
from ansible_collections.gamepanel.panel.plugins.module_utils.control.request import DEFAULTS as CONTROL_DEFAULTS
from ansible_collections.gamepanel.panel.plugins.module_utils.control.request import ControlRequest
from ansible_collections.gamepanel.panel.plugins.module_utils.api.errors import PanelError
from ansible_collections.gamepanel.panel.plugins.module_utils.fleet.many_servers import run_fleet_control
from ansible_collections.gamepanel.panel.plugins.module_utils.state.ledger import LEDGER_FACT, Ledger, merged_entries
from ansible_collections.gamepanel.panel.plugins.module_utils.entry.runner import (
    client_from_params,
    failure_from_error,
    panel_argument_spec,
)
from ansible_collections.gamepanel.panel.plugins.module_utils.rules.open_entries import still_open
from ansible_collections.gamepanel.panel.plugins.module_utils.api.server_records import SUBRESOURCES, select_servers
from ansible_collections.gamepanel.panel.plugins.module_utils.control.polling import SharedStatusReads


class TaskSpec(object):
    """A task's argument spec and the constraints between its options."""

    def __init__(self, argument_spec, mutually_exclusive=(), required_one_of=()):
        self.argument_spec = argument_spec
        self.mutually_exclusive = [list(group) for group in mutually_exclusive]
        self.required_one_of = [list(group) for group in required_one_of]

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
    return TaskSpec(spec, mutually_exclusive=[("id", "name", "ids")], required_one_of=[("id", "name", "ids")])


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


def _finished(client, result, ledger=None):
    """``result`` with the panel it is about and the pace of its requests, plus the client's and the ledger's warnings (the task's warnings).

    The ledger's say when exactly once across runs is off, and which damaged files were set aside.
    """
    # The panel the task talked to: what identifies its servers across jobs (Automation Platform's node
    # counting reads it, extensions/audit/event_query.yml).
    result["panel"] = client.panel
    result["pace"] = client.pace
    warnings = list(client.warnings) + (ledger.warnings() if ledger is not None else [])
    if warnings:
        result["warnings"] = warnings
    return result


def server_control(params, check_mode=False, diff=False, carried=(), peers=0):
    """Run one server_control task; returns its result or raises TaskFailed.

    ``carried``: ledger entries another job left in the host's facts (the action plugin hands
    them on; the module, executed where no facts reach it, has none).  They are merged into
    this controller's ledger before the decision.  On both paths the result (failed or not)
    then holds the host's entries as ``ansible_facts.gamepanel_ledger`` (with ``ids``: each
    server's entries as ``ledger``) for the next job.
    ``peers``: how many hosts of the play's batch run this task (0: unknown), so that the
    first forks of a batch share their reads (SharedStatusReads).
    """
    client = client_from_params(params)
    request = ControlRequest.from_params(params)
    ledger = Ledger.for_client(client)
    carried = list(carried or ())
    if carried:
        ledger.merge(carried)
    if request.ids is not None:
        return _many_servers(client, request, ledger, check_mode, diff)
    shared = SharedStatusReads.for_client(client, params["rate_limit"], peers=peers)
    shared.join()
    try:
        result = run_control(
            client, request, check_mode=check_mode, diff=diff, status_reads=shared, before_reads=shared, ledger=ledger
        )
    except ControlFailed as failure:
        failure.result["ansible_facts"] = ledger_facts(ledger, carried, params)
        # The message puts the panel's error in context (was anything queued?).
        raise failure_from_error(
            failure.error, msg=failure.message, **_finished(client, failure.result, ledger)
        ) from None
    finally:
        shared.close()
    result["ansible_facts"] = ledger_facts(ledger, carried, params)
    return _finished(client, result, ledger)


def _many_servers(client, request, ledger, check_mode, diff):
    """server_control with ``ids``: one process for all of them (fleet/many_servers.py).

    The result holds ``ledger``, each server's entries by id, for the hosts' facts (one host may not hold a fleet's).
    """
    try:
        result = run_fleet_control(client, request, request.ids, ledger=ledger, check_mode=check_mode, diff=diff)
    except ControlFailed as failure:
        failure.result["ledger"] = ledger.entries_of(request.ids)
        raise failure_from_error(
            failure.error, msg=failure.message, **_finished(client, failure.result, ledger)
        ) from None
    result["ledger"] = ledger.entries_of(request.ids)
    return _finished(client, result, ledger)


def ledger_facts(ledger, carried, params):
    """The host's ledger fact after a task: what it carried, updated with the controlled server's live entries."""
    server_id = params.get("id")
    return host_ledger_fact(carried, ledger.entries(server_id) if server_id is not None else [], server_id)


def host_ledger_fact(carried, entries, server_id):
    """The host's ledger fact: the entries it ``carried`` for servers other than ``server_id``, and ``entries``, that server's."""
    kept = [entry for entry in carried if isinstance(entry, dict) and entry.get("id") != server_id]
    return {LEDGER_FACT: merged_entries(kept, entries)}


def server_info(params, check_mode=False, diff=False):
    """Run one server_info task (it changes nothing: check and diff mode alter nothing); returns its result or raises TaskFailed."""
    client = client_from_params(params)
    read_started = client.clock.time()
    try:
        servers = select_servers(
            client,
            server_id=params["id"],
            names=params["name"],
            games=params["game"],
            statuses=params["status"],
            include=params["include"],
        )
    except PanelError as error:
        raise failure_from_error(error, client, **_finished(client, dict(servers=[], pending=[]))) from None
    ledger = Ledger.for_client(client)
    pending = still_open(ledger, servers, read_started, CONTROL_DEFAULTS["stopped_statuses"])
    return _finished(client, dict(changed=False, servers=servers, pending=pending, api=client.stats), ledger)
