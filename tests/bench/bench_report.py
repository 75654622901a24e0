# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Benchmark: the fleet report at 1,000 servers (budgets: generated < 2 s, HTML < 1.5 MB, rendered < 1 s).

One run starts the panel emulator with a generated fleet, reads it once plain and once with
metrics and resources (the real client), then for each of the two data sets measures:

* generation: preparing the data, rendering HTML, JSON and CSV and writing the three files
  (what the fleet_report_files action does), median of --repeat runs;
* the HTML file's size;
* rendering in headless Chromium (Debian's chromium, driven by Playwright): from navigation
  start to the first frame painted after the load event, median of --repeat fresh pages; also
  the time until the table is painted once scrolled to (a large table is laid out only when
  it comes into view), and the time one click takes to sort the table by name.

It also times the whole `ansible-playbook gamepanel.panel.report` run (plain) for reference:
that includes ansible-playbook's own start-up and the list request.

Budgets are checked at the end (exit 1 when one is missed); the figures go to tests/bench/RESULTS.md.

Run (make bench BENCH=tests/bench/bench_report.py): .venv/browser/bin/python tests/bench/bench_report.py
    [--fleet-size 1000] [--repeat 5] [--json FILE] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))

# tests/conftest.py makes ansible_collections.gamepanel.panel importable from this checkout.
import conftest  # noqa: E402,F401  pylint: disable=wrong-import-position,unused-import
from emulator.harness import EmulatorProcess  # noqa: E402  pylint: disable=wrong-import-position

from ansible_collections.gamepanel.panel.plugins.module_utils._api.client import (
    COLLECTION_VERSION,
    PanelClient,
)  # noqa: E402
from ansible_collections.gamepanel.panel.plugins.module_utils._api.server_records import select_servers  # noqa: E402
from ansible_collections.gamepanel.panel.plugins.plugin_utils import report_pages  # noqa: E402

TOKEN = "gp-test-owner-control"  # Team plan account of the default fixture
UNTHROTTLED = 1000000
TEMPLATE = REPO / "roles" / "fleet_report" / "templates" / "fleet_report.html.j2"
CHROMIUM = os.environ.get("GAMEPANEL_CHROMIUM", "/usr/bin/chromium")
BUDGET_GENERATE_S = 2.0
BUDGET_HTML_BYTES = 1.5 * 1024 * 1024
BUDGET_RENDER_S = 1.0
FIRST_FRAME = "new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now()))))"
# Scrolling to the table: it is laid out and painted then (content-visibility), so time that too.
TABLE_SHOWN = """() => new Promise(done => {
  const started = performance.now();
  document.getElementById('servers').scrollIntoView();
  requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now() - started)));
})"""
SORT_CLICK = """() => {
  const button = document.querySelector('#servers th[data-key="name"] button');
  const started = performance.now();
  button.click();
  document.body.offsetHeight;  // force the layout the new order needs
  return performance.now() - started;
}"""


def median(values):
    return round(statistics.median(values), 3)


def generate(servers, include, dest, repeat):
    """Median seconds to prepare, render and write the report; the HTML path and sizes."""
    template = TEMPLATE.read_text(encoding="utf-8")
    times = []
    for _attempt in range(repeat):
        started = time.perf_counter()
        report = report_pages.prepare_report(
            servers,
            taken_at=datetime.now(timezone.utc),
            panel_url="http://127.0.0.1/v1",
            collection_version=COLLECTION_VERSION,
            include=include,
        )
        contents = report_pages.render_all(report, template)
        # Each run writes a fresh directory, so every run pays for the three files.
        report_pages.write_files(str(dest / f"run-{len(times)}"), contents)
        times.append(time.perf_counter() - started)
    paths = report_pages.file_paths(str(dest / "run-0"))
    sizes = {kind: os.path.getsize(path) for kind, path in paths.items()}
    return {
        "generate_s": median(times),
        "generate_runs_s": [round(value, 3) for value in times],
        "bytes": sizes,
    }, paths["html"]


def render(browser, html_path, repeat):
    """Median seconds from navigation start to the first painted frame after load; sort click ms."""
    url = Path(html_path).as_uri()
    frames, tables, sorts = [], [], []
    for _attempt in range(repeat):
        page = browser.new_page(viewport={"width": 1366, "height": 900})
        page.route("**/*", lambda route: route.continue_() if route.request.url == url else route.abort())
        page.goto(url, wait_until="load")
        frames.append(page.evaluate(FIRST_FRAME) / 1000.0)
        tables.append(page.evaluate(TABLE_SHOWN) / 1000.0)
        rows = page.eval_on_selector_all("#servers tbody tr", "rows => rows.length")
        sorts.append(page.evaluate(SORT_CLICK))
        page.close()
    return {
        "render_s": median(frames),
        "render_runs_s": [round(value, 3) for value in frames],
        "table_shown_s": median(tables),
        "sort_click_ms": median(sorts),
        "table_rows": rows,
    }


def playbook_runs(live_url, dest, repeat):
    """Median wall seconds of ansible-playbook gamepanel.panel.report (plain)."""
    env = dict(
        os.environ,
        GAMEPANEL_BASE_URL=live_url,
        GAMEPANEL_API_TOKEN=TOKEN,
        GAMEPANEL_RATE_LIMIT="0",
        GAMEPANEL_STATE_DIR=str(dest / "state"),
        ANSIBLE_LOCALHOST_WARNING="False",
        ANSIBLE_PYTHON_INTERPRETER=sys.executable,
    )
    env.setdefault(
        "ANSIBLE_COLLECTIONS_PATH",
        os.environ.get("GAMEPANEL_TEST_COLLECTIONS_PATH") or str(REPO / ".tmp" / "collections"),
    )
    command = [
        str(Path(sys.executable).parent / "ansible-playbook"),
        "gamepanel.panel.report",
        "-e",
        f'fleet_report_dest={dest / "playbook"}',
    ]
    times = []
    for _attempt in range(repeat):
        started = time.perf_counter()
        completed = subprocess.run(command, env=env, capture_output=True, text=True, check=False, cwd=dest)
        times.append(time.perf_counter() - started)
        if completed.returncode != 0:
            raise SystemExit(
                f"the report playbook failed (rc {completed.returncode}):\n{completed.stdout}\n{completed.stderr}"
            )
    return {"playbook_s": median(times), "playbook_runs_s": [round(value, 3) for value in times]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--fleet-size", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--keep", help="write the reports under this directory and keep them")
    options = parser.parse_args()
    try:
        from playwright.sync_api import sync_playwright  # pylint: disable=import-outside-toplevel
    except ImportError:
        raise SystemExit("bench_report needs Playwright: run it with .venv/browser/bin/python (make bench)") from None
    if not os.access(CHROMIUM, os.X_OK):
        raise SystemExit(f"bench_report needs Chromium at {CHROMIUM} (make chromium)")

    work = Path(options.keep) if options.keep else Path(tempfile.mkdtemp(prefix="bench-report-"))
    work.mkdir(parents=True, exist_ok=True)
    figures = {
        "fleet_size": options.fleet_size,
        "repeat": options.repeat,
        "python": platform.python_version(),
        "load_average": [round(value, 2) for value in os.getloadavg()],
        "cases": {},
    }
    with EmulatorProcess(fleet_size=options.fleet_size) as emulator:
        emulator.control.settings(rate_limits={"pro": UNTHROTTLED, "team": UNTHROTTLED})
        client = PanelClient(emulator.live_url, TOKEN, rate_limit=0)
        datasets = {}
        for label, include in (("plain", []), ("metrics+resources", ["metrics", "resources"])):
            started = time.perf_counter()
            datasets[label] = (include, select_servers(client, include=include))
            figures["cases"][label] = {"read_s": round(time.perf_counter() - started, 3)}
        figures["cases"]["plain"].update(playbook_runs(emulator.live_url, work, min(options.repeat, 3)))

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        figures["chromium"] = browser.version
        for label, (include, servers) in datasets.items():
            generated, html = generate(servers, include, work / label, options.repeat)
            figures["cases"][label].update(generated)
            figures["cases"][label].update(render(browser, html, options.repeat))
        browser.close()

    missed = []
    print(
        f"fleet report, {options.fleet_size} servers, median of {options.repeat} runs, Chromium {figures['chromium']}"
    )
    print(
        f"{'data':<18} {'generate s':>10} {'HTML KB':>8} {'JSON KB':>8} {'CSV KB':>7} {'render s':>9} {'table s':>8} {'sort ms':>8}"
    )
    for label, case in figures["cases"].items():
        print(
            f"{label:<18} {case['generate_s']:>10.3f} {case['bytes']['html'] / 1024:>8.0f} "
            f"{case['bytes']['json'] / 1024:>8.0f} {case['bytes']['csv'] / 1024:>7.0f} {case['render_s']:>9.3f} "
            f"{case['table_shown_s']:>8.3f} {case['sort_click_ms']:>8.1f}"
        )
        if case["table_rows"] != options.fleet_size:
            missed.append(f'{label}: the table has {case["table_rows"]} rows, not {options.fleet_size}')
        if case["generate_s"] >= BUDGET_GENERATE_S:
            missed.append(f'{label}: generated in {case["generate_s"]} s (budget {BUDGET_GENERATE_S} s)')
        if case["bytes"]["html"] >= BUDGET_HTML_BYTES:
            missed.append(f'{label}: HTML of {case["bytes"]["html"]} bytes (budget 1.5 MB)')
        if case["render_s"] >= BUDGET_RENDER_S:
            missed.append(f'{label}: rendered in {case["render_s"]} s (budget {BUDGET_RENDER_S} s)')
    print(
        f"reading the fleet: plain {figures['cases']['plain']['read_s']} s (1 request), with metrics and "
        f"resources {figures['cases']['metrics+resources']['read_s']} s ({1 + 2 * options.fleet_size} requests)"
    )
    print(f"ansible-playbook gamepanel.panel.report (plain, whole run): {figures['cases']['plain']['playbook_s']} s")
    print(f"load average at start: {figures['load_average']}")
    if options.json:
        Path(options.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    if missed:
        print("BUDGET MISSED:\n  " + "\n  ".join(missed))
        return 1
    print("every budget met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
