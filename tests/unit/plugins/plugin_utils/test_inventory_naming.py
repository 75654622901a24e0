# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

import itertools

import pytest

from ansible.inventory.group import to_safe_group_name

from ansible_collections.gamepanel.panel.plugins.plugin_utils.inventory_naming import (
    assign_host_names,
    check_hostvar_prefix,
    fleet_group_names,
    group_names_for,
    host_variables,
    safe_host_name,
)


def ansible_group_rule(name):
    """The rule the plugin passes in: Ansible's own, forced and quiet."""
    return to_safe_group_name(name, force=True, silent=True)


def server(server_id, name, game="minecraft", status="online"):
    return {"id": server_id, "name": name, "game": game, "status": status}


def names_by_id(pairs):
    return {srv["id"]: host for host, srv in pairs}


class TestSafeHostName:
    @pytest.mark.parametrize(
        "raw, expected",
        [
            ("Survival", "Survival"),
            ("Rust Main", "Rust_Main"),
            ("ARK: Island", "ARK_Island"),
            ("  [EU] Survival!! ", "EU_Survival"),
            ("web*,db:1", "web_db_1"),
            ("!prod&~staging", "prod_staging"),
            ("{{ lookup('pipe', 'id') }}", "lookup_pipe_id"),
            ("mc-01.eu", "mc-01.eu"),
            ("-leading and trailing-.", "leading_and_trailing"),
            ("tab\tand\nnewline", "tab_and_newline"),
            ("a _ b", "a___b"),
        ],
    )
    def test_pattern_and_template_characters_become_underscores(self, raw, expected):
        assert safe_host_name(raw) == expected

    @pytest.mark.parametrize(
        "raw, expected",
        [
            ("Café Ünïcode", "Café_Ünïcode"),
            ("Сервер 1", "Сервер_1"),
            ("サーバー・東京", "サーバー_東京"),
            ("Ｓｕｒｖｉｖａｌ", "Survival"),  # full-width letters fold to ASCII (NFKC)
        ],
    )
    def test_letters_of_any_script_are_kept(self, raw, expected):
        assert safe_host_name(raw) == expected

    def test_composed_and_decomposed_accents_give_the_same_name(self):
        assert safe_host_name("Cafe\u0301") == safe_host_name("Caf\u00e9") == "Caf\u00e9"

    @pytest.mark.parametrize("raw", [None, "", "   ", "!!!", "***"])
    def test_nothing_usable_gives_empty(self, raw):
        assert safe_host_name(raw) == ""

    def test_non_string_ids_are_text(self):
        assert safe_host_name(42) == "42"


class TestAssignHostNames:
    def test_distinct_names_are_kept(self):
        pairs = assign_host_names([server("mc-01", "Survival"), server("rust-01", "Rust Main")])
        assert pairs == [("Rust_Main", server("rust-01", "Rust Main")), ("Survival", server("mc-01", "Survival"))]

    def test_shared_name_suffixes_every_sharing_server_with_its_id(self):
        pairs = assign_host_names([server("b-2", "Lobby"), server("a-1", "Lobby"), server("c-3", "Other")])
        assert names_by_id(pairs) == {"a-1": "Lobby_a-1", "b-2": "Lobby_b-2", "c-3": "Other"}

    def test_names_equal_after_sanitising_count_as_shared(self):
        pairs = assign_host_names([server("x1", "Rust Main"), server("x2", "Rust:Main"), server("x3", "Rust_Main")])
        assert names_by_id(pairs) == {"x1": "Rust_Main_x1", "x2": "Rust_Main_x2", "x3": "Rust_Main_x3"}

    def test_result_does_not_depend_on_api_order(self):
        fleet = [
            server("s1", "Lobby"),
            server("s2", "Lobby"),
            server("s3", "Lobby_s1"),  # already holds the name the first duplicate wants
            server("s4", "Arena"),
        ]
        results = {
            tuple((host, srv["id"]) for host, srv in assign_host_names(list(order)))
            for order in itertools.permutations(fleet)
        }
        assert len(results) == 1
        assert dict((srv_id, host) for host, srv_id in results.pop()) == {
            "s1": "Lobby_s1_2",
            "s2": "Lobby_s2",
            "s3": "Lobby_s1",
            "s4": "Arena",
        }

    def test_every_host_name_is_distinct(self):
        fleet = [
            server("id%d" % index, name) for index, name in enumerate(["A", "A", "a", "A ", " A", "A!", "A_id0", ""])
        ]
        hosts = [host for host, _srv in assign_host_names(fleet)]
        assert len(hosts) == len(set(hosts)) == len(fleet)

    def test_unusable_name_falls_back_to_the_id(self):
        assert names_by_id(assign_host_names([server("mc-9", "???"), server("mc-8", None)])) == {
            "mc-9": "mc-9",
            "mc-8": "mc-8",
        }

    @pytest.mark.parametrize("name", ["all", "ungrouped", "localhost", "127.0.0.1"])
    def test_names_ansible_reserves_are_suffixed(self, name):
        assert names_by_id(assign_host_names([server("s1", name)])) == {"s1": "%s_s1" % name}

    def test_names_equal_to_inventory_groups_are_suffixed(self):
        fleet = [server("s1", "gamepanel"), server("s2", "game_rust", game="rust"), server("s3", "status_online")]
        pairs = assign_host_names(fleet, reserved=fleet_group_names(fleet, ansible_group_rule))
        assert names_by_id(pairs) == {"s1": "gamepanel_s1", "s2": "game_rust_s2", "s3": "status_online_s3"}

    def test_hosts_can_be_named_by_id(self):
        pairs = assign_host_names([server("mc-01", "Survival"), server("mc/02", "Survival")], hostname_source="id")
        assert names_by_id(pairs) == {"mc-01": "mc-01", "mc/02": "mc_02"}

    def test_unknown_source_is_refused(self):
        with pytest.raises(ValueError, match="hostname_source"):
            assign_host_names([server("a", "b")], hostname_source="ip")

    def test_server_without_name_or_id_is_refused(self):
        with pytest.raises(ValueError, match="neither a usable name nor a usable id"):
            assign_host_names([{"id": "", "name": "!!"}])

    def test_empty_fleet(self):
        assert assign_host_names([]) == []


class TestGroups:
    def test_every_server_is_in_gamepanel_its_game_and_its_status(self):
        assert group_names_for(server("s", "n", game="rust", status="online"), ansible_group_rule) == [
            "gamepanel",
            "game_rust",
            "status_online",
        ]

    def test_group_names_follow_ansible_rules(self):
        groups = group_names_for(server("s", "n", game="Counter-Strike 2", status="starting up"), ansible_group_rule)
        assert groups == ["gamepanel", "game_Counter_Strike_2", "status_starting_up"]

    def test_unknown_status_values_get_their_own_group(self):
        assert "status_crashed" in group_names_for(server("s", "n", status="crashed"), ansible_group_rule)

    @pytest.mark.parametrize("missing", [None, ""])
    def test_missing_game_or_status_gives_no_group(self, missing):
        assert group_names_for(server("s", "n", game=missing, status=missing), ansible_group_rule) == ["gamepanel"]

    def test_fleet_groups_are_sorted_and_unique(self):
        fleet = [
            server("a", "a", "rust", "offline"),
            server("b", "b", "ark", "online"),
            server("c", "c", "rust", "online"),
        ]
        assert fleet_group_names(fleet, ansible_group_rule) == [
            "game_ark",
            "game_rust",
            "gamepanel",
            "status_offline",
            "status_online",
        ]


class TestHostVariables:
    def test_every_field_is_prefixed_and_missing_fields_are_null(self):
        srv = {
            "id": "mc-01",
            "name": "Survival",
            "game": "minecraft",
            "status": "online",
            "players": {"current": 3, "max": 20},
        }
        assert host_variables(srv, "gamepanel_") == {
            "gamepanel_id": "mc-01",
            "gamepanel_name": "Survival",
            "gamepanel_game": "minecraft",
            "gamepanel_status": "online",
            "gamepanel_players": {"current": 3, "max": 20},
            "gamepanel_cpu": None,
            "gamepanel_memory_mb": None,
            "gamepanel_uptime_seconds": None,
        }

    def test_fields_outside_the_spec_are_not_exported(self):
        assert "gp_secret" not in host_variables({"id": "x", "secret": 1}, "gp_")

    @pytest.mark.parametrize("prefix", ["gamepanel_", "gp_", "", "Panel"])
    def test_valid_prefixes(self, prefix):
        assert check_hostvar_prefix(prefix) == prefix

    @pytest.mark.parametrize("prefix", ["1gp_", "game-panel_", "gp.", "gp "])
    def test_prefixes_that_break_variable_names_are_refused(self, prefix):
        with pytest.raises(ValueError, match="hostvar_prefix"):
            check_hostvar_prefix(prefix)
