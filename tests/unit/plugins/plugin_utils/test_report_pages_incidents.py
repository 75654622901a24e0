# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet report's "Recent incidents" section: the fleet watcher's record, shown only when there is one."""

from __future__ import annotations

import json
from pathlib import Path

from ansible_collections.gamepanel.panel.plugins.action.fleet_report_files import watcher_incidents
from ansible_collections.gamepanel.panel.plugins.module_utils.state.files import StateFiles, key_for_token
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


def test_the_watchers_record_shows_as_recent_incidents(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMEPANEL_STATE_DIR", str(tmp_path))
    token = "gp-report-token"
    files = StateFiles(key_for_token(token))
    event = {
        "id": "ark-01",
        "name": "ARK <Island>",
        "kind": "status_changed",
        "status": "offline",
        "previous_status": "online",
    }
    for at in (1_795_000_000.0, 1_795_000_100.0):
        eda_watch.record_incident(files, eda_watch.IncidentRecord(), event, at, 900)
    incidents = eda_watch.read_incidents(files, now=1_795_000_200.0)
    assert incidents[0]["count"] == 2
    monkeypatch.setattr(eda_watch.time, "time", lambda: 1_795_000_200.0)
    assert watcher_incidents(token) == incidents
    assert watcher_incidents("another-token") == [] and watcher_incidents(None) == []

    report = report_pages.prepare_report(SERVERS, incidents=incidents)
    row = report["incidents"][0]
    assert row["id"] == "ark-01" and row["count"] == 2 and row["last_at"] == "2026-11-18T11:08:20+00:00"
    assert json.loads(report_pages.render_json(report))["incidents"] == report["incidents"]
    page = report_pages.render_html(report, TEMPLATE)
    assert "Recent incidents" in page and "ARK &lt;Island&gt;" in page and "status_changed (offline)" in page
