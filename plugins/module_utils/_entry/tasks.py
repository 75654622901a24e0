# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: what a server_info or server_control task does, given its validated parameters.

A task runs in one of two ways, with this one implementation:

* as a module (``plugins/modules/``), on whichever host runs it: AnsibleModule
  validates the parameters (_entry/specs.py) and these functions do the rest;
* through the action plugins of the same names (``plugins/action/``), in the
  controller's worker process itself when the task runs on the controller: no
  interpreter is started and nothing is copied.  They validate the parameters against
  the same ``TaskSpec`` and call the same functions.

Each function takes ``(params, check_mode, diff)`` and returns the task's result dict or
raises TaskFailed (_entry/failure.py: every failure has that one shape, built by
``failure_from_error``) holding the message and the result as far as the task got;
neither ever holds the token.
"""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.module_utils._engine.one_server import run_one_server
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.many_accounts import Account, run_many_accounts
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.many_servers import run_many_servers
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.request import REQUEST_OPTIONS, ControlRequest
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.result import ControlFailed
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.shared_reads import SharedStatusReads
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.convergence import TimedRead
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.entry_states import public_view
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.open_entries import open_after
from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import PanelError
from ansible_collections.gamepanel.panel.plugins.module_utils._api.server_records import select_servers
from ansible_collections.gamepanel.panel.plugins.module_utils._state.ledger import Ledger, panel_of
from ansible_collections.gamepanel.panel.plugins.module_utils._entry.connection import client_from_params
from ansible_collections.gamepanel.panel.plugins.module_utils._entry.failure import TaskFailed, failure_from_error
from ansible_collections.gamepanel.panel.plugins.module_utils._entry.ledger_fact import fact_after_task


def _finished(client, result, ledger=None):
    """``result`` with the panel it is about and the pace of its requests, plus the client's and the ledger's warnings.

    The ledger's say when exactly once across runs is off, and which damaged files were set aside.
    """
    # The panel the task talked to: what identifies its servers across jobs (Automation Platform's node
    # counting reads it, extensions/audit/event_query.yml).
    result["panel"] = client.panel
    result["pace"] = client.pace
    return _warned(result, [(client, ledger)])


def _warned(result, used):
    """``result`` with the warnings of each ``(client, ledger or None)`` it ``used``, each once."""
    warnings = []
    for client, ledger in used:
        for warning in list(client.warnings) + (ledger.warnings() if ledger is not None else []):
            if warning not in warnings:
                warnings.append(warning)
    if warnings:
        result["warnings"] = warnings
    return result


def server_control(params, check_mode=False, diff=False, fact_entries=(), batch_hosts=0):
    """Run one server_control task; returns its result or raises TaskFailed.

    ``fact_entries``: ledger entries another job left in the host's facts (the action plugin hands
    them on; the module, executed where no facts reach it, has none).  They are merged into
    this controller's ledger before the decision.  On both paths the result (failed or not)
    then holds the host's entries as ``ansible_facts.gamepanel_ledger`` (with ``ids``: each
    server's entries as ``ledger``) for the next job.
    ``batch_hosts``: how many hosts of the play's batch run this task (0: unknown), so that the
    first forks of a batch share their reads (SharedStatusReads).
    """
    if params.get("hosts") is not None:
        raise TaskFailed(
            "hosts needs the inventory's variables, which only the controller has: run the task on the controller "
            "(not delegated to another host, no become, no async)."
        )
    client = client_from_params(params)
    request = ControlRequest.from_params(params)
    ledger = Ledger.for_client(client)
    fact_entries = list(fact_entries or ())
    if fact_entries:
        ledger.merge(fact_entries)
    if request.ids is not None:
        return _many_servers(client, request, ledger, check_mode, diff)
    shared = SharedStatusReads.for_client(client, params["rate_limit"], batch_hosts=batch_hosts)
    shared.join()
    try:
        result = run_one_server(
            client, request, check_mode=check_mode, diff=diff, status_reads=shared, before_reads=shared, ledger=ledger
        )
    except ControlFailed as failure:
        failure.result["ansible_facts"] = fact_after_task(ledger, fact_entries, params.get("id"))
        # The message puts the panel's error in context (was anything queued?).
        raise failure_from_error(
            failure.error, msg=failure.message, **_finished(client, failure.result, ledger)
        ) from None
    finally:
        shared.close()
    result["ansible_facts"] = fact_after_task(ledger, fact_entries, params.get("id"))
    return _finished(client, result, ledger)


def _many_servers(client, request, ledger, check_mode, diff):
    """server_control with ``ids``: one process for all of them (_engine/many_servers.py).

    The result holds ``ledger``, each server's entries by id, for the hosts' facts (one host may not hold a fleet's).
    """
    try:
        result = run_many_servers(client, request, request.ids, ledger=ledger, check_mode=check_mode, diff=diff)
    except ControlFailed as failure:
        failure.result["ledger"] = ledger.entries_of(request.ids)
        raise failure_from_error(
            failure.error, msg=failure.message, **_finished(client, failure.result, ledger)
        ) from None
    result["ledger"] = ledger.entries_of(request.ids)
    return _finished(client, result, ledger)


def server_control_hosts(groups, check_mode=False, diff=False, fact_entries=()):
    """server_control with ``hosts``: ``groups`` is ``[(account, params, [(server id, host)])]``, one per connection and token.

    Every group's client is made before anything is sent (a bad setting of one fails the task whole);
    then the groups run at once (_engine/many_accounts.py) with the task's one canary. The result's
    ``ledger`` holds each host's entries, by host, for the hosts' facts.
    """
    clients = [(label, params, client_from_params(params), servers) for label, params, servers in groups]
    _one_host_a_server(clients)
    accounts = []
    for label, params, client, servers in clients:
        hosts = dict(servers)
        ledger = Ledger.for_client(client)
        if fact_entries:
            ledger.merge(list(fact_entries))
        request = ControlRequest.from_params(dict(params, ids=list(hosts)))
        accounts.append(Account(label, client, request, ledger, hosts))
    canary = groups[0][1].get("canary") if groups else 0
    try:
        result = run_many_accounts(accounts, canary, check_mode=check_mode, diff=diff)
    except ControlFailed as failure:
        failure.result["ledger"] = _host_ledgers(accounts)
        raise failure_from_error(failure.error, msg=failure.message, **_accounts_finished(accounts, failure.result))
    result["ledger"] = _host_ledgers(accounts)
    return _accounts_finished(accounts, result)


def _one_host_a_server(clients):
    """TaskFailed, before anything is sent, when two hosts stand for one server of one panel.

    ``clients``: ``[(account, params, client, [(server id, host)])]``. Two sources reading one panel with
    two tokens make two hosts of each server they both list, and one source's host may share a server
    id with another host. Each would be decided on its own read: a server restarted through one could be
    restarted again through the other, which reads it up for seconds only (with min_uptime 0).
    """
    seen = {}
    for label, unused_params, client, servers in clients:
        panel = panel_of(client)
        for server_id, host in servers:
            first = seen.setdefault((panel, server_id), (host, label))
            if first[0] != host:
                raise TaskFailed(
                    "hosts: %s (account %s) and %s (account %s) stand for the same server (%s) of one panel (%s): "
                    "give each server one host, for example by reading that panel with one inventory source. "
                    "Nothing was sent." % (first[0], first[1], host, label, server_id, client.base_url),
                    changed=False,
                )


def _host_ledgers(accounts):
    found = {}
    for account in accounts:
        entries = account.ledger.entries_of(list(account.hosts))
        for server_id, host in account.hosts.items():
            found[host] = entries.get(server_id) or []
    return found


def _accounts_finished(accounts, result):
    """_finished for a task over several accounts: each panel, the warnings of every client and ledger."""
    result["panel"] = [account.client.panel for account in accounts]
    paces = [(account.label, account.client.pace) for account in accounts]
    result["pace"] = paces[0][1] if len(paces) == 1 else "; ".join("%s: %s" % pace for pace in paces)
    return _warned(result, [(account.client, account.ledger) for account in accounts])


def server_info(params, check_mode=False, diff=False):
    """Run one server_info task (it changes nothing: check and diff mode alter nothing); returns its result or raises TaskFailed."""
    client = client_from_params(params)
    # wall time: the reads are only compared with the ledger's entries, written in wall time by other processes
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
    pending = still_open(ledger, servers, read_started)
    return _finished(client, dict(changed=False, servers=servers, pending=pending, api=client.stats), ledger)


def still_open(ledger, servers, read_started):
    """The public view of every open entry of ``servers`` (read from ``read_started`` on) the reads do not prove done.

    Writes nothing: a caller that only reads shows the ledger as the reads leave it and leaves the
    bookkeeping to server_control.
    """
    listed = [server for server in servers if server.get("id") is not None]
    entries = ledger.entries_of([server["id"] for server in listed])
    found = []
    for server in listed:
        read = TimedRead(server, read_started)  # one clock, the wall's: see server_info above
        found.extend(
            public_view(entry)
            for entry in open_after(entries[server["id"]], read, REQUEST_OPTIONS["stopped_statuses"].default)
        )
    return found
