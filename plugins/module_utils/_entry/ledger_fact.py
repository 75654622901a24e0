# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: the host fact ``gamepanel_ledger``: the ledger's entries a host carries from one job to the next.

Where jobs share no disk (AWX keeps facts between jobs; so does Ansible's jsonfile fact
cache), the entries of the server a host stands for travel in its facts: a task on one
server reads the host's fact (and, with ``ids``, every fact of the play's batch) and merges it
into the controller's ledger before deciding, and returns the fact updated with that server's
live entries.  The ledger itself (_state/ledger.py) knows nothing of facts.
"""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.module_utils._state.ledger import merged_entries

LEDGER_FACT = "gamepanel_ledger"


def host_entries(task_vars):
    """The entries of the host's ledger fact (a list; anything else counts as none)."""
    carried = (task_vars.get("ansible_facts") or {}).get(LEDGER_FACT)
    return carried if isinstance(carried, list) else []


def batch_entries(task_vars, hosts=None):
    """The ledger facts of ``hosts`` (every host of the play's batch by default), as one list (their raw values)."""
    hostvars = task_vars.get("hostvars")
    carried = []
    if hostvars is None:
        return carried
    for host in task_vars.get("ansible_play_batch") or () if hosts is None else hosts:
        entries = (hostvars.raw_get(host).get("ansible_facts") or {}).get(LEDGER_FACT)
        if isinstance(entries, list):
            carried.extend(entries)
    return carried


def host_fact(carried, entries, server_id):
    """The host's ledger fact: the entries it ``carried`` for servers other than ``server_id``, and ``entries``, that server's."""
    kept = [entry for entry in carried if isinstance(entry, dict) and entry.get("id") != server_id]
    return {LEDGER_FACT: merged_entries(kept, entries)}


def fact_after_task(ledger, carried, server_id):
    """The host's ledger fact after a task on ``server_id`` (None: by name): what it carried, with that server's live entries."""
    return host_fact(carried, ledger.entries(server_id) if server_id is not None else [], server_id)
