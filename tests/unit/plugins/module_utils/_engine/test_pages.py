# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""_engine/pages.py: the fleet's pages as a task with ids reads them, and the pace of its confirming passes."""

from __future__ import annotations

import pytest

from ansible_collections.gamepanel.panel.plugins.module_utils._engine.pages import PageReads, pass_interval, read_by_id

from panel_fakes import FakeClient, server


def fleet(count):
    client = FakeClient(*(server("srv-%02d" % number) for number in range(count)))
    client.page_size = 2
    return client


def test_the_fleet_is_read_page_by_page_and_each_server_is_known_by_its_page():
    client = fleet(5)
    pages = PageReads(client)
    seen = [(index, [read.server["id"] for read in reads]) for index, reads in pages.stream()]
    assert seen == [(0, ["srv-00", "srv-01"]), (1, ["srv-02", "srv-03"]), (2, ["srv-04"])]
    assert pages.page_of["srv-03"] == 1 and len(client.lists) == 3
    assert all(page.servers == () for page in pages.pages)  # only the reads of the task's servers are kept


def test_reading_again_reads_only_the_pages_asked_for():
    client = fleet(5)
    pages = PageReads(client)
    list(pages.stream())
    client.servers["srv-03"]["status"] = "offline"
    fresh = pages.read_again([1, 1])
    assert sorted(fresh) == ["srv-02", "srv-03"] and fresh["srv-03"].server["status"] == "offline"
    assert len(client.lists) == 4  # one more page, once


def test_a_read_by_id_is_one_get_with_its_times():
    client = fleet(1)
    read = read_by_id(client, "srv-00")
    assert (read.server["id"], read.started, read.finished) == (
        "srv-00",
        client.clock.monotonic(),
        client.clock.monotonic(),
    )
    assert read.wall_started == client.clock.time()  # for the comparisons with the ledger's wall times
    assert [what for unused, what, unused_id in client.log] == ["GET"]


@pytest.mark.parametrize(
    "pages, rate_limit, poll, expected",
    [(1, 120, 5.0, 5.0), (100, 600, 5.0, 20.0), (10, 120, 5.0, 10.0), (100, 0, 5.0, 5.0)],
)
def test_confirming_passes_take_at_most_half_the_minute(pages, rate_limit, poll, expected):
    assert pass_interval(pages, rate_limit, poll) == pytest.approx(expected)
