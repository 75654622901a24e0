# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Self-tests of the integration harness (tests/integration/conftest.py)."""

from __future__ import annotations

import sys

# A base URL nobody listens on: these runs make no request, so they need no emulator.
NO_PANEL = "http://127.0.0.1:9/v1"

ENV_REPORT = """
- hosts: localhost
  gather_facts: false
  tasks:
    - name: report
      ansible.builtin.debug:
        msg:
          token: "{{ lookup('ansible.builtin.env', 'GAMEPANEL_API_TOKEN') }}"
          base_url: "{{ lookup('ansible.builtin.env', 'GAMEPANEL_BASE_URL') }}"
          variant: "{{ lookup('ansible.builtin.env', 'GAMEPANEL_API_VARIANT') }}"
          state_dir: "{{ lookup('ansible.builtin.env', 'GAMEPANEL_STATE_DIR') }}"
          collections: "{{ lookup('ansible.builtin.env', 'ANSIBLE_COLLECTIONS_PATH') }}"
          home: "{{ lookup('ansible.builtin.env', 'ANSIBLE_HOME') }}"
          python: "{{ ansible_python_interpreter }}"
          extra: "{{ lookup('ansible.builtin.env', 'HARNESS_EXTRA') }}"
          check: "{{ ansible_check_mode }}"
"""


def test_debug_task_result(ansible):
    run = ansible.playbook(
        """
- hosts: localhost
  gather_facts: false
  tasks:
    - name: say hello
      ansible.builtin.debug:
        msg: hello
""",
        base_url=NO_PANEL,
    )
    assert run.rc == 0, run.describe()
    result = run.result("say hello")
    assert result["msg"] == "hello"
    assert result["task_action"] == "ansible.builtin.debug"
    assert result.host == "localhost"
    assert not result.get("failed")
    assert [item.host for item in run.results("say hello")] == ["localhost"]
    assert run.results("no such task") == []
    assert run.json["stats"]["localhost"]["ok"] == 1


def test_environment_of_a_run(ansible, tmp_path):
    run = ansible.playbook(ENV_REPORT, base_url=NO_PANEL, variant="planned", env={"HARNESS_EXTRA": "yes"}, check=True)
    assert run.rc == 0, run.describe()
    msg = run.result("report")["msg"]
    assert msg["token"] == "gp-test-owner-control"
    assert msg["base_url"] == NO_PANEL
    assert msg["variant"] == "planned"
    assert msg["state_dir"].startswith(str(tmp_path))
    assert msg["home"].startswith(str(tmp_path))
    assert msg["collections"]
    assert msg["python"] == sys.executable
    assert msg["extra"] == "yes"
    assert msg["check"] is True


def test_token_none_leaves_it_unset(ansible):
    run = ansible.playbook(ENV_REPORT, token=None, base_url=NO_PANEL)
    assert run.rc == 0, run.describe()
    assert run.result("report")["msg"]["token"] == ""


def test_failed_task_is_recorded(ansible):
    run = ansible.playbook(
        """
- hosts: localhost
  gather_facts: false
  tasks:
    - name: break
      ansible.builtin.fail:
        msg: broken on purpose
""",
        base_url=NO_PANEL,
    )
    assert run.rc == 2, run.describe()
    result = run.result("break")
    assert result["failed"] is True
    assert result["msg"] == "broken on purpose"
    assert run.json["stats"]["localhost"]["failures"] == 1


def test_serial_batches_over_an_inventory(ansible):
    run = ansible.playbook(
        """
- hosts: fleet
  gather_facts: false
  serial: 2
  tasks:
    - name: batch member
      ansible.builtin.debug:
        msg: "{{ inventory_hostname }}"
""",
        base_url=NO_PANEL,
        inventory="""
fleet:
  hosts:
    one: {ansible_connection: local}
    two: {ansible_connection: local}
    three: {ansible_connection: local}
""",
        limit="one,three",
    )
    assert run.rc == 0, run.describe()
    results = run.results("batch member")
    assert sorted(item.host for item in results) == ["one", "three"]
    assert run.result("batch member", host="three")["msg"] == "three"


def test_verbose_output_still_parses(ansible):
    run = ansible.playbook(
        """
- hosts: localhost
  gather_facts: false
  tasks:
    - name: say hello
      ansible.builtin.debug:
        msg: hello
""",
        base_url=NO_PANEL,
        verbosity=2,
    )
    assert run.rc == 0, run.describe()
    assert not run.stdout.lstrip().startswith("{"), "expected verbose lines before the JSON document"
    assert run.result("say hello")["msg"] == "hello"


def test_inventory_config(ansible):
    config = "plugin: gamepanel.panel.servers\n"
    run = ansible.inventory(config)
    assert run.rc == 0, run.describe()
    assert len(run.json["gamepanel"]["hosts"]) == 6
    assert set(run.json["_meta"]["hostvars"]) == set(run.json["gamepanel"]["hosts"])

    graph = ansible.inventory(config, args=("--graph",))
    assert graph.rc == 0, graph.describe()
    assert graph.json is None
    assert "@gamepanel:" in graph.stdout
