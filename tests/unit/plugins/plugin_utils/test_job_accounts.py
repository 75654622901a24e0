# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A fleet job's batch by account: grouped by connection and token, worded per host; the report's reads merged."""

from __future__ import annotations

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.gamepanel.panel.plugins.filter.fleet_accounts import fleet_accounts
from ansible_collections.gamepanel.panel.plugins.filter.fleet_outcomes import FilterModule
from ansible_collections.gamepanel.panel.plugins.filter.fleet_reads import fleet_reads

fleet_outcomes = FilterModule().filters()["fleet_outcomes"]

EU = {"base_url": "https://eu.example.test/v1", "api_token_env": "EU_TOKEN"}
US = {"base_url": "https://us.example.test/v1", "api_token_env": "US_TOKEN"}
SETTINGS = {"min_uptime": 600, "max_players": 0, "drain_timeout": 0, "on_busy": "skip"}


def host(account, connection, server_id="mc-01", **more):
    variables = {"gamepanel_id": server_id, "gamepanel_status": "online", "gamepanel_connection": connection}
    if account:
        variables["gamepanel_account"] = account
    variables.update(more)
    return variables


HOSTVARS = {
    "eu_a": host("eu", EU),
    "eu_b": host("eu", EU, "mc-02"),
    "us_a": host("us", US),
}


def test_one_group_per_account_through_its_first_host():
    assert fleet_accounts(["eu_a", "us_a", "eu_b"], HOSTVARS) == [
        {"account": "eu", "host": "eu_a", "hosts": ["eu_a", "eu_b"]},
        {"account": "us", "host": "us_a", "hosts": ["us_a"]},
    ]


def test_an_inventory_of_one_account_gives_one_group_named_after_its_panel():
    hostvars = {"a": host(None, EU), "b": host(None, EU, "mc-02")}
    assert fleet_accounts(["a", "b"], hostvars) == [{"account": EU["base_url"], "host": "a", "hosts": ["a", "b"]}]


def test_hosts_of_a_source_without_account_make_one_group_more():
    hostvars = dict(HOSTVARS, x=host(None, {"base_url": "https://x.example.test/v1"}))
    assert [(group["account"], group["hosts"]) for group in fleet_accounts(["x", "us_a"], hostvars)] == [
        ("https://x.example.test/v1", ["x"]),
        ("us", ["us_a"]),
    ]


def test_a_group_of_the_users_named_like_an_account_changes_nothing():
    # a parent group account_all over both accounts: each host stays in its own account
    hostvars = dict(HOSTVARS, us_b=host("us", US, "mc-02"))
    assert [
        (group["account"], group["hosts"]) for group in fleet_accounts(["eu_a", "us_a", "eu_b", "us_b"], hostvars)
    ] == [
        ("eu", ["eu_a", "eu_b"]),
        ("us", ["us_a", "us_b"]),
    ]


def test_hosts_with_a_token_variable_of_their_own_make_a_group_of_their_own():
    hostvars = dict(HOSTVARS, eu_b=host("eu", EU, "mc-02", gamepanel_api_token="another"))
    assert [group["hosts"] for group in fleet_accounts(["eu_a", "eu_b", "us_a"], hostvars)] == [
        ["eu_a"],
        ["eu_b"],
        ["us_a"],
    ]


def test_hosts_of_one_account_with_different_connections_are_not_mixed():
    other = dict(EU, base_url="https://eu2.example.test/v1")
    hostvars = dict(HOSTVARS, eu_b=host("eu", other, "mc-02"))
    assert len(fleet_accounts(["eu_a", "eu_b"], hostvars)) == 2


def test_anything_but_a_list_of_hosts_is_a_clear_error():
    with pytest.raises(AnsibleFilterError, match="fleet_accounts expects"):
        fleet_accounts("eu_a", HOSTVARS)


def reads(eu_servers, us_servers, us_failed=None):
    accounts = fleet_accounts(["eu_a", "eu_b", "us_a"], HOSTVARS)
    us_read = {"item": accounts[1], "servers": us_servers}
    if us_failed:
        us_read = {"item": accounts[1], "failed": True, "msg": us_failed}
    return {"results": [{"item": accounts[0], "servers": eu_servers}, us_read]}


def online(server_id, uptime=7200, players=0):
    return {"id": server_id, "status": "online", "uptime_seconds": uptime, "players": {"current": players, "max": 9}}


def test_outcomes_follow_each_lines_host_across_accounts():
    # the same id on both panels: each line names its host (server_control hosts)
    found = {"id": "mc-01", "changed": True, "converged": True, "failed": False, "pending": None}
    control = {
        "servers": [
            dict(found, host="eu_a", account="eu"),
            dict(found, id="mc-02", host="eu_b", account="eu"),
            dict(found, host="us_a", account="us", changed=False, failed=True, msg="us send failed"),
        ],
        "elapsed": 1.0,
    }
    outcomes = fleet_outcomes(control, "rolling_restart", SETTINGS, ["eu_a", "eu_b", "us_a"])
    assert outcomes["eu_a"]["outcome"]["result"] == "restarted" and outcomes["eu_b"]["outcome"]["result"] == "restarted"
    assert outcomes["us_a"]["outcome"] == dict(outcomes["us_a"]["outcome"], result="failed", reason="us send failed")
    # a task that failed as a whole (a token that is not its source's) fails every host it was given
    whole = fleet_outcomes({"msg": "token refused", "failed": True}, "rolling_restart", SETTINGS, ["eu_a", "us_a"])
    assert [whole[host]["outcome"]["result"] for host in ("eu_a", "us_a")] == ["failed"] * 2


def test_reads_of_several_accounts_become_one_with_each_server_and_entry_tagged():
    accounts = fleet_accounts(["eu_a", "us_a"], HOSTVARS)
    reads = {
        "warnings": ["w"],
        "results": [
            {"item": accounts[0], "servers": [online("mc-01")], "pending": [], "warnings": ["w"]},
            {"item": accounts[1], "servers": [online("mc-01")], "pending": [{"id": "mc-01", "action": "restart"}]},
        ],
    }
    merged = fleet_reads(reads, HOSTVARS)
    assert [server["account"] for server in merged["servers"]] == ["eu", "us"]
    assert merged["pending"] == [{"id": "mc-01", "action": "restart", "account": "us"}]
    assert merged["panels"] == [
        {"account": "eu", "base_url": EU["base_url"], "api_variant": EU.get("api_variant")},
        {"account": "us", "base_url": US["base_url"], "api_variant": US.get("api_variant")},
    ]
    assert merged["warnings"] == ["w"]


def test_one_read_stays_as_read():
    reads = {"results": [{"item": {"account": None, "host": "localhost"}, "servers": [online("mc-01")], "pending": []}]}
    assert fleet_reads(reads, {}) == {"servers": [online("mc-01")], "pending": [], "warnings": [], "panels": []}


def test_hosts_only_keeps_each_reads_servers_of_its_hosts():
    accounts = fleet_accounts(["eu_b", "us_a"], HOSTVARS)
    reads = {
        "results": [
            {"item": accounts[0], "servers": [online("mc-01"), online("mc-02")]},
            {"item": accounts[1], "servers": [online("mc-01"), online("mc-02")]},
        ]
    }
    merged = fleet_reads(reads, HOSTVARS, hosts_only=True)
    assert [(server["account"], server["id"]) for server in merged["servers"]] == [("eu", "mc-02"), ("us", "mc-01")]
