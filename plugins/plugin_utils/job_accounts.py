# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""PRIVATE: a fleet job's batch split by account, so each account's servers are acted on through its own panel.

An inventory may hold several accounts (one source each, the option ``account``): server ids
repeat across them, and each has its own connection and token. The fleet jobs therefore read,
decide and act per account: the batch's hosts are grouped by what their tasks would connect
with (``gamepanel_account``, ``gamepanel_connection`` and ``gamepanel_api_token``), and each
group's read and server_control task is delegated to one of its hosts, whose connection and
token the task takes (job_connection.py). A server is known by its account and id together.

An inventory of one account makes one group: the job runs as it always did.
"""

from __future__ import annotations

import hashlib

from ansible.errors import AnsibleFilterError

from ansible_collections.gamepanel.panel.plugins.plugin_utils.inventory_naming import ACCOUNT_VARIABLE
from ansible_collections.gamepanel.panel.plugins.plugin_utils.job_connection import CONNECTION_VARIABLE, TOKEN_VARIABLE
from ansible_collections.gamepanel.panel.plugins.plugin_utils.job_planning import plans


def batch_accounts(hosts, hostvars):
    """``[{account, host, hosts}]``: the hosts of a batch by connection and token, ``host`` the one tasks go through.

    ``account`` names the group for people: the hosts' ``gamepanel_account``, else their panel's address.
    """
    if not isinstance(hosts, (list, tuple)):
        raise AnsibleFilterError("fleet_accounts expects the batch's hosts (ansible_play_batch), not %r." % (hosts,))
    found = {}
    for host in hosts:
        variables = hostvars[host]
        account = variables.get(ACCOUNT_VARIABLE)
        connection = variables.get(CONNECTION_VARIABLE)
        token = variables.get(TOKEN_VARIABLE)
        # the token only as a digest: this key is never shown, but it stays out of memory dumps all the same
        digest = hashlib.sha256(str(token).encode("utf-8")).hexdigest() if token is not None else None
        key = (str(account or ""), repr(sorted((connection or {}).items())), digest)
        if key not in found:
            found[key] = {"account": _label(account, connection), "host": host, "hosts": []}
        found[key]["hosts"].append(host)
    return [found[key] for key in sorted(found)]


def _label(account, connection):
    if account:
        return str(account)
    if isinstance(connection, dict) and connection.get("base_url"):
        return str(connection["base_url"])
    return "default"


def plans_by_account(reads, job_name, settings, hostvars, window=None):
    """``{host: plan}`` of a batch from the registered loop of its reads, one per account (see batch_accounts).

    Each host is decided on its own account's read only; its plan carries ``account`` and ``via``
    (the host its account's tasks go through). A read that failed fails its account's hosts.
    """
    results = reads.get("results") if isinstance(reads, dict) else None
    if not isinstance(results, list):
        raise AnsibleFilterError("fleet_plans expects a fleet read or the registered loop of reads, not %r." % (reads,))
    decided = {}
    for read in results:
        batch = read.get("item") or {}
        failure = (read.get("msg") or "the read failed") if read.get("failed") else None
        servers = read.get("servers") or []
        for host, decided_for_host in plans(
            servers, job_name, settings, hostvars, batch.get("hosts"), window, failure
        ).items():
            decided_for_host.update(account=batch.get("account"), via=batch.get("host"))
            decided[host] = decided_for_host
    return decided
