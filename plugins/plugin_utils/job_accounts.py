# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""PRIVATE: hosts split by account, so each account's servers are read and acted on through its own panel.

An inventory may hold several accounts (one source each, the option ``account``): server ids
repeat across them, and each has its own connection and token. Hosts are grouped by their own
variables (the account ``gamepanel_account``, the connection ``gamepanel_connection`` and, where a
host has one, the token ``gamepanel_api_token``): server_control ``hosts`` runs each group through
its own connection and token (job_hosts.py, by ``account_key``), and the status playbook and the
report read each account through one of its hosts (``batch_accounts``, merged by ``merged_reads``),
whose connection and token the task takes (job_connection.py). A server is known by its account
and id together.

Group names are never read: a user's own group called ``account_something`` (a parent of two
account groups, say) changes nothing. Reading each host's variables costs Ansible well under a
millisecond a host.

An inventory of one account makes one group: the job runs as it always did.
"""

from __future__ import annotations

import json

from ansible.errors import AnsibleFilterError

from ansible_collections.gamepanel.panel.plugins.module_utils._api.token_file import token_digest

from ansible_collections.gamepanel.panel.plugins.plugin_utils.inventory_naming import ACCOUNT_VARIABLE
from ansible_collections.gamepanel.panel.plugins.plugin_utils.job_connection import (
    CONNECTION_VARIABLE,
    TOKEN_VARIABLE,
)


def batch_accounts(hosts, hostvars):
    """``[{account, host, hosts}]``: ``hosts`` by their own account, ``host`` the one its tasks go through.

    ``account`` names the group for people: the account, else the hosts' panel address.
    """
    if not isinstance(hosts, (list, tuple)):
        raise AnsibleFilterError("fleet_accounts expects a list of hosts (ansible_play_batch), not %r." % (hosts,))
    found = {}
    for host in hosts:
        variables = hostvars[host]
        key = account_key(variables)
        if key not in found:
            found[key] = {
                "host": host,
                "hosts": [],
                "account": account_label(variables.get(ACCOUNT_VARIABLE), variables.get(CONNECTION_VARIABLE)),
            }
        found[key]["hosts"].append(host)
    return [found[key] for key in sorted(found)]


def account_key(variables):
    """What sets a host's panel and token apart: its account, its connection, a digest of its own token variable."""
    token = variables.get(TOKEN_VARIABLE)
    return (
        str(variables.get(ACCOUNT_VARIABLE) or ""),
        json.dumps(variables.get(CONNECTION_VARIABLE), sort_keys=True, default=str),
        token_digest(token) if isinstance(token, str) else "",
    )


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


def account_label(account, connection):
    if account:
        return str(account)
    if isinstance(connection, dict) and connection.get("base_url"):
        return str(connection["base_url"])
    return "default"
