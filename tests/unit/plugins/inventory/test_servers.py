# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Unit tests of the inventory plugin: a fake client stands in for the panel.

Options are handed to the plugin directly (bypassing Ansible's config lookup, which needs the
installed collection); the integration suite covers reading real configuration files.
"""

from __future__ import annotations

import copy
import os

import pytest
import yaml

from ansible.errors import AnsibleError, AnsibleParserError
from ansible.inventory.data import InventoryData
from ansible.parsing.dataloader import DataLoader
from ansible.parsing import vault as vault_module
from ansible.parsing.vault import VaultLib, VaultSecret
from ansible.plugins.inventory import get_cache_plugin
from ansible.utils.display import Display

try:  # ansible-core 2.19+: data tagging
    from ansible.template import is_trusted_as_template, trust_as_template

    AnsibleUnsafe = None  # pylint: disable=invalid-name
except ImportError:  # older: the unsafe marker
    from ansible.utils.unsafe_proxy import AnsibleUnsafe

    is_trusted_as_template = trust_as_template = None  # pylint: disable=invalid-name

from ansible_collections.gamepanel.panel.plugins.inventory import servers as plugin_module
from ansible_collections.gamepanel.panel.plugins.inventory.servers import InventoryModule
from ansible_collections.gamepanel.panel.plugins.module_utils._api.token_file import token_digest
from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import (
    PanelAuthError,
    PanelPaymentError,
    PanelTransportError,
)

TOKEN = "gp-unit-secret-token-7f3a"

FLEET = [
    {
        "id": "mc-01",
        "name": "Survival",
        "game": "minecraft",
        "status": "online",
        "players": {"current": 3, "max": 20},
        "cpu": 12.5,
        "memory_mb": 2048,
        "uptime_seconds": 86400,
    },
    {
        "id": "mc-03",
        "name": "Modded",
        "game": "minecraft",
        "status": "offline",
        "players": {"current": 0, "max": 10},
        "cpu": 0,
        "memory_mb": 0,
        "uptime_seconds": 0,
    },
    {
        "id": "rust-01",
        "name": "Rust Main",
        "game": "rust",
        "status": "online",
        "players": {"current": 5, "max": 100},
        "cpu": 40.0,
        "memory_mb": 8192,
        "uptime_seconds": 172800,
    },
    {
        "id": "ark-01",
        "name": "ARK: Island",
        "game": "ark",
        "status": "starting up",
        "players": {"current": 0, "max": 70},
        "cpu": 5.0,
        "memory_mb": 4096,
        "uptime_seconds": 3600,
    },
]

# The plugin's own options as documented, plus the shared and standard fragments' defaults.
PLUGIN_DEFAULTS = {
    "hostname_source": "name",
    "hostvar_prefix": "gamepanel_",
    "games": [],
    "statuses": [],
    "name_patterns": [],
    "local_connection": True,
    "account": None,
    "hostname_prefix": "",
    "api_token_env": None,
}
OPTIONS = dict(
    PLUGIN_DEFAULTS,
    plugin="gamepanel.panel.servers",
    api_token=TOKEN,
    api_token_file=None,
    base_url="https://panel.example.test/v1",
    api_variant="live",
    validate_certs=True,
    request_timeout=30,
    rate_limit=120,
    retry_timeout=60,
    allow_insecure_http=False,
    compose={},
    groups={},
    keyed_groups=[],
    strict=False,
    use_extra_vars=False,
    leading_separator=True,
    cache=False,
    cache_plugin="memory",
    cache_timeout=3600,
    cache_connection=None,
    cache_prefix="ansible_inventory_",
)


def trusted(template):
    """A template as it arrives from a configuration file: ansible-core 2.19+ only renders trusted ones."""
    return trust_as_template(template) if trust_as_template else template


def never_templated(value):
    """True when Ansible will not render ``value`` as a template, whatever the ansible-core version."""
    if is_trusted_as_template:
        return not is_trusted_as_template(value)
    return isinstance(value, AnsibleUnsafe)


class FakeClient:
    def __init__(self, servers=(), error=None):
        self.servers = list(servers)
        self.error = error
        self.list_calls = 0

    def list_servers(self):
        self.list_calls += 1
        if self.error is not None:
            raise self.error
        return copy.deepcopy(self.servers)


class Run:
    def __init__(self, plugin, inventory, clients_made):
        self.plugin = plugin
        self.inventory = inventory
        self.clients_made = clients_made

    @property
    def host_names(self):
        return sorted(self.inventory.hosts)

    def hostvars(self, host):
        return self.inventory.get_host(host).vars

    def group_hosts(self, group):
        return sorted(host.name for host in self.inventory.groups[group].get_hosts())


@pytest.fixture
def config_path(tmp_path):
    path = tmp_path / "fleet.gamepanel.yml"
    path.write_text("plugin: gamepanel.panel.servers\n")
    return str(path)


@pytest.fixture
def run_plugin(config_path, monkeypatch):
    def run(options=None, client=None, cache=None, use_cache=True, inventory=None, path=None, token_from_env=False):
        plugin = InventoryModule()
        settings = dict(OPTIONS, **(options or {}))
        origins = dict.fromkeys(settings, "Direct")
        if token_from_env:  # api_token as its GAMEPANEL_API_TOKEN fallback gives it
            origins["api_token"] = "env: GAMEPANEL_API_TOKEN"

        def read_config_data(_path):
            plugin._options.update(settings)
            plugin._origins.update(origins)

        monkeypatch.setattr(plugin, "_read_config_data", read_config_data)
        clients_made = []

        def make_client(connection):
            clients_made.append(connection)
            return client if client is not None else FakeClient(FLEET)

        monkeypatch.setattr(plugin, "_make_client", make_client)
        if cache is not None:
            plugin._cache = cache
        inventory = InventoryData() if inventory is None else inventory
        plugin.parse(inventory, DataLoader(), path or config_path, cache=use_cache)
        return Run(plugin, inventory, clients_made)

    return run


def test_documented_defaults_match_the_ones_these_tests_use():
    documented = yaml.safe_load(plugin_module.DOCUMENTATION)["options"]
    assert dict((name, documented[name].get("default")) for name in PLUGIN_DEFAULTS) == PLUGIN_DEFAULTS


@pytest.mark.parametrize(
    "name, accepted",
    [
        ("fleet.gamepanel.yml", True),
        ("gamepanel.yaml", True),
        ("fleet.gamepanel.yml.bak", False),
        ("fleet.yml", False),
        ("gamepanel.json", False),
    ],
)
def test_verify_file_accepts_only_gamepanel_config_names(tmp_path, name, accepted):
    path = tmp_path / name
    path.write_text("plugin: gamepanel.panel.servers\n")
    assert InventoryModule().verify_file(str(path)) is accepted


def test_verify_file_refuses_missing_files(tmp_path):
    assert not InventoryModule().verify_file(str(tmp_path / "absent.gamepanel.yml"))


class TestHostsAndGroups:
    def test_one_host_per_server_named_after_the_server(self, run_plugin):
        assert run_plugin().host_names == ["ARK_Island", "Modded", "Rust_Main", "Survival"]

    def test_host_names_from_ids(self, run_plugin):
        assert run_plugin({"hostname_source": "id"}).host_names == ["ark-01", "mc-01", "mc-03", "rust-01"]

    def test_whole_fleet_costs_one_list_call(self, run_plugin):
        client = FakeClient(FLEET)
        run_plugin(client=client)
        assert client.list_calls == 1

    def test_groups_by_game_and_status(self, run_plugin):
        run = run_plugin()
        assert run.group_hosts("gamepanel") == run.host_names
        assert run.group_hosts("game_minecraft") == ["Modded", "Survival"]
        assert run.group_hosts("game_rust") == ["Rust_Main"]
        assert run.group_hosts("status_online") == ["Rust_Main", "Survival"]
        assert run.group_hosts("status_starting_up") == ["ARK_Island"]

    def test_host_variables_carry_the_prefix(self, run_plugin):
        hostvars = run_plugin().hostvars("Rust_Main")
        assert hostvars["gamepanel_id"] == "rust-01"
        assert hostvars["gamepanel_name"] == "Rust Main"
        assert hostvars["gamepanel_players"] == {"current": 5, "max": 100}
        assert hostvars["gamepanel_uptime_seconds"] == 172800

    def test_custom_prefix(self, run_plugin):
        hostvars = run_plugin({"hostvar_prefix": "gp_"}).hostvars("Survival")
        assert hostvars["gp_id"] == "mc-01"
        assert not [name for name in hostvars if name.startswith("gamepanel_")]

    def test_bad_prefix_is_a_clear_error(self, run_plugin):
        with pytest.raises(AnsibleParserError, match="hostvar_prefix"):
            run_plugin({"hostvar_prefix": "game-panel-"})

    def test_duplicate_names_give_distinct_hosts_whatever_the_api_order(self, run_plugin):
        twins = [dict(FLEET[0], id="mc-02"), FLEET[0]]
        first = run_plugin(client=FakeClient(twins)).host_names
        second = run_plugin(client=FakeClient(list(reversed(twins)))).host_names
        assert first == second == ["Survival_mc-01", "Survival_mc-02"]

    def test_names_with_template_syntax_stay_text(self, run_plugin):
        sneaky = dict(FLEET[0], name="{{ lookup('pipe', 'id') }}")
        run = run_plugin(client=FakeClient([sneaky]))
        assert run.host_names == ["lookup_pipe_id"]
        assert never_templated(run.hostvars("lookup_pipe_id")["gamepanel_name"])

    def test_the_connection_used_is_handed_on_to_the_fleet_group_without_the_token(self, run_plugin):
        run = run_plugin({"rate_limit": 600})
        group_vars = run.inventory.groups["gamepanel"].get_vars()
        connection = group_vars["gamepanel_connection"]
        # every connection option the client was made with, but the token: where it is, its digest
        assert set(connection) == set(run.clients_made[0]) - {"api_token"} | {
            "api_token_inventory",
            "api_token_digest",
            "api_token_origin",
        }
        assert connection["api_token_digest"] == token_digest(run.clients_made[0]["api_token"])
        assert connection["rate_limit"] == 600 and connection["base_url"] == run.clients_made[0]["base_url"]
        assert run.clients_made[0]["api_token"] not in repr(run.inventory.groups["gamepanel"].get_vars())

    def test_local_connection_by_default(self, run_plugin):
        hostvars = run_plugin().hostvars("Survival")
        assert hostvars["ansible_connection"] == "local"
        assert hostvars["ansible_python_interpreter"] == "{{ ansible_playbook_python }}"

    def test_local_connection_can_be_turned_off(self, run_plugin):
        hostvars = run_plugin({"local_connection": False}).hostvars("Survival")
        assert "ansible_connection" not in hostvars
        assert "ansible_python_interpreter" not in hostvars

    def test_server_without_name_or_id_is_skipped_with_a_warning(self, run_plugin, monkeypatch):
        warnings = []
        monkeypatch.setattr(Display, "warning", lambda self, msg, formatted=False: warnings.append(msg))
        run = run_plugin(client=FakeClient([FLEET[0], {"id": None, "name": "***"}]))
        assert run.host_names == ["Survival"]
        assert "skipped 1 server" in warnings[0]

    def test_empty_fleet_gives_only_the_gamepanel_group(self, run_plugin):
        run = run_plugin(client=FakeClient([]))
        assert run.host_names == []
        assert "gamepanel" in run.inventory.groups


class TestConstructed:
    def test_compose_groups_and_keyed_groups(self, run_plugin):
        run = run_plugin(
            {
                "compose": {
                    "free_slots": trusted("gamepanel_players.max - gamepanel_players.current"),
                    "ansible_connection": trusted("'ssh'"),
                },
                "groups": {"long_running": trusted("gamepanel_uptime_seconds > 80000")},
                "keyed_groups": [
                    {"prefix": "players", "key": trusted("'busy' if gamepanel_players.current > 0 else 'empty'")}
                ],
            }
        )
        assert int(run.hostvars("Survival")["free_slots"]) == 17  # text before ansible-core 2.19, a number after
        assert run.hostvars("Survival")["ansible_connection"] == "ssh"  # compose wins over local_connection
        assert run.group_hosts("long_running") == ["Rust_Main", "Survival"]
        assert run.group_hosts("players_busy") == ["Rust_Main", "Survival"]
        assert run.group_hosts("players_empty") == ["ARK_Island", "Modded"]

    def test_strict_turns_a_bad_expression_into_an_error(self, run_plugin):
        with pytest.raises(AnsibleError, match="no_such_var"):
            run_plugin({"strict": True, "compose": {"x": trusted("no_such_var.field")}})

    def test_lenient_by_default(self, run_plugin):
        assert "x" not in run_plugin({"compose": {"x": trusted("no_such_var.field")}}).hostvars("Survival")


class TestFilters:
    def test_by_game(self, run_plugin):
        assert run_plugin({"games": ["minecraft"]}).host_names == ["Modded", "Survival"]

    def test_by_status(self, run_plugin):
        assert run_plugin({"statuses": ["online"]}).host_names == ["Rust_Main", "Survival"]

    def test_by_name_pattern_on_the_panel_name(self, run_plugin):
        assert run_plugin({"name_patterns": ["Rust *", "ARK:*"]}).host_names == ["ARK_Island", "Rust_Main"]

    def test_filters_combine(self, run_plugin):
        assert run_plugin(
            {"games": ["minecraft", "rust"], "statuses": ["online"], "name_patterns": ["S*"]}
        ).host_names == ["Survival"]

    def test_filtered_out_servers_leave_no_groups(self, run_plugin):
        run = run_plugin({"games": ["rust"]})
        assert "game_minecraft" not in run.inventory.groups
        assert "status_offline" not in run.inventory.groups

    def test_filters_apply_before_naming(self, run_plugin):
        # Without the filter the two "Survival" servers would both be suffixed.
        twins = [FLEET[0], dict(FLEET[0], id="mc-09", game="terraria")]
        assert run_plugin({"games": ["minecraft"]}, client=FakeClient(twins)).host_names == ["Survival"]


class TestSettings:
    def test_token_and_address_reach_the_client(self, run_plugin):
        connection = run_plugin().clients_made[0]
        assert connection["api_token"] == TOKEN
        assert connection["base_url"] == "https://panel.example.test/v1"
        assert connection["api_variant"] == "live"

    def test_planned_variant_reaches_the_client(self, run_plugin):
        assert run_plugin({"api_variant": "planned"}).clients_made[0]["api_variant"] == "planned"

    def test_templated_token_is_rendered(self, run_plugin, monkeypatch):
        monkeypatch.setenv("GP_UNIT_TOKEN", "from-the-environment")
        run = run_plugin({"api_token": trusted("{{ lookup('env', 'GP_UNIT_TOKEN') }}")})
        assert run.clients_made[0]["api_token"] == "from-the-environment"

    def test_extra_vars_are_available_to_templates(self, run_plugin, monkeypatch):
        monkeypatch.setattr(
            "ansible.plugins.inventory.load_extra_vars", lambda loader: {"panel_url": "https://x.test/v1"}
        )
        assert run_plugin({"base_url": trusted("{{ panel_url }}")}).clients_made[0]["base_url"] == "https://x.test/v1"

    def test_vaulted_token_is_decrypted(self, run_plugin, monkeypatch):
        secrets = [("default", VaultSecret(b"unit-vault-password"))]
        context = getattr(vault_module, "VaultSecretsContext", None)
        if context is not None:  # ansible-core 2.19+ decrypts with the secrets the CLI registers
            monkeypatch.setattr(context, "_current", context(secrets))
        ciphertext = VaultLib(secrets).encrypt(TOKEN).decode()
        loader = DataLoader()
        loader.set_vault_secrets(secrets)
        # Loaded the way a configuration file with "api_token: !vault |" is.
        config = loader.load("api_token: !vault |\n" + "".join("  %s\n" % line for line in ciphertext.splitlines()))
        assert run_plugin({"api_token": config["api_token"]}).clients_made[0]["api_token"] == TOKEN

    @pytest.mark.parametrize(
        "option, words", [("api_token", "GAMEPANEL_API_TOKEN"), ("base_url", "GAMEPANEL_BASE_URL")]
    )
    def test_missing_setting_is_a_clear_error(self, run_plugin, option, words):
        with pytest.raises(AnsibleParserError, match=words):
            run_plugin({option: None})


class TestErrors:
    @pytest.mark.parametrize(
        "error",
        [
            PanelAuthError(
                "The panel rejected the API token for GET /servers (HTTP 401): the token is revoked.", status=401
            ),
            PanelPaymentError(
                "The panel refused GET /servers because the account's plan is unpaid (HTTP 402).", status=402
            ),
            PanelTransportError("GET /servers failed without an answer from the panel: connection refused."),
        ],
    )
    def test_client_errors_surface_with_the_client_message(self, run_plugin, error):
        with pytest.raises(AnsibleError) as raised:
            run_plugin(client=FakeClient(error=error))
        assert str(error) in str(raised.value)

    def test_a_failed_listing_adds_no_host(self, run_plugin, config_path, monkeypatch):
        plugin = InventoryModule()
        monkeypatch.setattr(plugin, "_read_config_data", lambda path: plugin._options.update(OPTIONS))
        monkeypatch.setattr(
            plugin, "_make_client", lambda connection: FakeClient(error=PanelAuthError("no.", status=401))
        )
        inventory = InventoryData()
        with pytest.raises(AnsibleError):
            plugin.parse(inventory, DataLoader(), config_path)
        assert not inventory.hosts
        assert "gamepanel" not in inventory.groups

    def test_the_reason_is_recorded_on_the_all_group(self, config_path, monkeypatch):
        # Ansible only warns about a failed source; the ready playbooks fail on this variable.
        plugin = InventoryModule()
        monkeypatch.setattr(plugin, "_read_config_data", lambda path: plugin._options.update(OPTIONS))
        error = PanelAuthError("The panel rejected the API token for GET /servers (HTTP 401).", status=401)
        monkeypatch.setattr(plugin, "_make_client", lambda connection: FakeClient(error=error))
        inventory = InventoryData()
        for _attempt in range(2):  # the same source tried twice is recorded once
            with pytest.raises(AnsibleError):
                plugin.parse(inventory, DataLoader(), config_path)
        variables = inventory.groups["all"].get_vars()
        assert variables["gamepanel_inventory_errors"] == ["%s: %s" % (config_path, error)]

    def test_a_missing_token_is_recorded_without_any_token(self, run_plugin, config_path):
        plugin = InventoryModule()
        plugin._read_config_data = lambda path: plugin._options.update(dict(OPTIONS, api_token=None))
        inventory = InventoryData()
        with pytest.raises(AnsibleParserError):
            plugin.parse(inventory, DataLoader(), config_path)
        (recorded,) = inventory.groups["all"].get_vars()["gamepanel_inventory_errors"]
        assert recorded.startswith(config_path + ": No API token was given")

    def test_a_source_read_adds_no_variable_and_the_gamepanel_group_even_when_empty(self, run_plugin):
        inventory = run_plugin(client=FakeClient([])).inventory
        assert inventory.groups["all"].get_vars() == {}
        assert "gamepanel" in inventory.groups

    def test_own_messages_never_contain_the_token(self, run_plugin):
        with pytest.raises(AnsibleParserError) as raised:
            run_plugin({"base_url": ""})
        assert TOKEN not in str(raised.value)


class TestCache:
    @pytest.fixture
    def json_cache(self, tmp_path):
        directory = tmp_path / "cache"

        def fresh():
            # A new adjudicator per run, as a new ansible-inventory process would have.
            return get_cache_plugin("jsonfile", _uri=str(directory))

        fresh.directory = directory
        return fresh

    def test_cache_hit_builds_no_client(self, run_plugin, json_cache):
        first = run_plugin({"cache": True}, cache=json_cache())
        first.plugin.update_cache_if_changed()
        second = run_plugin({"cache": True}, cache=json_cache())
        assert len(first.clients_made) == 1
        assert second.clients_made == []
        assert second.host_names == first.host_names
        assert second.hostvars("Survival")["gamepanel_players"] == {"current": 3, "max": 20}

    def test_cache_holds_the_server_list_and_never_the_token(self, run_plugin, json_cache):
        run = run_plugin({"cache": True}, cache=json_cache())
        run.plugin.update_cache_if_changed()
        files = list(json_cache.directory.iterdir())
        assert files
        for path in files:
            assert TOKEN not in path.name
            content = path.read_text()
            assert TOKEN not in content
            assert "Rust Main" in content

    def test_refresh_without_cache_asks_the_panel_and_rewrites(self, run_plugin, json_cache):
        run_plugin({"cache": True}, cache=json_cache()).plugin.update_cache_if_changed()
        renamed = [dict(server, name=server["name"] + " 2") for server in FLEET]
        refreshed = run_plugin({"cache": True}, cache=json_cache(), client=FakeClient(renamed), use_cache=False)
        refreshed.plugin.update_cache_if_changed()
        assert len(refreshed.clients_made) == 1
        assert run_plugin({"cache": True}, cache=json_cache()).host_names == [
            "ARK_Island_2",
            "Modded_2",
            "Rust_Main_2",
            "Survival_2",
        ]

    def test_another_token_does_not_read_this_tokens_cache(self, run_plugin, json_cache):
        run_plugin({"cache": True}, cache=json_cache()).plugin.update_cache_if_changed()
        other = run_plugin({"cache": True, "api_token": "another-account-token"}, cache=json_cache())
        assert len(other.clients_made) == 1

    def test_filters_apply_to_cached_data(self, run_plugin, json_cache):
        run_plugin({"cache": True}, cache=json_cache()).plugin.update_cache_if_changed()
        filtered = run_plugin({"cache": True, "games": ["rust"]}, cache=json_cache())
        assert filtered.clients_made == []
        assert filtered.host_names == ["Rust_Main"]

    def test_unreadable_cache_entry_counts_as_a_miss(self, run_plugin):
        run = run_plugin({"cache": True}, cache={})
        key = next(iter(run.plugin._cache))
        stale = {key: ["not", "the", "expected", "shape"]}
        again = run_plugin({"cache": True}, cache=stale)
        assert len(again.clients_made) == 1

    def test_cache_disabled_always_asks(self, run_plugin):
        cache = {}
        run_plugin(cache=cache)
        assert cache == {}
        assert len(run_plugin(cache=cache).clients_made) == 1


def test_no_environment_leaks_into_options(run_plugin, monkeypatch):
    # The plugin reads the token only through its options; the env fallback is the option's own.
    monkeypatch.delenv("GAMEPANEL_API_TOKEN", raising=False)
    assert run_plugin().clients_made[0]["api_token"] == TOKEN
    assert "GAMEPANEL_API_TOKEN" not in os.environ


class TestUntrusted:
    def test_text_is_never_templated(self):
        assert never_templated(plugin_module.untrusted("Survival"))

    def test_numbers_and_null_stay_as_they_are(self):
        for value in (3, 12.5, True, None):
            assert plugin_module.untrusted(value) is value

    def test_dictionary_values_are_never_templated(self):
        marked = plugin_module.untrusted({"current": 3, "note": "{{ x }}"})
        assert marked == {"current": 3, "note": "{{ x }}"}
        assert never_templated(marked["note"])

    def test_other_types_too(self):
        marked = plugin_module.untrusted(["a", 1])
        assert marked == ["a", 1]
        assert never_templated(marked[0])

    def test_the_interpreter_template_of_local_connection_is_rendered(self):
        assert not never_templated(plugin_module.LOCAL_CONNECTION_VARIABLES["ansible_python_interpreter"])


class RecordingDisplay:
    def __init__(self):
        self.warnings = []

    def warning(self, message):
        self.warnings.append(message)


def test_plain_http_to_another_host_is_refused_by_the_inventory():
    plugin = InventoryModule()
    connection = dict(base_url="http://panel.example.test/v1", api_token=TOKEN, allow_insecure_http=False)
    with pytest.raises(AnsibleError, match="allow_insecure_http") as caught:
        plugin._make_client(connection)
    assert TOKEN not in str(caught.value)


def test_allowed_plain_http_warns_through_the_inventory_display(monkeypatch, tmp_path):
    monkeypatch.setenv("GAMEPANEL_STATE_DIR", str(tmp_path))
    plugin = InventoryModule()
    display = RecordingDisplay()
    monkeypatch.setattr(plugin, "display", display)
    connection = dict(base_url="http://panel.example.test/v1", api_token=TOKEN, allow_insecure_http=True)
    client = plugin._make_client(connection)
    assert client.base_url == "http://panel.example.test/v1"
    assert len(display.warnings) == 1 and "unencrypted" in display.warnings[0]


class TestTokenFile:
    """api_token_file (GAMEPANEL_API_TOKEN_FILE): where the inventory's token comes from, in which order."""

    @staticmethod
    def token_file(tmp_path, token, mode=0o600):
        path = tmp_path / "panel-token"
        path.write_text(token + "\n")
        path.chmod(mode)
        return str(path)

    def test_the_file_gives_the_token_when_no_api_token_is_set(self, run_plugin, tmp_path):
        options = {"api_token": None, "api_token_file": self.token_file(tmp_path, "gp-from-file")}
        assert run_plugin(options).clients_made[0]["api_token"] == "gp-from-file"

    def test_api_token_in_the_file_wins_over_api_token_file(self, run_plugin, tmp_path):
        options = {"api_token_file": self.token_file(tmp_path, "gp-from-file")}
        assert run_plugin(options).clients_made[0]["api_token"] == TOKEN

    def test_a_token_file_named_in_the_inventory_file_wins_over_the_environment_token(
        self, run_plugin, tmp_path, monkeypatch
    ):
        origins = {"api_token": "env: GAMEPANEL_API_TOKEN", "api_token_file": "Direct"}
        monkeypatch.setattr(InventoryModule, "get_option_and_origin", lambda plugin, name: (None, origins[name]))
        options = {"api_token_file": self.token_file(tmp_path, "gp-read-only")}
        assert run_plugin(options).clients_made[0]["api_token"] == "gp-read-only"
        origins["api_token_file"] = "env: GAMEPANEL_API_TOKEN_FILE"  # both from the environment: the token first
        assert run_plugin(options).clients_made[0]["api_token"] == TOKEN

    @pytest.mark.parametrize("environment_token", [False, True])
    def test_api_token_env_comes_before_api_token_file_whether_or_not_gamepanel_api_token_is_set(
        self, run_plugin, tmp_path, monkeypatch, environment_token
    ):
        monkeypatch.setenv("GAMEPANEL_EU_TOKEN", "gp-eu-env")
        options = {"api_token_env": "GAMEPANEL_EU_TOKEN", "api_token_file": self.token_file(tmp_path, "gp-from-file")}
        if not environment_token:
            options["api_token"] = None
        run = run_plugin(options, token_from_env=environment_token)
        assert run.clients_made[0]["api_token"] == "gp-eu-env"
        connection = run.inventory.groups["gamepanel"].get_vars()["gamepanel_connection"]
        assert connection["api_token_env"] == "GAMEPANEL_EU_TOKEN" and "api_token_file" not in connection
        assert connection["api_token_origin"] == "the environment variable GAMEPANEL_EU_TOKEN"

    def test_the_token_file_it_read_is_named_to_the_jobs_never_its_token(self, run_plugin, tmp_path):
        path = self.token_file(tmp_path, "gp-from-file")
        run = run_plugin({"api_token": None, "api_token_file": path})
        connection = run.inventory.groups["gamepanel"].get_vars()["gamepanel_connection"]
        assert connection["api_token_file"] == path and connection["api_token_digest"] == token_digest("gp-from-file")
        assert "gp-from-file" not in repr(run.inventory.groups["gamepanel"].get_vars())

    def test_the_environments_token_is_not_named_the_jobs_take_it_from_there_too(self, run_plugin):
        run = run_plugin(token_from_env=True)
        connection = run.inventory.groups["gamepanel"].get_vars()["gamepanel_connection"]
        assert connection["api_token_origin"] == "GAMEPANEL_API_TOKEN"
        assert not {"api_token_env", "api_token_file", "api_token_inventory"} & set(connection)

    def test_a_world_readable_file_fails_the_source_naming_the_file(self, run_plugin, tmp_path):
        path = self.token_file(tmp_path, "gp-from-file", mode=0o644)
        with pytest.raises(AnsibleParserError) as failed:
            run_plugin({"api_token": None, "api_token_file": path})
        assert "%s (from api_token_file) can be read by every user" % path in str(failed.value)
        assert "gp-from-file" not in str(failed.value)

    def test_without_any_token_the_message_names_only_what_the_inventory_reads(self, run_plugin):
        with pytest.raises(AnsibleParserError) as failed:
            run_plugin({"api_token": None})
        message = str(failed.value)
        for source in ("api_token ", "api_token_file", "GAMEPANEL_API_TOKEN ", "GAMEPANEL_API_TOKEN_FILE"):
            assert source in message
        assert "gamepanel_api_token" not in message  # a variable: read after the inventory, never by it


def connection_of(run, host):
    """gamepanel_connection as the host's groups give it to a play (the deepest group wins)."""
    from ansible.inventory.helpers import get_group_vars

    return get_group_vars(run.inventory.get_host(host).get_groups()).get("gamepanel_connection")


class TestAccounts:
    @pytest.fixture
    def second_path(self, tmp_path):
        path = tmp_path / "us.gamepanel.yml"
        path.write_text("plugin: gamepanel.panel.servers\n")
        return str(path)

    def test_an_account_groups_its_hosts_and_carries_its_connection(self, run_plugin):
        run = run_plugin({"account": "eu"})
        assert run.group_hosts("account_eu") == run.host_names
        assert "account_eu" in [group.name for group in run.inventory.groups["gamepanel"].child_groups]
        group_vars = run.inventory.groups["account_eu"].get_vars()
        assert group_vars["gamepanel_account"] == "eu"
        assert group_vars["gamepanel_connection"]["base_url"] == OPTIONS["base_url"]
        assert "gamepanel_connection" not in run.inventory.groups["gamepanel"].get_vars()

    @pytest.mark.parametrize("account", ["eu west", "eu-west", "x" * 41, "{{ a }}"])
    def test_an_account_that_is_no_short_name_is_a_clear_error(self, run_plugin, account):
        with pytest.raises(AnsibleParserError, match="is not a short name"):
            run_plugin({"account": account})

    def test_hostname_prefix_starts_every_host_name(self, run_plugin):
        assert run_plugin({"hostname_prefix": "eu-"}).host_names == [
            "eu-ARK_Island",
            "eu-Modded",
            "eu-Rust_Main",
            "eu-Survival",
        ]

    def test_an_unsafe_hostname_prefix_is_a_clear_error(self, run_plugin):
        with pytest.raises(AnsibleParserError, match="hostname_prefix 'eu:' holds characters"):
            run_plugin({"hostname_prefix": "eu:"})

    def test_two_accounts_keep_their_own_connections(self, run_plugin, second_path):
        first = run_plugin({"account": "eu", "hostname_prefix": "eu_"})
        second = run_plugin(
            {"account": "us", "hostname_prefix": "us_", "base_url": "https://us.example.test/v1"},
            inventory=first.inventory,
            path=second_path,
        )
        assert connection_of(second, "eu_Survival")["base_url"] == OPTIONS["base_url"]
        assert connection_of(second, "us_Survival")["base_url"] == "https://us.example.test/v1"
        names = ["ARK_Island", "Modded", "Rust_Main", "Survival"]
        assert second.group_hosts("account_us") == ["us_" + name for name in names]
        assert second.group_hosts("gamepanel") == ["eu_" + name for name in names] + ["us_" + name for name in names]

    @pytest.mark.parametrize(
        "change", [{"base_url": "https://us.example.test/v1"}, {"api_token": "another-token"}, {"rate_limit": 600}]
    )
    def test_different_connections_without_account_stop_the_second_source(
        self, run_plugin, config_path, second_path, change
    ):
        first = run_plugin({"hostname_prefix": "a_"})
        with pytest.raises(AnsibleParserError) as caught:
            run_plugin(dict(change, hostname_prefix="b_"), inventory=first.inventory, path=second_path)
        message = str(caught.value)
        assert first.inventory.groups["all"].get_vars()["gamepanel_inventory_errors"]
        assert "different connections" in message and "'account' option" in message
        assert "the sources %s and %s" % (config_path, second_path) in message
        assert TOKEN not in message and "another-token" not in message
        assert not [host for host in first.inventory.hosts if host.startswith("b_")]

    def test_one_host_name_for_two_servers_stops_the_second_source(self, run_plugin, second_path):
        first = run_plugin({"account": "eu"})
        with pytest.raises(AnsibleParserError) as caught:
            run_plugin(
                {"account": "us", "base_url": "https://us.example.test/v1"}, inventory=first.inventory, path=second_path
            )
        message = str(caught.value)
        assert "both give the host name 'ARK_Island' to different servers" in message
        assert "server ark-01 of https://us.example.test/v1 (account us)" in message
        assert "'hostname_prefix'" in message and second_path in message
        assert connection_of(first, "Survival")["base_url"] == OPTIONS["base_url"]
        assert first.group_hosts("account_eu") == first.host_names and "account_us" not in first.inventory.groups

    def test_two_sources_of_one_account_listing_one_server_give_one_host(self, run_plugin, second_path):
        first = run_plugin({"account": "eu", "games": ["minecraft"]})
        both = run_plugin({"account": "eu", "statuses": ["online"]}, inventory=first.inventory, path=second_path)
        # Survival is an online minecraft server: both sources list it
        assert both.host_names == ["Modded", "Rust_Main", "Survival"]

    def test_one_source_read_twice_does_not_clash_with_itself(self, run_plugin):
        first = run_plugin({"account": "eu"})
        again = run_plugin({"account": "eu", "rate_limit": 600}, inventory=first.inventory)
        assert connection_of(again, "Survival")["rate_limit"] == 600


class TestTokenEnvironmentVariable:
    def test_the_token_comes_from_the_named_variable_and_only_its_name_is_handed_on(self, run_plugin, monkeypatch):
        monkeypatch.setenv("GAMEPANEL_EU_TOKEN", "gp-unit-eu-token")
        run = run_plugin({"api_token_env": "GAMEPANEL_EU_TOKEN"}, token_from_env=True)
        assert run.clients_made[0]["api_token"] == "gp-unit-eu-token"
        connection = run.inventory.groups["gamepanel"].get_vars()["gamepanel_connection"]
        assert connection["api_token_env"] == "GAMEPANEL_EU_TOKEN"
        assert "gp-unit-eu-token" not in repr(run.inventory.groups["gamepanel"].get_vars())

    def test_a_token_written_in_the_file_wins(self, run_plugin, monkeypatch):
        monkeypatch.setenv("GAMEPANEL_EU_TOKEN", "gp-unit-eu-token")
        run = run_plugin({"api_token_env": "GAMEPANEL_EU_TOKEN"})
        assert run.clients_made[0]["api_token"] == TOKEN

    def test_an_unset_variable_is_a_clear_error_that_names_it(self, run_plugin, monkeypatch):
        monkeypatch.delenv("GAMEPANEL_EU_TOKEN", raising=False)
        with pytest.raises(AnsibleParserError, match="environment variable GAMEPANEL_EU_TOKEN .* not set"):
            run_plugin({"api_token_env": "GAMEPANEL_EU_TOKEN"}, token_from_env=True)

    def test_a_name_that_is_no_variable_name_is_a_clear_error(self, run_plugin):
        with pytest.raises(AnsibleParserError, match="api_token_env must name an environment variable"):
            run_plugin({"api_token_env": "EU TOKEN"}, token_from_env=True)
