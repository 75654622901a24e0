# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: server_control with ``hosts``: the servers of several accounts in one task, each account at its own pace.

The caller (the action plugin) groups the hosts by what reaches their panel (connection and token)
and hands one Account per group: its client, its request (the task's, on the group's ids), its
ledger and, for each id, the host it stands for. Each account is one many-servers run
(_engine/many_servers.py) in a thread of its own: the accounts read, send and confirm at the same
time, each within its own token's budget, so two accounts take the time of the slower one, not
the sum. The canary is the task's (_engine/job_canary.py). The answer is one list of lines, each
with its ``host`` and ``account``, and the summary over all of them.
"""

from __future__ import annotations

import threading

from ansible_collections.gamepanel.panel.plugins.module_utils._engine.job_canary import JobCanary
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.many_servers import run_many_servers
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.server import ControlledServer
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.result import (
    ControlFailed,
    failure_message,
    many_servers_result,
)


class Account(object):
    """One group of a ``hosts`` task: ``label`` (the account, for people), and what its run needs.

    ``hosts``: ``{server id: host name}``, in the task's order.
    """

    def __init__(self, label, client, request, ledger, hosts):
        self.label = label
        self.client = client
        self.request = request
        self.ledger = ledger
        self.hosts = hosts
        self.result = None
        self.failure = None  # ControlFailed, or another exception the run ended with


def run_many_accounts(accounts, canary, check_mode=False, diff=False):
    """Run every account of ``accounts`` at once, with one ``canary`` (a count); return the result or raise ControlFailed."""
    job = JobCanary(canary, len(accounts))
    threads = []
    for position, account in enumerate(accounts):
        thread = threading.Thread(
            target=_run_account, args=(account, job.member(position), job, position, check_mode, diff)
        )
        thread.daemon = True
        thread.start()
        threads.append(thread)
    for thread in threads:
        thread.join()
    return _merged(accounts, job, diff)


def _run_account(account, canary, job, position, check_mode, diff):
    try:
        account.result = run_many_servers(
            account.client,
            account.request,
            list(account.hosts),
            ledger=account.ledger,
            check_mode=check_mode,
            diff=diff,
            canary=canary,
        )
    except ControlFailed as failure:
        account.failure = failure
        account.result = failure.result
    except Exception as error:  # pylint: disable=broad-exception-caught
        # a bug in one account's run fails its servers, and never leaves the others waiting for its canary
        account.failure = error
    finally:
        job.withdraw(position)


def _merged(accounts, job, diff):
    lines, api, elapsed = [], {}, 0.0
    several = len(accounts) > 1
    for account in accounts:
        result = account.result or {}
        for line in result.get("servers") or _unrun_lines(account):
            lines.append(dict(line, host=account.hosts.get(line["id"]), account=account.label))
        elapsed = max(elapsed, result.get("elapsed") or 0.0)
        for key, value in (result.get("api") or {}).items():
            api[key] = round(api.get(key, 0) + value, 3) if several else value
    merged = many_servers_result(lines, diff, elapsed, api)
    merged["canary"] = _canary_view(job, accounts)
    merged["accounts"] = [
        {"account": account.label, "servers": len(account.hosts), "api": (account.result or {}).get("api")}
        for account in accounts
    ]
    failed = [line for line in lines if line["failed"]]
    if failed:
        message = failure_message([dict(line, id=line["host"]) for line in failed], len(lines))
        if job.came_back is False:
            message += " " + merged["canary"]["msg"]
        raise ControlFailed(message, merged, _first_error(accounts))
    return merged


def _unrun_lines(account):
    """The lines of an account whose run ended in an error of ours: each of its servers failed, saying why."""
    why = "The task failed before this server's result: %s" % (account.failure or "no result")
    lines = []
    for server_id in account.hosts:
        server = ControlledServer(server_id)
        server.fail(why)
        lines.append(server.as_line(account.request))
    return lines


def _canary_view(job, accounts):
    if job.count <= 0:
        return None
    views = [(account.result or {}).get("canary") for account in accounts]
    if job.carrier is not None:
        view = dict(views[job.carrier] or {})
        view["account"] = accounts[job.carrier].label
        view["hosts"] = [accounts[job.carrier].hosts.get(server_id) for server_id in job.ids]
        return view
    # no account sent one: the first account's words say why (check mode: which it would be; nothing to send)
    for account, view in zip(accounts, views):
        if view and view.get("ids"):
            return dict(view, account=account.label, hosts=[account.hosts.get(server_id) for server_id in view["ids"]])
    first = next((view for view in views if view), None)
    return dict(first or {"ids": [], "confirmed": None, "msg": "No server was to be sent: no canary, nothing sent."})


def _first_error(accounts):
    for account in accounts:
        error = getattr(account.failure, "error", None)
        if error is not None:
            return error
    return None
