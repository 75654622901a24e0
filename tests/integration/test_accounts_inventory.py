# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""An inventory directory with one source per account, over two panels that list the same servers.

Each source names its account, a host name prefix and the variable holding its token
(two_accounts.py); the panels' counters prove that every request carried the token of the
account whose panel it went to.
"""

from __future__ import annotations

import pytest

from test_inventory import plain
from two_accounts import TOKENS, inventory_directory, own_token_only, source, token_environment

NAMES = ["ARK_Island", "Creative", "Modded", "Rust_Main", "Rust_Test", "Survival"]
FAIL_ON_A_BAD_SOURCE = {"ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED": "true"}


@pytest.fixture
def panels(emulator, second_emulator):
    return {"eu": emulator, "us": second_emulator}


def test_each_account_has_its_group_names_and_connection(ansible, panels):
    directory = inventory_directory(ansible.workdir, panels["eu"], panels["us"])
    run = ansible.inventory(str(directory), token=None, env=token_environment())
    assert run.rc == 0, run.describe()
    document = run.json
    for account, panel in panels.items():
        hosts = sorted(document["account_" + account]["hosts"])
        assert hosts == ["%s_%s" % (account, name) for name in NAMES]
        variables = plain(document["_meta"]["hostvars"]["%s_Survival" % account])
        assert variables["gamepanel_account"] == account and variables["gamepanel_id"] == "mc-01"
        assert variables["gamepanel_connection"]["base_url"] == panel.live_url
        assert variables["gamepanel_connection"]["api_token_env"] == TOKENS[account][0]
        assert panel.control.counters()["requests"] == {TOKENS[account][2]: {"live GET /servers": 1}}
    assert {"account_eu", "account_us"} <= set(document["gamepanel"]["children"])
    for _variable, token, _label in TOKENS.values():
        assert token not in run.stdout + run.stderr


def test_sources_with_different_connections_and_no_account_stop_the_inventory(ansible, panels):
    without_account = "\n".join(line for line in source("us", panels["us"]).splitlines() if "account:" not in line)
    directory = inventory_directory(ansible.workdir, panels["eu"], panels["us"], us=without_account + "\n")
    run = ansible.inventory(str(directory), token=None, env=dict(token_environment(), **FAIL_ON_A_BAD_SOURCE))
    assert run.rc != 0
    output = " ".join((run.stdout + run.stderr).split())
    assert "eu.gamepanel.yml and" in output and "us.gamepanel.yml use different connections" in output
    assert "Give each source its own 'account' option" in output


def test_one_host_name_for_servers_of_two_accounts_stops_the_inventory(ansible, panels):
    texts = dict(
        (account, "\n".join(l for l in source(account, panel).splitlines() if "hostname_prefix" not in l) + "\n")
        for account, panel in panels.items()
    )
    directory = inventory_directory(ansible.workdir, panels["eu"], panels["us"], **texts)
    run = ansible.inventory(str(directory), token=None, env=dict(token_environment(), **FAIL_ON_A_BAD_SOURCE))
    assert run.rc != 0
    output = " ".join((run.stdout + run.stderr).split())
    assert "would both give the host name 'ARK_Island' to different servers" in output
    assert "Set 'hostname_prefix' (or 'account') on one of them" in output


def test_module_tasks_on_hosts_of_two_accounts_need_no_connection_arguments(ansible, panels):
    panels["us"].control.set_server("mc-02", players={"current": 7, "max": 20})
    directory = inventory_directory(ansible.workdir, panels["eu"], panels["us"])
    playbook = """
- hosts: eu_Creative:us_Creative
  gather_facts: false
  tasks:
    - name: Read
      gamepanel.panel.server_info:
        id: "{{ gamepanel_id }}"
    - name: Restart
      gamepanel.panel.server_control:
        id: "{{ gamepanel_id }}"
        state: restarted
        wait_timeout: 60
"""
    run = ansible.playbook(playbook, inventory=str(directory), token=None, env=token_environment(), verbosity=4)
    assert run.rc == 0, run.describe()
    for _variable, token, _label in TOKENS.values():
        assert token not in run.stdout + run.stderr
    assert run.result("Read", "eu_Creative")["servers"][0]["players"]["current"] == 0
    assert run.result("Read", "us_Creative")["servers"][0]["players"]["current"] == 7
    for panel in panels.values():
        assert panel.control.counters()["posts"] == {"mc-02": 1}
    assert own_token_only(panels["eu"], panels["us"])
