# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""PRIVATE: The fleet report's data, and its three renderings (HTML, JSON, CSV). Controller-side only.

``prepare_report`` turns the ``servers`` list of ``gamepanel.panel.server_info`` into one
plain dictionary: the page's summary, one row per server, the chart geometry. The HTML page
is that dictionary put through a Jinja2 template with autoescaping on; the JSON and CSV files
hold the same rows. A figure the panel did not send stays ``None`` everywhere (shown as
missing, never as zero), and a status value nobody knows gets a colour of its own.
"""

from __future__ import annotations

import colorsys
import csv
import io
import json
import math
import os
import tempfile
from datetime import datetime, timezone
from urllib.parse import urlsplit, urlunsplit

try:
    import jinja2
except ImportError:  # pragma: no cover - ansible-core always brings Jinja2
    jinja2 = None

REPORT_FORMAT = 1
FILE_NAMES = {"html": "fleet-report.html", "json": "fleet-report.json", "csv": "fleet-report.csv"}
INCLUDE_KINDS = ("metrics", "resources")

# Statuses with a fixed colour. The API names only "online"; these others are the ones the
# collection and its emulator meet. Anything else is "unknown" and gets a colour of its own.
STATUS_COLOURS = {
    "online": "#2e9d57",
    "offline": "#7b8494",
    "stopped": "#5b6472",
    "starting": "#3b82f6",
    "stopping": "#f59e0b",
    "restarting": "#0ea5e9",
    "installing": "#8b5cf6",
    "maintenance": "#d97706",
}
MISSING_STATUS_COLOUR = "#c9ced6"
# Colours for unknown statuses, chosen to stay apart from the fixed ones; past the list,
# hues are spread by the golden angle so two unknown statuses never share a colour.
UNKNOWN_COLOURS = ("#e11d48", "#0d9488", "#a16207", "#c026d3", "#4d7c0f", "#be123c", "#0369a1", "#9a3412")

UPTIME_BUCKETS = (
    (3600, "under 1 hour"),
    (6 * 3600, "1 to 6 hours"),
    (86400, "6 to 24 hours"),
    (3 * 86400, "1 to 3 days"),
    (7 * 86400, "3 to 7 days"),
    (None, "7 days or more"),
)
TOP_SERVERS = 25  # bars in a per-server chart; the table has every server
LONGEST_UPTIME = 5  # servers in the summary's "longest uptime" list
CHART_WIDTH = 640  # SVG user units of a line chart
CHART_HEIGHT = 160

# The column shown when the servers come from several accounts (they carry "account"), not from an include.
ACCOUNTS = "accounts"

# Columns of the table and the CSV, in order: (key, heading, kind, include needed).
# kind tells the template how to show a value and the page's script how to sort it.
COLUMNS = (
    ("account", "Account", "text", ACCOUNTS),
    ("id", "ID", "text", None),
    ("name", "Name", "text", None),
    ("game", "Game", "text", None),
    ("status", "Status", "status", None),
    ("players_current", "Players", "number", None),
    ("players_max", "Capacity", "number", None),
    ("cpu", "CPU", "number", None),
    ("memory_mb", "Memory (MB)", "number", None),
    ("uptime_seconds", "Uptime", "duration", None),
    ("pending", "Pending", "pending", None),
    ("cpu_avg", "CPU avg (metrics)", "number", "metrics"),
    ("cpu_peak", "CPU peak (metrics)", "number", "metrics"),
    ("memory_avg_mb", "Memory avg MB (metrics)", "number", "metrics"),
    ("cpu_cores", "Cores", "number", "resources"),
    ("memory_used_mb", "Memory used MB", "number", "resources"),
    ("memory_limit_mb", "Memory limit MB", "number", "resources"),
    ("disk_used_mb", "Disk used MB", "number", "resources"),
    ("disk_limit_mb", "Disk limit MB", "number", "resources"),
    ("network_rx_bytes", "Received (bytes)", "number", "resources"),
    ("network_tx_bytes", "Sent (bytes)", "number", "resources"),
)


class ReportError(ValueError):
    """The input cannot make a report (the message says why)."""


# ---------------------------------------------------------------------------
# Small value helpers


def number(value):
    """The value when it is a finite int or float (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def text(value):
    """The value as a string, or None when it is missing or empty."""
    if value is None:
        return None
    value = str(value)
    return value if value else None


def nested(data, *keys):
    """data[k1][k2]... as a number, None wherever a level is missing or not a dict."""
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return number(data)


def rounded(value, digits=1):
    """Round a float for display files; ints and None pass unchanged."""
    return round(value, digits) if isinstance(value, float) else value


def duration_text(seconds):
    """12d 3h, 5h 07m, 4m 10s, or None."""
    if seconds is None:
        return None
    seconds = int(seconds)
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days}d {hours}h"
    if hours:
        return f"{hours}h {minutes:02d}m"
    return f"{minutes}m {secs:02d}s"


def public_url(url):
    """The panel address to print: no user, password, query or fragment (so never a secret)."""
    url = text(url)
    if url is None:
        return None
    parts = urlsplit(url)
    if not parts.scheme or not parts.hostname:
        return None
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    netloc = host if parts.port is None else f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


# ---------------------------------------------------------------------------
# Rows


def metric_figures(body):
    """Average and peak cpu, average memory over the samples of a metrics body."""
    samples = body.get("samples") if isinstance(body, dict) else None
    samples = [sample for sample in samples if isinstance(sample, dict)] if isinstance(samples, list) else []
    cpus = [value for value in (number(sample.get("cpu")) for sample in samples) if value is not None]
    memories = [value for value in (number(sample.get("memory_mb")) for sample in samples) if value is not None]
    return {
        "cpu_avg": rounded(sum(cpus) / len(cpus)) if cpus else None,
        "cpu_peak": max(cpus) if cpus else None,
        "memory_avg_mb": rounded(sum(memories) / len(memories)) if memories else None,
    }


def resource_figures(body):
    """The figures of a resources body, each None when the panel did not send it."""
    return {
        "cpu_cores": nested(body, "cpu", "cores"),
        "memory_used_mb": nested(body, "memory", "used_mb"),
        "memory_limit_mb": nested(body, "memory", "limit_mb"),
        "disk_used_mb": nested(body, "disk", "used_mb"),
        "disk_limit_mb": nested(body, "disk", "limit_mb"),
        "network_rx_bytes": nested(body, "network", "rx_bytes"),
        "network_tx_bytes": nested(body, "network", "tx_bytes"),
    }


def server_row(server, include=()):
    """One server as a flat row: every column key, None where the panel sent nothing."""
    if not isinstance(server, dict):
        raise ReportError(
            f"every server must be a dictionary (as server_info returns them), got {type(server).__name__}"
        )
    players = server.get("players")
    if isinstance(players, dict):
        current, capacity = number(players.get("current")), number(players.get("max"))
    else:
        current, capacity = number(players), None
    row = {
        "account": text(server.get("account")),
        "id": text(server.get("id")),
        "name": text(server.get("name")),
        "game": text(server.get("game")),
        "status": text(server.get("status")),
        "players_current": current,
        "players_max": capacity,
        "cpu": number(server.get("cpu")),
        "memory_mb": number(server.get("memory_mb")),
        "uptime_seconds": number(server.get("uptime_seconds")),
    }
    details = server.get("details") if isinstance(server.get("details"), dict) else {}
    if "metrics" in include:
        row.update(metric_figures(details.get("metrics")))
        row["metric_samples"] = metric_samples(details.get("metrics"))
    if "resources" in include:
        row.update(resource_figures(details.get("resources")))
    return row


def metric_samples(body):
    """The samples of a metrics body as (timestamp, cpu, memory_mb, players) tuples, None for missing figures."""
    samples = body.get("samples") if isinstance(body, dict) else None
    if not isinstance(samples, list):
        return []
    return [
        (
            text(sample.get("timestamp")),
            number(sample.get("cpu")),
            number(sample.get("memory_mb")),
            number(sample.get("players")),
        )
        for sample in samples
        if isinstance(sample, dict)
    ]


# ---------------------------------------------------------------------------
# Summary


def status_colours(statuses):
    """{status: colour}: fixed colours for familiar statuses, distinct ones for the rest."""
    colours = {}
    unknown = sorted(status for status in statuses if status is not None and status not in STATUS_COLOURS)
    for index, status in enumerate(unknown):
        if index < len(UNKNOWN_COLOURS):
            colours[status] = UNKNOWN_COLOURS[index]
        else:
            red, green, blue = colorsys.hls_to_rgb(((index * 0.618034) % 1.0), 0.42, 0.65)
            colours[status] = "#%02x%02x%02x" % (int(red * 255), int(green * 255), int(blue * 255))
    for status in statuses:
        if status is None:
            colours[None] = MISSING_STATUS_COLOUR
        elif status in STATUS_COLOURS:
            colours[status] = STATUS_COLOURS[status]
    return colours


def count_by(rows, key):
    """[(value, count)], most frequent first, then by value; None (missing) last."""
    counts = {}
    for row in rows:
        counts[row[key]] = counts.get(row[key], 0) + 1
    return sorted(counts.items(), key=lambda item: (item[0] is None, -item[1], item[0] or ""))


def status_summary(rows, colours):
    """The legend: each status with its count, colour and whether it is a familiar one."""
    return [
        {
            "status": status,
            "label": status if status is not None else "missing",
            "count": count,
            "colour": colours[status],
            "known": status in STATUS_COLOURS,
            "missing": status is None,
        }
        for status, count in count_by(rows, "status")
    ]


def game_summary(rows):
    """Per game: servers, players online and capacity (None when no server of it says)."""
    games = []
    for game, count in count_by(rows, "game"):
        members = [row for row in rows if row["game"] == game]
        games.append(
            {
                "game": game,
                "label": game if game is not None else "missing",
                "servers": count,
                "players": total(row["players_current"] for row in members),
                "capacity": total(row["players_max"] for row in members),
                "players_missing": sum(1 for row in members if row["players_current"] is None),
            }
        )
    return games


def total(values):
    """The sum of the known values, or None when none is known."""
    known = [value for value in values if value is not None]
    return sum(known) if known else None


def player_summary(rows):
    """Players online out of capacity across the fleet, and how many servers did not say."""
    return {
        "online": total(row["players_current"] for row in rows),
        "capacity": total(row["players_max"] for row in rows),
        "servers_missing": sum(1 for row in rows if row["players_current"] is None),
    }


def longest_uptime(rows, count=LONGEST_UPTIME):
    """The servers up the longest (those that report an uptime above zero)."""
    known = [row for row in rows if row["uptime_seconds"]]
    known.sort(key=lambda row: (-row["uptime_seconds"], row["name"] or "", row["id"] or ""))
    return [
        {
            "id": row["id"],
            "name": row["name"],
            "game": row["game"],
            "uptime_seconds": row["uptime_seconds"],
            "uptime_text": duration_text(row["uptime_seconds"]),
        }
        for row in known[:count]
    ]


# ---------------------------------------------------------------------------
# Charts: geometry only (ratios and labels); the template draws them.


def chart_bar(label, value, scale, colour=None, **extra):
    """One bar: value, its share of the scale (0..1) and the text to print."""
    ratio = (value / scale) if (value is not None and scale) else 0.0
    return dict(label=label, value=value, ratio=round(min(max(ratio, 0.0), 1.0), 4), colour=colour, **extra)


def players_chart(games):
    """Players online per game, drawn over the game's capacity."""
    scale = max([game["capacity"] or 0 for game in games] + [game["players"] or 0 for game in games] + [0])
    bars = [
        chart_bar(
            game["label"],
            game["players"],
            scale,
            capacity=game["capacity"],
            capacity_ratio=round((game["capacity"] or 0) / scale, 4) if scale else 0.0,
            text=f"{fmt(game['players'])} of {fmt(game['capacity'])}",
        )
        for game in games
    ]
    return {"title": "Players online per game (of capacity)", "bars": bars, "missing": 0, "note": None}


def fmt(value):
    """A number for a chart label; 'missing' when there is none."""
    if value is None:
        return "missing"
    if isinstance(value, float):
        return f"{value:.1f}"
    return f"{value:,}"


def top_servers_chart(rows, key, title, unit, colours):
    """The TOP_SERVERS highest values of one column, one bar per server, coloured by status."""
    known = [row for row in rows if row[key] is not None]
    known.sort(key=lambda row: (-row[key], row["name"] or "", row["id"] or ""))
    shown = known[:TOP_SERVERS]
    scale = shown[0][key] if shown else 0
    bars = [
        chart_bar(
            row["name"] or row["id"] or "missing",
            row[key],
            scale,
            colours[row["status"]],
            text=f"{fmt(row[key])}{unit}",
        )
        for row in shown
    ]
    missing = len(rows) - len(known)
    note = None
    if len(known) > len(shown):
        note = f"the {len(shown)} highest of {len(known)} servers; the table has them all"
    return {"title": title, "bars": bars, "missing": missing, "note": note}


def uptime_chart(rows):
    """How many servers fall in each uptime range (servers that report none are counted apart)."""
    counts = [0] * len(UPTIME_BUCKETS)
    for row in rows:
        uptime = row["uptime_seconds"]
        if uptime is None:
            continue
        for index, (limit, _label) in enumerate(UPTIME_BUCKETS):
            if limit is None or uptime < limit:
                counts[index] += 1
                break
    scale = max(counts + [0])
    bars = [
        chart_bar(label, count, scale, "#3b82f6", text=fmt(count))
        for (_limit, label), count in zip(UPTIME_BUCKETS, counts)
    ]
    missing = sum(1 for row in rows if row["uptime_seconds"] is None)
    return {"title": "Uptime distribution (servers)", "bars": bars, "missing": missing, "note": None}


def share_chart(rows, used, limit, title, colours):
    """Per server, the share of a limit in use (resources), highest first."""
    shares = []
    for row in rows:
        if row.get(used) is not None and row.get(limit):
            shares.append((row[used] / row[limit] * 100.0, row))
    shares.sort(key=lambda item: (-item[0], item[1]["name"] or ""))
    shown = shares[:TOP_SERVERS]
    bars = [
        chart_bar(
            row["name"] or row["id"] or "missing",
            round(share, 1),
            100.0,
            colours[row["status"]],
            text=f"{share:.0f}% of {fmt(row[limit])} MB",
        )
        for share, row in shown
    ]
    note = f"the {len(shown)} highest of {len(shares)} servers" if len(shares) > len(shown) else None
    return {"title": title, "bars": bars, "missing": len(rows) - len(shares), "note": note}


def metrics_chart(rows):
    """Fleet lines over the metrics window: players online in total and average cpu per sample."""
    series = [row.get("metric_samples") or [] for row in rows]
    length = max([len(samples) for samples in series] + [0])
    if length == 0:
        return None
    players, cpus, stamps = [], [], []
    # Servers are read one after the other, so their sample times differ by a little: samples
    # are lined up by position counted from the newest, not by timestamp.
    for back in range(length, 0, -1):
        at_index = [samples[-back] for samples in series if len(samples) >= back]
        stamps.append(next((sample[0] for sample in at_index if sample[0]), None))
        players.append(total(sample[3] for sample in at_index))
        known_cpu = [sample[1] for sample in at_index if sample[1] is not None]
        cpus.append(sum(known_cpu) / len(known_cpu) if known_cpu else None)
    return {
        "title": "Fleet over the metrics window",
        "width": CHART_WIDTH,
        "height": CHART_HEIGHT,
        "first": stamps[0],
        "last": stamps[-1],
        "series": [line("Players online (total)", players, "#2e9d57"), line("CPU (average)", cpus, "#3b82f6")],
    }


def line(label, values, colour):
    """A polyline over the chart's box, each series scaled to its own maximum."""
    known = [value for value in values if value is not None]
    top = max(known + [0])
    count = len(values)
    points = []
    for index, value in enumerate(values):
        if value is None:
            continue
        x = CHART_WIDTH * index / (count - 1) if count > 1 else CHART_WIDTH / 2
        y = CHART_HEIGHT - (CHART_HEIGHT * value / top if top else 0)
        points.append((round(x, 1), round(y, 1)))
    return {
        "label": label,
        "colour": colour,
        "points": points,
        "max": fmt(rounded(top)) if known else "missing",
        "latest": fmt(rounded(known[-1])) if known else "missing",
    }


# ---------------------------------------------------------------------------
# The report


def incident_rows(incidents):
    """The fleet watcher's recent incidents (plugin_utils/eda_watch.incidents_of_accounts) as report rows.

    Each row keeps its ``account`` (None with one account whose inventory names none): ids repeat
    across accounts, so a row is its account's and id's.
    """
    rows = []
    for item in incidents or ():
        if not isinstance(item, dict) or text(item.get("id")) is None:
            continue
        at = number(item.get("last_at"))
        when = datetime.fromtimestamp(at, timezone.utc) if at is not None else None
        rows.append(
            {
                "account": text(item.get("account")),
                "id": text(item.get("id")),
                "name": text(item.get("name")),
                "count": number(item.get("count")),
                "last_kind": text(item.get("last_kind")),
                "last_status": text(item.get("last_status")),
                "last_at": when.isoformat(timespec="seconds") if when else None,
                "last_at_text": when.strftime("%Y-%m-%d %H:%M:%S UTC") if when else None,
            }
        )
    return rows


def panels_text(panels):
    """Each account with its panel's address (no credentials), as the page's header shows them."""
    return "; ".join(
        f"{text(entry.get('account'))}: {public_url(entry.get('base_url')) or 'not known'}" for entry in panels
    )


def pending_by_server(pending):
    """server_info's ``pending`` entries as one cell per server: "restart (queued)", several joined by commas."""
    cells = {}
    for entry in pending or ():
        if not isinstance(entry, dict) or entry.get("id") is None:
            raise ReportError("every pending entry must be a dictionary with an id (as server_info returns them)")
        label = f"{text(entry.get('action')) or 'action'} ({text(entry.get('state')) or 'unknown'})"
        # ids repeat across accounts: an entry is its account's (None with one account)
        cells.setdefault((text(entry.get("account")), text(entry["id"])), []).append(label)
    return {server: ", ".join(labels) for server, labels in cells.items()}


def prepare_report(
    servers,
    *,
    taken_at=None,
    panel_url=None,
    collection_version=None,
    include=(),
    games=None,
    statuses=None,
    incidents=None,
    pending=None,
    panels=None,
):
    """Everything the report shows, as plain data (see the module docstring).

    ``panels`` (``[{account, base_url}]``) is given for the servers of several accounts: the page
    names each account's panel, and the table gets the Account column.
    """
    if not isinstance(servers, list):
        raise ReportError(f"servers must be a list (the servers returned by server_info), got {type(servers).__name__}")
    include = list(include or [])
    unknown = [kind for kind in include if kind not in INCLUDE_KINDS]
    if unknown:
        raise ReportError(f"include accepts {', '.join(INCLUDE_KINDS)}; got {', '.join(map(str, unknown))}")
    taken_at = taken_at or datetime.now(timezone.utc)
    rows = [server_row(server, include) for server in servers]
    pending_cells = pending_by_server(pending)
    for row in rows:
        row["pending"] = pending_cells.get((row["account"], row["id"]))
    colours = status_colours({row["status"] for row in rows})
    for row in rows:
        row["status_colour"] = colours[row["status"]]
        row["uptime_text"] = duration_text(row["uptime_seconds"])
    game_rows = game_summary(rows)
    charts = [
        players_chart(game_rows),
        top_servers_chart(rows, "cpu", "CPU per server", "", colours),
        top_servers_chart(rows, "memory_mb", "Memory per server", " MB", colours),
        uptime_chart(rows),
    ]
    if "resources" in include:
        charts.append(
            share_chart(rows, "memory_used_mb", "memory_limit_mb", "Memory in use of the limit (resources)", colours)
        )
        charts.append(
            share_chart(rows, "disk_used_mb", "disk_limit_mb", "Disk in use of the limit (resources)", colours)
        )
    return {
        "format": REPORT_FORMAT,
        "meta": {
            "taken_at": taken_at.astimezone(timezone.utc).isoformat(timespec="seconds"),
            "taken_at_text": taken_at.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
            "panel": panels_text(panels) if panels else public_url(panel_url),
            "collection_version": text(collection_version),
            "include": include,
            "filters": {"games": list(games or []), "statuses": list(statuses or [])},
        },
        "summary": {
            "servers": len(rows),
            "statuses": status_summary(rows, colours),
            "games": game_rows,
            "players": player_summary(rows),
            "longest_uptime": longest_uptime(rows),
            "pending": sum(1 for row in rows if row["pending"]),
        },
        "columns": [
            {"key": key, "label": label, "kind": kind}
            for key, label, kind, needs in COLUMNS
            if needs is None or needs in include or (needs == ACCOUNTS and panels)
        ],
        "servers": rows,
        "charts": charts,
        "metrics_chart": metrics_chart(rows) if "metrics" in include else None,
        "incidents": incident_rows(incidents),
    }


# ---------------------------------------------------------------------------
# Renderings


def render_json(report):
    """The report's data for other tools: meta, summary and one object per server (no chart geometry)."""
    keys = [column["key"] for column in report["columns"]]
    document = {
        "format": report["format"],
        "meta": report["meta"],
        "summary": report["summary"],
        "servers": [{key: row[key] for key in keys} for row in report["servers"]],
    }
    if report.get("incidents"):  # only when the fleet watcher recorded some
        document["incidents"] = report["incidents"]
    return json.dumps(document, indent=2, sort_keys=False) + "\n"


def render_csv(report):
    """One line per server, the table's columns; a missing figure is an empty cell."""
    keys = [column["key"] for column in report["columns"]]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(keys)
    for row in report["servers"]:
        writer.writerow(["" if row[key] is None else row[key] for key in keys])
    return out.getvalue()


def render_html(report, template_text):
    """The page: the template rendered with autoescaping, so any text from the panel is shown as text."""
    if jinja2 is None:  # pragma: no cover
        raise ReportError("the fleet report needs Jinja2 on the controller")
    environment = jinja2.Environment(
        autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True
    )
    return environment.from_string(template_text).render(report=report)


def render_all(report, template_text):
    """{kind: file content} for every kind of FILE_NAMES."""
    return {"html": render_html(report, template_text), "json": render_json(report), "csv": render_csv(report)}


# ---------------------------------------------------------------------------
# Files


def file_paths(dest):
    """{kind: absolute path} of the three files in the directory dest."""
    dest = os.path.abspath(os.path.expanduser(dest))
    return {kind: os.path.join(dest, name) for kind, name in FILE_NAMES.items()}


def write_files(dest, contents):
    """Write {kind: text} into dest (created when missing); return {kind: path} of the files that changed.

    Each file is written to a temporary name and renamed into place, so a reader never sees
    half a report.
    """
    dest = os.path.abspath(os.path.expanduser(dest))
    if os.path.exists(dest) and not os.path.isdir(dest):
        raise ReportError(f"the report destination {dest} exists and is not a directory")
    os.makedirs(dest, exist_ok=True)
    umask = os.umask(0)
    os.umask(umask)
    changed = {}
    for kind, path in file_paths(dest).items():
        data = contents[kind].encode("utf-8")
        try:
            with open(path, "rb") as current:
                if current.read() == data:
                    continue
        except FileNotFoundError:
            pass
        handle, temp = tempfile.mkstemp(prefix="." + FILE_NAMES[kind] + ".", dir=dest)
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.chmod(temp, 0o666 & ~umask)
            os.replace(temp, path)
        except BaseException:
            if os.path.exists(temp):
                os.unlink(temp)
            raise
        changed[kind] = path
    return changed
