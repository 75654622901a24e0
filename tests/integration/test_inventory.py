# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ansible-inventory and ansible-playbook with the servers inventory plugin, against the emulator.

Expected outputs live in tests/integration/inventory/. Of the live figures, ``cpu`` and
``memory_mb`` are pinned through the emulator's controls (so the expected JSON shows exact
values and proves they reach the host variables unchanged), while ``uptime_seconds`` cannot be
pinned: the emulator derives it from its running clock. It is masked in the comparison and
checked separately to lie between the fixture's value and that value plus the test's duration.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent / "inventory"
MINIMAL = HERE / "minimal.gamepanel.yml"
OWNER_TOKEN = "gp-test-owner-control"
OWNER_TOKEN_NAME = "owner-control"
VOLATILE = "<volatile>"

# Figures pinned on the default fleet so the expected JSON can hold them.
PINNED = {
    "mc-01": {"cpu": 12.5, "memory_mb": 2240},
    "mc-02": {"cpu": 4.0, "memory_mb": 2048},
    "mc-03": {"cpu": 0.0, "memory_mb": 0},
    "rust-01": {"cpu": 10.0, "memory_mb": 6264},
    "rust-02": {"cpu": 0.0, "memory_mb": 0},
    "ark-01": {"cpu": 12.0, "memory_mb": 8192},
}
FIXTURE_UPTIME = {"mc-01": 86400, "mc-02": 7200, "mc-03": 0, "rust-01": 172800, "rust-02": 0, "ark-01": 3600}


def expected(name):
    return json.loads((HERE / name).read_text(encoding="utf-8"))


def pin_figures(emulator):
    for server_id, figures in PINNED.items():
        emulator.control.set_server(server_id, **figures)


def plain(value):
    """``value`` without ansible-core's {"__ansible_unsafe": ...} markers.

    The plugin marks the panel's data unsafe for templating; ansible-core before 2.19 shows
    that mark in --list output, later versions track it internally. The mark itself is
    proven by the playbook test that prints a template-looking server name literally.
    """
    if isinstance(value, dict):
        if set(value) == {"__ansible_unsafe"}:
            return value["__ansible_unsafe"]
        return dict((key, plain(item)) for key, item in value.items())
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


def normalised(listing):
    """--list output with uptime masked and lists sorted (group order differs between ansible-core versions)."""
    listing = plain(listing)
    listing["_meta"].pop("profile", None)  # ansible-core 2.19+ names its output profile there
    for variables in listing["_meta"]["hostvars"].values():
        if "gamepanel_uptime_seconds" in variables:
            variables["gamepanel_uptime_seconds"] = VOLATILE
        if "gamepanel_connection" in variables:  # the emulator's address changes from run to run
            variables["gamepanel_connection"]["base_url"] = VOLATILE
    for name, group in listing.items():
        if name != "_meta":
            for members in group.values():
                members.sort()
    return listing


def panel_requests(emulator, token_name=OWNER_TOKEN_NAME):
    return dict(emulator.control.counters()["requests"].get(token_name, {}))


def requests_between(before, after):
    return dict((key, after[key] - before.get(key, 0)) for key in after if after[key] != before.get(key, 0))


def host_names(run):
    return sorted(run.json["_meta"]["hostvars"])


def assert_ok(run):
    assert run.rc == 0, run.describe()
    assert "Failed to parse" not in run.stderr, run.describe()


class TestDefaultFleet:
    def test_list_matches_the_expected_document(self, ansible, emulator):
        pin_figures(emulator)
        started = time.time()
        run = ansible.inventory(MINIMAL)
        assert_ok(run)
        assert normalised(run.json) == expected("default_fleet.list.json")
        elapsed = int(time.time() - started) + 2
        for variables in plain(run.json["_meta"]["hostvars"]).values():
            fixture_uptime = FIXTURE_UPTIME[variables["gamepanel_id"]]
            if fixture_uptime == 0:
                assert variables["gamepanel_uptime_seconds"] == 0
            else:
                assert fixture_uptime <= variables["gamepanel_uptime_seconds"] <= fixture_uptime + elapsed + 600

    def test_graph_matches_the_expected_tree(self, ansible):
        run = ansible.inventory(MINIMAL, args=("--graph",))
        assert_ok(run)
        assert run.stdout.strip() == (HERE / "default_fleet.graph.txt").read_text(encoding="utf-8").strip()

    def test_the_fleet_costs_one_list_request(self, ansible, emulator):
        before = panel_requests(emulator)
        assert_ok(ansible.inventory(MINIMAL))
        assert requests_between(before, panel_requests(emulator)) == {"live GET /servers": 1}

    def test_a_paged_list_costs_one_request_per_page(self, ansible, emulator):
        emulator.control.settings(live_list_style="paged_body", page_size=2)
        before = panel_requests(emulator)
        run = ansible.inventory(MINIMAL)
        assert_ok(run)
        assert len(host_names(run)) == 6
        assert requests_between(before, panel_requests(emulator)) == {"live GET /servers": 3}

    def test_link_header_paging(self, ansible, emulator):
        emulator.control.settings(live_list_style="link_header", page_size=4)
        run = ansible.inventory(MINIMAL)
        assert_ok(run)
        assert len(host_names(run)) == 6

    def test_host_names_from_ids(self, ansible):
        run = ansible.inventory("plugin: gamepanel.panel.servers\nhostname_source: id\n")
        assert_ok(run)
        assert host_names(run) == ["ark-01", "mc-01", "mc-02", "mc-03", "rust-01", "rust-02"]


class TestNames:
    def test_duplicate_and_odd_names_give_distinct_stable_hosts(self, ansible, emulator):
        control = emulator.control
        control.set_server("mc-02", name="Survival")  # twin of mc-01
        control.set_server("ark-01", name="ARK: Island [EU] \u2605")
        control.set_server("rust-02", name="localhost")  # a name Ansible reserves
        control.set_server("mc-03", name="\u0421\u0435\u0440\u0432\u0435\u0440 \u2116 3")  # Cyrillic
        control.set_server("rust-01", name="{{ lookup('pipe', 'id') }}")
        first = ansible.inventory(MINIMAL)
        assert_ok(first)
        assert host_names(first) == sorted(
            [
                "Survival_mc-01",
                "Survival_mc-02",
                "ARK_Island_EU",
                "localhost_rust-02",
                "\u0421\u0435\u0440\u0432\u0435\u0440_No_3",
                "lookup_pipe_id",
            ]
        )
        hostvars = plain(first.json["_meta"]["hostvars"])
        assert hostvars["ARK_Island_EU"]["gamepanel_name"] == "ARK: Island [EU] \u2605"
        assert hostvars["lookup_pipe_id"]["gamepanel_name"] == "{{ lookup('pipe', 'id') }}"
        # The same servers listed again (and in another page layout) give the same names.
        emulator.control.settings(live_list_style="paged_body", page_size=1)
        assert host_names(ansible.inventory(MINIMAL)) == host_names(first)

    def test_a_name_that_is_only_symbols_falls_back_to_the_id(self, ansible, emulator):
        emulator.control.set_server("mc-03", name="***")
        run = ansible.inventory(MINIMAL)
        assert_ok(run)
        assert "mc-03" in host_names(run)


class TestConfiguration:
    def test_filters(self, ansible):
        run = ansible.inventory(HERE / "filtered.gamepanel.yml")
        assert_ok(run)
        assert host_names(run) == ["Creative", "Survival"]
        assert "game_rust" not in run.json
        assert "status_offline" not in run.json

    def test_prefix_compose_groups_and_keyed_groups(self, ansible):
        run = ansible.inventory(HERE / "constructed.gamepanel.yml")
        assert_ok(run)
        hostvars = plain(run.json["_meta"]["hostvars"]["Survival"])
        assert hostvars["gp_id"] == "mc-01"
        # the connection keeps its name whatever the prefix: the jobs look for it by that name
        assert [name for name in hostvars if name.startswith("gamepanel_")] == ["gamepanel_connection"]
        assert int(hostvars["free_slots"]) == 17
        assert sorted(run.json["players_busy"]["hosts"]) == ["Rust_Main", "Survival"]
        assert sorted(run.json["players_empty"]["hosts"]) == ["ARK_Island", "Creative", "Modded", "Rust_Test"]
        assert sorted(run.json["big_servers"]["hosts"]) == ["ARK_Island", "Rust_Main", "Rust_Test"]

    def test_no_local_connection_when_turned_off(self, ansible):
        run = ansible.inventory("plugin: gamepanel.panel.servers\nlocal_connection: false\n")
        assert_ok(run)
        assert "ansible_connection" not in run.json["_meta"]["hostvars"]["Survival"]

    def test_token_from_a_template(self, ansible):
        config = (
            "plugin: gamepanel.panel.servers\napi_token: \"{{ lookup('ansible.builtin.env', 'ACME_READ_TOKEN') }}\"\n"
        )
        run = ansible.inventory(config, token=None, env={"ACME_READ_TOKEN": "gp-test-owner-read"})
        assert_ok(run)
        assert len(host_names(run)) == 6

    def test_vaulted_token(self, ansible, tmp_path):
        password_file = tmp_path / "vault-password"
        password_file.write_text("integration-vault-password\n")
        vaulted = encrypt_string("gp-test-owner-read", password_file)
        config = "plugin: gamepanel.panel.servers\napi_token: !vault |\n" + "".join(
            "  %s\n" % line for line in vaulted.splitlines()
        )
        run = ansible.inventory(config, token=None, args=("--list", "--vault-password-file", str(password_file)))
        assert_ok(run)
        assert len(host_names(run)) == 6
        assert "gp-test-owner-read" not in run.stdout + run.stderr


def encrypt_string(secret, password_file):
    """The ciphertext ansible-vault would write for ``secret`` (same library, no subprocess needed)."""
    from ansible.parsing.vault import VaultLib, VaultSecret

    password = password_file.read_text().strip().encode()
    return VaultLib([("default", VaultSecret(password))]).encrypt(secret).decode()


class TestPlannedVariant:
    def test_same_hosts_and_groups_as_live(self, ansible, emulator):
        pin_figures(emulator)
        live = ansible.inventory(MINIMAL)
        before = panel_requests(emulator)
        planned = ansible.inventory(MINIMAL, variant="planned")
        assert_ok(planned)
        planned_listing, live_listing = normalised(planned.json), normalised(live.json)
        for listing, variant in ((planned_listing, "planned"), (live_listing, "live")):
            connections = [variables.pop("gamepanel_connection") for variables in listing["_meta"]["hostvars"].values()]
            assert {connection["api_variant"] for connection in connections} == {variant}
        assert planned_listing == live_listing
        assert requests_between(before, panel_requests(emulator)) == {"planned GET /servers": 1}

    def test_planned_paging_costs_one_request_per_page(self, ansible, emulator):
        emulator.control.settings(page_size=2)
        before = panel_requests(emulator)
        run = ansible.inventory(MINIMAL, variant="planned")
        assert_ok(run)
        assert len(host_names(run)) == 6
        assert requests_between(before, panel_requests(emulator)) == {"planned GET /servers": 3}


class TestCache:
    def cached_config(self, tmp_path, timeout=600):
        # One file for every run of a test: the cache entry belongs to the configuration file.
        path = tmp_path / "cached.gamepanel.yml"
        path.write_text(
            "plugin: gamepanel.panel.servers\n"
            "cache: true\n"
            "cache_plugin: ansible.builtin.jsonfile\n"
            "cache_connection: %s\n"
            "cache_timeout: %d\n" % (tmp_path / "cache", timeout)
        )
        return path

    def test_a_cache_hit_makes_no_request(self, ansible, emulator, tmp_path):
        config = self.cached_config(tmp_path)
        before = panel_requests(emulator)
        filled = ansible.inventory(config)
        assert_ok(filled)
        after_fill = panel_requests(emulator)
        assert requests_between(before, after_fill) == {"live GET /servers": 1}

        hit = ansible.inventory(config)
        assert_ok(hit)
        assert panel_requests(emulator) == after_fill
        assert emulator.control.counters()["requests"].get(OWNER_TOKEN_NAME) == after_fill
        assert normalised(hit.json) == normalised(filled.json)

    def test_the_cache_never_holds_the_token(self, ansible, tmp_path):
        assert_ok(ansible.inventory(self.cached_config(tmp_path)))
        files = [path for path in (tmp_path / "cache").rglob("*") if path.is_file()]
        assert files
        for path in files:
            assert OWNER_TOKEN not in path.name
            assert OWNER_TOKEN not in path.read_text(encoding="utf-8")

    def test_an_expired_entry_asks_the_panel_again(self, ansible, emulator, tmp_path):
        config = self.cached_config(tmp_path, timeout=1)
        assert_ok(ansible.inventory(config))
        emulator.control.set_server("mc-01", name="Survival Renamed")
        time.sleep(2)
        before = panel_requests(emulator)
        refreshed = ansible.inventory(config)
        assert_ok(refreshed)
        assert requests_between(before, panel_requests(emulator)) == {"live GET /servers": 1}
        assert "Survival_Renamed" in host_names(refreshed)

    def test_refresh_inventory_in_a_play_bypasses_the_cache(self, ansible, emulator, tmp_path):
        config = self.cached_config(tmp_path)
        assert_ok(ansible.inventory(config))
        before = panel_requests(emulator)
        playbook = (
            "- hosts: localhost\n"
            "  gather_facts: false\n"
            "  tasks:\n"
            "    - name: Refresh\n"
            "      ansible.builtin.meta: refresh_inventory\n"
        )
        run = ansible.playbook(playbook, inventory=str(config))
        assert run.rc == 0, run.describe()
        # The play's start reads the cache (no request); refresh_inventory asks the panel once.
        assert requests_between(before, panel_requests(emulator)) == {"live GET /servers": 1}

    def test_another_token_does_not_read_this_tokens_cache(self, ansible, emulator, tmp_path):
        config = self.cached_config(tmp_path)
        assert_ok(ansible.inventory(config))
        revoked = ansible.inventory(config, token="gp-test-revoked")
        assert revoked.json is None or "gamepanel" not in revoked.json
        assert "rejected the API token" in revoked.stderr


class TestErrors:
    FAIL_HARD = {"ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED": "true"}

    @pytest.mark.parametrize(
        "token, message",
        [
            ("gp-test-revoked", "rejected the API token"),
            ("gp-test-not-a-token", "rejected the API token"),
            ("gp-test-unpaid", "plan is unpaid"),
            ("gp-test-starter", "Starter plan has none"),
        ],
    )
    def test_api_refusals_fail_the_source_with_the_clients_message(self, ansible, token, message):
        run = ansible.inventory(MINIMAL, token=token, env=self.FAIL_HARD)
        assert run.rc != 0, run.describe()
        assert message in " ".join(run.stderr.split()), run.describe()
        assert token not in run.stdout + run.stderr

    def test_without_fail_hard_ansible_warns_and_no_server_host_appears(self, ansible):
        run = ansible.inventory(MINIMAL, token="gp-test-unpaid")
        assert "Failed to parse" in run.stderr
        assert "plan is unpaid" in " ".join(run.stderr.split())
        assert run.json is None or "gamepanel" not in run.json

    def test_unreachable_panel(self, ansible):
        config = "plugin: gamepanel.panel.servers\nretry_timeout: 1\nrequest_timeout: 2\n"
        run = ansible.inventory(config, base_url="http://127.0.0.1:9/v1", env=self.FAIL_HARD)
        assert run.rc != 0, run.describe()
        assert "failed without an answer from the panel" in " ".join(run.stderr.split()), run.describe()

    def test_a_base_url_that_is_no_url(self, ansible):
        run = ansible.inventory(MINIMAL, base_url="panel.example.com/v1", env=self.FAIL_HARD)
        assert run.rc != 0
        assert "is not an http(s) URL" in " ".join(run.stderr.split()), run.describe()

    def test_missing_token(self, ansible):
        run = ansible.inventory(MINIMAL, token=None, env=self.FAIL_HARD)
        assert run.rc != 0
        assert "GAMEPANEL_API_TOKEN" in run.stderr


class TestPlaybook:
    def test_local_connection_needs_no_interpreter_setting(self, ansible, tmp_path):
        # The harness always passes -e ansible_python_interpreter=...; users do not. Run the
        # playbook as a user would, so the interpreter comes from the plugin's host variables.
        command = [
            str(Path(sys.executable).with_name("ansible-playbook")),
            "-i",
            str(MINIMAL),
            str(HERE / "server_info_per_host.yml"),
        ]
        env = ansible.environment(playbook=False)
        env["ANSIBLE_PYTHON_INTERPRETER"] = "/nonexistent/python"  # a wrong global default must not matter
        completed = subprocess.run(
            command, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False
        )
        assert completed.returncode == 0, completed.stdout + completed.stderr
        for host in ("Creative", "Modded", "Survival"):
            assert re.search(r"^%s\s*: ok=2 .*failed=0" % host, completed.stdout, re.MULTILINE), completed.stdout

    def test_server_data_is_never_run_as_a_template(self, ansible, emulator):
        emulator.control.set_server("mc-01", name="{{ 6 * 7 }}")
        playbook = (
            "- hosts: game_minecraft\n"
            "  gather_facts: false\n"
            "  tasks:\n"
            "    - name: Show the name\n"
            "      ansible.builtin.debug:\n"
            '        msg: "name={{ gamepanel_name }}"\n'
        )
        run = ansible.playbook(playbook, inventory=str(MINIMAL), limit="6_7")
        assert run.rc == 0, run.describe()
        assert run.result("Show the name", host="6_7")["msg"] == "name={{ 6 * 7 }}"

    def test_tasks_for_each_host_of_a_group_run_on_the_controller(self, ansible):
        # No SSH anywhere: the hosts get ansible_connection=local from the plugin.
        run = ansible.playbook(HERE / "server_info_per_host.yml", inventory=str(MINIMAL))
        assert run.rc == 0, run.describe()
        results = run.results("Read this server through the panel")
        ids = dict((result.host, [server["id"] for server in result["servers"]]) for result in results)
        assert ids == {"Creative": ["mc-02"], "Modded": ["mc-03"], "Survival": ["mc-01"]}
        statuses = dict((result.host, result["msg"]) for result in run.results("Compare with the inventory"))
        assert statuses == {"Creative": "online/online", "Modded": "offline/offline", "Survival": "online/online"}
