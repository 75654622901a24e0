# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""_entry/ledger_fact.py: the host fact gamepanel_ledger, read from task variables and written after a task."""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.module_utils._entry.ledger_fact import (
    LEDGER_FACT,
    batch_entries,
    host_entries,
    host_fact,
)


def entry(server_id, action="restart", updated_at=1.0):
    return {
        "id": server_id,
        "action": action,
        "panel": "live https://p/v1",
        "queued_at": 1.0,
        "updated_at": updated_at,
        "state": "queued",
    }


class HostVars(object):
    """hostvars as the action plugin sees them: raw_get gives a host's variables untemplated."""

    def __init__(self, by_host):
        self.by_host = by_host

    def raw_get(self, host):
        return self.by_host[host]


def test_a_host_fact_that_is_not_a_list_carries_nothing():
    assert host_entries({"ansible_facts": {LEDGER_FACT: [entry("a")]}}) == [entry("a")]
    assert host_entries({"ansible_facts": {LEDGER_FACT: "text"}}) == [] and host_entries({}) == []


def test_the_batch_carries_the_facts_of_every_host_in_it_and_no_other():
    hostvars = HostVars(
        {
            "h1": {"ansible_facts": {LEDGER_FACT: [entry("a")]}},
            "h2": {"ansible_facts": {LEDGER_FACT: "text"}},
            "h3": {"ansible_facts": {LEDGER_FACT: [entry("c")]}},
        }
    )
    task_vars = {"hostvars": hostvars, "ansible_play_batch": ["h1", "h2"]}
    assert batch_entries(task_vars) == [entry("a")]
    assert batch_entries({"ansible_play_batch": ["h1"]}) == []


def test_the_fact_after_a_task_replaces_its_servers_entries_and_keeps_the_others():
    carried = [entry("a", updated_at=1.0), entry("b"), "junk"]
    fact = host_fact(carried, [entry("a", updated_at=5.0)], "a")
    assert fact == {LEDGER_FACT: [entry("a", updated_at=5.0), entry("b")]}
