# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""server_control with ``hosts``: one task over the hosts of two accounts on two panels, one canary for both.

The panels list the same servers (two_accounts.py) and count requests per token and POSTs per id;
us's mc-02 has a player on, so an action sent to the wrong panel would show.
"""

from __future__ import annotations

import pytest

from test_accounts_jobs import posts
from two_accounts import inventory_directory, own_token_only, token_environment

TASK = """
- hosts: gamepanel
  gather_facts: false
  tasks:
    - name: Restart the batch
      gamepanel.panel.server_control:
        hosts: "{{ ansible_play_batch }}"
        state: restarted
        only_if_status: [online]
        max_players: 0
        min_uptime: 600
        canary: 1
        wait_timeout: %(wait_timeout)s
        poll_interval: 0.3
      run_once: true
      register: restart
    - name: Show the lines
      ansible.builtin.debug:
        var: restart
      run_once: true
"""


@pytest.fixture
def panels(emulator, second_emulator):
    second_emulator.control.set_server("mc-02", players={"current": 5, "max": 20})
    return {"eu": emulator, "us": second_emulator}


def run_task(ansible, panels, check=False, wait_timeout=30):
    return ansible.playbook(
        TASK % {"wait_timeout": wait_timeout},
        inventory=str(inventory_directory(ansible.workdir, panels["eu"], panels["us"])),
        token=None,
        env=token_environment(),
        check=check,
    )


def restart_result(run):
    return run.result("Restart the batch", "eu_ARK_Island")


def test_one_task_restarts_each_accounts_servers_through_its_own_panel_with_one_canary(ansible, panels):
    checked = run_task(ansible, panels, check=True)
    assert checked.rc == 0, checked.describe()
    assert posts(panels["eu"]) == {} and posts(panels["us"]) == {}  # check mode sends nothing

    run = run_task(ansible, panels)
    assert run.rc == 0, run.describe()
    assert posts(panels["eu"]) == {"mc-02": 1, "ark-01": 1}
    assert posts(panels["us"]) == {"ark-01": 1}
    assert own_token_only(panels["eu"], panels["us"])
    result = restart_result(run)
    lines = dict((line["host"], line) for line in result["servers"])
    assert lines["us_Creative"]["account"] == "us" and lines["us_Creative"]["changed"] is False
    assert lines["eu_Creative"]["account"] == "eu" and lines["eu_Creative"]["converged"] is True
    assert result["canary"]["hosts"] == ["eu_ARK_Island"] and result["canary"]["confirmed"] is True
    assert result["summary"]["changed"] == 3

    again = run_task(ansible, panels)  # within min_uptime: nothing is restarted twice
    assert again.rc == 0 and restart_result(again)["changed"] is False, again.describe()
    assert posts(panels["eu"]) == {"mc-02": 1, "ark-01": 1} and posts(panels["us"]) == {"ark-01": 1}

    again_checked = run_task(ansible, panels, check=True)
    assert again_checked.rc == 0 and restart_result(again_checked)["changed"] is False


def test_a_lost_canary_on_one_account_keeps_the_other_untouched(ansible, panels):
    panels["eu"].control.disconnect("ark-01")
    run = run_task(ansible, panels, wait_timeout=3)
    assert run.rc == 2, run.describe()
    assert posts(panels["eu"]) == {"ark-01": 1} and posts(panels["us"]) == {}
    result = restart_result(run)
    lines = dict((line["host"], line) for line in result["servers"])
    reason = "Not sent: the canary (ark-01) did not come back, so nothing else was sent."
    assert lines["us_ARK_Island"]["skipped_reason"] == reason
    assert result["msg"].endswith("The canary (ark-01) did not come back: nothing else was sent.")
