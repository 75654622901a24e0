# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The report playbook (role gamepanel.panel.fleet_report) run by ansible-playbook against the emulator.

These tests read the written files; tests/browser/test_report_browser.py opens the page in Chromium.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

TOKEN = "gp-test-owner-control"
HOSTILE = "<script>alert(1)</script>"
REPORT = "- name: The ready report playbook\n  ansible.builtin.import_playbook: gamepanel.panel.report\n"
ROLE = "gamepanel.panel.fleet_report : "  # role task names carry the role's name
FILES = ("fleet-report.html", "fleet-report.json", "fleet-report.csv")


def read_report(directory: Path):
    """(html text, json document, csv rows) of a written report."""
    html = (directory / "fleet-report.html").read_text(encoding="utf-8")
    document = json.loads((directory / "fleet-report.json").read_text(encoding="utf-8"))
    rows = list(csv.DictReader(io.StringIO((directory / "fleet-report.csv").read_text(encoding="utf-8"))))
    return html, document, rows


def test_report_playbook_writes_the_fleet(ansible, emulator):
    """The FQCN playbook, default destination: every server, an unknown status, a hostile name, no token."""
    emulator.control.set_server("mc-02", status="hibernating")
    emulator.control.set_server("ark-01", name=HOSTILE)
    fleet = {
        server["id"]: server
        for server in emulator.control.state()["servers"]
        if server["id"] in ("mc-01", "mc-02", "mc-03", "rust-01", "rust-02", "ark-01")
    }

    run = ansible.playbook(REPORT)
    assert run.rc == 0, run.describe()

    directory = ansible.workdir / "fleet-report"  # the default ./fleet-report, from where ansible-playbook ran
    html, document, rows = read_report(directory)
    assert [server["id"] for server in document["servers"]] == list(fleet)
    assert {server["id"]: server["status"] for server in document["servers"]} == {
        server_id: server["status"] for server_id, server in fleet.items()
    }
    assert document["summary"]["servers"] == 6
    statuses = {entry["label"]: entry for entry in document["summary"]["statuses"]}
    assert {label: entry["count"] for label, entry in statuses.items()} == {"online": 3, "offline": 2, "hibernating": 1}
    assert statuses["hibernating"]["known"] is False
    assert statuses["hibernating"]["colour"] not in {statuses["online"]["colour"], statuses["offline"]["colour"]}
    assert document["meta"]["panel"] == emulator.live_url
    assert [row["id"] for row in rows] == list(fleet)
    assert next(row for row in rows if row["id"] == "ark-01")["name"] == HOSTILE

    assert HOSTILE not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert emulator.live_url in html

    summary = run.result(ROLE + "Summary of the fleet report")
    assert summary["msg"][1] == f"HTML: {directory / 'fleet-report.html'}"
    assert "Fleet report of 6 servers" in summary["msg"][0]

    for name in FILES:
        assert TOKEN not in (directory / name).read_text(encoding="utf-8")
    assert TOKEN not in run.stdout and TOKEN not in run.stderr
    counters = emulator.control.counters()
    assert counters["posts"] == {} and counters["actions_queued"] == {}
    assert counters["requests"]["owner-control"] == {"live GET /servers": 1}


def test_report_with_sub_resources_and_filters(ansible, emulator, tmp_path):
    """include and filters reach server_info; check mode writes nothing."""
    dest = tmp_path / "out"
    extra = {
        "fleet_report_dest": str(dest),
        "fleet_report_include": ["metrics", "resources"],
        "fleet_report_games": ["minecraft"],
        "fleet_report_statuses": ["online"],
    }

    checked = ansible.playbook(REPORT, extra_vars=extra, check=True)
    assert checked.rc == 0, checked.describe()
    assert not dest.exists()
    assert "check mode: nothing written" in checked.result(ROLE + "Summary of the fleet report")["msg"][0]

    run = ansible.playbook(REPORT, extra_vars=extra)
    assert run.rc == 0, run.describe()
    html, document, rows = read_report(dest)
    assert [server["id"] for server in document["servers"]] == ["mc-01", "mc-02"]
    assert document["meta"]["include"] == ["metrics", "resources"]
    assert document["meta"]["filters"] == {"games": ["minecraft"], "statuses": ["online"]}
    for server in document["servers"]:
        assert server["cpu_avg"] is not None and server["memory_limit_mb"] is not None
    assert {"cpu_avg", "disk_used_mb"} <= set(rows[0])
    assert "Fleet over the metrics window" in html and "Disk in use of the limit" in html
    per_kind = emulator.control.counters()["requests"]["owner-control"]
    assert per_kind["live GET /servers/{id}/metrics"] == 4  # two servers, two runs (check mode reads too)
    assert per_kind["live GET /servers/{id}/resources"] == 4


def test_report_refuses_bad_input_before_any_request(ansible, emulator, tmp_path):
    """An include the report does not know fails in the argument spec, nothing is sent, nothing written."""
    run = ansible.playbook(
        REPORT, extra_vars={"fleet_report_include": ["console"], "fleet_report_dest": str(tmp_path / "out")}
    )
    assert run.rc != 0
    assert "fleet_report_include" in run.stdout + run.stderr
    assert emulator.control.counters()["requests_total"] == 0
    assert not (tmp_path / "out").exists()


def test_report_destination_that_is_a_file(ansible, emulator, tmp_path):
    """A destination that exists as a file is a clear failure."""
    target = tmp_path / "taken"
    target.write_text("not a directory", encoding="utf-8")
    run = ansible.playbook(REPORT, extra_vars={"fleet_report_dest": str(target)})
    assert run.rc != 0
    failed = run.result(ROLE + "Write the report files")
    assert "exists and is not a directory" in failed["msg"]
    assert target.read_text(encoding="utf-8") == "not a directory"


def test_report_with_module_defaults(ansible, emulator, tmp_path):
    """The connection from module_defaults (no GAMEPANEL_BASE_URL): the page names that panel."""
    playbook = f"""
- name: Report with the connection in module_defaults
  hosts: localhost
  gather_facts: false
  module_defaults:
    group/gamepanel.panel.panel:
      base_url: "{emulator.live_url}"
  roles:
    - role: gamepanel.panel.fleet_report
      vars:
        fleet_report_dest: "{tmp_path / 'out'}"
"""
    run = ansible.playbook(playbook, env={"GAMEPANEL_BASE_URL": None})
    assert run.rc == 0, run.describe()
    _html, document, _rows = read_report(tmp_path / "out")
    assert document["meta"]["panel"] == emulator.live_url
    assert document["summary"]["servers"] == 6


def test_report_of_the_servers_a_target_matches(ansible, emulator, tmp_path):
    """With target, the report covers the inventory hosts it matches; with an unreadable inventory it fails."""
    inventory = "plugin: gamepanel.panel.servers\nhostname_source: id\n"
    dest = tmp_path / "rust"
    run = ansible.playbook(
        REPORT, inventory=inventory, extra_vars={"target": "game_rust", "fleet_report_dest": str(dest)}
    )
    assert run.rc == 0, run.describe()
    unused_html, document, rows = read_report(dest)
    assert sorted(server["id"] for server in document["servers"]) == ["rust-01", "rust-02"]
    assert sorted(row["id"] for row in rows) == ["rust-01", "rust-02"]

    refused = ansible.playbook(
        REPORT,
        inventory=inventory,
        token="gp-test-revoked",
        extra_vars={"target": "game_rust", "fleet_report_dest": str(tmp_path / "none")},
    )
    assert refused.rc != 0
    assert "could not be read" in refused.stdout and "HTTP 401" in refused.stdout
    assert not (tmp_path / "none").exists()


def test_the_report_says_when_the_ledger_cannot_be_kept(ansible, emulator, tmp_path):
    """With no usable state directory the pending column may miss actions: the run says why."""
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the state directory should be")
    run = ansible.playbook(REPORT, env={"GAMEPANEL_STATE_DIR": str(blocker / "state")})
    assert run.rc == 0, run.describe()
    said = run.result(ROLE + "Say when the pending actions may be incomplete")["msg"]
    assert said.startswith("The pending column may be incomplete: exactly once across runs is off: ")
    assert str(blocker / "state") in said
    quiet = ansible.playbook(REPORT)
    assert quiet.rc == 0, quiet.describe()
    assert quiet.result(ROLE + "Say when the pending actions may be incomplete").get("skipped") is True


def test_report_takes_the_connection_from_the_inventory_file_or_the_environment(ansible, emulator, tmp_path):
    """docs/fleet_report.md: with README's inventory file (base_url only there) the report needs -i;
    without -i the address comes from GAMEPANEL_BASE_URL, and with neither it fails before any request."""
    inventory = f"plugin: gamepanel.panel.servers\nbase_url: {emulator.live_url}\n"
    no_address = {"GAMEPANEL_BASE_URL": None}

    with_inventory = ansible.playbook(
        REPORT, inventory=inventory, env=no_address, extra_vars={"fleet_report_dest": str(tmp_path / "inventory")}
    )
    assert with_inventory.rc == 0, with_inventory.describe()
    _html, document, _rows = read_report(tmp_path / "inventory")
    assert document["meta"]["panel"] == emulator.live_url
    assert document["summary"]["servers"] == 6

    from_environment = ansible.playbook(REPORT, extra_vars={"fleet_report_dest": str(tmp_path / "environment")})
    assert from_environment.rc == 0, from_environment.describe()
    assert read_report(tmp_path / "environment")[1]["summary"]["servers"] == 6

    requests_before = emulator.control.counters()["requests"]
    neither = ansible.playbook(REPORT, env=no_address, extra_vars={"fleet_report_dest": str(tmp_path / "none")})
    assert neither.rc != 0
    assert "No base_url was given" in neither.stdout
    assert not (tmp_path / "none").exists()
    assert emulator.control.counters()["requests"] == requests_before
