# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The unit tests' fakes: scripted HTTP exchanges (FakePanel), the client's interface (FakeClient), one clock.

(Named uniquely, not ``conftest``, so test modules can import it unambiguously.)

A FakePanel (the ``panel`` fixture of conftest.py) holds a requests.Session whose
transport is a ScriptedAdapter:
every request the client sends is recorded and answered with the next scripted
reply (a response or an exception), so no socket is opened.  Time only moves when
the client sleeps on the FakeClock, so retry waits are asserted, never slept.
"""

from __future__ import annotations

import contextlib
import copy
import json as jsonlib

import requests
from requests.adapters import BaseAdapter
from requests.structures import CaseInsensitiveDict

from ansible_collections.gamepanel.panel.plugins.module_utils._api.client import PanelClient, ServerPage
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.request import ControlRequest
from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import (
    PanelAmbiguousError,
    PanelApiError,
    PanelNotFoundError,
    PanelVariantError,
    refused_error,
)

BASE_URL = "https://panel.example.test/api/v1"
TOKEN = "gp-unit-secret-7f3a9c"


class FakeClock:
    """Monotonic and wall time that move only when ``sleep`` is called; events scheduled with ``at`` fire on the way.

    The one fake clock of the unit tests.  ``sleeps`` records every sleep, rounded to the
    microsecond (float sums of backoff steps are not exact).
    """

    WALL_OFFSET = 1_700_000_000.0

    def __init__(self, start=1000.0, wall_offset=WALL_OFFSET):
        self.now = start
        self.wall_offset = wall_offset
        self.sleeps = []
        self.events = []

    def monotonic(self):
        return self.now

    def time(self):
        return self.wall_offset + self.now

    def at(self, delay, action):
        """Call ``action()`` when the clock reaches ``delay`` seconds from now (during a sleep)."""
        self.events.append((self.now + delay, len(self.events), action))
        self.events.sort(key=lambda event: event[:2])

    def step_wall(self, delay, seconds):
        """``delay`` seconds from now the wall clock (``time()``) jumps by ``seconds``, and ``monotonic()`` does not.

        What an NTP step or a resumed virtual machine does to a running task.
        """
        self.at(delay, lambda: setattr(self, "wall_offset", self.wall_offset + seconds))

    def sleep(self, seconds):
        assert seconds >= 0, "negative sleep %r" % seconds
        self.sleeps.append(round(seconds, 6))
        target = self.now + seconds
        while self.events and self.events[0][0] <= target:
            when, _order, action = self.events.pop(0)
            self.now = max(self.now, when)
            action()
        self.now = target


class NoBudget:
    """A budget that never waits, counting how often it was asked."""

    def __init__(self, waits=None):
        self.acquired = 0
        self.waits = list(waits or [])

    def acquire(self, max_wait=None):
        self.acquired += 1
        return self.waits.pop(0) if self.waits else 0.0


class Sent:
    """What the client put on the wire for one request."""

    def __init__(self, prepared, kwargs):
        self.method = prepared.method
        self.url = prepared.url
        self.headers = dict(prepared.headers)
        self.body = prepared.body
        self.kwargs = kwargs

    @property
    def path(self):
        """The request path under BASE_URL, exactly as sent (still percent-encoded)."""
        assert self.url.startswith(BASE_URL + "/"), self.url
        return self.url[len(BASE_URL) :]

    @property
    def json(self):
        if self.body is None:
            return None
        body = self.body.decode("utf-8") if isinstance(self.body, bytes) else self.body
        return jsonlib.loads(body)

    def __repr__(self):
        return "<Sent %s %s>" % (self.method, self.url)


class ScriptedAdapter(BaseAdapter):
    """A transport that answers from a script and records every request."""

    def __init__(self):
        super().__init__()
        self.script = []
        self.sent = []

    def send(self, request, **kwargs):
        self.sent.append(Sent(request, kwargs))
        if not self.script:
            raise AssertionError("unexpected request: %s %s" % (request.method, request.url))
        reply = self.script.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        status, body, headers = reply
        response = requests.Response()
        response.status_code = status
        response.reason = requests.status_codes._codes.get(status, ("",))[0].replace("_", " ").title()
        response._content = body
        response.headers = CaseInsensitiveDict(headers)
        response.url = request.url
        response.request = request
        response.encoding = "utf-8"
        return response

    def close(self):
        pass


class FakePanel:
    """A scripted panel: queue replies, build clients, read what was sent."""

    def __init__(self):
        self.adapter = ScriptedAdapter()
        self.clock = FakeClock()
        self.session = requests.Session()
        self.session.trust_env = False  # the developer's proxy variables must not leak into tests
        self.session.mount("https://", self.adapter)
        self.session.mount("http://", self.adapter)

    def reply(self, status=200, json=None, body=None, headers=None):
        """Queue one answer: ``json`` (encoded) or raw ``body`` (bytes or text)."""
        headers = dict(headers or {})
        if json is not None:
            body = jsonlib.dumps(json)
            headers.setdefault("Content-Type", "application/json")
        if body is None:
            body = b""
        if isinstance(body, str):
            body = body.encode("utf-8")
        self.adapter.script.append((status, body, headers))
        return self

    def fail(self, exception):
        """Queue a transport failure raised instead of an answer."""
        self.adapter.script.append(exception)
        return self

    def client(self, **kwargs):
        kwargs.setdefault("base_url", BASE_URL)
        kwargs.setdefault("api_token", TOKEN)
        kwargs.setdefault("budget", NoBudget())
        return PanelClient(session=self.session, clock=self.clock, **kwargs)

    @property
    def sent(self):
        return self.adapter.sent

    @property
    def unused(self):
        return self.adapter.script


# -- the panel at the client's interface --------------------------------------------------------


def server(server_id="mc-01", name="Survival", status="online", players=3, uptime=86400, **extra):
    record = {
        "id": server_id,
        "name": name,
        "game": "minecraft",
        "status": status,
        "players": {"current": players, "max": 20},
        "cpu": 1.0,
        "memory_mb": 1024,
        "uptime_seconds": uptime,
    }
    record.update(extra)
    return record


class FakeClient:
    """Stands in for PanelClient at its interface: a dict of servers, a log of requests, hooks for an agent.

    The one fake client of the unit tests that need a panel but not its HTTP (control logic,
    the ledger, shared reads, server selection).  Tests of the client's HTTP use FakePanel.
    """

    def __init__(self, *servers, variant="live", subresources=("players", "metrics", "console", "resources")):
        self.clock = FakeClock()
        self.subresources = subresources  # the kinds get_subresource answers
        self.servers = {record["id"]: record for record in (servers or (server(),))}
        self.variant = variant
        self.log = []  # (time, what, server_id)
        self.on_post = None  # callable(server_id, action): the agent's reaction, usually scheduled
        self.post_error = None
        self.read_error_after = None  # raise on reads after this many reads
        self.stats = {"requests": 0, "retries": 0, "waited_seconds": 0.0}
        self.deadlines = []  # (seconds, option) of every client.deadline() block
        self.limit_at = None  # the instant the current deadline() block ends
        self.read_failures = []  # PanelErrors the next reads raise, one each
        self.refusals = {}  # server id -> how many of its next POSTs the panel refuses (handed back, 2 s)
        self.hand_backs = []  # the hand_back argument of every POST

    @contextlib.contextmanager
    def deadline(self, seconds, option):
        self.deadlines.append((seconds, option))
        previous, self.limit_at = self.limit_at, self.clock.now + seconds
        try:
            yield
        finally:
            self.limit_at = previous

    def deadline_left(self):
        return None if self.limit_at is None else max(0.0, self.limit_at - self.clock.now)

    @property
    def posts(self):
        return [entry for entry in self.log if entry[1].startswith("POST")]

    @property
    def reads(self):
        return [entry for entry in self.log if entry[1] == "GET"]

    def record(self, what, server_id=None):
        self.stats["requests"] += 1
        self.log.append((self.clock.now, what, server_id))

    def get_server(self, server_id):
        self.record("GET", server_id)
        if self.read_failures:
            raise self.read_failures.pop(0)
        if self.read_error_after is not None and len(self.reads) > self.read_error_after:
            raise PanelApiError("The panel answered 500: internal error.", status=500, server_id=server_id)
        if server_id not in self.servers:
            raise PanelNotFoundError("No server with id %s." % server_id, status=404, server_id=server_id)
        return copy.deepcopy(self.servers[server_id])

    def list_servers(self):
        self.record("LIST")
        return [copy.deepcopy(record) for record in self.servers.values()]

    page_size = 100  # servers per page of server_pages()

    def _page(self, number):
        self.record("LIST")
        if self.read_failures:
            raise self.read_failures.pop(0)
        started = self.clock.monotonic()  # as PanelClient times its pages: monotonic, with the wall offset
        records = list(self.servers.values())[number * self.page_size : (number + 1) * self.page_size]
        pages = [copy.deepcopy(record) for record in records]
        return ServerPage("page=%d" % number, pages, started, started, self.clock.time() - started)

    def server_pages(self):
        number = 0
        while True:
            yield self._page(number)
            number += 1
            if number * self.page_size >= len(self.servers):
                return

    def read_page(self, page):
        return self._page(int(page.url.split("=")[1]))

    @property
    def lists(self):
        return [entry for entry in self.log if entry[1] == "LIST"]

    retry_timeout = 60.0  # the client's retry_timeout (a put-back POST is tried again within it)

    def queue_action(self, server_id, action, hand_back=False):
        self.record("POST " + action, server_id)
        self.hand_backs.append(hand_back)
        while self.refusals.get(server_id):  # the panel's own 503, Retry-After: 2
            self.refusals[server_id] -= 1
            if hand_back:
                raise refused_error(
                    "POST /servers/%s/control (%s)" % (server_id, action), 503, b'{"message": "busy"}', server_id, 2.0
                )
            self.clock.sleep(2.0)  # the client waits, and sends it again
            self.record("POST " + action, server_id)
        if self.post_error is not None and not isinstance(self.post_error, PanelAmbiguousError):
            raise self.post_error
        if self.on_post is not None:
            self.on_post(server_id, action)
        if self.post_error is not None:
            raise self.post_error
        return {"action": action, "state": "queued"}

    def supports(self, action):
        return self.variant == "live" or action == "restart"

    def check_subresource(self, kind):
        if kind not in self.subresources:
            raise PanelVariantError("no %s" % kind)

    def get_subresource(self, server_id, kind):
        self.record(kind, server_id)
        return {"kind": kind, "of": server_id}

    @property
    def calls(self):
        """The log as ("list",), ("get", id), (what, id) tuples, without times."""
        names = {"LIST": "list", "GET": "get"}
        return [
            (names[what],) if what == "LIST" else (names.get(what, what), server_id)
            for unused_time, what, server_id in self.log
        ]

    # -- agent helpers -------------------------------------------------------------------

    def later(self, delay, server_id="mc-01", **fields):
        self.clock.at(delay, lambda: self.servers[server_id].update(fields))

    def live_uptime(self, server_id="mc-01", restart_at=None, horizon=400):
        """Make the server's uptime grow with the clock, second by second, as a live panel shows it.

        ``restart_at`` (seconds from now) resets it to 0 there, as a restart does;
        fractions of a second are cut off as the panel's whole seconds are.
        """
        start = self.servers[server_id]["uptime_seconds"]
        for tick in range(1, horizon * 4):
            offset = tick / 4.0
            up = offset - restart_at if restart_at is not None and offset >= restart_at else start + offset
            self.later(offset, server_id, uptime_seconds=int(up))

    def agent_applies_after(self, delay, *steps):
        """On POST: after ``delay`` seconds apply each step (seconds_after_delay, fields)."""

        def react(server_id, action):
            for offset, fields in steps:
                self.later(delay + offset, server_id, **fields)

        self.on_post = react


def request(state, **options):
    """A ControlRequest for ``state``, for the server ``mc-01`` unless ``server_id`` says otherwise."""
    options.setdefault("server_id", "mc-01")
    return ControlRequest(state, **options)
