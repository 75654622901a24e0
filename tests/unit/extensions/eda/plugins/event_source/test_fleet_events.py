# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The event source gamepanel.panel.fleet_events: settings, the loop, failures, the token, how it is loaded."""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import yaml

from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import PanelAuthError, PanelTransportError
from ansible_collections.gamepanel.panel.plugins.module_utils._state.ledger import Ledger
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.entry_states import DONE, MAY_BE_QUEUED, QUEUED
from ansible_collections.gamepanel.panel.plugins.module_utils._entry.connection import panel_argument_spec
from ansible_collections.gamepanel.panel.plugins.plugin_utils import eda_watch

SOURCE = "ansible_collections.gamepanel.panel.extensions.eda.plugins.event_source.fleet_events"
TOKEN = "gp-secret-token-value-123"

fleet_events = importlib.import_module(SOURCE)


class Clock(object):
    def __init__(self):
        self.now = 1_000_000.0

    def time(self):
        return self.now

    def monotonic(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds


class Page(object):
    def __init__(self, servers):
        self.servers = servers


class FakeClient(object):
    """list_servers answers from a script: a list of servers, or an exception to raise.

    server_pages gives the same answer in pages of ``page_size`` servers (one page when None).
    """

    api_variant = "live"
    base_url = "https://panel.example/api/v1"
    state_key = "c" * 64

    def __init__(self, script, page_size=None):
        self.script = list(script)
        self.page_size = page_size
        self.clock = Clock()
        self.warnings = []
        self.threads = []

    def list_servers(self):
        self.threads.append(threading.current_thread())
        self.clock.now += 30
        answer = self.script.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return [dict(server) for server in answer]

    def server_pages(self):
        servers = self.list_servers()
        size = self.page_size or max(1, len(servers))
        for start in range(0, max(1, len(servers)), size):
            yield Page(servers[start : start + size])


def server(server_id, status="online", uptime=100):
    return {
        "id": server_id,
        "name": "Srv " + server_id,
        "game": "minecraft",
        "status": status,
        "players": {"current": 0, "max": 8},
        "cpu": 0.0,
        "memory_mb": 10,
        "uptime_seconds": uptime,
    }


@pytest.fixture(autouse=True)
def state_dir(tmp_path, monkeypatch):
    for name in list(os.environ):
        if name.startswith("GAMEPANEL_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("GAMEPANEL_STATE_DIR", str(tmp_path / "state"))
    return tmp_path / "state"


def watcher(script, page_size=None, argv=(), **args):
    args.setdefault("interval", 0.01)
    args.setdefault("api_token", TOKEN)
    # no client-side pacing unless a test asks for it: the budget share would stretch 0.01 s to seconds
    args.setdefault("rate_limit", 0)
    return fleet_events.FleetEventSource(
        args, environ={}, client=FakeClient(script, page_size), rng=lambda: 0.5, argv=list(argv)
    )


def run(watcher_, reads, outages=False):
    """The events of ``reads`` reads; the per-server ones only, unless ``outages``."""
    queue = asyncio.Queue()
    asyncio.run(watcher_.run(queue, reads=reads))
    events = []
    while not queue.empty():
        events.append(queue.get_nowait())
    return [event for event in events if outages or event["gamepanel"]["kind"] != "outage"]


def test_connection_options_are_the_modules_with_the_same_environment_fallbacks():
    environment = {
        "GAMEPANEL_API_TOKEN": "t",
        "GAMEPANEL_BASE_URL": "https://p.example/v1",
        "GAMEPANEL_RATE_LIMIT": "600",
        "GAMEPANEL_API_VARIANT": "planned",
    }
    params = fleet_events.connection_params({"request_timeout": "5"}, environment)
    assert set(params) == set(panel_argument_spec())
    assert params["api_token"] == "t" and params["base_url"] == "https://p.example/v1"
    assert params["rate_limit"] == 600 and params["api_variant"] == "planned" and params["request_timeout"] == 5.0
    assert params["validate_certs"] is True and params["retry_timeout"] == 60.0
    assert fleet_events.connection_params({"rate_limit": 120}, environment)["rate_limit"] == 120  # args win


@pytest.mark.parametrize(
    "args, words",
    [
        ({"api_variant": "beta"}, "api_variant must be one of"),
        ({"rate_limit": "many"}, "rate_limit must be a whole number"),
        ({"validate_certs": "perhaps"}, "validate_certs must be a boolean"),
    ],
)
def test_bad_settings_are_refused_at_start(args, words):
    with pytest.raises(fleet_events.SettingsError, match=words):
        fleet_events.connection_params(args, {})


def test_no_token_is_refused_at_start_without_a_panel():
    with pytest.raises(fleet_events.SettingsError, match="token"):
        fleet_events.FleetEventSource({"base_url": "https://panel.example/api/v1"}, environ={})
    with pytest.raises(fleet_events.SettingsError, match="interval"):
        fleet_events.FleetEventSource(
            {"interval": 0, "api_token": TOKEN, "base_url": "https://p.example/v1"}, environ={}
        )


def test_the_documentation_is_yaml_and_names_every_option():
    documentation = yaml.safe_load(fleet_events.DOCUMENTATION)
    assert documentation["name"] == "fleet_events"
    assert set(documentation["options"]) == {
        "interval",
        "stopped_statuses",
        "crash_limit",
        "crash_window",
        "hostname_source",
        "leave_alone",
        "found_stopped",
        "budget_share",
        "inventory",
        "retry_after",
    }
    assert documentation["extends_documentation_fragment"] == ["gamepanel.panel.panel"]
    examples = yaml.safe_load(fleet_events.EXAMPLES)
    assert "gamepanel.panel.fleet_events" in examples[0]["sources"][0]


def test_changes_become_events_under_gamepanel_and_reads_run_off_the_event_loop():
    script = [[server("a"), server("b")], [server("a", "offline", 0), server("b")], [server("a", "offline", 0)]]
    source = watcher(script)
    events = run(source, reads=3)
    assert [(event["gamepanel"]["kind"], event["gamepanel"]["id"]) for event in events] == [
        ("status_changed", "a"),
        ("removed", "b"),
    ]
    first = events[0]["gamepanel"]
    assert first["host"] == "Srv_a" and first["expected"] is False and first["incidents"] == 1
    assert first["crash_looping"] is False
    assert all(thread is not threading.main_thread() for thread in source.client.threads)


def test_a_stop_in_the_ledger_makes_the_event_expected_and_no_incident():
    source = watcher([[server("a")], [server("a", "offline", 0)]])
    ledger = Ledger.for_client(source.client)
    entry = ledger.claim("a", "stop", before={"status": "online"})[0]
    ledger.mark(entry, QUEUED)
    event = run(source, reads=2)[0]["gamepanel"]
    assert event["expected"] is True and event["expected_by"]["action"] == "stop" and event["incidents"] == 0


def test_a_stop_queued_with_another_token_is_still_expected_after_a_rotation():
    class QueuingClient(object):  # the task that queued the stop used the token before the rotation
        api_variant, base_url = FakeClient.api_variant, FakeClient.base_url
        state_key = "d" * 64
        clock = Clock()

    entry = Ledger.for_client(QueuingClient()).claim("a", "stop", before={"status": "online"})[0]
    Ledger.for_client(QueuingClient()).mark(entry, QUEUED)
    source = watcher([[server("a")], [server("a", "offline", 0)]])
    assert source.client.state_key != QueuingClient.state_key
    event = run(source, reads=2)[0]["gamepanel"]
    assert event["expected"] is True and event["expected_by"]["action"] == "stop"


def test_crash_looping_after_the_limit_within_the_window():
    up, down = [server("a")], [server("a", "offline", 0)]
    source = watcher([up, down, up, down, up, down], crash_limit=3)
    events = [event["gamepanel"] for event in run(source, reads=6)]
    stops = [event for event in events if event["status"] == "offline"]
    assert [event["incidents"] for event in stops] == [1, 2, 3]
    assert [event["crash_looping"] for event in stops] == [False, False, True]


def test_failures_are_logged_with_their_reason_retried_and_the_source_keeps_going(caplog):
    revoked = PanelAuthError("The panel refused the API token (HTTP 401): it was revoked. Bearer %s" % TOKEN)
    script = [
        [server("a")],
        PanelTransportError(
            "The panel answered GET /servers with a body that is not JSON (HTTP 200, Content-Type text/html)"
        ),
        revoked,
        RuntimeError("boom " + TOKEN),
        [server("a", "offline", 0)],
    ]
    source = watcher(script)
    with caplog.at_level(logging.INFO, logger="gamepanel.panel.fleet_events"):
        events = run(source, reads=5)
    assert len(events) == 1 and events[0]["gamepanel"]["kind"] == "status_changed"
    text = caplog.text
    assert "not JSON" in text and "HTTP 401" in text and "boom" in text
    assert "works again after 3 failed reads" in text
    assert TOKEN not in text and TOKEN not in repr(events)


def test_the_backoff_grows_and_is_capped():
    source = watcher([], interval=10)
    delays = []
    for failures in range(1, 10):
        source.failures = failures
        delays.append(source.backoff())
    assert delays[0] == 10 and delays == sorted(delays) and max(delays) <= 300


def test_ansible_rulebook_can_load_it_with_run_path_from_an_installed_collection():
    """ansible-rulebook runs the file with runpy.run_path: nothing of the collection is on sys.path then."""
    import ansible_collections.gamepanel.panel as package

    root = Path(package.__path__[0])
    path = root / "extensions" / "eda" / "plugins" / "event_source" / "fleet_events.py"
    code = (
        "import runpy, sys; module = runpy.run_path(sys.argv[1]); "
        "print(module['main'].__name__, module['PanelClient'].__module__)"
    )
    environment = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH",)}
    completed = subprocess.run(
        [sys.executable, "-I", "-c", code, str(path)],
        capture_output=True,
        text=True,
        cwd="/",
        env=environment,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.split() == ["main", "ansible_collections.gamepanel.panel.plugins.module_utils._api.client"]


@pytest.mark.parametrize("value", [["b", "Srv a"], '["b", "Srv a"]', "b, Srv a", "['b','Srv a']"])
def test_leave_alone_takes_ids_or_names_as_a_list_or_the_string_a_rulebook_template_gives(value):
    source = watcher(
        [
            [server("a"), server("b"), server("c")],
            [server("a", "offline", 0), server("b", "offline", 0), server("c", "offline", 0)],
        ],
        leave_alone=value,
    )
    events = [event["gamepanel"] for event in run(source, reads=2)]
    assert [(event["id"], event["left_alone"]) for event in events] == [("a", True), ("b", True), ("c", False)]


def test_host_names_are_the_inventory_plugins_even_when_a_name_is_taken_by_a_group():
    """A server named like one of the inventory's groups gets its id appended, as the inventory does."""
    fleet = [server("a"), dict(server("b"), name="game_minecraft"), dict(server("c"), name="Srv a")]
    down = [dict(item, status="offline", uptime_seconds=0) for item in fleet]
    events = [event["gamepanel"] for event in run(watcher([fleet, down]), reads=2)]
    assert [event["host"] for event in events] == ["Srv_a_a", "game_minecraft_b", "Srv_a_c"]


@pytest.mark.parametrize("value", [0, -5, "soon"])
def test_a_retry_after_that_is_no_positive_number_of_seconds_is_refused_at_start(value):
    with pytest.raises(fleet_events.SettingsError, match=r"retry_after must be a positive number of seconds"):
        watcher([], retry_after=value)


@pytest.mark.parametrize("share", [0, -0.5, 1.5, "half", "nan"])
def test_a_budget_share_outside_zero_to_one_is_refused_at_start(share):
    with pytest.raises(
        fleet_events.SettingsError, match=r"budget_share must be a fraction .* greater than 0 and at most 1"
    ):
        watcher([], budget_share=share)


def test_the_interval_holds_while_the_reads_stay_within_the_budget_share():
    fleet = [server("s%03d" % number) for number in range(1000)]
    # Team, pages of 100: 10 requests a read, every 5 s that is 120 a minute, under 0.25 x 600 = 150.
    source = watcher([fleet], page_size=100, interval=5, rate_limit=600)
    run(source, reads=1)
    assert source.pages_per_read == 10 and source.read_interval() == 5


@pytest.mark.parametrize(
    "rate_limit, share, expected",
    [
        (120, 0.25, 200.0),  # Pro: 100 pages x 60 / 30 a minute
        (600, 0.25, 40.0),  # Team: 100 pages x 60 / 150 a minute
        (600, 1, 10.0),
    ],
)
def test_a_fleet_too_big_for_the_interval_stretches_it_and_says_so_once(caplog, rate_limit, share, expected):
    fleet = [server("s%05d" % number) for number in range(10000)]
    source = watcher([fleet, fleet], page_size=100, interval=5, rate_limit=rate_limit, budget_share=share)
    with caplog.at_level(logging.INFO, logger="gamepanel.panel.fleet_events"):
        run(source, reads=1)
        assert source.read_interval() == pytest.approx(expected)
        assert source.read_interval() == pytest.approx(expected)
    stretched = [record for record in caplog.records if "reads every" in record.getMessage()]
    assert len(stretched) == 1, caplog.text
    assert "costs 100 requests" in stretched[0].getMessage()
    assert "every %.0f s instead" % expected in stretched[0].getMessage()


def test_without_client_side_pacing_the_interval_is_never_stretched():
    fleet = [server("s%05d" % number) for number in range(10000)]
    source = watcher([fleet], page_size=100, interval=5, rate_limit=0)
    run(source, reads=1)
    assert source.read_interval() == 5


def test_the_servers_one_read_finds_down_come_in_one_outage_event_after_their_own_events():
    up = [server("s%02d" % number) for number in range(20)]
    down = [dict(item, status="offline", uptime_seconds=0) for item in up[:15]] + up[15:]
    events = [event["gamepanel"] for event in run(watcher([up, down]), reads=2, outages=True)]
    assert [event["kind"] for event in events] == ["status_changed"] * 15 + ["outage"]
    outage = events[-1]
    assert outage["ids"] == ["s%02d" % number for number in range(15)]
    assert outage["hosts"] == ["Srv_s%02d" % number for number in range(15)]
    assert outage["held_back"] == []


def test_an_outage_holds_back_the_crash_looping_the_left_alone_and_the_stopped_on_purpose():
    def fleet(down):
        return [server(name, "offline", 0) if name in down else server(name) for name in "abcd"]

    # a crashes three times; b (left alone), c and d (stopped by the collection) go down at the last read
    reads = [fleet(""), fleet("a"), fleet(""), fleet("a"), fleet(""), fleet("abcd")]
    source = watcher(reads, crash_limit=3, leave_alone=["b"])
    ledger = Ledger.for_client(source.client)
    run(source, reads=5)
    entry = ledger.claim("d", "stop", before={"status": "online"})[0]
    ledger.mark(entry, QUEUED)
    events = [event["gamepanel"] for event in run(source, reads=1, outages=True)]
    outage = events[-1]
    assert outage["kind"] == "outage" and outage["ids"] == ["c"]
    assert outage["held_back"] == [
        {"id": "a", "name": "Srv a", "reason": "crash_looping"},
        {"id": "b", "name": "Srv b", "reason": "left_alone"},
    ]
    assert [event["crash_looping"] for event in events if event.get("id") == "a"] == [True]
    assert [event["expected"] for event in events if event.get("id") == "d"] == [True]


def test_a_server_handed_to_a_run_is_not_handed_again_until_it_was_seen_up():
    up, offline, stopped = server("a"), server("a", "offline", 0), server("a", "stopped", 0)
    source = watcher([[up], [offline], [stopped], [offline], [up], [offline]], crash_limit=3)
    outages = [event["gamepanel"] for event in run(source, reads=6, outages=True)]
    outages = [event for event in outages if event["kind"] == "outage"]
    # offline: handed out; stopped, offline again: the same outage, and no crash (counted, they would
    # make the second outage the fourth incident: a crash loop); up, then down: a new one
    assert [event["ids"] for event in outages] == [["a"], ["a"]]
    assert [event["held_back"] for event in outages] == [[], []]


def hand_out_then(source, reads, write):
    """Run the baseline read and the read that hands ``a`` out, call ``write(ledger)`` as the run would, then
    ``reads`` more reads: their per-server events and outages."""
    ledger = Ledger.for_client(source.client)
    first = run(source, reads=2, outages=True)
    assert first[-1]["gamepanel"]["ids"] == ["a"]
    source.client.clock.now += 1  # the run claims after the hand-out
    write(ledger)
    return [event["gamepanel"] for event in run(source, reads=reads, outages=True)], ledger


def refuse(ledger):
    entry = ledger.claim("a", "start", before={"status": "offline"})[0]
    ledger.drop(entry, status=503)  # what the run does when the panel answers 503


def test_a_start_the_panel_refused_is_handed_out_again_at_the_next_read_and_not_counted(caplog):
    up, down = server("a"), server("a", "offline", 0)
    caplog.set_level(logging.INFO, logger="gamepanel.panel.fleet_events")
    events, ledger = hand_out_then(watcher([[up], [down], [down], [down]], crash_limit=3), 2, refuse)
    assert [(event["kind"], event.get("id") or event.get("ids")) for event in events] == [
        ("start_failed", "a"),
        ("outage", ["a"]),
    ]
    failed = events[0]
    assert (failed["start_failure"], failed["incidents"], failed["crash_looping"]) == ("not_queued", 0, False)
    assert events[1]["servers"][0]["kind"] == "start_failed"
    assert "the panel refused the start of a 1 time(s) in a row since" in caplog.text
    assert "(last: HTTP 503): the panel's state, not the server's, so no incident" in caplog.text


def test_a_start_refused_with_retry_after_waits_for_it_before_the_server_is_handed_out_again():
    up, down = server("a"), server("a", "offline", 0)

    def refuse_for_a_while(ledger):
        entry = ledger.claim("a", "start", before={"status": "offline"})[0]
        ledger.drop(entry, status=429, retry_after=75)  # reads are 30 s apart: two more reads wait

    source = watcher([[up], [down]] + [[down]] * 4, crash_limit=3)
    events, _ledger = hand_out_then(source, 4, refuse_for_a_while)
    assert [event["kind"] for event in events] == ["start_failed", "outage"]
    assert source.client.clock.now - events[0]["seen_at"] == 30  # at the third read after, not the first


def test_a_start_whose_answer_was_lost_is_followed_for_retry_after_then_sent_again(caplog):
    up, down = server("a"), server("a", "offline", 0)

    def lose(ledger):
        entry = ledger.claim("a", "start", before={"status": "offline"})[0]
        ledger.mark(entry, MAY_BE_QUEUED)

    caplog.set_level(logging.INFO, logger="gamepanel.panel.fleet_events")
    # each read is 30 s after the one before: the lost answer is 29 s old at the first read after it
    source = watcher([[up], [down]] + [[down]] * 3, retry_after=60)
    events, ledger = hand_out_then(source, 3, lose)
    assert [(event["kind"], event.get("start_failure")) for event in events] == [
        ("start_failed", "answer_lost"),
        ("outage", None),
    ]
    assert ledger.entries("a") == []  # given up on: the run of the new outage may send a start
    assert ledger.claim("a", "start")[0] is not None
    assert "start_failed a (offline): its start did not bring it up (answer_lost" in caplog.text


def test_a_server_the_panel_keeps_refusing_to_start_is_never_given_up_on():
    up, down = server("a"), server("a", "offline", 0)
    source = watcher([[up], [down]] + [[down]] * 8, crash_limit=3)
    events, ledger = hand_out_then(source, 1, refuse)  # crash 1, refused: handed out again
    for _refusal in range(3):  # refused three more times, each start after a read of its own
        source.client.clock.now += 1
        refuse(ledger)
        events += [event["gamepanel"] for event in run(source, reads=2, outages=True)]
    failed = [event for event in events if event["kind"] == "start_failed"]
    assert len(failed) == 4 and [event["incidents"] for event in failed] == [0, 0, 0, 0]
    assert not any(event.get("crash_looping") for event in events)
    assert len([event for event in events if event["kind"] == "outage"]) == 4  # sent again each time
    assert source.batches.handed_out and source.batches.refusals.servers["a"]["count"] == 4


def test_a_server_whose_starts_bring_it_up_and_down_again_is_given_up_on_with_its_count():
    up, down, stopped = server("a"), server("a", "offline", 0), server("a", "stopped", 0)

    def came_up(ledger):  # its run confirmed the start, then the server fell again before the next read
        entry = ledger.claim("a", "start", before={"status": "offline"})[0]
        ledger.mark(entry, DONE)

    source = watcher([[up], [down], [down], [down], [stopped], [down]], crash_limit=3)
    events, ledger = hand_out_then(source, 1, came_up)  # crash 1, down again 2: handed out again
    assert [(event["kind"], event.get("start_failure")) for event in events] == [
        ("start_failed", "down_again"),
        ("outage", None),
    ]
    source.client.clock.now += 1
    for entry in ledger.entries("a"):  # the run's entry is over: the next start claims a new one
        ledger.drop(entry, not_queued=False)
    came_up(ledger)
    events = [event["gamepanel"] for event in run(source, reads=3, outages=True)]
    # down again: the third incident gives it up, with its count; offline -> stopped is no crash
    assert [(event["kind"], event.get("incidents")) for event in events] == [
        ("start_failed", 3),
        ("status_changed", 0),
        ("status_changed", 0),
    ]
    assert events[0]["crash_looping"] is True and source.batches.handed_out == {}


def test_the_first_read_hands_the_servers_found_stopped_to_one_start():
    fleet = [server("a", "offline", 0), server("b"), server("c", "stopped", 0)]
    events = [event["gamepanel"] for event in run(watcher([fleet]), reads=1, outages=True)]
    assert [event["kind"] for event in events] == ["found_stopped", "found_stopped", "outage"]
    assert events[-1]["ids"] == ["a", "c"]


def test_the_connection_and_host_naming_come_from_the_inventory_file_of_the_process(tmp_path, caplog):
    inventory = tmp_path / "fleet.gamepanel.yml"
    inventory.write_text(
        "plugin: gamepanel.panel.servers\n"
        "base_url: https://file.example/api/v1\n"
        "rate_limit: 600\n"
        "request_timeout: 7\n"
        "hostname_source: id\n"
        "api_token: !vault |\n"
        "  $ANSIBLE_VAULT;1.1;AES256\n"
        "  6231\n"
        "retry_timeout: \"{{ lookup('env', 'RETRY') }}\"\n",
        encoding="utf-8",
    )
    argv = ["ansible-rulebook", "-r", "gamepanel.panel.keep_online", "--inventory", str(inventory), "-v"]
    environment = {"GAMEPANEL_BASE_URL": "https://env.example/v1", "GAMEPANEL_RATE_LIMIT": "120"}
    with caplog.at_level(logging.INFO, logger="gamepanel.panel.fleet_events"):
        source = fleet_events.FleetEventSource(
            {"request_timeout": 3}, environ=dict(environment, GAMEPANEL_API_TOKEN=TOKEN), argv=argv
        )
    # the file before the environment, the source's own arguments before both
    assert source.client.base_url == "https://file.example/api/v1"
    assert source.params["rate_limit"] == 600 and source.params["request_timeout"] == 3.0
    assert source.params["retry_timeout"] == 60.0  # a template: the source does not render it
    assert source.hostname_source == "id"
    assert "api_token in %s is encrypted or tagged" % inventory in caplog.text
    assert "retry_timeout in %s is a template" % inventory in caplog.text
    assert TOKEN not in caplog.text


def test_an_inventory_option_that_is_not_a_gamepanel_inventory_is_refused_at_start(tmp_path):
    other = tmp_path / "hosts.ini"
    other.write_text("[web]\nweb1\n", encoding="utf-8")
    with pytest.raises(fleet_events.SettingsError, match="inventory: .*hosts.ini is not a gamepanel.panel.servers"):
        watcher([], inventory=str(other))


def test_servers_the_inventory_leaves_out_are_reported_with_host_null_and_not_started(tmp_path, caplog):
    inventory = tmp_path / "rust.gamepanel.yml"
    inventory.write_text("plugin: gamepanel.panel.servers\ngames: [rust]\n", encoding="utf-8")
    fleet = [server("a"), dict(server("b"), game="rust")]
    down = [dict(item, status="offline", uptime_seconds=0) for item in fleet]
    source = watcher([fleet, down], argv=["ansible-rulebook", "-i", str(inventory)])
    with caplog.at_level(logging.INFO, logger="gamepanel.panel.fleet_events"):
        events = [event["gamepanel"] for event in run(source, reads=2, outages=True)]
    assert [(event["kind"], event.get("id"), event.get("host")) for event in events[:2]] == [
        ("status_changed", "a", None),
        ("status_changed", "b", "Srv_b"),
    ]
    assert events[0]["in_inventory"] is False and events[1]["in_inventory"] is True
    assert events[2]["ids"] == ["b"]
    assert events[2]["held_back"] == [{"id": "a", "name": "Srv a", "reason": "not_in_inventory"}]
    assert "a (Srv a) is not in the inventory %s" % inventory in caplog.text


def test_one_accounts_inventory_file_gives_its_token_variable_and_host_names(tmp_path):
    inventory = tmp_path / "eu.gamepanel.yml"
    inventory.write_text(
        "plugin: gamepanel.panel.servers\naccount: eu\nhostname_prefix: eu_\napi_token_env: EU_TOKEN\n"
        "base_url: https://eu.example/api/v1\n",
        encoding="utf-8",
    )
    argv = ["ansible-rulebook", "-i", str(inventory)]
    source = fleet_events.FleetEventSource(
        {}, environ={"EU_TOKEN": TOKEN, "GAMEPANEL_API_TOKEN": "not-this"}, argv=argv
    )
    assert source.client.base_url == "https://eu.example/api/v1"
    environ = {"EU_TOKEN": TOKEN, "GAMEPANEL_API_TOKEN": "not-this"}
    assert fleet_events.connection_params({}, environ, {"api_token_env": "EU_TOKEN"})["api_token"] == TOKEN
    source.client = FakeClient([[server("a")], [dict(server("a"), status="offline", uptime_seconds=0)]])
    events = [event["gamepanel"] for event in run(source, reads=2)]
    assert [(event["kind"], event["host"]) for event in events] == [("status_changed", "eu_Srv_a")]


def test_an_unset_token_variable_of_the_inventory_is_refused_at_start_naming_it(tmp_path):
    inventory = tmp_path / "eu.gamepanel.yml"
    inventory.write_text("plugin: gamepanel.panel.servers\napi_token_env: EU_TOKEN\n", encoding="utf-8")
    with pytest.raises(fleet_events.SettingsError, match="environment variable EU_TOKEN .* not set"):
        fleet_events.FleetEventSource(
            {"base_url": "https://eu.example/v1"},
            environ={"GAMEPANEL_API_TOKEN": TOKEN},
            argv=["x", "-i", str(inventory)],
        )


def _token_file(tmp_path, name, content, mode=0o600):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    path.chmod(mode)
    return path


def test_the_token_file_the_environment_names_is_read_after_the_token_variable(tmp_path):
    path = _token_file(tmp_path, "token", TOKEN + "\n")
    assert fleet_events.connection_params({}, {"GAMEPANEL_API_TOKEN_FILE": str(path)})["api_token"] == TOKEN
    # the variable, when set, comes first (as for the modules)
    environ = {"GAMEPANEL_API_TOKEN": "from-the-variable", "GAMEPANEL_API_TOKEN_FILE": str(path)}
    assert fleet_events.connection_params({}, environ)["api_token"] == "from-the-variable"


def test_the_inventory_files_token_file_comes_before_the_environments_token(tmp_path):
    path = _token_file(tmp_path, "read-only-token", TOKEN)
    inventory = tmp_path / "fleet.gamepanel.yml"
    inventory.write_text(
        "plugin: gamepanel.panel.servers\nbase_url: https://eu.example/api/v1\napi_token_file: %s\n" % path,
        encoding="utf-8",
    )
    source = fleet_events.FleetEventSource(
        {}, environ={"GAMEPANEL_API_TOKEN": "the-jobs-control-token"}, argv=["ansible-rulebook", "-i", str(inventory)]
    )
    assert source.client._token.reveal() == TOKEN  # pylint: disable=protected-access
    assert "api_token" not in source.params  # nothing but the client keeps it


@pytest.mark.parametrize(
    "content, mode, words",
    [
        (TOKEN, 0o644, "can be read by every user"),
        ("", 0o600, "is empty"),
        (None, 0o600, "does not exist"),
    ],
)
def test_a_token_file_that_cannot_be_used_stops_the_source_naming_it_and_never_its_content(
    tmp_path, content, mode, words
):
    path = tmp_path / "token"
    if content is not None:
        path = _token_file(tmp_path, "token", content, mode)
    with pytest.raises(fleet_events.SettingsError) as refused:
        fleet_events.FleetEventSource(
            {"base_url": "https://eu.example/v1"}, environ={"GAMEPANEL_API_TOKEN_FILE": str(path)}, argv=["x"]
        )
    message = str(refused.value)
    assert words in message and str(path) in message and "GAMEPANEL_API_TOKEN_FILE" in message
    assert TOKEN not in message


def test_incidents_are_recorded_for_the_panel_under_the_inventorys_account(tmp_path):
    inventory = tmp_path / "eu.gamepanel.yml"
    inventory.write_text("plugin: gamepanel.panel.servers\naccount: eu\n", encoding="utf-8")
    source = watcher([[server("a")], [server("a", "offline", 0)]], argv=["ansible-rulebook", "-i", str(inventory)])
    events = [event["gamepanel"] for event in run(source, reads=2)]
    assert [(event["kind"], event["incidents"]) for event in events] == [("status_changed", 1)]
    # the panel's record (beside its ledger), not the token's: a report reads it with any token, per account
    rows = eda_watch.read_incidents(eda_watch.incident_files(source.ledger.panel), now=source.client.clock.now)
    assert [(row["account"], row["id"], row["count"]) for row in rows] == [("eu", "a", 1)]
    assert eda_watch.incidents_of_accounts([("us", source.ledger.panel)], now=source.client.clock.now) == []
