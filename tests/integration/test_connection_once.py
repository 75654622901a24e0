# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The connection written once, in the inventory file: the ready playbooks use what the inventory used.

The inventory puts its settings (never the token) on the group gamepanel as gamepanel_connection,
with where its token is; the token reaches jobs from the variable gamepanel_api_token, where the
source read it, or the environment. Every run
here has no GAMEPANEL_BASE_URL in its environment unless a test says otherwise; the emulator's
counters show what reached the panel.
"""

from __future__ import annotations


import pytest

from ansible_collections.gamepanel.panel.plugins.module_utils._api.token_file import token_digest
from test_inventory import plain

# fleet and fleet_process are fixtures, used by name
from test_fleet_jobs import (  # noqa: F401  pylint: disable=unused-import
    FAST,
    FLEET_SIZE,
    fleet,
    fleet_process,
    outcomes,
    posts,
    ready,
    role_results,
)

TOKEN = "gp-test-owner-control"
NO_BASE_URL = {"GAMEPANEL_BASE_URL": None}
TOKEN_MESSAGE = "No API token was given: set the option api_token, the variable gamepanel_api_token"


def inventory_file(base_url, *lines):
    return "\n".join(
        ["plugin: gamepanel.panel.servers", "hostname_source: id", "base_url: %s" % base_url] + list(lines)
    )


def run_job(ansible, name, inventory, extra_vars=None, **kwargs):
    kwargs.setdefault("env", NO_BASE_URL)
    return ansible.playbook(ready(name), inventory=inventory, extra_vars=dict(FAST, **(extra_vars or {})), **kwargs)


def requests_after(counters, before):
    return counters["requests_total"] - before


def test_the_inventory_hands_on_its_connection_and_never_the_token(ansible, emulator):
    config = inventory_file(emulator.live_url, "rate_limit: 600", "retry_timeout: 20", "api_token: %s" % TOKEN)
    expected = {
        "base_url": emulator.live_url,
        "api_variant": "live",
        "rate_limit": 600,
        "validate_certs": True,
        "request_timeout": 30.0,
        "retry_timeout": 20.0,
        "allow_insecure_http": False,
    }
    for args in (["--list"], ["--list", "--export"], ["--graph", "--vars"]):
        run = ansible.inventory(config, args=args, token=None, env=NO_BASE_URL)
        assert run.rc == 0, run.describe()
        assert TOKEN not in run.stdout + run.stderr
        if args == ["--list"]:
            connection = plain(run.json["_meta"]["hostvars"]["mc-01"]["gamepanel_connection"])
            # where the token is (the inventory file itself), its digest, never the token
            source = connection.pop("api_token_inventory")
            assert source.endswith(".gamepanel.yml") and connection.pop("api_token_origin") == "api_token in " + source
            assert connection.pop("api_token_digest") == token_digest(TOKEN)
            assert connection == expected
        if args == ["--list", "--export"]:
            assert set(run.json["gamepanel"]["vars"]) == {"gamepanel_connection"}
            assert "gamepanel_connection" not in run.json["_meta"]["hostvars"]["mc-01"]


def test_a_job_with_the_connection_only_in_the_inventory_file_works(ansible, emulator):
    config = inventory_file(emulator.live_url, "rate_limit: 600")
    run = run_job(ansible, "ensure_online", config)
    assert run.rc == 0, run.describe()
    assert posts(emulator.control.counters()) == {"mc-03": 1, "rust-02": 1}
    assert {host: outcome["result"] for host, outcome in outcomes(run).items() if outcome["result"] == "started"} == {
        "mc-03": "started",
        "rust-02": "started",
    }


def test_a_job_paces_at_the_inventory_files_rate_limit(ansible, fleet):  # noqa: F811 (the fixture, by name)
    """A Team token (600 a minute) and a job of more requests than the default 120 allows at once.

    With pages of one server every fleet read costs a request per server: the run needs well
    over 120 requests. At the file's 600 none of them waits for the budget and the panel refuses
    none; at the default 120 the budget would hold the rest back for a minute.
    """
    control = fleet.control
    control.settings(live_list_style="paged_body", page_size=1, rate_limits={"team": 600})
    config = inventory_file(fleet.live_url, "rate_limit: 600")
    # four batches: each one's control task reads the pages up to its servers, so the run needs well over 120
    run = run_job(ansible, "restart_fleet", config, extra_vars={"batch": 6}, env=dict(NO_BASE_URL, ANSIBLE_FORKS="10"))
    assert run.rc == 0, run.describe()
    counters = control.counters()
    assert counters["requests_total"] > 120 and counters["rate_limited"] == 0, counters
    waited = [
        result["api"]["waited_seconds"]
        for _host, result in role_results(run, "Restart and wait for the uptime reset")
        if "api" in result
    ]
    assert waited and set(waited) == {0.0}, waited
    assert len(counters["restarts"]) == FLEET_SIZE - 3 and set(counters["restarts"].values()) == {1}


def test_the_token_variable_reaches_a_job(ansible, emulator):
    """The inventory has its own token (the file's api_token); the job takes gamepanel_api_token."""
    config = inventory_file(emulator.live_url, "api_token: %s" % TOKEN)
    run = run_job(ansible, "ensure_online", config, token=None, extra_vars={"gamepanel_api_token": TOKEN})
    assert run.rc == 0, run.describe()
    assert posts(emulator.control.counters()) == {"mc-03": 1, "rust-02": 1}
    assert TOKEN not in run.stdout + run.stderr


@pytest.mark.parametrize("name", ["restart_fleet", "maintenance", "ensure_online", "report"])
def test_the_token_written_in_the_inventory_file_serves_every_job(ansible, emulator, name):
    config = inventory_file(emulator.live_url, "api_token: %s" % TOKEN)  # the inventory alone has one
    run = run_job(ansible, name, config, token=None)
    assert run.rc == 0, run.describe()
    assert TOKEN not in run.stdout + run.stderr
    assert set(emulator.control.counters()["requests"]) == {"owner-control"}


def test_a_job_without_a_token_fails_naming_every_way_and_sends_nothing(ansible, emulator):
    """A static inventory with the connection written by hand, and no token anywhere."""
    inventory = ansible.workdir / "hosts.yml"
    inventory.write_text(
        "gamepanel:\n  hosts:\n    mc-03:\n      gamepanel_id: mc-03\n      ansible_connection: local\n"
        "  vars:\n    gamepanel_connection:\n      base_url: %s\n" % emulator.live_url
    )
    run = run_job(ansible, "ensure_online", str(inventory), token=None)
    assert run.rc == 2, run.describe()
    assert TOKEN_MESSAGE in run.stdout, run.describe()
    assert emulator.control.counters()["requests_total"] == 0


@pytest.mark.parametrize(
    "extra_vars, message",
    [
        ({"batch": "five"}, "batch must be a number of servers (such as 10) or a percentage"),
        ({"batch": "0"}, "batch must be a number of servers"),
        ({"gamepanel_api_token": ""}, "gamepanel_api_token is empty"),
        ({"gamepanel_api_token": 42}, "gamepanel_api_token must be a string"),
        (
            {"gamepanel_connection": {"base_url": "x", "ratelimit": 600}},
            "gamepanel_connection has unknown key(s) ratelimit",
        ),
        ({"gamepanel_connection": {"api_token": "x"}}, "the token goes in gamepanel_api_token or GAMEPANEL_API_TOKEN"),
        ({"gamepanel_connection": {"base_url": "panel.example.com/v1"}}, "gamepanel_connection: base_url"),
        ({"gamepanel_connection": "https://panel.example.com/v1"}, "gamepanel_connection must be a dictionary"),
    ],
)
def test_bad_connection_input_fails_before_anything_is_sent(ansible, emulator, extra_vars, message):
    config = inventory_file(emulator.live_url)
    run = run_job(ansible, "restart_fleet", config, extra_vars=extra_vars)
    assert run.rc == 2, run.describe()
    assert message in run.stdout, run.describe()
    counters = emulator.control.counters()
    assert counters["requests_total"] == 1 and posts(counters) == {}, counters  # the inventory's read only


def test_module_defaults_win_over_the_inventory_connection(ansible, emulator):
    """A play's module_defaults are more specific than the inventory: the planned variant here."""
    playbook = """
- name: Read through module_defaults
  hosts: gamepanel
  gather_facts: false
  module_defaults:
    group/gamepanel.panel.panel:
      base_url: %s
      api_variant: planned
  tasks:
    - name: Read one server
      gamepanel.panel.server_info:
        id: "{{ gamepanel_id }}"
      run_once: true
""" % emulator.planned_url
    config = inventory_file(emulator.live_url)
    run = ansible.playbook(playbook, inventory=config, env=NO_BASE_URL, limit="mc-01")
    assert run.rc == 0, run.describe()
    requests = emulator.control.counters()["requests"]["owner-control"]
    assert requests.get("planned GET /servers/{id}") == 1, requests
