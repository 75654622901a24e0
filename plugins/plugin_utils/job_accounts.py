# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""PRIVATE: a fleet job's batch split by account, so each account's servers are acted on through its own panel.

An inventory may hold several accounts (one source each, the option ``account``): server ids
repeat across them, and each has its own connection and token. The fleet jobs therefore read,
decide and act per account: the batch's hosts are grouped by their account group
(``account_<account>``; the hosts of sources without ``account`` make one more), and each
group's read and server_control task is delegated to one of its hosts, whose connection and
token the task takes (job_connection.py). A server is known by its account and id together.

The groups are the inventory's, not read host by host: the inventory gives each account group
one connection (a source's, on the group) and refuses sources that would mix two, and the token
is the account's (its ``api_token_env``, or ``gamepanel_api_token`` in its group_vars). Reading
every host's variables would cost Ansible about a millisecond a host and batch.

An inventory of one account makes one group: the job runs as it always did.
"""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.gamepanel.panel.plugins.plugin_utils.inventory_naming import (
    ACCOUNT_GROUP_PREFIX,
    ACCOUNT_VARIABLE,
)
from ansible_collections.gamepanel.panel.plugins.plugin_utils.job_connection import CONNECTION_VARIABLE
from ansible_collections.gamepanel.panel.plugins.plugin_utils.job_planning import plans


def batch_accounts(hosts, groups, hostvars):
    """``[{account, host, hosts}]``: ``hosts`` by account group, ``host`` the one its tasks go through.

    ``groups`` is Ansible's ``groups``. ``account`` names the group for people: the account,
    else the hosts' panel address (one variable read per group, never per host).
    """
    if not isinstance(hosts, (list, tuple)):
        raise AnsibleFilterError("fleet_accounts expects a list of hosts (ansible_play_batch), not %r." % (hosts,))
    if not isinstance(groups, dict):
        raise AnsibleFilterError("fleet_accounts expects Ansible's groups as its argument, not %r." % (groups,))
    group_of = {}
    for name in sorted(groups):
        if name.startswith(ACCOUNT_GROUP_PREFIX):
            for host in groups[name] or ():
                group_of.setdefault(host, name)
    found = {}
    for host in hosts:
        key = group_of.get(host, "")
        if key not in found:
            found[key] = {"host": host, "hosts": []}
        found[key]["hosts"].append(host)
    accounts = []
    for key in sorted(found):
        variables = hostvars[found[key]["host"]]
        label = _label(variables.get(ACCOUNT_VARIABLE) if key else None, variables.get(CONNECTION_VARIABLE))
        accounts.append(dict(found[key], account=label))
    return accounts


def merged_reads(reads, hostvars, hosts_only=False):
    """The registered loop of one server_info read per account as one read: ``{servers, pending, warnings, panels}``.

    With several accounts every server and pending entry carries its ``account`` (ids repeat across
    accounts), and ``panels`` lists each account with its panel's ``base_url``; with one, they are as read.
    ``hosts_only`` keeps of each read the servers its item's hosts stand for (their ``gamepanel_id``).
    """
    results = [read for read in (reads or {}).get("results") or () if not read.get("skipped")]
    several = len(results) > 1
    # ansible-core gathers the items' warnings on the loop's result
    merged = {"servers": [], "pending": [], "warnings": list((reads or {}).get("warnings") or ()), "panels": []}
    for read in results:
        account = (read.get("item") or {}).get("account")
        tag = {"account": account} if several else {}
        servers = read.get("servers") or ()
        if hosts_only:
            ids = set(hostvars[host].get("gamepanel_id") for host in (read.get("item") or {}).get("hosts") or ())
            servers = [server for server in servers if server.get("id") in ids]
        merged["servers"].extend(dict(server, **tag) for server in servers)
        merged["pending"].extend(dict(entry, **tag) for entry in read.get("pending") or ())
        merged["warnings"].extend(
            warning for warning in read.get("warnings") or () if warning not in merged["warnings"]
        )
        if several:
            via = hostvars[read["item"]["host"]].get(CONNECTION_VARIABLE) or {}
            merged["panels"].append(
                {"account": account, "base_url": via.get("base_url"), "api_variant": via.get("api_variant")}
            )
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
