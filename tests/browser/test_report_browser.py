# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet report, written by the report playbook from the emulator's fleet, as a person sees it in Chromium."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from browser_support import require_browser

HOSTILE = "<script>alert(1)</script>"
UNKNOWN = "hibernating"
REPORT = "- name: The ready report playbook\n  ansible.builtin.import_playbook: gamepanel.panel.report\n"
VERSION = re.search(
    r"^version:\s*(\S+)", (Path(__file__).resolve().parents[2] / "galaxy.yml").read_text(encoding="utf-8"), re.MULTILINE
).group(1)
ACME = ("mc-01", "mc-02", "mc-03", "rust-01", "rust-02", "ark-01")
# A restart queued on a server whose agent is away: the ledger holds it open, so the report shows it pending.
QUEUE_RESTART = """
- hosts: localhost
  gather_facts: false
  tasks:
    - name: Queue a restart the agent cannot run yet
      gamepanel.panel.server_control:
        id: rust-01
        state: restarted
        wait: false
"""


def column_texts(page, key):
    """The visible text of one column, row by row, in the table's current order."""
    return page.eval_on_selector_all(
        "#servers tbody tr",
        "(rows, index) => rows.map(row => row.cells[index].innerText.trim())",
        page.eval_on_selector_all("#servers thead th", f'(heads) => heads.findIndex(h => h.dataset.key === "{key}")'),
    )


def visible_ids(page):
    return page.eval_on_selector_all("#servers tbody tr:not([hidden])", "rows => rows.map(r => r.cells[0].innerText)")


def test_report_in_chromium(ansible, emulator, artefacts, tmp_path, request):
    require_browser()
    browser = request.getfixturevalue("browser")
    emulator.control.set_server("mc-02", status=UNKNOWN)
    emulator.control.set_server("ark-01", name=HOSTILE)
    emulator.control.disconnect("rust-01")
    queued = ansible.playbook(QUEUE_RESTART)
    assert queued.rc == 0, queued.describe()
    fleet = [server for server in emulator.control.state()["servers"] if server["id"] in ACME]
    dest = tmp_path / "report"
    run = ansible.playbook(
        REPORT, extra_vars={"fleet_report_dest": str(dest), "fleet_report_include": ["metrics", "resources"]}
    )
    assert run.rc == 0, run.describe()
    page_url = (dest / "fleet-report.html").as_uri()

    context = browser.new_context(viewport={"width": 1366, "height": 900})
    context.set_default_timeout(5000)
    requests, dialogs, console_errors = [], [], []
    context.on("request", lambda request: requests.append(request.url))

    def only_the_page(route):
        if route.request.url == page_url:
            route.continue_()
        else:
            route.abort()

    context.route("**/*", only_the_page)
    page = context.new_page()
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.on("console", lambda message: console_errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: console_errors.append(str(error)))
    page.goto(page_url)

    # The summary counts match the fleet.
    assert page.get_attribute("#summary-servers .big", "data-count") == str(len(fleet))
    assert page.inner_text("#summary-servers .big") == f"{len(fleet):,}"
    legend = {
        item.get_attribute("data-status"): int(item.get_attribute("data-count"))
        for item in page.query_selector_all("#summary-status li")
    }
    assert legend == dict(Counter(server["status"] for server in fleet))
    shown = [item.inner_text().split() for item in page.query_selector_all("#summary-status li")]
    assert {words[0]: int(words[-1]) for words in shown} == legend  # what a person reads, not only attributes
    games = {
        item.get_attribute("data-game"): int(item.get_attribute("data-count"))
        for item in page.query_selector_all("#summary-games li")
    }
    assert games == dict(Counter(server["game"] for server in fleet))
    assert page.inner_text("#players-online") == str(sum(server["players"]["current"] for server in fleet))
    assert page.inner_text("#players-capacity") == str(sum(server["players"]["max"] for server in fleet))

    # The restart still waiting for its agent is pending, counted once and shown in its row only.
    assert page.get_attribute("#pending-count", "data-count") == "1"
    pending = dict(zip(column_texts(page, "id"), column_texts(page, "pending")))
    assert pending.pop("rust-01") == "restart (queued)"
    assert set(pending.values()) == {""}

    # At 1366 px the page does not scroll sideways: the server table scrolls inside its own box,
    # whose right edge is the summary's.
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366
    table_box = page.locator("#servers").locator("xpath=..").bounding_box()
    summary_box = page.locator("#summary").bounding_box()
    assert table_box["x"] + table_box["width"] <= summary_box["x"] + summary_box["width"] + 1
    assert page.eval_on_selector(
        "#servers", "table => table.parentElement.scrollWidth > table.parentElement.clientWidth"
    )
    assert page.eval_on_selector("#servers", "table => getComputedStyle(table.parentElement).overflowX") == "auto"

    # The unknown status shows, with its own colour, in the legend and in the table.
    unknown = page.locator("#summary-status li", has_text=UNKNOWN)
    assert unknown.is_visible() and "unknown status" in unknown.inner_text()
    swatches = page.eval_on_selector_all(
        "#summary-status .sw", "items => items.map(i => getComputedStyle(i).backgroundColor)"
    )
    assert len(set(swatches)) == len(legend)
    assert page.locator("#servers tbody tr", has_text=UNKNOWN).count() == 1

    # One row per server; the hostile name is text and nothing ran.
    assert sorted(column_texts(page, "id")) == sorted(ACME)
    assert page.locator("#servers td", has_text=HOSTILE).inner_text() == HOSTILE
    assert page.eval_on_selector_all("script", "scripts => scripts.length") == 1
    assert dialogs == []

    # Sorting by a column reorders the rows.
    names = column_texts(page, "name")
    page.click('#servers th[data-key="name"] button')
    ascending = column_texts(page, "name")
    assert ascending == sorted(names, key=str.lower) and ascending != names
    page.click('#servers th[data-key="name"] button')
    assert column_texts(page, "name") == list(reversed(ascending))
    page.click('#servers th[data-key="players_max"] button')
    capacities = [int(text) for text in column_texts(page, "players_max")]
    assert capacities == sorted(capacities)

    # Filtering hides the other rows.
    page.fill("#filter", "rust")
    assert sorted(visible_ids(page)) == ["rust-01", "rust-02"]
    page.fill("#filter", "")
    page.select_option("#status-filter", UNKNOWN)
    assert visible_ids(page) == ["mc-02"]
    assert page.inner_text("#shown") == f"1 of {len(fleet)} servers shown"
    page.select_option("#status-filter", "")

    # Every chart is there and draws something.
    charts = page.query_selector_all("#charts figure")
    titles = [chart.query_selector("figcaption").inner_text() for chart in charts]
    for title in (
        "Players online per game (of capacity)",
        "CPU per server",
        "Memory per server",
        "Uptime distribution (servers)",
        "Memory in use of the limit (resources)",
        "Disk in use of the limit (resources)",
        "Fleet over the metrics window",
    ):
        assert title in titles
    for chart in charts:
        box = chart.query_selector("svg").bounding_box()
        assert box and box["width"] > 200 and box["height"] > 20
        drawn = chart.eval_on_selector_all(
            "rect, polyline",
            "shapes => shapes.filter(s => { const b = s.getBBox(); return b.width > 0 && b.height > 0; }).length",
        )
        assert drawn > 0, chart.inner_text()

    # The time, the panel and the version are on the page; nothing left it.
    assert page.inner_text("#panel-url") == emulator.live_url
    assert page.inner_text("#collection-version") == VERSION
    assert page.get_attribute("#taken-at", "datetime")
    page.screenshot(path=str(artefacts / "fleet-report.png"), full_page=True)
    assert requests == [page_url]
    assert page.eval_on_selector_all("[src], [href], link, iframe, object, embed, img", "items => items.length") == 0
    assert console_errors == []
    context.close()
