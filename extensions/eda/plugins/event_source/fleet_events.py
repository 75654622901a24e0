# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""gamepanel.panel.fleet_events: an ansible-rulebook event source that watches the fleet of a game-server panel."""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import os
import random
import re
import sys
import time

DOCUMENTATION = r"""
---
name: fleet_events
short_description: Events for every change of a game server of the panel (status, restart, added, removed)
version_added: 1.0.0
description:
  - An ansible-rulebook (Event-Driven Ansible) event source. The panel has no webhooks or event
    stream, so the source reads the fleet every O(interval) seconds (C(GET /servers), one request
    a page) and puts one event on the queue for each change of one server since the previous read.
  - Each event holds the change under the key C(gamepanel) with C(kind) (V(status_changed), V(restarted),
    V(added), V(removed), V(found_stopped) or V(start_failed)), C(id), C(name), C(game), C(status), C(previous_status),
    C(uptime_seconds), C(players), C(expected), C(server) (the record as read) and C(host) (the inventory host name the
    C(gamepanel.panel.servers) inventory gives the server), C(in_inventory), C(stopped), C(incidents),
    C(crash_looping), C(left_alone), C(expected_by), C(start_failure) and C(seen_at).
  - "After the events of one read, when that read found servers to start, one event of kind V(outage) names
    them all, so that one playbook run starts them: C(ids), C(hosts), C(servers) (C(id), C(name), C(host),
    C(kind) of each), C(held_back) (C(id), C(name), C(reason) of each server found down but not in C(ids))
    and C(seen_at). A server is to start when it went from a running status to a stopped one unexpectedly
    (C(expected) false), was V(found_stopped), or its start failed (V(start_failed)); it is held back when it is
    V(crash_looping), V(left_alone), V(not_in_inventory), or when a start is V(start_under_way): it was handed
    out by an earlier V(outage), no read has seen it in another status since, and its start may still bring it
    up. The rulebook C(gamepanel.panel.keep_online) runs C(gamepanel.panel.ensure_online) with C(target_ids)
    set to C(ids)."
  - "V(start_failed) (no change of the server: it comes from the hand-outs) says that a server handed out is
    still down and its start is over without bringing it up; C(start_failure) says why: V(not_queued) (the
    panel refused it: its error answer, HTTP 429 or 503 for example, or it failed before the panel could
    queue it), V(answer_lost) (its answer was lost, or its run stopped before learning it, and O(retry_after)
    seconds passed since the answer and the hand-out), V(down_again) (it was confirmed, and the server is
    down again), V(run_stopped) (the panel refused the start of another server of the same hand-out, and the
    run stopped before it came to this one) or V(not_sent) (no start was sent for the hand-out within 15
    minutes). The server is handed out again in this read's V(outage); an open ledger entry of the start is
    given up first (dropped), so that the new run sends a new start: a second start of a server that came
    up changes nothing."
  - "A refused start is the panel's state, not the server's: it is never an incident. It is sent again at the
    next read after the first refusal, then after a backoff that doubles with each refusal in a row (5 s up
    to 300 s) and is never shorter than the panel's C(Retry-After), for as long as the server is down; the
    servers its run did not come to (V(run_stopped)) wait with it. The refusals are logged at most once a
    minute per server, with their count. A start the panel queued for an agent that is away is followed
    (the rulebook sends no second one) until the agent applies it, however long that takes. Only
    V(down_again) counts as an incident: a server whose starts keep bringing it up and down again reaches
    O(crash_limit) and is given up on, with its count."
  - "V(restarted) means the uptime went back while the server stayed online. A server whose status and
    uptime did not change gives no event. The first read is the baseline: it gives no V(added) for the fleet
    as it is when the source starts, but with O(found_stopped) one V(found_stopped) event for each server
    already in a stopped status that no stop the collection queued explains (a server that crashed while the
    source was not running, for example during a restart of its activation)."
  - C(expected) is true when an action the collection queued (its ledger, in the state directory) explains
    the change; C(expected_by) is that ledger entry (id, action, queued_at, state). A stop explains a change
    away from online, a start a change to anything but a stopped status, a restart any status change and
    a restart. The entry must have been queued before the read that saw the change.
  - C(incidents) counts the incidents of the server within O(crash_window) seconds, this one included (0 for
    any other event), that is its unexpected crashes (a change from a running status to a stopped one; a
    change between two stopped statuses is none), unexpected restarts, V(found_stopped) events and
    V(start_failed) events of V(down_again). C(crash_looping) is true once it reaches O(crash_limit).
    The record is kept per panel in the state directory, each incident with the server's id and the
    inventory's C(account) (the fleet report shows them per account).
  - "The connection and the host naming come from the source's options, else from the
    C(gamepanel.panel.servers) inventory file (O(inventory), by default the one ansible-rulebook was started
    with: C(-i)), else from the C(GAMEPANEL_*) environment variables. From the file the source takes the
    connection options, C(hostname_source), C(hostname_prefix), C(account), C(games), C(statuses) and
    C(name_patterns) as written, and the token from the variable C(api_token_env) names when the file sets it
    (one activation per account: see docs/accounts.md of the collection), else from the file C(api_token_file)
    names, before C(GAMEPANEL_API_TOKEN); last comes the file C(GAMEPANEL_API_TOKEN_FILE) names (a token file
    readable by every user, empty or missing stops the source at its start, naming the file); it renders
    no template and decrypts no vault value (it names such an option in its log and falls back to the
    environment). A server that the file's C(games), C(statuses) or C(name_patterns) leave out is logged
    with its event, whose C(host) is null and C(in_inventory) false."
  - Every read goes through the token's shared rate budget (O(rate_limit)), with the modules and the
    inventory on the same controller, and uses at most O(budget_share) of it. A failed read (HTTP 5xx, 429 past O(retry_timeout), an answer that
    is not the panel's, a revoked token, a panel that cannot be reached) is logged with its reason and
    tried again after a growing pause (up to 300 seconds or O(interval)); the source keeps running. The
    API token never appears in an event or a log line.
  - Reads run in a worker thread, never in the event loop.
extends_documentation_fragment:
  - gamepanel.panel.panel
options:
  interval:
    description:
      - Seconds between two fleet reads.
    type: float
    default: 30
  stopped_statuses:
    description:
      - Status values that mean the server is stopped (the event's C(stopped) is true for them).
    type: list
    elements: str
    default: [offline, stopped]
  crash_limit:
    description:
      - Incidents (unexpected crashes and restarts, starts that brought the server up before it went down
        again; never a start the panel refused) of one server within O(crash_window) seconds (the one just
        seen included) at which the event says C(crash_looping).
    type: int
    default: 3
  crash_window:
    description:
      - Seconds over which the incidents of one server are counted.
    type: float
    default: 900
  retry_after:
    description:
      - Seconds a start whose answer was lost is followed before it is sent again, when the server is still
        down that long after the answer and after its hand-out (event V(start_failed), C(start_failure)
        V(answer_lost)). The bound the server's agent needs to act on a queued action; a start that the panel
        refused is sent again after its own backoff, whatever this says.
      - A value that is not a positive number stops the source at start, with the reason.
    type: float
    default: 120
  leave_alone:
    description:
      - Ids or names of servers the operator keeps down (stopped by hand in the panel, for example). Their
        events say C(left_alone) and the rulebook C(gamepanel.panel.keep_online) never starts them.
      - A list, or a string holding a JSON or YAML list or comma-separated ids.
    type: list
    elements: str
    default: []
  found_stopped:
    description:
      - Whether the first read reports each server found in a stopped status that the ledger does not
        explain, as an event of kind V(found_stopped) (C(expected) false, C(previous_status) null).
    type: bool
    default: true
  budget_share:
    description:
      - The share of the token's O(rate_limit) the source's reads may use, a fraction greater than 0 and at
        most 1. A fleet read costs one request per page of C(GET /servers); when reading every O(interval)
        seconds would cost more than this share of O(rate_limit) a minute, the source reads less often (every
        pages x 60 / (O(budget_share) x O(rate_limit)) seconds) and logs so once. The jobs on the same token
        keep the rest of the budget.
      - With O(rate_limit=0) (no client-side pacing) the interval is never stretched.
    type: float
    default: 0.25
  inventory:
    description:
      - Path of the C(gamepanel.panel.servers) inventory file (or of a directory holding exactly one) whose
        connection options and host naming the source uses where its own options set none.
      - By default the inventory ansible-rulebook was started with (C(-i)/C(--inventory)), when it is one;
        without it the source uses its options and the environment only.
      - A path given here that is not such a file stops the source at start, with the reason.
    type: path
  hostname_source:
    description:
      - What the inventory names hosts by (the C(hostname_source) of the C(gamepanel.panel.servers)
        inventory), for the event's C(host).
      - By default the C(hostname_source) of the inventory file (see O(inventory)), else V(name).
    type: str
    choices: [name, id]
notes:
  - Runs in ansible-rulebook, which needs Java 17 or later and C(ansible-galaxy) on PATH; the Python running
    ansible-rulebook needs C(requests) and ansible-core. See docs/eda.md of the collection.
  - The rulebook C(gamepanel.panel.keep_online) uses this source.
author:
  - gamepanel.panel contributors
"""

EXAMPLES = r"""
- name: Watch the fleet
  hosts: all
  sources:
    - gamepanel.panel.fleet_events:
        interval: 30            # the token comes from GAMEPANEL_API_TOKEN, the panel from GAMEPANEL_BASE_URL
  rules:
    - name: A server stopped and nobody asked for it
      condition: >-
        event.gamepanel.kind == "status_changed" and event.gamepanel.stopped == true
        and event.gamepanel.expected == false
      action:
        print_event:
          pretty: true
"""


# ansible-rulebook runs this file with runpy.run_path: nothing puts the collection on sys.path.
# plugins/plugin_utils/collection_import.py (loaded by its path; the tests use it too) does.
_COLLECTION_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), *([os.pardir] * 4))
_COLLECTION_IMPORT = os.path.join(_COLLECTION_DIR, "plugins", "plugin_utils", "collection_import.py")
_spec = importlib.util.spec_from_file_location("gamepanel_panel_collection_import", _COLLECTION_IMPORT)
_loaded = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_loaded)
_loaded.make_importable(os.path.normpath(_COLLECTION_DIR))

# pylint: disable=wrong-import-position
from ansible_collections.gamepanel.panel.plugins.module_utils._api.client import PanelClient  # noqa: E402
from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import PanelError, redact  # noqa: E402
from ansible_collections.gamepanel.panel.plugins.module_utils._state.ledger import Ledger  # noqa: E402
from ansible_collections.gamepanel.panel.plugins.module_utils._entry.connection import panel_argument_spec  # noqa: E402
from ansible_collections.gamepanel.panel.plugins.module_utils._api.server_records import filter_servers  # noqa: E402
from ansible_collections.gamepanel.panel.plugins.module_utils._api import token_file  # noqa: E402
from ansible_collections.gamepanel.panel.plugins.plugin_utils import eda_watch  # noqa: E402
from ansible_collections.gamepanel.panel.plugins.plugin_utils import inventory_config  # noqa: E402
from ansible_collections.gamepanel.panel.plugins.plugin_utils import job_connection  # noqa: E402
from ansible_collections.gamepanel.panel.plugins.plugin_utils.job_connection import TOKEN_ENV_KEY  # noqa: E402
from ansible_collections.gamepanel.panel.plugins.plugin_utils import inventory_naming as naming  # noqa: E402

LOGGER = logging.getLogger("gamepanel.panel.fleet_events")

DEFAULT_INTERVAL = 30.0
DEFAULT_BUDGET_SHARE = 0.25
MAX_BACKOFF = 300.0
_TRUE = ("1", "true", "yes", "on", "y", "t")
_FALSE = ("0", "false", "no", "off", "n", "f", "")


class SettingsError(ValueError):
    """The source's arguments or environment are not usable (reported once, at start)."""


def _convert(name, value, kind):
    if value is None:
        return None
    try:
        if kind == "bool":
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in _TRUE:
                return True
            if text in _FALSE:
                return False
            raise ValueError(value)
        if kind == "int":
            return int(value)
        if kind == "float":
            return float(value)
        return str(value)
    except (TypeError, ValueError):
        raise SettingsError(
            "fleet_events: %s must be a %s."
            % (name, {"bool": "boolean", "int": "whole number", "float": "number"}.get(kind, "string"))
        )


def connection_params(args, environ=None, inventory_options=None):
    """The shared connection options from the source's ``args``, else the inventory file's, else their
    GAMEPANEL_* variables, else defaults.

    The names, types, defaults and environment variables are those of every module
    (``module_utils._entry.connection.panel_argument_spec``); the inventory file comes before the environment
    as it does for the inventory plugin reading that file.
    """
    environ = os.environ if environ is None else environ
    inventory_options = inventory_options or {}
    params = {}
    for name, option in panel_argument_spec().items():
        value = args.get(name)
        if value is None:
            value = inventory_options.get(name)
        if value is None and name == "api_token" and inventory_options.get(TOKEN_ENV_KEY):
            # the inventory's account keeps its token in a variable of its own (api_token_env)
            try:
                value = job_connection.token_from_env(
                    job_connection.check_token_env(inventory_options[TOKEN_ENV_KEY]), environ
                )
            except job_connection.ConnectionVariableError as error:
                raise SettingsError("fleet_events: %s" % error) from None
        if value is None and name == "api_token":
            value = _token_of_files_or_environment(inventory_options, option["fallback"][1], environ)
        elif value is None and option.get("fallback"):
            for variable in option["fallback"][1]:
                if environ.get(variable) not in (None, ""):
                    value = environ[variable]
                    break
        if value is None:
            value = option.get("default")
        value = _convert(name, value, option.get("type", "str"))
        if option.get("choices") and value not in option["choices"]:
            raise SettingsError("fleet_events: %s must be one of %s." % (name, ", ".join(option["choices"])))
        params[name] = value
    return params


def _token_of_files_or_environment(inventory_options, variables, environ):
    """The token the inventory file's ``api_token_file`` names, else the environment's (``variables``, then the
    file GAMEPANEL_API_TOKEN_FILE names), else None: the inventory plugin's order. A file that cannot be used
    stops the source, naming it."""
    path = inventory_options.get(token_file.TOKEN_FILE_OPTION)
    try:
        if path:
            return token_file.read_token_file(str(path), token_file.TOKEN_FILE_OPTION)
        return token_file.token_from_environment(variables, environ)
    except token_file.TokenFileError as error:
        raise SettingsError("fleet_events: %s" % error) from None


def _string_list(name, value):
    """A list of strings from a list, a JSON or YAML list in a string (a rulebook's template gives one), or "a,b"."""
    if value is None or value == "":
        return []
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                import yaml

                value = yaml.safe_load(text)
            except Exception:  # pylint: disable=broad-except
                raise SettingsError("fleet_events: %s is not a list: %s" % (name, text)) from None
        else:
            value = [item.strip() for item in text.split(",") if item.strip()]
    if not isinstance(value, (list, tuple, set)):
        raise SettingsError("fleet_events: %s must be a list." % name)
    return [str(item) for item in value if item is not None and str(item) != ""]


def _safe_group_name():
    """The group-name rule the inventory plugin applies (Ansible's, for inventory plugins: forced)."""
    try:
        from ansible.plugins.inventory import to_safe_group_name
    except Exception:  # pylint: disable=broad-except
        return lambda name: re.sub(r"[^A-Za-z0-9_]", "_", name)
    return to_safe_group_name


class FleetEventSource(object):
    """What ``main`` runs: reads the fleet through the collection's client and turns changes into events."""

    def __init__(self, args, environ=None, client=None, rng=None, argv=None):
        args = dict(args or {})
        self.inventory = self._inventory(args, sys.argv if argv is None else argv)
        inventory_options = self.inventory.options if self.inventory else {}
        self.params = connection_params(args, environ, inventory_options)
        self.interval = _convert("interval", args.get("interval", DEFAULT_INTERVAL), "float")
        if self.interval is None or self.interval <= 0:
            raise SettingsError("fleet_events: interval must be a positive number of seconds.")
        try:
            self.budget_share = _convert("budget_share", args.get("budget_share", DEFAULT_BUDGET_SHARE), "float")
        except SettingsError:
            self.budget_share = None
        if self.budget_share is None or not 0 < self.budget_share <= 1:
            raise SettingsError(
                "fleet_events: budget_share must be a fraction of the token's rate_limit greater than 0 and at "
                "most 1 (0.25 lets the reads use a quarter of it), not %r." % args.get("budget_share")
            )
        statuses = _string_list("stopped_statuses", args.get("stopped_statuses")) or list(
            eda_watch.DEFAULT_STOPPED_STATUSES
        )
        self.crash_limit = _convert("crash_limit", args.get("crash_limit", eda_watch.DEFAULT_CRASH_LIMIT), "int")
        self.crash_window = _convert("crash_window", args.get("crash_window", eda_watch.DEFAULT_CRASH_WINDOW), "float")
        try:
            retry_after = _convert("retry_after", args.get("retry_after", eda_watch.DEFAULT_RETRY_AFTER), "float")
        except SettingsError:
            retry_after = None
        if retry_after is None or retry_after <= 0:
            raise SettingsError(
                "fleet_events: retry_after must be a positive number of seconds (how long a start whose answer was "
                "lost is followed before it is sent again), not %r." % args.get("retry_after")
            )
        self.leave_alone = frozenset(_string_list("leave_alone", args.get("leave_alone")))
        self.hostname_source = args.get("hostname_source") or inventory_options.get("hostname_source") or "name"
        if self.hostname_source not in naming.HOSTNAME_SOURCES:
            raise SettingsError("fleet_events: hostname_source must be name or id.")
        # the inventory's own naming of an account's hosts, so that an event's host is the inventory's
        try:
            self.hostname_prefix = naming.check_hostname_prefix(inventory_options.get("hostname_prefix"))
            account = naming.check_account(inventory_options.get("account"))
        except ValueError as error:
            raise SettingsError("fleet_events: inventory: %s" % error) from None
        self.account_groups = [naming.account_group(account)] if account else []
        self.account = account or None  # each incident is recorded under it: ids repeat across accounts
        # Which servers the inventory holds: the playbooks keep_online runs can start no other.
        self.inventory_filters = dict(
            (name, _string_list(name, inventory_options.get(name))) for name in ("games", "statuses", "name_patterns")
        )
        token = self.params.get("api_token")
        self._token = token.strip() if isinstance(token, str) else None
        if client is None:
            try:
                client = PanelClient(
                    self.params["base_url"],
                    self.params["api_token"],
                    api_variant=self.params["api_variant"],
                    validate_certs=self.params["validate_certs"],
                    request_timeout=self.params["request_timeout"],
                    rate_limit=self.params["rate_limit"],
                    retry_timeout=self.params["retry_timeout"],
                    allow_insecure_http=self.params["allow_insecure_http"],
                )
            except PanelError as error:
                raise SettingsError("fleet_events: %s" % self.redact(str(error))) from None
        self.client = client
        self.params.pop("api_token", None)  # nothing but the client keeps it
        for warning in client.warnings:
            LOGGER.warning("fleet_events: %s", warning)
        self.ledger = Ledger.for_client(client)
        for warning in self.ledger.warnings():
            LOGGER.warning("fleet_events: %s", warning)
        # The incident record is the panel's, beside its ledger (never the token's: a rotated token keeps it),
        # where the fleet report reads it for each account.
        self.files = eda_watch.incident_files(self.ledger.panel)
        self.memory_record = eda_watch.IncidentRecord(panel=self.ledger.panel)
        self.changes = eda_watch.FleetChanges(
            statuses, found_stopped=_convert("found_stopped", args.get("found_stopped", True), "bool")
        )
        self.statuses = tuple(statuses)
        self.batches = eda_watch.StartBatches(statuses, retry_after=retry_after)
        self.sanitize = _safe_group_name()
        self.rng = rng or random.random
        self.failures = 0
        self.reads = 0
        # Requests the last successful read cost (one per page): what the budget share is checked with.
        self.pages_per_read = 1
        self.stretch_logged = False

    @staticmethod
    def _inventory(args, argv):
        """The inventory file's options (an InventoryConfig) or None; an ``inventory`` option that is unusable stops the source."""
        explicit = args.get("inventory") or None
        config, why = inventory_config.locate(explicit, argv)
        if config is None:
            if explicit:
                raise SettingsError("fleet_events: inventory: %s." % why)
            if why:
                LOGGER.info("fleet_events: %s; the connection comes from the source's options and GAMEPANEL_*", why)
            return None
        LOGGER.info(
            "fleet_events: inventory %s gives %s",
            config.path,
            ", ".join(sorted(name for name in config.options if name != "api_token")) or "no option the source uses",
        )
        for name, what in sorted(config.skipped.items()):
            LOGGER.info(
                "fleet_events: %s in %s is %s, which only the inventory plugin reads; the source uses its own "
                "option or the environment for it",
                name,
                config.path,
                what,
            )
        return config

    def redact(self, text):
        return redact(text, self._token) if self._token else text

    # -- blocking work, run in a thread ---------------------------------------------------

    def read(self):
        """One fleet read: (servers, live ledger entries, wall time of the read); counts its pages."""
        servers = []
        pages = 0
        for page in self.client.server_pages():
            pages += 1
            servers.extend(page.servers)
        self.pages_per_read = max(1, pages)
        # wall time: compared with the ledger's queued_at and kept in the incident record, both read by other processes
        seen_at = self.client.clock.time()
        return servers, self.ledger.entries(), seen_at

    def events_for(self, servers, entries, seen_at):
        """The events of one successful read, annotated with host, incidents and crash_looping."""
        events = self.changes.observe(servers, seen_at, entries)
        failed, given_up = self.failed_starts(servers, entries, seen_at, events)
        self.log_refusals(seen_at)
        events.extend(failed)
        if not events:
            return []
        filters = self.inventory_filters
        held = (
            filter_servers(
                servers, names=filters["name_patterns"], games=filters["games"], statuses=filters["statuses"]
            )
            if any(filters.values())
            else servers
        )
        held_ids = set(server.get("id") for server in held)
        hosts = {}
        try:
            usable = [server for server in held if naming.base_host_name(server, self.hostname_source)]
            groups = naming.fleet_group_names(usable, self.sanitize) + self.account_groups
            for host, server in naming.assign_host_names(
                usable, self.hostname_source, reserved=groups, prefix=self.hostname_prefix
            ):
                hosts[server.get("id")] = host
        except ValueError:
            pass
        for event in events:
            event["host"] = hosts.get(event["id"])
            event["in_inventory"] = event["id"] in held_ids or event["kind"] == eda_watch.REMOVED
            event["left_alone"] = event["id"] in self.leave_alone or event.get("name") in self.leave_alone
            event["incidents"] = 0
            if eda_watch.is_incident(event, self.statuses):
                event["incidents"] = eda_watch.record_incident(
                    self.files, self.memory_record, event, seen_at, self.crash_window, self.ledger.panel, self.account
                )
            event["crash_looping"] = event["incidents"] >= self.crash_limit
        outage = self.batches.batch(events, servers, seen_at)
        for server_id in outage["ids"] if outage else ():
            if server_id in given_up:
                # the ledger holds back a second start while this one is open: the new run sends it
                self.ledger.drop(given_up[server_id], not_queued=False)
        return events + [outage] if outage else events

    def failed_starts(self, servers, entries, seen_at, events):
        """This read's ``start_failed`` events (none for a server with an event in ``events``), and
        ``{id: the open ledger entry to give up on}`` for those of them whose start may be queued."""
        failed, given_up = [], {}
        if not self.batches.handed_out:
            return failed, given_up
        notes = self.ledger.not_queued_of(list(self.batches.handed_out))
        skip = set(event["id"] for event in events)
        fleet = eda_watch.index_fleet(servers)
        for server, reason, entry in self.batches.failed_starts(fleet, entries, notes, seen_at, skip):
            failed.append(self.changes.start_failed(server, reason, seen_at))
            if entry is not None:
                given_up[server["id"]] = entry
        return failed, given_up

    def poll(self):
        """Read once and return the events, or raise the failure."""
        servers, entries, seen_at = self.read()
        return self.events_for(servers, entries, seen_at)

    # -- the loop -------------------------------------------------------------------------

    def read_interval(self):
        """Seconds between two reads: ``interval``, or longer where the fleet's pages would exceed the budget share."""
        rate_limit = self.params.get("rate_limit") or 0
        if rate_limit <= 0:
            return self.interval
        allowed_per_minute = self.budget_share * rate_limit
        needed = self.pages_per_read * 60.0 / allowed_per_minute
        if needed <= self.interval:
            return self.interval
        if not self.stretch_logged:
            self.stretch_logged = True
            LOGGER.warning(
                "fleet_events: a fleet read costs %d requests (one per page); every %g s that is %.0f a minute, "
                "more than budget_share %g of rate_limit %d (%.0f a minute): the source reads every %.0f s instead",
                self.pages_per_read,
                self.interval,
                self.pages_per_read * 60.0 / self.interval,
                self.budget_share,
                rate_limit,
                allowed_per_minute,
                needed,
            )
        return needed

    def backoff(self):
        """Seconds to wait after ``self.failures`` failed reads in a row."""
        ceiling = max(MAX_BACKOFF, self.interval)
        step = min(ceiling, self.interval * (2 ** min(self.failures - 1, 16)))
        return step / 2.0 + self.rng() * step / 2.0 if step > self.interval else step

    def describe_failure(self, error):
        if isinstance(error, PanelError):
            text = str(error)
        else:
            text = "%s: %s" % (type(error).__name__, error)
        return self.redact(text)

    def describe_count(self, event):
        """Where a failed start leaves the server's crash-loop count, for the log."""
        if event["crash_looping"]:
            return "crash_limit %d reached: it is given up on" % self.crash_limit
        if not event["incidents"]:
            return "not counted as an incident"
        return "incident %d of crash_limit %d" % (event["incidents"], self.crash_limit)

    def log_refusals(self, seen_at):
        """Say which starts the panel refused: a server's first refusal, then one line a minute at most."""
        for server_id, state in self.batches.refusals.to_log(seen_at):
            LOGGER.warning(
                "fleet_events: the panel refused the start of %s %d time(s) in a row since %s (last: %s): the "
                "panel's state, not the server's, so no incident; sent again in %.0f s, for as long as it is down",
                server_id,
                state["count"],
                time.strftime("%H:%M:%S UTC", time.gmtime(state["first_at"])),
                "HTTP %s" % state["status"] if state.get("status") else "no answer, or an error before queueing",
                max(0.0, state["retry_at"] - seen_at),
            )

    def log_event(self, event):
        if event["kind"] == eda_watch.OUTAGE:
            LOGGER.info(
                "fleet_events: outage: %d server(s) to start in one run: %s%s",
                len(event["ids"]),
                ", ".join(event["ids"]),
                (
                    "; held back: %s"
                    % ", ".join("%s (%s)" % (item["id"], item["reason"]) for item in event["held_back"])
                    if event["held_back"]
                    else ""
                ),
            )
            return
        if event["kind"] == eda_watch.START_FAILED and event["start_failure"] == eda_watch.NOT_QUEUED:
            # a refusal: log_refusals says so, once a minute at most
            LOGGER.debug("fleet_events: start_failed %s: its start is sent again after a refusal", event["id"])
        elif event["kind"] == eda_watch.START_FAILED:
            LOGGER.warning(
                "fleet_events: start_failed %s (%s): its start did not bring it up (%s: %s); %s",
                event["id"],
                event["status"],
                event["start_failure"],
                eda_watch.START_FAILURES[event["start_failure"]],
                self.describe_count(event),
            )
        else:
            LOGGER.info(
                "fleet_events: %s %s (%s -> %s, expected %s)",
                event["kind"],
                event["id"],
                event["previous_status"],
                event["status"],
                event["expected"],
            )
        if not event["in_inventory"]:
            LOGGER.warning(
                "fleet_events: %s (%s) is not in the inventory %s (its games, statuses or name_patterns leave it "
                "out): its %s event has host null, and keep_online cannot start it",
                event["id"],
                event.get("name"),
                self.inventory.path if self.inventory else "",
                event["kind"],
            )

    async def run(self, queue, reads=None):
        """Read, put the events, sleep; ``reads`` (tests) stops after that many attempts."""
        LOGGER.info(
            "fleet_events: watching %s every %g s (rate_limit %s per minute, budget_share %g)",
            self.client.base_url,
            self.interval,
            self.params.get("rate_limit"),
            self.budget_share,
        )
        attempts = 0
        while reads is None or attempts < reads:
            attempts += 1
            started = time.monotonic()
            try:
                events = await asyncio.to_thread(self.poll)
            except Exception as error:  # pylint: disable=broad-except
                # The source never dies on a bad answer: say what is wrong and try again later.
                self.failures += 1
                delay = self.backoff()
                LOGGER.warning(
                    "fleet_events: the fleet read failed (%d in a row), next try in %.0f s: %s",
                    self.failures,
                    delay,
                    self.describe_failure(error),
                )
            else:
                if self.failures:
                    LOGGER.warning("fleet_events: the fleet read works again after %d failed reads", self.failures)
                self.failures = 0
                self.reads += 1
                if self.reads == 1:
                    LOGGER.info(
                        "fleet_events: baseline read (%d servers); changes from now on become events",
                        len(self.changes.previous or ()),
                    )
                for event in events:
                    self.log_event(event)
                    await queue.put({"gamepanel": event})
                delay = max(0.0, self.read_interval() - (time.monotonic() - started))
            if reads is None or attempts < reads:
                await asyncio.sleep(delay)


async def main(queue, args):
    """Entry point of ansible-rulebook: watch the fleet until cancelled."""
    try:
        watcher = FleetEventSource(args)
    except SettingsError as error:
        LOGGER.error("%s", error)
        raise
    await watcher.run(queue)


if __name__ == "__main__":
    # python fleet_events.py: print the events of the fleet at $GAMEPANEL_BASE_URL.
    class _PrintQueue(object):
        async def put(self, event):
            print(event)

    logging.basicConfig(level=logging.INFO)
    asyncio.run(main(_PrintQueue(), {"interval": float(os.environ.get("FLEET_EVENTS_INTERVAL", "30"))}))
