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

from ansible_collections.gamepanel.panel.plugins.plugin_utils.inventory_naming import (
    ACCOUNT_GROUP_PREFIX,
    ACCOUNT_VARIABLE,
    ALL_SERVERS_GROUP,
)
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


def inventory_accounts(groups, hostvars):
    """The inventory's accounts as batch_accounts gives them, each with one host: ``groups`` is Ansible's ``groups``.

    One host is looked at per account group (``account_<account>``), plus the first fleet host that
    is in none (a source without ``account``): every host of a group carries that group's connection.
    """
    if not isinstance(groups, dict):
        raise AnsibleFilterError("fleet_accounts expects the hosts of a batch or Ansible's groups, not %r." % (groups,))
    readers, grouped = [], set()
    for name in sorted(groups):
        if name.startswith(ACCOUNT_GROUP_PREFIX) and groups[name]:
            readers.append(groups[name][0])
            grouped.update(groups[name])
    readers.extend([host for host in groups.get(ALL_SERVERS_GROUP) or () if host not in grouped][:1])
    return batch_accounts(readers, hostvars)


def merged_reads(reads, hostvars):
    """The registered loop of one server_info read per account as one read: ``{servers, pending, warnings, panels}``.

    With several accounts every server and pending entry carries its ``account`` (ids repeat across
    accounts), and ``panels`` lists each account with its panel's ``base_url``; with one, they are as read.
    """
    results = [read for read in (reads or {}).get("results") or () if not read.get("skipped")]
    several = len(results) > 1
    # ansible-core gathers the items' warnings on the loop's result
    merged = {"servers": [], "pending": [], "warnings": list((reads or {}).get("warnings") or ()), "panels": []}
    for read in results:
        account = (read.get("item") or {}).get("account")
        tag = {"account": account} if several else {}
        merged["servers"].extend(dict(server, **tag) for server in read.get("servers") or ())
        merged["pending"].extend(dict(entry, **tag) for entry in read.get("pending") or ())
        merged["warnings"].extend(
            warning for warning in read.get("warnings") or () if warning not in merged["warnings"]
        )
        if several:
            via = hostvars[read["item"]["host"]].get(CONNECTION_VARIABLE) or {}
            merged["panels"].append({"account": account, "base_url": via.get("base_url")})
    return merged


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
