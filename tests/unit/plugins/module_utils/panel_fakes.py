# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Scripted HTTP exchanges and a fake clock for the API client's unit tests.

(Named uniquely, not ``conftest``, so test modules can import it unambiguously.)

A FakePanel (the ``panel`` fixture of conftest.py) holds a requests.Session whose
transport is a ScriptedAdapter:
every request the client sends is recorded and answered with the next scripted
reply (a response or an exception), so no socket is opened.  Time only moves when
the client sleeps on the FakeClock, so retry waits are asserted, never slept.
"""

from __future__ import annotations

import json as jsonlib

import requests
from requests.adapters import BaseAdapter
from requests.structures import CaseInsensitiveDict

from ansible_collections.gamepanel.panel.plugins.module_utils.client import PanelClient

BASE_URL = "https://panel.example.test/api/v1"
TOKEN = "gp-unit-secret-7f3a9c"


class FakeClock:
    """Monotonic and wall time that move only when ``sleep`` is called."""

    WALL_OFFSET = 1_700_000_000.0

    def __init__(self, start=1000.0):
        self.now = start
        self.sleeps = []

    def monotonic(self):
        return self.now

    def time(self):
        return self.WALL_OFFSET + self.now

    def sleep(self, seconds):
        assert seconds >= 0, "negative sleep %r" % seconds
        self.sleeps.append(seconds)
        self.now += seconds


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
