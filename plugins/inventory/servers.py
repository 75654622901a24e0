# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
name: servers
short_description: Game servers of a gamepanel account as inventory hosts
version_added: 1.0.0
description:
  - Reads every game server the API token can access from the panel's REST API and adds one
    inventory host per server, with the server's live state as host variables.
  - The whole fleet costs one list request, or one per page when the panel pages the list;
    never one request per server.
  - "Every host is in the group C(gamepanel), in one group per game (C(game_<game>)) and in one
    group per status (C(status_<status>)). Group names follow Ansible's group-name rules: characters
    that are not letters, digits or underscores become underscores. A server without a game or
    status gets no group for it."
  - "Host names come from the server's name (or its id, see O(hostname_source)). Every run of
    characters other than letters, digits (of any script), C(_), C(-) and C(.) becomes one C(_),
    and C(_), C(-), C(.) are trimmed from both ends, so no name can be read as a host pattern
    or a template. When two or more servers end up with the same name, or a name equals
    C(all), C(ungrouped), C(localhost), C(127.0.0.1) or one of the group names above, every
    such server gets C(_<id>) appended; the result never depends on the order the API lists
    servers in. The server's real name is always in the host variable C(gamepanel_name)."
  - "The hosts are game servers managed through the panel, not machines to log into: by default
    (O(local_connection)) each host gets C(ansible_connection=local) and the controller's Python,
    so tasks such as M(gamepanel.panel.server_info) run on the controller with
    C(id: \"{{ gamepanel_id }}\") and no SSH access is needed."
  - "An API error (bad or revoked token, Starter plan, unpaid plan, unreachable panel) fails the
    source with the same message the modules give. Ansible reports a failed source as a warning
    and goes on with the other sources; set C(ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED=true)
    (or C(any_unparsed_is_failed = true) under C([inventory]) in C(ansible.cfg)) so scheduled
    jobs stop instead of running against no hosts."
  - "When a source fails, the plugin also records why on the C(all) group: C(gamepanel_inventory_errors) holds
    one C(<file>: <reason>) line per file that failed (never the token). A source that was read always creates
    the group C(gamepanel), even when the fleet is empty. The collection's roles and ready playbooks fail with
    that reason, so a scheduled job with a revoked token or an unreachable panel turns red instead of running
    on no hosts."
  - "The connection this source used (O(base_url), O(api_variant), O(rate_limit), O(validate_certs),
    O(request_timeout), O(retry_timeout), O(allow_insecure_http)) is set on the group C(gamepanel) (on
    C(account_<account>) with O(account)) as the variable C(gamepanel_connection), with where its token came
    from (C(api_token_env), C(api_token_file) or C(api_token_inventory), the path of this file) and a one-way digest
    of it, never the token. The collection's modules, roles, ready playbooks and the C(gamepanel.panel.keep_online)
    rulebook use it wherever the play sets nothing more specific (C(module_defaults)), so the connection is
    written once, here."
  - "The inventory is read before any host or group variable exists, so C(gamepanel_api_token) does not
    reach it. It takes its token from, in this order: O(api_token) written in the configuration file, the
    variable O(api_token_env) names, O(api_token_file) written in the configuration file, then
    E(GAMEPANEL_API_TOKEN), then the file E(GAMEPANEL_API_TOKEN_FILE) names."
  - "The jobs on this source's hosts send the token this source read with, from the same place (after a task's own
    O(api_token) and the variable C(gamepanel_api_token)); a job about to send another token to this panel stops
    before anything is sent, naming the account and both places."
  - "Several accounts: one source per account in one inventory directory, each with O(account), and
    O(hostname_prefix) where server names repeat. Two sources that would mix accounts (different connections
    without O(account), or one host name for two servers) stop the inventory with a message naming both."
  - The configuration file name must end in C(gamepanel.yml) or C(gamepanel.yaml).
requirements:
  - requests
extends_documentation_fragment:
  - gamepanel.panel.panel
  - gamepanel.panel.panel.plugin
  - ansible.builtin.constructed
  - ansible.builtin.inventory_cache
options:
  plugin:
    description: Marks the file as a configuration of this plugin.
    type: str
    required: true
    choices: [gamepanel.panel.servers]
  hostname_source:
    description:
      - Server field the inventory host name is made from.
      - V(name) gives readable host names; V(id) gives names that stay the same when a server
        is renamed in the panel.
    type: str
    choices: [name, id]
    default: name
  hostvar_prefix:
    description:
      - Prefix of the host variables holding the server's fields.
      - With the default, the variables are C(gamepanel_id), C(gamepanel_name), C(gamepanel_game),
        C(gamepanel_status), C(gamepanel_players) (a dictionary with C(current) and C(max)),
        C(gamepanel_cpu), C(gamepanel_memory_mb) and C(gamepanel_uptime_seconds).
      - A field the panel did not send is set to V(null).
      - These values are never rendered as templates, so a server named like a Jinja expression cannot run
        anything on the controller.
      - The collection's roles, ready playbooks, the report playbook with C(target) and the
        C(gamepanel.panel.keep_online) rulebook read the C(gamepanel_) variables (C(gamepanel_id) first of all),
        so keep the default when you use them. C(gamepanel_connection) keeps its name whatever the prefix.
    type: str
    default: gamepanel_
  games:
    description:
      - Only add servers whose game is one of these values (exact match).
      - Empty means every game.
    type: list
    elements: str
    default: []
  statuses:
    description:
      - Only add servers whose status is one of these values (exact match).
      - Empty means every status.
    type: list
    elements: str
    default: []
  name_patterns:
    description:
      - Only add servers whose name (as the panel gives it, before it is made a host name)
        matches one of these shell-style patterns, such as C(Rust*).
      - Empty means every name.
    type: list
    elements: str
    default: []
  api_token_file:
    description:
      - Path of a file that holds the API token (its only content; a trailing newline is ignored), read when
        the configuration file sets no O(api_token) and no O(api_token_env). For a systemd credential
        (C(LoadCredential=)) or a container secret, so the token is in no command line, environment or
        inventory file. The jobs on this source's hosts read the same file.
      - The file must not be readable by every user of the machine (mode C(0600) or C(0400)); a missing, empty
        or world-readable file fails the source with a message that names the file, never its content.
      - May be a template, for example a lookup of the environment variable E(CREDENTIALS_DIRECTORY), which systemd
        sets for a service with C(LoadCredential=), followed by C(/) and the credential's name.
    type: str
    env:
      - name: GAMEPANEL_API_TOKEN_FILE
  account:
    description:
      - A short name for the panel account this source reads (letters, digits and underscores, up to 40), for an
        inventory that holds one source per account.
      - "Its hosts join the group C(account_<account>) (a child of C(gamepanel)) and carry the variable
        C(gamepanel_account); this source's C(gamepanel_connection) is set on that group, so it reaches this
        source's hosts only and jobs act on each server through its own panel and token."
      - Sources whose connections differ (panel, settings or token) must each name their account; two sources of
        one account must use one connection. Otherwise the second source read stops with a message naming both.
      - Unset, the source's connection is set on the group C(gamepanel), as for an inventory of one account.
    type: str
  hostname_prefix:
    description:
      - Text put before every host name this source makes, so the servers of two accounts with the same names
        get different host names (C(eu_Survival), C(us_Survival)).
      - "Only letters, digits, C(_), C(-) and C(.)."
      - Two sources that would give one host name to two different servers (another panel, account or id)
        stop the inventory with a message naming both; one server listed by two sources of one account stays
        one host.
    type: str
    default: ""
  api_token_env:
    description:
      - The name of the environment variable that holds this account's API token, such as C(GAMEPANEL_EU_TOKEN).
      - The inventory reads its token from it (unless O(api_token) is written in this file, which comes first), and
        the name, never the token, goes into C(gamepanel_connection) as C(api_token_env), so every job task for
        these hosts takes its token from that variable too.
      - Unset, the token comes from O(api_token), O(api_token_file), E(GAMEPANEL_API_TOKEN) or E(GAMEPANEL_API_TOKEN_FILE).
    type: str
  local_connection:
    description:
      - Give every host C(ansible_connection=local) and C(ansible_python_interpreter={{ ansible_playbook_python }}),
        so tasks for a game server run on the controller, with the Python that runs Ansible
        (the one where C(requests) is installed).
      - Set to V(false) when you want to reach the machines behind the servers another way,
        for example with O(compose) setting C(ansible_host).
      - Variables set by O(compose) win over these.
    type: bool
    default: true
"""

EXAMPLES = r"""
# fleet.gamepanel.yml: the smallest configuration. The token comes from GAMEPANEL_API_TOKEN
# and the address from GAMEPANEL_BASE_URL.
plugin: gamepanel.panel.servers

---
# Token and address written as templates: read from other environment variables.
plugin: gamepanel.panel.servers
base_url: https://panel.example.com/api/v1
api_token: "{{ lookup('ansible.builtin.env', 'ACME_PANEL_TOKEN') }}"

---
# Token encrypted with ansible-vault (ansible-vault encrypt_string --stdin-name api_token);
# run ansible-inventory or ansible-playbook with --ask-vault-pass or --vault-password-file.
plugin: gamepanel.panel.servers
base_url: https://panel.example.com/api/v1
api_token: !vault |
  $ANSIBLE_VAULT;1.1;AES256
  6231...

---
# The token in a file only its owner can read: the inventory reads with it, and so does every job
# on these hosts.
plugin: gamepanel.panel.servers
base_url: https://panel.example.com/api/v1
api_token_file: /etc/gamepanel/control-token

---
# Only the Minecraft and Rust servers that are online and whose name starts with "EU";
# host names from server ids.
plugin: gamepanel.panel.servers
games: [minecraft, rust]
statuses: [online]
name_patterns: ["EU*"]
hostname_source: id

---
# Extra groups from the live state: players_busy / players_empty, and a group of
# servers running for more than a week.
plugin: gamepanel.panel.servers
keyed_groups:
  - prefix: players
    key: "'busy' if (gamepanel_players.current | default(0)) > 0 else 'empty'"
groups:
  up_for_a_week: (gamepanel_uptime_seconds | default(0)) > 604800
compose:
  player_slots_free: gamepanel_players.max - gamepanel_players.current

---
# Cache the server list for five minutes in JSON files; the token is never written there.
# A run within the cache lifetime makes no request; ansible-playbook --flush-cache and
# meta: refresh_inventory ask the panel again.
plugin: gamepanel.panel.servers
cache: true
cache_plugin: ansible.builtin.jsonfile
cache_connection: ~/.cache/gamepanel-inventory
cache_timeout: 300

---
# The planned (not yet released) API variant; Team plan rate limit.
plugin: gamepanel.panel.servers
api_variant: planned
base_url: https://panel.example.com/planned/v1
rate_limit: 600
"""

import hashlib

from ansible.errors import AnsibleError, AnsibleParserError
from ansible.module_utils.common.text.converters import to_native
from ansible.plugins.inventory import BaseInventoryPlugin, Cacheable, Constructable

from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import (
    NO_BASE_URL_MESSAGE,
    NO_INVENTORY_TOKEN_MESSAGE,
    PanelError,
)
from ansible_collections.gamepanel.panel.plugins.module_utils._api.token_file import (
    TOKEN_ENV,
    TOKEN_FILE_ENV,
    TOKEN_FILE_OPTION,
    in_file,
    in_inventory_file,
    in_variable,
    read_token_file,
    token_digest,
)
from ansible_collections.gamepanel.panel.plugins.module_utils._api.server_records import filter_servers
from ansible_collections.gamepanel.panel.plugins.plugin_utils import inventory_accounts as accounts
from ansible_collections.gamepanel.panel.plugins.plugin_utils import inventory_naming as naming
from ansible_collections.gamepanel.panel.plugins.plugin_utils import job_connection
from ansible_collections.gamepanel.panel.plugins.plugin_utils.inventory_config import CONFIG_SUFFIXES
from ansible_collections.gamepanel.panel.plugins.plugin_utils.inventory_templating import trusted_template, untrusted

try:
    from ansible_collections.gamepanel.panel.plugins.module_utils._api.client import PanelClient
except ImportError as client_import_error:  # a broken installation: reported when the panel must be asked, not at load
    PanelClient = None
    CLIENT_IMPORT_ERROR = client_import_error
else:
    CLIENT_IMPORT_ERROR = None

# Bump when the cached structure changes, so an old cache entry counts as a miss.
CACHE_FORMAT = 1

# Variables that make a host run its tasks on the controller (see the local_connection option).
# The interpreter is a template of our own, so it is marked trusted where that is needed.
LOCAL_CONNECTION_VARIABLES = {
    "ansible_connection": "local",
    "ansible_python_interpreter": trusted_template("{{ ansible_playbook_python }}"),
}


# Variable of the all group that tells playbooks a gamepanel inventory could not be read:
# one "<path>: <reason>" per source that failed (never the token). A source that was read
# always creates the group gamepanel, even for an empty fleet.
INVENTORY_ERRORS_VARIABLE = "gamepanel_inventory_errors"


class InventoryModule(BaseInventoryPlugin, Constructable, Cacheable):

    NAME = "gamepanel.panel.servers"

    def verify_file(self, path):
        return super(InventoryModule, self).verify_file(path) and path.endswith(CONFIG_SUFFIXES)

    def parse(self, inventory, loader, path, cache=True):
        super(InventoryModule, self).parse(inventory, loader, path, cache)
        try:
            self._read_config_data(path)
            connection, handed = self._connection_settings(path)
            servers = self._servers(path, connection, use_cache=cache)
            self._populate(path, connection, handed, self._filtered(servers))
        except AnsibleError as error:
            # Ansible turns a failed source into a warning and runs on with no hosts; the
            # reason, kept on the all group, lets playbooks and roles fail loudly instead.
            self._record_on_all_group(INVENTORY_ERRORS_VARIABLE, "%s: %s" % (path, to_native(error)))
            raise

    def _record_on_all_group(self, variable, entry):
        """Append ``entry`` to the list ``variable`` of the all group (one entry per source)."""
        group = self.inventory.groups["all"]
        entries = list(group.get_vars().get(variable) or [])
        if entry not in entries:  # a source tried twice (auto plugin and enabled plugin) counts once
            entries.append(untrusted(entry))
        group.set_variable(variable, entries)

    def _hand_on_connection(self, handed, account):
        """Put the connection on the group of this source's hosts: its account's group, else the fleet group."""
        group_name = naming.ALL_SERVERS_GROUP
        if account is not None:
            group_name = naming.account_group(account)
            self.inventory.add_group(group_name)
            self.inventory.add_child(naming.ALL_SERVERS_GROUP, group_name)
            self.inventory.groups[group_name].set_variable(naming.ACCOUNT_VARIABLE, untrusted(account))
        group = self.inventory.groups[group_name]
        group.set_variable(
            job_connection.CONNECTION_VARIABLE, dict((key, untrusted(value)) for key, value in handed.items())
        )
        return group_name

    # -- options ------------------------------------------------------------------------------

    def _templated_option(self, name):
        """Option value with templates rendered, so lookups and extra vars work; vault decrypts here too."""
        value = self.get_option(name)
        if isinstance(value, str) and self.templar.is_template(value):
            self.templar.available_variables = self._vars
            value = self.templar.template(value)
        return None if value is None else to_native(value)

    def _token(self, path):
        """``(token, handed, origin)``: the token this source reads with, what its hosts' jobs are told of it, and where it came from.

        The order is fixed: api_token written in this file, the variable api_token_env names, api_token_file
        written in this file, GAMEPANEL_API_TOKEN, the file GAMEPANEL_API_TOKEN_FILE names. ``handed``
        names the source (never the token) so a job reads this account's token where this source did; it is
        empty where the source took the environment's, which the jobs take too.
        """
        path = str(path)  # the plain text of the path, never a value tagged by the loader
        token = self._templated_option("api_token")
        if token and token.strip() and not self._from_environment("api_token"):
            return token, {job_connection.TOKEN_INVENTORY_KEY: path}, in_inventory_file(path)
        token_env = self.get_option("api_token_env")
        if token_env:
            try:
                job_connection.check_token_env(token_env)
                token = job_connection.token_from_env(token_env)
            except job_connection.ConnectionVariableError as error:
                raise AnsibleParserError(to_native(error))
            return token, {job_connection.TOKEN_ENV_KEY: token_env}, in_variable(token_env)
        token_file = self._templated_option("api_token_file")
        file_from_environment = self._from_environment("api_token_file")
        try:
            if token_file and not file_from_environment:
                token = read_token_file(token_file, TOKEN_FILE_OPTION)
                return token, {job_connection.TOKEN_FILE_KEY: token_file}, in_file(token_file, TOKEN_FILE_OPTION)
            if token and token.strip():  # api_token's own environment variable
                return token, {}, TOKEN_ENV
            if token_file:
                return read_token_file(token_file, TOKEN_FILE_ENV), {}, in_file(token_file, TOKEN_FILE_ENV)
        except PanelError as error:
            raise AnsibleParserError(str(error)) from None
        return None, {}, None

    def _connection_settings(self, path):
        """The client's settings (with the token) and what the hosts' jobs are handed (without it)."""
        token, token_source, origin = self._token(path)
        settings = {
            "base_url": self._templated_option("base_url"),
            "api_token": token,
            "api_variant": self._templated_option("api_variant") or "live",
            "validate_certs": self.get_option("validate_certs"),
            "request_timeout": self.get_option("request_timeout"),
            "rate_limit": self.get_option("rate_limit"),
            "retry_timeout": self.get_option("retry_timeout"),
            "allow_insecure_http": self.get_option("allow_insecure_http"),
        }
        # Checked here, not left to the client, because the cache key needs both before any client exists.
        if not settings["api_token"] or not settings["api_token"].strip():
            raise AnsibleParserError(NO_INVENTORY_TOKEN_MESSAGE)
        if not settings["base_url"] or not settings["base_url"].strip():
            raise AnsibleParserError(NO_BASE_URL_MESSAGE)
        handed = dict((key, settings[key]) for key in job_connection.CONNECTION_KEYS)
        handed.update(token_source)
        handed[job_connection.TOKEN_DIGEST_KEY] = token_digest(settings["api_token"])
        handed[job_connection.TOKEN_ORIGIN_KEY] = origin
        return settings, handed

    def _from_environment(self, option):
        """Whether ``option``'s value came from its environment variable rather than from the inventory file."""
        try:
            _value, origin = self.get_option_and_origin(option)
        except KeyError:  # options handed over without their origins (unit tests) count as the file's
            return False
        return str(origin).startswith("env:")

    # -- data: cache or panel -----------------------------------------------------------------

    def _servers(self, path, connection, use_cache):
        """The normalised server list, from the cache when allowed and fresh, else from the panel."""
        cache_enabled = self.get_option("cache")
        cache_key = self._cache_key_for(path, connection)
        if cache_enabled and use_cache:
            cached = self._cached_servers(cache_key)
            if cached is not None:
                return cached
        servers = self._fetch_servers(connection)
        if cache_enabled:
            # Only server data goes in: the token, even hashed, stays out of the value.
            self._cache[cache_key] = {"format": CACHE_FORMAT, "servers": servers}
        return servers

    def _cache_key_for(self, path, connection):
        # The key tells apart panels, variants and tokens (different tokens may see different
        # accounts) through a one-way digest; the token itself is never stored.
        digest = hashlib.sha256()
        for part in (connection["base_url"], connection["api_variant"], connection["api_token"]):
            digest.update(part.encode("utf-8"))
            digest.update(b"\0")
        return "%s_%s" % (self.get_cache_key(path), digest.hexdigest()[:16])

    def _cached_servers(self, cache_key):
        try:
            entry = self._cache[cache_key]
        except KeyError:
            return None
        if (
            not isinstance(entry, dict)
            or entry.get("format") != CACHE_FORMAT
            or not isinstance(entry.get("servers"), list)
        ):
            return None
        return entry["servers"]

    def _fetch_servers(self, connection):
        client = self._make_client(connection)
        try:
            return client.list_servers()
        except PanelError as error:
            # The client's message is complete and token-free; repeat it as the modules do.
            raise AnsibleError(to_native(error))

    def _make_client(self, connection):
        """Built only when the panel must be asked, so a cache hit touches neither network nor budget."""
        if CLIENT_IMPORT_ERROR is not None:
            raise AnsibleError(
                "%s could not load the collection's API client: %s" % (self.NAME, to_native(CLIENT_IMPORT_ERROR))
            )
        try:
            client = PanelClient(**connection)
        except PanelError as error:  # settings the client refuses, e.g. a base_url that is not a URL
            raise AnsibleError(to_native(error))
        for warning in client.warnings:
            self.display.warning(warning)
        return client

    # -- inventory ----------------------------------------------------------------------------

    def _filtered(self, servers):
        games = self.get_option("games") or None
        statuses = self.get_option("statuses") or None
        names = self.get_option("name_patterns") or None
        if not (games or statuses or names):
            return servers
        selected = filter_servers(servers, names=names, games=games, statuses=statuses)
        if servers and not selected:
            self.display.v(
                "%s: the panel listed %d servers, none passed games/statuses/name_patterns." % (self.NAME, len(servers))
            )
        return selected

    def _nameable(self, servers, hostname_source):
        """Servers that can be named; one the panel sent with neither name nor id is skipped loudly."""
        kept = [server for server in servers if naming.base_host_name(server, hostname_source)]
        if len(kept) != len(servers):
            self.display.warning(
                "%s: skipped %d server(s) the panel listed without a usable %s."
                % (self.NAME, len(servers) - len(kept), "id" if hostname_source == "id" else "name or id")
            )
        return kept

    def _populate(self, path, connection, handed, servers):
        try:
            prefix = naming.check_hostvar_prefix(self.get_option("hostvar_prefix"))
            account = naming.check_account(self.get_option("account"))
            hostname_source = self.get_option("hostname_source")
            servers = self._nameable(servers, hostname_source)
            group_names = naming.fleet_group_names(servers, self._sanitize_group_name)
            reserved = group_names + ([naming.account_group(account)] if account else [])
            hosts = naming.assign_host_names(
                servers,
                hostname_source,
                reserved=reserved,
                prefix=naming.check_hostname_prefix(self.get_option("hostname_prefix")),
            )
            # before anything is added: a clash with another source leaves this one out whole
            accounts.register(self.inventory, self._source(path, account, handed, connection, hosts))
        except ValueError as error:
            raise AnsibleParserError(to_native(error))

        inventory = self.inventory
        for group_name in group_names:
            inventory.add_group(group_name)
        hosts_group = self._hand_on_connection(handed, account)

        extra_variables = LOCAL_CONNECTION_VARIABLES if self.get_option("local_connection") else {}
        construct = self._constructed_features()
        for host_name, server in hosts:
            inventory.add_host(host_name, group=naming.ALL_SERVERS_GROUP)
            if hosts_group != naming.ALL_SERVERS_GROUP:
                inventory.add_child(hosts_group, host_name)
            for group_name in naming.group_names_for(server, self._sanitize_group_name)[1:]:
                inventory.add_child(group_name, host_name)
            # The panel's data is not trusted as a template: a server named "{{ ... }}" stays text.
            variables = dict((name, untrusted(value)) for name, value in naming.host_variables(server, prefix).items())
            # Straight to the Host (the same call InventoryData.set_variable ends in): skipping
            # the name lookup and debug line per variable is measurable over 10,000 hosts.
            host = inventory.get_host(host_name)
            for name, value in extra_variables.items():
                host.set_variable(name, value)
            for name, value in variables.items():
                host.set_variable(name, value)
            if construct:
                self._construct(host_name, variables, *construct)

    @staticmethod
    def _source(path, account, handed, connection, hosts):
        """This source as the register of accounts compares it with the others (accounts.Source)."""
        panel = (connection["base_url"], connection["api_variant"])
        named = dict((host_name, panel + (str(server.get("id")),)) for host_name, server in hosts)
        compared = dict((key, handed[key]) for key in job_connection.CONNECTION_KEYS)
        return accounts.Source(path, account, compared, connection["api_token"], named)

    def _constructed_features(self):
        """The compose/groups/keyed_groups settings, or None when none is configured (skips their per-host cost)."""
        compose = self.get_option("compose")
        groups = self.get_option("groups")
        keyed_groups = self.get_option("keyed_groups")
        if not (compose or groups or keyed_groups):
            return None
        return compose, groups, keyed_groups, self.get_option("strict")

    def _construct(self, host_name, variables, compose, groups, keyed_groups, strict):
        self._set_composite_vars(compose, variables, host_name, strict=strict)
        self._add_host_to_composed_groups(groups, variables, host_name, strict=strict)
        self._add_host_to_keyed_groups(keyed_groups, variables, host_name, strict=strict)
