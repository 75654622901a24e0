# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: the list reads of a task with ``ids`` (_engine/many_servers.py says how it uses them).

``PageReads``: the fleet's pages, which server is on which, and a page read again by the address the
panel gave it; ``read_by_id``: the GET of one server, for a server no page shows (any more);
``pass_interval``: the pace of the confirming passes, so that they take no more than their share
of the token's minute.
"""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.module_utils._rules.convergence import TimedRead

# The share of the token's rate a pass of confirming reads may take, the rest being left to
# other work on the token (a second job, a dashboard): a pass of P pages waits P / share requests' time.
CONFIRM_SHARE = 0.5


def pass_interval(pages, rate_limit, poll_interval):
    """Seconds from the start of one confirming pass over ``pages`` pages to the start of the next.

    Never shorter than ``poll_interval``; longer when the pages would take more than CONFIRM_SHARE of
    ``rate_limit`` requests a minute (0: no pacing, poll_interval alone).
    """
    if not rate_limit or rate_limit <= 0:
        return float(poll_interval)
    return max(float(poll_interval), pages * 60.0 / (float(rate_limit) * CONFIRM_SHARE))


class PageReads(object):
    """The fleet's pages as last read (``pages``), and on which page each server was last seen (``page_of``)."""

    def __init__(self, client):
        self.client = client
        self.pages = []  # ServerPage, in the panel's order
        self.page_of = {}  # server id -> index in pages

    def stream(self):
        """Read the fleet page by page; yields ``(index, [TimedRead of each listed server])`` as each page comes."""
        for page in self.client.server_pages():
            index = len(self.pages)
            self.pages.append(page)
            yield index, self._take(index, page)

    def read_again(self, indexes):
        """Read the pages at ``indexes`` again; returns ``{server id: TimedRead}`` of the servers on them now."""
        found = {}
        for index in sorted(set(indexes)):
            page = self.client.read_page(self.pages[index])
            self.pages[index] = page
            for read in self._take(index, page):
                found[read.server["id"]] = read
        return found

    def _take(self, index, page):
        reads = []
        for server in page.servers:
            if server.get("id") is None:
                continue
            self.page_of[server["id"]] = index
            reads.append(TimedRead(server, page.started, page.finished, page.wall_offset))
        page.servers = ()  # only the servers the engine works on are kept (by their reads), not the whole fleet
        return reads


def read_by_id(client, server_id):
    """``GET /servers/{id}``, as a TimedRead: the server and when the read started and ended (monotonic)."""
    return TimedRead.made(client.clock, lambda: client.get_server(server_id))
