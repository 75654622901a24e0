# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""plugin_utils/report_pages.py: the report's data, its escaping and its files."""

from __future__ import annotations

import csv
import io
import json
import os
from datetime import datetime, timezone
from html.parser import HTMLParser
from pathlib import Path

import pytest

from ansible_collections.gamepanel.panel.plugins.plugin_utils import report_pages as fr

TEMPLATE = (
    Path(__file__).resolve().parents[4] / "roles" / "fleet_report" / "templates" / "fleet_report.html.j2"
).read_text(encoding="utf-8")
TAKEN = datetime(2026, 11, 23, 18, 45, 29, tzinfo=timezone.utc)
HOSTILE = "<script>alert(1)</script>"


def server(server_id, status="online", game="minecraft", current=1, capacity=10, **fields):
    data = {
        "id": server_id,
        "name": f"Server {server_id}",
        "game": game,
        "status": status,
        "players": {"current": current, "max": capacity},
        "cpu": 10.0,
        "memory_mb": 1024,
        "uptime_seconds": 3600,
    }
    data.update(fields)
    return data


FLEET = [
    server("mc-01", uptime_seconds=86400, current=3, capacity=20),
    server("mc-02", uptime_seconds=7200, current=0, capacity=20),
    server("mc-03", status="offline", current=0, capacity=10, uptime_seconds=0, cpu=0.0),
    server("rust-01", game="rust", uptime_seconds=172800, current=5, capacity=100),
    server("rust-02", game="rust", status="hibernating", players=None, cpu=None, memory_mb=None, uptime_seconds=None),
]


def report(servers=None, **kwargs):
    kwargs.setdefault("taken_at", TAKEN)
    return fr.prepare_report(FLEET if servers is None else servers, **kwargs)


class Page(HTMLParser):
    """What a browser would build from the page: script elements and the text of table cells."""

    def __init__(self):
        super().__init__()
        self.scripts = 0
        self.elements = []
        self.cells = []
        self._cell = None

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        if tag == "script":
            self.scripts += 1
        if tag == "td":
            self._cell = []

    def handle_endtag(self, tag):
        if tag == "td" and self._cell is not None:
            self.cells.append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def parse(html):
    page = Page()
    page.feed(html)
    return page


# rows ----------------------------------------------------------------------


def test_row_keeps_missing_figures_missing():
    row = fr.server_row(
        {"id": 7, "name": "", "players": None, "cpu": True, "memory_mb": float("nan"), "uptime_seconds": 0}
    )
    assert row == {
        "account": None,
        "id": "7",
        "name": None,
        "game": None,
        "status": None,
        "players_current": None,
        "players_max": None,
        "cpu": None,
        "memory_mb": None,
        "uptime_seconds": 0,
    }


def test_row_reads_a_bare_player_count():
    row = fr.server_row(server("a", players=4))
    assert (row["players_current"], row["players_max"]) == (4, None)


def test_row_refuses_a_server_that_is_not_a_dictionary():
    with pytest.raises(fr.ReportError, match="must be a dictionary"):
        fr.server_row(["mc-01"])


def test_row_sub_resources():
    metrics = {
        "samples": [
            {"timestamp": "t1", "cpu": 10.0, "memory_mb": 100, "players": 1},
            {"timestamp": "t2", "cpu": 30.0, "memory_mb": 300, "players": None},
            {"timestamp": "t3", "cpu": None},
        ]
    }
    resources = {"cpu": {"cores": 2}, "memory": {"used_mb": 512}, "disk": "odd", "network": {"rx_bytes": 9}}
    row = fr.server_row(server("a", details={"metrics": metrics, "resources": resources}), ["metrics", "resources"])
    assert (row["cpu_avg"], row["cpu_peak"], row["memory_avg_mb"]) == (20.0, 30.0, 200.0)
    assert row["metric_samples"][1] == ("t2", 30.0, 300, None)
    assert (row["cpu_cores"], row["memory_used_mb"], row["memory_limit_mb"]) == (2, 512, None)
    assert (row["disk_used_mb"], row["network_rx_bytes"], row["network_tx_bytes"]) == (None, 9, None)


def test_row_without_sub_resource_bodies():
    row = fr.server_row(server("a"), ["metrics", "resources"])
    assert row["cpu_avg"] is None and row["metric_samples"] == [] and row["disk_limit_mb"] is None


# summary -------------------------------------------------------------------


def test_summary_by_status_and_game():
    summary = report()["summary"]
    assert summary["servers"] == 5
    assert [(entry["label"], entry["count"], entry["known"]) for entry in summary["statuses"]] == [
        ("online", 3, True),
        ("hibernating", 1, False),
        ("offline", 1, True),
    ]
    assert [
        (game["game"], game["servers"], game["players"], game["capacity"], game["players_missing"])
        for game in summary["games"]
    ] == [("minecraft", 3, 3, 50, 0), ("rust", 2, 5, 100, 1)]


def test_players_missing_are_not_counted_as_zero():
    summary = report()["summary"]["players"]
    assert summary == {"online": 8, "capacity": 150, "servers_missing": 1}
    nobody = report([server("a", players=None), server("b", players=None)])["summary"]["players"]
    assert nobody == {"online": None, "capacity": None, "servers_missing": 2}


def test_longest_uptime_first_and_only_servers_that_are_up():
    longest = report()["summary"]["longest_uptime"]
    assert [(entry["id"], entry["uptime_text"]) for entry in longest] == [
        ("rust-01", "2d 0h"),
        ("mc-01", "1d 0h"),
        ("mc-02", "2h 00m"),
    ]


def test_unknown_statuses_get_distinct_colours_and_known_ones_keep_theirs():
    statuses = [f"weird-{index}" for index in range(12)]
    data = report(
        [server(f"s{index}", status=status) for index, status in enumerate(statuses)]
        + [server("on"), server("off", status="offline"), server("none", status=None)]
    )
    colours = {entry["label"]: entry["colour"] for entry in data["summary"]["statuses"]}
    assert colours["online"] == fr.STATUS_COLOURS["online"]
    assert colours["offline"] == fr.STATUS_COLOURS["offline"]
    assert colours["missing"] == fr.MISSING_STATUS_COLOUR
    assert len(set(colours.values())) == len(colours)
    assert all(not entry["known"] for entry in data["summary"]["statuses"] if entry["label"].startswith("weird"))
    assert [row["status_colour"] for row in data["servers"][:2]] == [colours["weird-0"], colours["weird-1"]]


def test_meta_panel_address_never_carries_credentials():
    meta = report(
        panel_url="https://ops:gp-secret@panel.example.com:8443/api/v1?token=gp-secret#x",
        collection_version="0.1.0",
        include=["metrics"],
        games=["rust"],
    )["meta"]
    assert meta["panel"] == "https://panel.example.com:8443/api/v1"
    assert meta["taken_at"] == "2026-11-23T18:45:29+00:00"
    assert meta["taken_at_text"] == "2026-11-23 18:45:29 UTC"
    assert meta["collection_version"] == "0.1.0"
    assert meta["filters"] == {"games": ["rust"], "statuses": []}
    assert fr.public_url("not a url") is None and fr.public_url(None) is None


def test_bad_input_is_refused_clearly():
    with pytest.raises(fr.ReportError, match="include accepts metrics, resources; got console"):
        report(include=["console"])
    with pytest.raises(fr.ReportError, match="servers must be a list"):
        report({"servers": []})


def test_columns_follow_include():
    plain = [column["key"] for column in report()["columns"]]
    assert plain[:4] == ["id", "name", "game", "status"] and "cpu_avg" not in plain
    full = [column["key"] for column in report(include=["metrics", "resources"])["columns"]]
    assert {"cpu_avg", "cpu_peak", "disk_used_mb", "network_tx_bytes"} <= set(full)


# charts --------------------------------------------------------------------


def charts(data):
    return {chart["title"]: chart for chart in data["charts"]}


def test_chart_players_per_game_over_capacity():
    chart = charts(report())["Players online per game (of capacity)"]
    assert [(item["label"], item["value"], item["capacity"], item["text"]) for item in chart["bars"]] == [
        ("minecraft", 3, 50, "3 of 50"),
        ("rust", 5, 100, "5 of 100"),
    ]
    assert chart["bars"][1]["capacity_ratio"] == 1.0 and chart["bars"][1]["ratio"] == 0.05


def test_chart_per_server_keeps_the_highest_and_counts_the_missing():
    fleet = [server(f"s{index:03d}", cpu=float(index)) for index in range(40)] + [server("x", cpu=None)]
    chart = charts(report(fleet))["CPU per server"]
    assert len(chart["bars"]) == fr.TOP_SERVERS
    assert chart["bars"][0]["label"] == "Server s039" and chart["bars"][0]["ratio"] == 1.0
    assert chart["missing"] == 1
    assert chart["note"] == f"the {fr.TOP_SERVERS} highest of 40 servers; the table has them all"


def test_chart_uptime_distribution():
    fleet = [
        server(str(index), uptime_seconds=uptime)
        for index, uptime in enumerate([0, 3599, 3600, 86399, 86400, 7 * 86400, None])
    ]
    chart = charts(report(fleet))["Uptime distribution (servers)"]
    assert [item["value"] for item in chart["bars"]] == [2, 1, 1, 1, 0, 1]
    assert chart["missing"] == 1


def test_chart_resources_share_of_limit():
    fleet = [
        server(
            "a",
            details={
                "resources": {"memory": {"used_mb": 512, "limit_mb": 1024}, "disk": {"used_mb": 10, "limit_mb": 0}}
            },
        ),
        server("b", details={}),
    ]
    chart = charts(report(fleet, include=["resources"]))["Memory in use of the limit (resources)"]
    assert [(item["label"], item["value"], item["text"]) for item in chart["bars"]] == [
        ("Server a", 50.0, "50% of 1,024 MB")
    ]
    assert chart["missing"] == 1
    assert charts(report(fleet, include=["resources"]))["Disk in use of the limit (resources)"]["bars"] == []


def test_metrics_chart_lines():
    samples = [{"timestamp": f"t{index}", "cpu": float(index * 10), "players": index} for index in range(3)]
    fleet = [
        server("a", details={"metrics": {"samples": samples}}),
        server("b", details={"metrics": {"samples": samples[:2]}}),
    ]
    chart = report(fleet, include=["metrics"])["metrics_chart"]
    players, cpu = chart["series"]
    # b's two samples are its newest: they line up with a's last two (totals 0, 1, 3)
    assert players["points"] == [(0.0, 160.0), (320.0, 106.7), (640.0, 0.0)]
    assert (players["max"], players["latest"]) == ("3", "3")
    assert [y for _x, y in cpu["points"]] == [160.0, 106.7, 0.0] and cpu["max"] == "15.0"  # averages 0, 5, 15
    assert (chart["first"], chart["last"]) == ("t0", "t2")
    assert report(fleet)["metrics_chart"] is None
    assert report([server("c")], include=["metrics"])["metrics_chart"] is None


# renderings ----------------------------------------------------------------


def test_json_and_csv_hold_the_same_rows_with_missing_as_null_and_empty():
    data = report(include=["resources"])
    document = json.loads(fr.render_json(data))
    rows = list(csv.DictReader(io.StringIO(fr.render_csv(data))))
    keys = [column["key"] for column in data["columns"]]
    assert [list(server) for server in document["servers"]] == [keys] * 5
    assert list(rows[0]) == keys
    assert [row["id"] for row in rows] == [server["id"] for server in document["servers"]]
    hibernating = document["servers"][4]
    assert hibernating["cpu"] is None and hibernating["players_current"] is None
    assert rows[4]["cpu"] == "" and rows[4]["players_current"] == "" and rows[2]["cpu"] == "0.0"
    assert document["summary"]["players"]["online"] == 8


def test_html_escapes_text_from_the_panel():
    attribute = '"><img src=x onerror=alert(2)>'
    fleet = [server("x", name=HOSTILE, game=attribute, status=attribute), server("y", name='Tom & "Jerry"')]
    html = fr.render_html(report(fleet, panel_url="https://panel.example.com/v1?q=<b>"), TEMPLATE)
    assert HOSTILE not in html and "<img" not in html
    page = parse(html)
    assert page.scripts == 1  # only the page's own sorting script
    assert not [tag for tag, _attrs in page.elements if tag == "img"]
    assert HOSTILE in page.cells and 'Tom & "Jerry"' in page.cells
    assert any(attrs.get("data-status") == attribute for tag, attrs in page.elements if tag == "tr")


def test_html_shows_missing_as_missing_and_the_meta():
    html = fr.render_html(report(panel_url="http://127.0.0.1:8080/v1", collection_version="9.8.7"), TEMPLATE)
    page = parse(html)
    hibernating = page.cells[len(page.cells) // 5 * 4 :]
    assert hibernating[:4] == ["rust-02", "Server rust-02", "rust", "hibernating"]
    assert hibernating[4:9] == ["missing"] * 5  # players, capacity, cpu, memory, uptime
    assert "2026-11-23 18:45:29 UTC" in html and "http://127.0.0.1:8080/v1" in html and "9.8.7" in html
    assert "unknown status" in html
    assert "src=" not in html and "href=" not in html and "@import" not in html and "url(" not in html


def test_html_of_an_empty_fleet():
    html = fr.render_html(report([], statuses=["online"]), TEMPLATE)
    assert "The panel returned no server matching the filters." in html
    assert "No server reports this figure." in html


# files ---------------------------------------------------------------------


def test_write_files_creates_the_directory_and_skips_unchanged_files(tmp_path):
    contents = {"html": "<p>x</p>", "json": "{}\n", "csv": "id\n"}
    dest = tmp_path / "a" / "b"
    assert fr.write_files(str(dest), contents) == {kind: str(dest / name) for kind, name in fr.FILE_NAMES.items()}
    assert (dest / "fleet-report.html").read_text(encoding="utf-8") == "<p>x</p>"
    assert fr.write_files(str(dest), dict(contents, csv="id\nmc-01\n")) == {"csv": str(dest / "fleet-report.csv")}
    assert sorted(os.listdir(dest)) == sorted(fr.FILE_NAMES.values())  # no temporary file left


def test_write_files_refuses_a_file_as_destination(tmp_path):
    target = tmp_path / "file"
    target.write_text("x", encoding="utf-8")
    with pytest.raises(fr.ReportError, match="exists and is not a directory"):
        fr.write_files(str(target), {"html": "", "json": "", "csv": ""})


@pytest.mark.parametrize(
    "seconds, expected", [(None, None), (0, "0m 00s"), (59, "0m 59s"), (3661, "1h 01m"), (90061, "1d 1h")]
)
def test_duration_text(seconds, expected):
    assert fr.duration_text(seconds) == expected


def test_pending_actions_show_in_their_servers_row_and_are_counted_once_per_server():
    pending = [
        {"id": "mc-01", "action": "restart", "queued_at": 1.0, "state": "queued"},
        {"id": "mc-01", "action": "stop", "queued_at": 2.0, "state": "may_be_queued"},
        {"id": "rust-01", "action": "start", "queued_at": 3.0, "state": "sending"},
    ]
    data = report(pending=pending)
    cells = {row["id"]: row["pending"] for row in data["servers"]}
    assert cells.pop("mc-01") == "restart (queued), stop (may_be_queued)"
    assert cells.pop("rust-01") == "start (sending)"
    assert set(cells.values()) == {None}
    assert data["summary"]["pending"] == 2
    rows = {row["id"]: row["pending"] for row in csv.DictReader(io.StringIO(fr.render_csv(data)))}
    assert rows["mc-01"] == "restart (queued), stop (may_be_queued)" and rows["mc-02"] == ""
    assert json.loads(fr.render_json(data))["summary"]["pending"] == 2


def test_without_pending_actions_the_count_is_zero():
    assert report()["summary"]["pending"] == 0


def test_a_pending_entry_without_a_server_id_is_refused():
    with pytest.raises(fr.ReportError, match="pending entry"):
        report(pending=[{"action": "restart"}])


def test_servers_of_several_accounts_get_the_account_column_and_each_panel_named():
    servers = [dict(server("mc-01"), account="eu"), dict(server("mc-01", current=4), account="us")]
    pending = [{"id": "mc-01", "action": "restart", "state": "queued", "account": "us"}]
    panels = [
        {"account": "eu", "base_url": "https://eu.example.test/v1"},
        {"account": "us", "base_url": "https://user:pw@us.example.test/v1"},
    ]
    report = fr.prepare_report(servers, pending=pending, panels=panels)
    assert report["columns"][0] == {"key": "account", "label": "Account", "kind": "text"}
    assert [(row["account"], row["pending"]) for row in report["servers"]] == [("eu", None), ("us", "restart (queued)")]
    assert report["meta"]["panel"] == "eu: https://eu.example.test/v1; us: https://us.example.test/v1"
    assert fr.render_csv(report).splitlines()[0].startswith("account,id,")


def test_one_panel_has_no_account_column():
    assert "account" not in [column["key"] for column in fr.prepare_report([server("mc-01")])["columns"]]
