# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Plain http to another machine: refused, or allowed with one warning per run."""

from __future__ import annotations

import socket

import pytest

from emulator.harness import EmulatorProcess

INFO = "reliability/info.yml"
REMOTE_HTTP = "http://panel.example.invalid/v1"
WARNING_WORDS = "the API token and every answer cross the network unencrypted"

TWO_READS_AND_AN_INVENTORY = """
- name: Read the fleet twice over plain http
  hosts: all
  gather_facts: false
  tasks:
    - name: First read
      gamepanel.panel.server_info:
        id: "{{ gamepanel_id }}"
    - name: Second read
      gamepanel.panel.server_info:
        id: "{{ gamepanel_id }}"
"""


def flat(text):
    return " ".join(text.split())


def this_machines_address():
    """An address of this machine that is not loopback (the one its default route leaves from)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("198.51.100.1", 9))  # no packet is sent: this only picks the route
        except OSError:
            return None
        address = probe.getsockname()[0]
    return None if address.startswith("127.") else address


def test_the_module_refuses_plain_http_to_another_host_before_sending_anything(ansible):
    run = ansible.playbook(INFO, base_url=REMOTE_HTTP, extra_vars={"ri_id": "mc-01"})
    assert run.rc == 0, run.describe()
    info = run.result("Registered")["msg"]["info"]
    assert info["failed"] is True
    assert "allow_insecure_http" in info["msg"] and "nothing was sent" in info["msg"]
    assert "gp-test-owner-control" not in run.stdout + run.stderr


def test_the_inventory_refuses_plain_http_to_another_host(ansible):
    run = ansible.inventory("plugin: gamepanel.panel.servers\nbase_url: %s\n" % REMOTE_HTTP)
    assert "allow_insecure_http" in flat(run.stderr), run.describe()
    assert "panel.example.invalid" in flat(run.stderr)


@pytest.fixture(scope="module")
def exposed_emulator():
    """An emulator listening on every interface, reached through a non-loopback address."""
    address = this_machines_address()
    if address is None:
        pytest.skip("this machine has no non-loopback IPv4 address to reach an emulator over plain http")
    process = EmulatorProcess(extra_args=["--host", "0.0.0.0"])
    process.start()
    try:
        yield process, process.live_url.replace("127.0.0.1", address)
    finally:
        process.stop()


def test_allowed_plain_http_works_and_warns_once_per_run(ansible, exposed_emulator):
    emulator, remote_url = exposed_emulator
    emulator.control.reset()
    inventory = "plugin: gamepanel.panel.servers\nstatuses: [online]\n"
    run = ansible.playbook(
        TWO_READS_AND_AN_INVENTORY,
        base_url=remote_url,
        inventory=inventory,
        env={"GAMEPANEL_ALLOW_INSECURE_HTTP": "true", "ANSIBLE_STDOUT_CALLBACK": "default"},
    )
    assert run.rc == 0, run.describe()
    output = flat(run.stdout + run.stderr)
    # The inventory and 2 tasks x 4 hosts each met the option; the run says it once.
    assert output.count(WARNING_WORDS) == 1, run.describe()
    counters = emulator.control.counters()
    reads = counters["requests"]["owner-control"]
    assert reads["live GET /servers"] == 1 and reads["live GET /servers/{id}"] == 8
