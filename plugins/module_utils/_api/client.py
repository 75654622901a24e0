# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: The panel's REST API client, used by every module and by the inventory plugin.

One interface over both API variants (``live``: a single control endpoint;
``planned``: one endpoint per action), tolerant of everything the specification
leaves open (list envelope, pagination, missing fields, error body shape).  Retries
live in _api/retry.py, request pacing in _api/ratelimit.py, message wording in _api/errors.py.

The API token never leaves this object except in the Authorization header: it is
held by a wrapper whose repr is redacted, every PanelError leaving a public method
is scrubbed of it, and the shared state (rate budget, status snapshots) is named by
``state_key``, its SHA-256, which only the client derives.
"""

from __future__ import annotations

import contextlib
import functools
import ipaddress
import re
import traceback
from urllib.parse import quote, urljoin, urlsplit

from ansible_collections.gamepanel.panel.plugins.module_utils._api import errors
from ansible_collections.gamepanel.panel.plugins.module_utils._api.ratelimit import (
    SharedBudget,
    announced_limit,
    limit_warning,
    pace_words,
)
from ansible_collections.gamepanel.panel.plugins.module_utils._api.retry import Deadline, RetryPolicy, SystemClock
from ansible_collections.gamepanel.panel.plugins.module_utils._api.options import Option, Options
from ansible_collections.gamepanel.panel.plugins.module_utils._api.server_records import SUBRESOURCES, normalize_server
from ansible_collections.gamepanel.panel.plugins.module_utils._api.token_file import TOKEN_ENV, api_token_fallback
from ansible_collections.gamepanel.panel.plugins.module_utils._state.files import key_for_token

try:
    import requests
except ImportError:
    HAS_REQUESTS = False
    REQUESTS_IMPORT_ERROR = traceback.format_exc()
else:
    HAS_REQUESTS = True
    REQUESTS_IMPORT_ERROR = None

try:
    from ansible.module_utils.ansible_release import __version__ as ANSIBLE_CORE_VERSION
except ImportError:  # pragma: no cover - only outside ansible-core
    ANSIBLE_CORE_VERSION = "unknown"

# The collection's version, copied from galaxy.yml (the source): a module runs where no galaxy.yml or
# MANIFEST.json travels, so the copy is here; .ci/build_collection.sh refuses to build when they differ.
COLLECTION_VERSION = "1.0.0"
USER_AGENT = "gamepanel.panel/%s (ansible-core %s)" % (COLLECTION_VERSION, ANSIBLE_CORE_VERSION)

ACTIONS = ("start", "stop", "restart")

# Where a list may hide inside an object, in the order they are tried.
_LIST_KEYS = ("servers", "data", "items", "results")
# Where a single server may hide inside an object that is not itself the server.
_OBJECT_KEYS = ("server", "data", "item", "result")
# A panel whose pagination never ends must not keep a play busy forever.
MAX_PAGES = 10000
# The version segment base_url must contain ("v1").
_VERSION_SEGMENT = re.compile(r"^v[0-9]+$")

INSECURE_HTTP_WARNING = (
    "base_url uses plain http to a host that is not this machine, and allow_insecure_http is set: "
    "the API token and every answer cross the network unencrypted. Use https for a real panel."
)


def without_proxy_for_plain_http(proxies):
    """``proxies`` (a requests proxies mapping) with every proxy for plain http taken out.

    For a panel at plain http on this machine (a tunnel, the emulator): a proxy named by
    HTTP_PROXY, http_proxy or ALL_PROXY would receive the Authorization header in clear, and a
    proxy on another machine would reach its own loopback, not this one's.  ``"http": None`` is what requests looks
    up before ``"all"``, and requests keeps it (setdefault) when it re-reads the environment
    for a redirect, so no plain http request of the session is proxied, with no NO_PROXY needed.
    https keeps its proxy: there the token travels inside the TLS tunnel.
    """
    kept = {key: value for key, value in (proxies or {}).items() if key != "http" and not key.startswith("http://")}
    kept["http"] = None
    return kept


def is_loopback_host(host):
    """True for localhost and loopback addresses (127.0.0.0/8, ::1): plain http never leaves the machine."""
    host = (host or "").strip("[]").rstrip(".").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


class ApiVariant(object):
    """What one variant of the API offers, and how it queues an action."""

    def __init__(self, name, subresources, actions, control_endpoint=None):
        self.name = name
        self.subresources = subresources
        self.actions = actions
        self.control_endpoint = control_endpoint

    def action_request(self, action):
        """(last path segment, JSON body or None) of the POST that queues ``action``."""
        if self.control_endpoint:
            return self.control_endpoint, {"action": action}
        return action, None


VARIANTS = {
    # The released API: one control endpoint taking {"action": ...}.
    "live": ApiVariant("live", SUBRESOURCES, ACTIONS, control_endpoint="control"),
    # Not released yet: players only, and restart as its own endpoint with no body.
    "planned": ApiVariant("planned", ("players",), ("restart",)),
}


class _Secret(object):
    """Holds the token; its repr and str never show it."""

    __slots__ = ("_value",)

    def __init__(self, value):
        self._value = value

    def reveal(self):
        return self._value

    def __repr__(self):
        return errors.REDACTED

    __str__ = __repr__


class _BearerAuth(object):
    """The token's Authorization header, given to requests as the request's auth.

    A request without auth of its own gets the password ~/.netrc holds for the panel's host
    (requests reads it whenever it trusts the environment, as it must for proxies and CA bundles),
    which would replace the token with another secret sent to the panel. With auth set, it does not.
    """

    __slots__ = ("_secret",)

    def __init__(self, secret):
        self._secret = secret

    def __call__(self, request):
        request.headers["Authorization"] = "Bearer " + self._secret.reveal()
        return request

    def __repr__(self):
        return errors.REDACTED


def encode_segment(segment):
    """One URL path segment, percent-encoded so that it stays one segment.

    ``quote(safe="")`` encodes "/", "?", "#", spaces and non-ASCII.  It leaves "."
    alone, so a segment made only of dots ("." or "..") would be a dot-segment that
    servers and proxies resolve to another path: its dots are encoded as %2E.
    """
    encoded = quote(segment, safe="")
    if encoded and encoded.strip(".") == "":
        encoded = encoded.replace(".", "%2E")
    return encoded


def _server_segment(server_id):
    if server_id is None or (isinstance(server_id, str) and not server_id.strip()):
        raise errors.PanelError("The server id is empty: give the id of a server as the panel shows it.")
    return str(server_id)


def _clean_token(api_token):
    if not isinstance(api_token, str) or not api_token.strip():
        raise errors.PanelAuthError(errors.NO_TOKEN_MESSAGE)
    token = api_token.strip()  # a token pasted or read from a file often ends with a newline
    if any(char.isspace() or not 32 < ord(char) < 127 for char in token):
        raise errors.PanelAuthError(
            "The API token contains spaces, line breaks or non-ASCII characters, so it cannot be sent "
            "in an HTTP header. Copy it again from the panel (Settings → API tokens)."
        )
    return token


def _scrubbed(method):
    """Decorator: no PanelError leaves the client with the token in it, nor chained to a foreign exception."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except errors.PanelError as error:
            token = getattr(self, "_token", None)  # not set yet when the token itself was refused
            raise error.scrub(token.reveal() if token is not None else None) from None

    return wrapper


# The connection options every module shares, each declared once: the argument spec (_entry/connection.py),
# PanelClient's defaults and the connection the inventory hands on (job_connection.CONNECTION_KEYS) derive
# from them; the doc fragment (doc_fragments/panel.py) documents them, and a unit test keeps it in step.
# ``api_token`` and ``base_url`` are not required here, so that a missing one is reported by PanelClient
# with a message that says where to get it.
CONNECTION_OPTIONS = Options(
    Option("api_token", "str", no_log=True, env=[TOKEN_ENV], fallback=api_token_fallback),
    Option("base_url", "str", env=["GAMEPANEL_BASE_URL"]),
    Option("api_variant", "str", choices=tuple(VARIANTS), default="live", env=["GAMEPANEL_API_VARIANT"]),
    Option("rate_limit", "int", default=120, env=["GAMEPANEL_RATE_LIMIT"]),
    Option("validate_certs", "bool", default=True),
    Option("request_timeout", "float", default=30.0),
    Option("retry_timeout", "float", default=60.0),
    Option("allow_insecure_http", "bool", default=False, env=["GAMEPANEL_ALLOW_INSECURE_HTTP"]),
)
CONNECTION_DEFAULTS = dict(
    (name, default) for name, default in CONNECTION_OPTIONS.defaults().items() if default is not None
)


class ServerPage(object):
    """One page of the server list: its URL, its servers (normalised), and when its read started and ended.

    ``started`` and ``finished`` are on the monotonic clock (the elapsed times a task judges must not
    follow a wall-clock step); ``wall_offset`` is wall minus monotonic time at the start, for what is
    compared with other processes' wall times (_rules/convergence.py, TimedRead).
    """

    __slots__ = ("url", "servers", "started", "finished", "wall_offset")

    def __init__(self, url, servers, started, finished, wall_offset=0.0):
        self.url = url
        self.servers = servers
        self.started = started
        self.finished = finished
        self.wall_offset = wall_offset


def check_base_url(base_url):
    """Raise PanelError unless ``base_url`` has the form of the API root: http(s), a host, no query or fragment."""
    if not isinstance(base_url, str) or not base_url.strip():
        raise errors.PanelError(errors.NO_BASE_URL_MESSAGE)
    try:
        parts = urlsplit(base_url.strip())
        usable = parts.scheme in ("http", "https") and parts.hostname and not parts.query and not parts.fragment
    except ValueError:
        usable = False
    if not usable:
        raise _base_url_problem(base_url)


def _base_url_problem(base_url):
    return errors.PanelError(
        "base_url %r is not an http(s) URL of the API root (no query, no fragment), for example "
        "https://panel.example.com/api/v1." % (base_url,)
    )


class PanelClient(object):
    """Client for one panel, one token and one API variant.

    ``session`` (a requests.Session), ``clock`` (``monotonic()``, ``time()``,
    ``sleep()``) and ``budget`` (an object with ``acquire()``) are injected by tests;
    by default a new session, the system clock and the token's SharedBudget are used.

    ``warnings`` lists sentences the caller must show the user (the module through
    ``module.warn``, the inventory through its display); each is worded the same every
    time, so Ansible, which shows a repeated warning once, shows it once per run.
    """

    @_scrubbed
    def __init__(
        self,
        base_url,
        api_token,
        api_variant=CONNECTION_DEFAULTS["api_variant"],
        validate_certs=CONNECTION_DEFAULTS["validate_certs"],
        request_timeout=CONNECTION_DEFAULTS["request_timeout"],
        rate_limit=CONNECTION_DEFAULTS["rate_limit"],
        retry_timeout=CONNECTION_DEFAULTS["retry_timeout"],
        allow_insecure_http=CONNECTION_DEFAULTS["allow_insecure_http"],
        *,
        session=None,
        clock=None,
        budget=None,
    ):
        if not HAS_REQUESTS:
            raise errors.PanelError(
                "The Python library requests is required by gamepanel.panel; install it "
                "on the controller (pip install requests)."
            )
        self._token = _Secret(_clean_token(api_token))
        try:
            self.variant = VARIANTS[api_variant]
        except KeyError:
            raise errors.PanelVariantError(
                "Unknown api_variant %r: use live (the released API) or planned." % (api_variant,)
            ) from None
        self.api_variant = self.variant.name
        self.base_url = self._check_base_url(base_url)
        self.warnings = []
        self._direct = self._check_transport(allow_insecure_http)
        self._base_url_hint = self._version_segment_doubt()
        self.validate_certs = bool(validate_certs)
        self.request_timeout = float(request_timeout)
        if self.request_timeout <= 0:
            raise errors.PanelError("request_timeout must be a positive number of seconds.")
        if float(retry_timeout) < 0:
            raise errors.PanelError("retry_timeout must be zero or a positive number of seconds.")
        if rate_limit is not None and int(rate_limit) < 0:
            raise errors.PanelError("rate_limit must be a number of requests per minute, or 0 for no pacing.")
        self.clock = clock or SystemClock()
        self.rate_limit = int(rate_limit or 0)
        self._limit_said = False  # whether the warning about the panel's announced limit was given
        self._session = session if session is not None else requests.Session()
        # The name of this token's shared state (_state/files.py); the token itself stays here.
        self.state_key = key_for_token(self._token.reveal())
        if budget is None:
            budget = SharedBudget(self.state_key, rate_limit, clock=self.clock)
        self._budget = budget
        self._retry = RetryPolicy(
            retry_timeout, clock=self.clock, budget=budget, panel_address=urlsplit(self.base_url).netloc
        )
        self._deadline = None  # the Deadline of the enclosing deadline() block, if any

    def __repr__(self):
        return "<PanelClient %s %s>" % (self.api_variant, self.base_url)

    def _check_transport(self, allow_insecure_http):
        """Refuse to send the token in clear to another machine, unless the user said so.

        Returns True when the panel is at plain http on this machine: its requests then go
        direct, never through a proxy of the environment (``without_proxy_for_plain_http``).
        """
        parts = urlsplit(self.base_url)
        if parts.scheme != "http":
            return False
        if is_loopback_host(parts.hostname):
            return True
        if not allow_insecure_http:
            raise errors.PanelError(
                "base_url %s uses plain http to %s, which is not this machine: the API token would cross the "
                "network unencrypted, so nothing was sent. Use the panel's https address. For a test panel on a "
                "trusted network only, set allow_insecure_http: true (or GAMEPANEL_ALLOW_INSECURE_HTTP=true)."
                % (self.base_url, parts.hostname)
            )
        self.warnings.append(INSECURE_HTTP_WARNING)
        return False

    def _version_segment_doubt(self):
        """A phrase when base_url has no version segment (such as v1), else None."""
        segments = [segment for segment in urlsplit(self.base_url).path.split("/") if segment]
        if any(_VERSION_SEGMENT.match(segment) for segment in segments):
            return None
        return "%s has no version segment such as /v1" % self.base_url

    @contextlib.contextmanager
    def deadline(self, seconds, option):
        """Within the block, no retry runs past ``seconds`` from now (``option`` names the limit in messages).

        A wait uses it so that retries inside one read end with the wait, not a whole
        retry_timeout later; a read started before the deadline still takes up to
        request_timeout.
        """
        previous, self._deadline = self._deadline, Deadline(self.clock, seconds, option)
        try:
            yield
        finally:
            self._deadline = previous

    def deadline_left(self):
        """Seconds left before the deadline of the enclosing ``deadline()`` block (0 once past), None outside one.

        For waits that are not retries (a shared read waiting for another process's
        list read): they must end with the wait too.
        """
        return None if self._deadline is None else self._deadline.left()

    @staticmethod
    def _check_base_url(base_url):
        check_base_url(base_url)
        try:
            # requests normalises the URL (IDNA host, quoting of unsafe characters) once here,
            # so that request URLs can be assembled below without its help.
            return requests.Request("GET", base_url.strip()).prepare().url.rstrip("/")
        except (ValueError, requests.exceptions.RequestException):
            raise _base_url_problem(base_url) from None

    # -- what the client offers -------------------------------------------------

    @property
    def stats(self):
        """What this client spent so far: requests sent, retries, seconds waited (backoff and pacing)."""
        stats = dict(self._retry.stats)
        stats["waited_seconds"] = round(stats["waited_seconds"], 3)
        return stats

    @property
    def panel(self):
        """Which panel this client talks to, as results name it: ``{base_url, api_variant}`` (no credentials)."""
        parts = urlsplit(self.base_url)
        host = parts.hostname or ""
        if ":" in host:
            host = "[%s]" % host
        netloc = host if parts.port is None else "%s:%d" % (host, parts.port)
        return {"base_url": "%s://%s%s" % (parts.scheme, netloc, parts.path), "api_variant": self.api_variant}

    def supports(self, action):
        """True when the chosen variant can queue ``action`` (start, stop, restart)."""
        return action in self.variant.actions

    def check_subresource(self, kind):
        """Raise unless the chosen variant offers the sub-resource ``kind``."""
        if kind not in SUBRESOURCES:
            raise ValueError("unknown sub-resource %r (known: %s)" % (kind, ", ".join(SUBRESOURCES)))
        if kind not in self.variant.subresources:
            raise errors.PanelVariantError(
                "The %s API variant has no %s endpoint (GET /servers/{id}/%s); it offers %s only. "
                "Use api_variant: live to read %s."
                % (self.api_variant, kind, kind, ", ".join(self.variant.subresources), kind)
            )

    @_scrubbed
    def list_servers(self):
        """Every server the token can see, normalised, across all pages and envelopes."""
        servers = []
        for page in self.server_pages():
            servers.extend(page.servers)
        return servers

    def server_pages(self):
        """The list read page by page: yields a ServerPage per page, as it is read (a generator).

        A server already seen on an earlier page (a boundary that shifted while paging) is left
        out of later pages: the first copy counts.  Each page is read only when the caller asks
        for the next one, so a caller can act on a page before the following one is read.
        """
        # a generator: the errors of its reads leave it while the caller iterates, so it scrubs them itself
        try:
            yield from self._pages()
        except errors.PanelError as error:
            raise error.scrub(self._token.reveal()) from None

    def _pages(self):
        url = self._url("servers")
        seen_urls = set()
        seen_ids = set()
        while url:
            if url in seen_urls:
                raise errors.PanelApiError(
                    "The panel's pagination of GET /servers came back to a page already read (%s); the client "
                    "stopped instead of looping forever." % self._shown(url)
                )
            if len(seen_urls) >= MAX_PAGES:
                raise errors.PanelApiError(
                    "The panel's pagination of GET /servers did not end after %d pages; "
                    "the client stopped." % MAX_PAGES
                )
            # The first URL is ours and exactly encoded; next-page links are the panel's.
            page, url_after = self._read_page(url, exact=not seen_urls)
            seen_urls.add(url)
            page.servers = [server for server in page.servers if server["id"] is None or server["id"] not in seen_ids]
            seen_ids.update(server["id"] for server in page.servers)
            yield page
            url = url_after

    @_scrubbed
    def read_page(self, page):
        """Read again the page ``page`` (a ServerPage this client yielded); returns a new ServerPage."""
        return self._read_page(page.url, exact=page.url == self._url("servers"))[0]

    def _read_page(self, url, exact):
        started = self.clock.monotonic()
        wall_offset = self.clock.time() - started
        response, what = self._request("GET", url, exact=exact)
        body = self._json(response, what)
        servers = []
        ids = set()
        for raw in _server_list(body, what):
            server = _normalize(raw, what)
            if server["id"] is not None and server["id"] in ids:
                continue
            ids.add(server["id"])
            servers.append(server)
        return ServerPage(url, servers, started, self.clock.monotonic(), wall_offset), self._next_page(
            body, response, url
        )

    @_scrubbed
    def get_server(self, server_id):
        """One server by id, normalised (PanelNotFoundError naming the id when unknown)."""
        response, what = self._request("GET", self._url("servers", _server_segment(server_id)), server_id=server_id)
        raw = _server_object(self._json(response, what), what)
        if not _looks_like_server(raw):
            raise errors.PanelApiError(
                "The panel's answer to %s is not a server: an object with keys %s. "
                "This does not look like the panel's API. %s"
                % (what, _keys(raw), errors.base_url_advice(self._base_url_hint)),
                server_id=server_id,
            )
        server = _normalize(raw, what)
        if server["id"] is None:
            server["id"] = str(server_id)
        return server

    @_scrubbed
    def get_subresource(self, server_id, kind):
        """The body of GET /servers/{id}/{kind}, as the panel gives it (None for an empty body)."""
        self.check_subresource(kind)
        response, what = self._request(
            "GET", self._url("servers", _server_segment(server_id), kind), server_id=server_id
        )
        return self._json(response, what, required=False)

    @property
    def retry_timeout(self):
        """Seconds a request may be tried again for (the retry_timeout option)."""
        return self._retry.retry_timeout

    @_scrubbed
    def queue_action(self, server_id, action, hand_back=False):
        """Queue ``action`` on a server; returns the panel's answer body, or None.

        Live: POST /servers/{id}/control {"action": action}.  Planned: restart only,
        POST /servers/{id}/restart with no body.  The call returns once the panel
        queued the action, not once it ran.  ``hand_back``: a POST to be sent again
        (refused by the panel) raises at once with ``retry_in`` instead of being waited
        for (_api/retry.py).
        """
        if action not in ACTIONS:
            raise ValueError("unknown action %r (known: %s)" % (action, ", ".join(ACTIONS)))
        if not self.supports(action):
            raise errors.PanelVariantError(
                "The %s API variant cannot %s a server: it offers %s only (POST /servers/{id}/%s). "
                "Use api_variant: live to start or stop servers."
                % (self.api_variant, action, " and ".join(self.variant.actions), self.variant.actions[0]),
                server_id=server_id,
            )
        segment, payload = self.variant.action_request(action)
        label = " (%s)" % action if payload is not None else ""
        response, what = self._request(
            "POST",
            self._url("servers", _server_segment(server_id), segment),
            body=payload,
            server_id=server_id,
            label=label,
            retry=dict(hand_back=hand_back),
        )
        # The action is queued whatever the body says: an unreadable body must not turn
        # that success into a failure, which a caller might "fix" by queueing again.
        try:
            return self._json(response, what, required=False)
        except errors.PanelError:
            return None

    # -- HTTP ---------------------------------------------------------------------

    def _url(self, *segments):
        return self.base_url + "/" + "/".join(encode_segment(segment) for segment in segments)

    def _shown(self, url):
        """A URL as messages show it: the path under base_url, or the whole URL when elsewhere; long ones cut."""
        if url.startswith(self.base_url + "/"):
            url = url[len(self.base_url) :]
        return errors.echoed(url, limit=2 * errors.MAX_ECHOED)

    def _request(self, method, url, body=None, server_id=None, label="", exact=True, retry=None):
        """Send through the retry policy; returns (2xx response, description) or raises a PanelError.

        ``exact``: the URL was built by ``_url`` and is sent byte for byte as built; ``retry``:
        keywords for RetryPolicy.send (a POST's hand_back).
        """
        what = "%s %s%s" % (method, self._shown(url), label)
        response = self._retry.send(
            method,
            lambda: self._exchange(method, url, body, exact),
            what,
            server_id,
            deadline=self._deadline,
            **(retry or {}),
        )
        if 200 <= response.status_code < 300:
            return response, what
        if 300 <= response.status_code < 400:
            raise errors.PanelApiError(
                "The panel answered %s with a redirect (HTTP %s to %s); actions are never sent to a redirected "
                "address: set base_url to the final address of the API."
                % (what, response.status_code, response.headers.get("Location", "an unnamed location")),
                status=response.status_code,
                server_id=server_id,
            )
        raise errors.error_from_response(
            response.status_code,
            response.reason,
            response.content,
            what,
            server_id=server_id,
            base_url_hint=self._base_url_hint,
        )

    def _exchange(self, method, url, body, exact):
        """One HTTP exchange: returns a requests.Response or raises a requests exception."""
        headers = {"Accept": "application/json", "User-Agent": USER_AGENT}
        request = requests.Request(method, url, headers=headers, json=body, auth=_BearerAuth(self._token))
        prepared = self._session.prepare_request(request)
        if exact:
            # requests re-quotes URLs and so decodes %2E back to ".": an id ".." would become a
            # dot-segment again.  Our own URLs are fully encoded already; send them as built.
            prepared.url = url
        # The environment's proxies and CA bundle (REQUESTS_CA_BUNDLE), as requests.request would take them.
        settings = self._session.merge_environment_settings(prepared.url, {}, None, self.validate_certs, None)
        if self._direct:
            settings["proxies"] = without_proxy_for_plain_http(settings["proxies"])
        # A redirected POST may turn into a GET or land elsewhere: only reads follow redirects.
        response = self._session.send(
            prepared, timeout=self.request_timeout, allow_redirects=(method == "GET"), **settings
        )
        observe = getattr(self._budget, "observe", None)  # the rate-limit headers (and 429s) correct the budget
        if observe is not None:
            observe(response.status_code, response.headers)
        self._compare_limit(response.headers)
        return response

    def _compare_limit(self, headers):
        """Warn once when the panel announces a limit for the token other than rate_limit (pacing on)."""
        announced = announced_limit(headers) if self.rate_limit > 0 and not self._limit_said else None
        if announced is not None and announced != self.rate_limit:
            self._limit_said = True
            self.warnings.append(limit_warning(announced, self.rate_limit))

    @property
    def pace(self):
        """The pace of this client's requests, in words (the tasks' ``pace`` return value)."""
        return pace_words(self.rate_limit)

    def _json(self, response, what, required=True):
        """The decoded body; None for an empty body unless ``required``."""
        if not response.content or not response.content.strip():
            if required:
                raise errors.PanelApiError(
                    "The panel answered %s with an empty body (HTTP %s); JSON was expected. "
                    "This does not look like the panel's API. %s"
                    % (what, response.status_code, errors.base_url_advice(self._base_url_hint)),
                    status=response.status_code,
                )
            return None
        is_json, value = errors.parse_json_body(response.content)
        if not is_json:
            raise errors.PanelTransportError(
                "The panel answered %s with a body that is not JSON (HTTP %s, Content-Type %s, starting %r). "
                "This does not look like the panel's API. %s"
                % (
                    what,
                    response.status_code,
                    errors.excerpt(response.headers.get("Content-Type", "not given")),
                    errors.excerpt(response.content),
                    errors.base_url_advice(self._base_url_hint),
                ),
                status=response.status_code,
            )
        return value

    def _next_page(self, body, response, current_url):
        """The absolute URL of the next page, or None: from the body (next, links.next) or a Link header."""
        link = None
        if isinstance(body, dict):
            link = body.get("next")
            links = body.get("links")
            if not link and isinstance(links, dict):
                link = links.get("next")
                if isinstance(link, dict):
                    link = link.get("href") or link.get("url")
        if not link:
            link = response.links.get("next", {}).get("url")
        if not link or not isinstance(link, str):
            return None
        url = urljoin(current_url, link.strip())
        here, there = urlsplit(self.base_url), urlsplit(url)
        if (here.scheme, here.netloc.lower()) != (there.scheme, there.netloc.lower()):
            raise errors.PanelApiError(
                "The panel's next-page link points to another address (%s://%s); the client does not send "
                "the API token there." % (there.scheme, there.netloc)
            )
        return url


def _server_list(body, what):
    """The list of raw servers in a list answer: a bare array, or an object holding it."""
    if isinstance(body, list):
        return body
    if isinstance(body, dict):
        for key in _LIST_KEYS:
            if isinstance(body.get(key), list):
                return body[key]
        lists = [value for value in body.values() if isinstance(value, list)]
        if len(lists) == 1:
            return lists[0]
    raise errors.PanelApiError(
        "The panel's answer to %s holds no list of servers (got %s). This does not look "
        "like the panel's API. %s" % (what, _describe_shape(body), errors.base_url_advice())
    )


def _server_object(body, what):
    """The raw server in a single-server answer: the object itself, or one wrapped in it."""
    if isinstance(body, dict):
        if "id" not in body:
            for key in _OBJECT_KEYS:
                if isinstance(body.get(key), dict):
                    return body[key]
        return body
    raise errors.PanelApiError(
        "The panel's answer to %s is not a server object (got %s). This does not look "
        "like the panel's API. %s" % (what, _describe_shape(body), errors.base_url_advice())
    )


def _looks_like_server(raw):
    """An object with an id or a name, or with at least two other Server fields.

    Fields may be missing (the specification leaves them open), but an object such as
    {"status": "ok", "version": "1.2"} is some other service's answer (a health check).
    """
    if "id" in raw or "name" in raw:
        return True
    return len(set(raw) & {"game", "status", "players", "uptime_seconds", "cpu", "memory_mb"}) >= 2


def _normalize(raw, what):
    try:
        return normalize_server(raw)
    except ValueError as exc:
        raise errors.PanelApiError("The panel's answer to %s is malformed: %s." % (what, exc)) from None


def _describe_shape(body):
    if isinstance(body, dict):
        return "an object with keys %s" % _keys(body)
    return "a JSON %s" % type(body).__name__


def _keys(body):
    """Up to ten keys of an object, each cut short, for messages."""
    shown = [errors.echoed(key, limit=32) for key in sorted(str(key) for key in body)[:10]]
    return (", ".join(shown) or "(none)") + (", ..." if len(body) > 10 else "")
