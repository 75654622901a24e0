# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Indirect node counting: extensions/audit/event_query.yml run with jq over results of real runs.

Automation Platform runs each module's query over the module's result; every object it yields is a
managed node. The queries must yield one node per game server the run touched, identified by the
panel and the server id (never the token), with no null in the identity, and names unique in a job.
"""

from __future__ import annotations

import json
from pathlib import Path

import jq
import yaml

from test_server_control import registered

QUERIES = Path(__file__).resolve().parents[2] / "extensions" / "audit" / "event_query.yml"
TOKEN = "gp-test-owner-control"


def nodes(module, result):
    query = yaml.safe_load(QUERIES.read_text(encoding="utf-8"))["gamepanel.panel." + module]["query"]
    return jq.compile(query).input(result).all()


def no_null(value):
    if isinstance(value, dict):
        return all(no_null(item) for item in value.values())
    if isinstance(value, list):
        return all(no_null(item) for item in value)
    return value is not None


def test_the_queries_count_each_server_the_run_touched_by_panel_and_id(ansible, emulator):
    results = registered(ansible, "node_counting.yml", extra_vars={"nc_restart": "mc-02", "nc_started": "rust-01"})
    panel = {"base_url": emulator.live_url, "api_variant": "live"}

    found = {}
    for module, module_results in results.items():
        for result in module_results:
            assert result["panel"] == panel
            for node in nodes(module, result):
                assert no_null(node["canonical_facts"]) and node["name"]
                assert TOKEN not in json.dumps(node)
                found.setdefault(module, []).append(node)

    control = [node["canonical_facts"] for node in found["server_control"]]
    assert control == [
        {"panel": emulator.live_url, "api_variant": "live", "id": "mc-02"},
        {"panel": emulator.live_url, "api_variant": "live", "id": "rust-01"},
    ]
    minecraft = sorted(s["id"] for s in emulator.control.state()["servers"] if s["game"] == "minecraft")
    assert sorted(node["canonical_facts"]["id"] for node in found["server_info"]) == minecraft
    names = [node["name"] for node in found["server_info"]]
    assert len(set(names)) == len(names) and names[0].startswith(emulator.live_url + "/servers/")
    assert found["server_info"][0]["facts"]["device_type"] == "game_server"


def test_the_many_servers_form_yields_one_node_per_id():
    """server_control with ids returns one result per server under servers: one node each."""
    result = {
        "changed": True,
        "panel": {"base_url": "https://panel.example/api/v1", "api_variant": "live"},
        "servers": [
            {"id": "a", "name": "Alpha", "changed": True, "action": "restart", "failed": False},
            {"id": "b", "name": None, "changed": False, "action": None, "failed": True},
        ],
    }
    found = nodes("server_control", result)
    assert [node["canonical_facts"]["id"] for node in found] == ["a", "b"]
    assert [node["facts"]["name"] for node in found] == ["Alpha", "b"]
    assert all(no_null(node["canonical_facts"]) for node in found)


def test_a_result_without_a_server_yields_no_node():
    assert (
        nodes("server_control", {"failed": True, "msg": "bad", "panel": {"base_url": "x", "api_variant": "live"}}) == []
    )
    assert nodes("server_info", {"failed": True, "msg": "no panel"}) == []
