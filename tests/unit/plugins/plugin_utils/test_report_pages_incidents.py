# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet report's "Recent incidents" section: the fleet watcher's record, shown only when there is one."""

from __future__ import annotations

import json
from pathlib import Path

from ansible_collections.gamepanel.panel.plugins.action.fleet_report_files import watcher_incidents
from ansible_collections.gamepanel.panel.plugins.plugin_utils import report_pages
from ansible_collections.gamepanel.panel.plugins.plugin_utils import eda_watch

TEMPLATE = (
    Path(report_pages.__file__).resolve().parents[2] / "roles" / "fleet_report" / "templates" / "fleet_report.html.j2"
).read_text(encoding="utf-8")
SERVERS = [
    {
        "id": "mc-01",
        "name": "Survival",
        "game": "minecraft",
        "status": "online",
        "players": {"current": 1, "max": 10},
        "cpu": 1.0,
        "memory_mb": 10,
        "uptime_seconds": 60,
    }
]


def test_without_a_record_the_report_has_no_incident_section_and_its_json_no_key():
    report = report_pages.prepare_report(SERVERS)
    assert report["incidents"] == []
    assert "incidents" not in json.loads(report_pages.render_json(report))
    assert "Recent incidents" not in report_pages.render_html(report, TEMPLATE)


LIVE_EU = "live https://eu.example/api/v1"
LIVE_US = "live https://us.example/api/v1"


def crash(server_id, name):
    return {"id": server_id, "name": name, "kind": "status_changed", "status": "offline", "previous_status": "online"}


def record(panel, account, event, times):
    for at in times:
        eda_watch.record_incident(
            eda_watch.incident_files(panel), eda_watch.IncidentRecord(), event, at, 900, panel, account
        )


def test_the_watchers_record_shows_as_recent_incidents(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMEPANEL_STATE_DIR", str(tmp_path))
    record(LIVE_EU, None, crash("ark-01", "ARK <Island>"), (1_795_000_000.0, 1_795_000_100.0))
    incidents = eda_watch.read_incidents(eda_watch.incident_files(LIVE_EU), now=1_795_000_200.0)
    assert incidents[0]["count"] == 2 and incidents[0]["account"] is None
    monkeypatch.setattr(eda_watch.time, "time", lambda: 1_795_000_200.0)
    # the record is the panel's: found from the report's connection, with no token, and only for that panel
    assert watcher_incidents([], "https://eu.example/api/v1/", "live") == incidents
    assert watcher_incidents([], "https://eu.example/api/v1", "planned") == []
    assert watcher_incidents([], "https://us.example/api/v1", "live") == [] and watcher_incidents([], None) == []

    report = report_pages.prepare_report(SERVERS, incidents=incidents)
    row = report["incidents"][0]
    assert row["id"] == "ark-01" and row["count"] == 2 and row["last_at"] == "2026-11-18T11:08:20+00:00"
    assert row["account"] is None
    assert json.loads(report_pages.render_json(report))["incidents"] == report["incidents"]
    page = report_pages.render_html(report, TEMPLATE)
    assert "Recent incidents" in page and "ARK &lt;Island&gt;" in page and "status_changed (offline)" in page
    assert "<th>Account</th>" not in page  # one account that names none: no account column


def test_incidents_of_two_accounts_with_the_same_server_id_stay_apart_each_under_its_account(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMEPANEL_STATE_DIR", str(tmp_path))
    # each account's watcher records its own mc-01 (ids repeat across accounts), on its own panel
    record(LIVE_EU, "eu", crash("mc-01", "Survival EU"), (1_795_000_000.0, 1_795_000_050.0, 1_795_000_100.0))
    record(LIVE_US, "us", crash("mc-01", "Survival US"), (1_795_000_150.0,))
    monkeypatch.setattr(eda_watch.time, "time", lambda: 1_795_000_200.0)
    panels = [
        {"account": "eu", "base_url": "https://eu.example/api/v1", "api_variant": "live"},
        {"account": "us", "base_url": "https://us.example/api/v1", "api_variant": None},
    ]
    incidents = watcher_incidents(panels)
    assert [(row["account"], row["id"], row["name"], row["count"]) for row in incidents] == [
        ("eu", "mc-01", "Survival EU", 3),
        ("us", "mc-01", "Survival US", 1),
    ]
    # a report of one of the accounts shows only its own
    assert [row["account"] for row in watcher_incidents(panels[1:])] == ["us"]

    report = report_pages.prepare_report(SERVERS, incidents=incidents, panels=panels)
    assert [(row["account"], row["id"], row["count"]) for row in report["incidents"]] == [
        ("eu", "mc-01", 3),
        ("us", "mc-01", 1),
    ]
    assert [row["account"] for row in json.loads(report_pages.render_json(report))["incidents"]] == ["eu", "us"]
    page = report_pages.render_html(report, TEMPLATE)
    assert "<th>Account</th>" in page
    assert '<tr data-id="mc-01" data-account="eu"><td>eu</td><td>Survival EU</td><td class="n">3</td>' in page
    assert '<tr data-id="mc-01" data-account="us"><td>us</td><td>Survival US</td><td class="n">1</td>' in page


def test_two_accounts_on_one_panel_share_its_record_and_each_row_keeps_its_account(tmp_path):
    directory = str(tmp_path)
    files = eda_watch.incident_files(LIVE_EU, directory)
    for account, at in (("blue", 10.0), ("green", 20.0), ("green", 30.0), (None, 40.0)):
        eda_watch.record_incident(
            files, eda_watch.IncidentRecord(), crash("rust-01", "Rust"), at, 900, LIVE_EU, account
        )
    assert eda_watch.IncidentRecord(files.read(eda_watch.RECORD_KIND)).count("rust-01", 50.0, 900, "green") == 2
    rows = eda_watch.incidents_of_accounts([("blue", LIVE_EU), ("green", LIVE_EU)], now=50.0, directory=directory)
    # a row recorded without an account cannot be told apart when two accounts share the panel: unnamed
    assert [(row["account"], row["count"]) for row in rows] == [("green", 2), (None, 1), ("blue", 1)]
    rows = eda_watch.incidents_of_accounts([("blue", LIVE_EU)], now=50.0, directory=directory)
    # the panel's only account here: the unnamed row is its server's, counted with its own
    assert [(row["account"], row["count"], row["last_at"]) for row in rows] == [("blue", 2, 40.0)]
