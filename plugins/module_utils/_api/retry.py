# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: The single retry policy of the API client, and the clock it runs on.

When to send a request again:

* **429** (rate limited), any method: the panel refused the request before doing
  anything, so sending it again is always safe.  Wait what ``Retry-After`` says
  (seconds or an HTTP date) when present, otherwise a capped exponential backoff
  with jitter (other controllers may share the token, so several clients back off
  at once; jitter spreads them out).
* **5xx and connection failures, GET only**: reads have no effect, so they are
  simply tried again after a backoff (``Retry-After`` honoured when present).
* **POST**: an action is re-sent only when the panel surely did not queue it: a 429, the
  panel's own error answer (a 5xx in the panel's own words: ``errors.answered_by_the_panel``
  is the one rule that tells), or a connection that could not even be established
  (connection refused, DNS failure, connect timeout: see ``nothing_was_sent``).  An answer
  that is not the panel's (a proxy's 502/503/504 page, an empty body), a read timeout, a
  connection reset or a TLS failure after the request went out may come after the panel
  queued the action; a second POST could restart a server twice.  Those end in
  ``PanelAmbiguousError`` and are never re-sent here (a start may be sent again later by
  its caller: keep_online's ``retry_after``).
* A caller with other servers to go on with asks for refusals to be handed back
  (``hand_back``): the POST is then not waited for here; the error is raised at once with
  ``retry_in`` (the wait Retry-After or the backoff asks for) and the caller sends it again
  later (_engine/many_servers.py), so one refused server never holds up the others.
* Never: 4xx other than 429 (402 in particular: an unpaid plan stays unpaid), and
  TLS failures of the handshake (a certificate does not fix itself).

Every retry happens within ``retry_timeout`` seconds of the first attempt: a wait that
would end past that deadline is not started, the last answer is reported instead.
A caller with a deadline of its own (a wait's ``wait_timeout``) passes a ``Deadline``: retries
then also stop at that instant, so one read cannot carry the wait past its end.  Such a
give-up is marked transient (``PanelError.transient``): asking again later may work.

Every attempt first takes a slot from the shared per-token budget (_api/ratelimit.py), so
the rate limit is respected by every fork; the time spent waiting there and in
backoff is counted in ``stats["waited_seconds"]``.
"""

from __future__ import annotations

import datetime
import email.utils
import random
import ssl
import time

from ansible_collections.gamepanel.panel.plugins.module_utils._api import errors

try:
    import requests
    from urllib3.exceptions import ConnectTimeoutError, NewConnectionError
except ImportError:  # the client reports the missing library; this module must still import
    requests = None
    ConnectTimeoutError = NewConnectionError = None

# Capped exponential backoff: retry n waits between half and all of min(CAP, BASE * 2**n).
BACKOFF_BASE = 1.0
BACKOFF_CAP = 30.0
# A Retry-After of 0 (or a date in the past) still waits this long, so a confused
# panel cannot make the client spin.
MIN_DELAY = 0.1
# Words of a TLS failure that happens while the connection is set up, before the request is
# written: nothing was sent (any other TLS failure of a POST may come after the panel had it).
_HANDSHAKE_WORDS = ("certificate", "handshake", "wrong version number", "unknown protocol")


class SystemClock(object):
    """The real clock.  Unit tests inject a fake with the same three methods."""

    @staticmethod
    def monotonic():
        return time.monotonic()

    @staticmethod
    def time():
        # wall time: only for instants shared with other processes or the panel (the ledger, the rate
        # budget, shared reads, HTTP dates); elapsed times within a task use monotonic()
        return time.time()

    @staticmethod
    def sleep(seconds):
        time.sleep(seconds)


def parse_retry_after(value, now):
    """Seconds to wait from a Retry-After header value, or None when absent or unreadable.

    ``value`` is either delay-seconds or an HTTP date; ``now`` is the wall-clock time
    (epoch seconds) an HTTP date is measured against.  Never negative.
    """
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:  # RFC 9110 dates are GMT; a zone-less one ("-0000") is read as such
        when = when.replace(tzinfo=datetime.timezone.utc)
    return max(0.0, when.timestamp() - now)


def backoff_delay(retry_number, rng=random.random, base=BACKOFF_BASE, cap=BACKOFF_CAP):
    """Wait before retry number ``retry_number`` (0 for the first retry).

    "Equal jitter": between half and all of the capped exponential step, so waits grow
    quickly, never exceed ``cap`` and are never zero.
    """
    step = min(cap, base * (2 ** min(retry_number, 32)))
    return step / 2.0 + rng() * step / 2.0


def nothing_was_sent(exc):
    """True when a failed request surely never reached the panel.

    That is the case when the TCP (or TLS-less) connection could not be established:
    urllib3 raises ``NewConnectionError`` (connection refused, unreachable host, DNS
    failure) or ``ConnectTimeoutError`` (``requests.exceptions.ConnectTimeout``)
    before a single byte of the request is written.  Everything else
    (``ReadTimeout``, a reset or closed connection, including a stale kept-alive
    connection that dies under the request) may have happened after the panel got
    the request, so it does not count.
    """
    if isinstance(exc, requests.exceptions.ConnectTimeout):
        return True
    return any(
        isinstance(current, (NewConnectionError, ConnectTimeoutError, ConnectionRefusedError))
        for current, _linked in _causes(exc)
    )


def _causes(exc):
    """Every exception behind ``exc``, ``exc`` first, outermost before innermost, each once.

    Yields ``(exception, linked)``: ``linked`` are the exceptions it points to.  requests,
    urllib3 and the socket layer link them three ways: urllib3's ``reason``, Python's
    ``__cause__``/``__context__``, and exceptions passed as arguments.
    """
    pending = [exc]
    seen = set()
    while pending:
        current = pending.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        linked = [getattr(current, "reason", None), current.__cause__, current.__context__]
        linked.extend(current.args)
        linked = [item for item in linked if isinstance(item, BaseException)]
        yield current, linked
        pending.extend(linked)


def describe_failure(exc, panel_address=None):
    """A short phrase for a requests exception (the caller scrubs the token from it)."""
    where = " at %s" % panel_address if panel_address else ""
    if isinstance(exc, requests.exceptions.SSLError):
        return (
            "the TLS connection to the panel%s failed (%s); if the panel's certificate is not trusted by this "
            "system, install its CA, or for a test panel only set validate_certs: false" % (where, _root_cause(exc))
        )
    if isinstance(exc, requests.exceptions.ConnectTimeout):
        return "the connection to the panel%s was not established within request_timeout" % where
    if isinstance(exc, requests.exceptions.ReadTimeout):
        return "the panel%s sent no answer within request_timeout after the request was sent" % where
    if isinstance(exc, requests.exceptions.ConnectionError) and nothing_was_sent(exc):
        return "could not connect to the panel%s (%s)" % (where, _root_cause(exc))
    if isinstance(exc, (requests.exceptions.ConnectionError, requests.exceptions.ChunkedEncodingError)):
        return "the connection to the panel%s was lost (%s)" % (where, _root_cause(exc))
    return "%s (%s)" % (type(exc).__name__, _root_cause(exc))


def _root_cause(exc):
    """The innermost words for a failure: the operating system's when there are some.

    requests wraps urllib3's exception, which wraps the socket's; their own texts
    repeat host, port and URL around the useful part.
    """
    innermost = exc
    for current, linked in _causes(exc):
        if isinstance(current, OSError) and current.strerror:
            return current.strerror
        if not linked and str(current).strip():
            innermost = current
    lines = str(innermost).strip().splitlines()
    return lines[0] if lines else type(innermost).__name__


def _tls_before_sending(exc):
    """Whether a TLS failure happened while the connection was set up (a certificate, the handshake)."""
    for current, _linked in _causes(exc):
        if isinstance(current, ssl.SSLCertVerificationError):
            return True
        if any(word in str(current).lower() for word in _HANDSHAKE_WORDS):
            return True
    return False


def _no_retry_helps(exc, is_read):
    """A failure final for any method: the request was not sent, and sending it again fails the same way.

    A TLS failure is final for a read and for a POST whose connection was being set up; a POST's
    TLS failure after that (the request may have gone out) is judged as any lost answer is.
    """
    if isinstance(exc, requests.exceptions.SSLError):
        return is_read or _tls_before_sending(exc)
    return not _is_transient(exc)


def _is_transient(exc):
    """A connection-level failure worth trying again (for a GET)."""
    if isinstance(exc, requests.exceptions.SSLError):
        return False
    return isinstance(
        exc,
        (requests.exceptions.ConnectionError, requests.exceptions.Timeout, requests.exceptions.ChunkedEncodingError),
    )


class Deadline(object):
    """An instant (on ``clock.monotonic()``) that retries and waits must not run past, and the option it comes from.

    ``option`` names the limit in messages ("wait_timeout=30 s").
    """

    def __init__(self, clock, seconds, option):
        self.clock = clock
        self.at = clock.monotonic() + max(float(seconds), 0.0)
        self.option = option

    def left(self):
        """Seconds left (0 once past)."""
        return max(0.0, self.at - self.clock.monotonic())


class RetryPolicy(object):
    """Sends one logical request, retrying as the module docstring says.

    ``budget`` (a SharedBudget, or None for no client-side pacing) is consulted before
    every attempt.  ``rng`` returns floats in [0, 1) for the jitter.  ``panel_address``
    (host:port) names the panel in connection failures.
    """

    def __init__(self, retry_timeout, clock=None, budget=None, rng=None, panel_address=None):
        self.retry_timeout = float(retry_timeout)
        self.clock = clock or SystemClock()
        self.budget = budget
        self.rng = rng or random.random
        self.panel_address = panel_address
        self.stats = {"requests": 0, "retries": 0, "waited_seconds": 0.0}

    def send(self, method, attempt, what, server_id=None, deadline=None, hand_back=False):
        """Run ``attempt()`` (one HTTP exchange returning a requests.Response) until final.

        Returns the final response, which may still be an error answer that is not
        retried (4xx); the caller maps it.  Raises a PanelError when the retry budget
        runs out on a retryable answer, for a connection failure, and for an ambiguous POST.
        ``deadline`` (a Deadline, or None) is an outer limit no retry or budget wait runs past.
        ``hand_back``: a POST to be sent again (refused) is raised at once with ``retry_in``
        instead of waited for.
        """
        is_read = method.upper() == "GET"
        limit, budget_name = self.clock.monotonic() + self.retry_timeout, "retry_timeout=%g s" % self.retry_timeout
        if deadline is not None and deadline.at < limit:
            limit, budget_name = deadline.at, deadline.option
        retries = 0
        while True:
            if self.budget is not None:
                self._take_budget_slot(what, server_id, deadline)
            self.stats["requests"] += 1
            try:
                response, failure = attempt(), None
            except requests.exceptions.RequestException as exc:
                response, failure = None, exc
            delay = self._retry_delay(is_read, retries, response, failure, what, server_id)
            if delay is None:
                return response
            if hand_back and not is_read:
                self.stats["retries"] += 1  # the caller sends it again (or gives it up, past retry_timeout)
                raise self._handed_back(delay, response, failure, what, server_id)
            remaining = limit - self.clock.monotonic()
            if delay > remaining:
                raise self._said_when(
                    errors.transient(
                        self._give_up(
                            is_read, retries, delay, remaining, budget_name, response, failure, what, server_id
                        )
                    ),
                    response,
                )
            self.clock.sleep(delay)
            self._count_wait(delay)
            retries += 1
            self.stats["retries"] += 1

    def _take_budget_slot(self, what, server_id, deadline):
        """Wait for the shared rate budget, but never past an outer ``deadline``."""
        if deadline is None:
            self._count_wait(self.budget.acquire())
            return
        waited = self.budget.acquire(max_wait=deadline.left())
        if waited is None:
            raise errors.transient(
                errors.PanelRateLimitError(
                    "%s was not sent: the shared rate budget of this token (rate_limit) had no free request "
                    "before %s ran out." % (what, deadline.option),
                    server_id=server_id,
                )
            )
        self._count_wait(waited)

    def _retry_delay(self, is_read, retries, response, failure, what, server_id):
        """Seconds to wait before trying again; None when ``response`` is final.  Raises when it must not be retried."""
        if failure is not None:
            if _no_retry_helps(failure, is_read):
                raise errors.transport_error(what, describe_failure(failure, self.panel_address), server_id=server_id)
            if not (is_read or nothing_was_sent(failure)):
                raise errors.ambiguous_error(what, describe_failure(failure, self.panel_address), server_id=server_id)
            return max(MIN_DELAY, backoff_delay(retries, self.rng))
        status = response.status_code
        if status >= 500 and not is_read and not self.refused(response):
            raise errors.ambiguous_error(
                what, errors.http_cause(status, response.content), server_id=server_id, status=status
            )
        if status == 429 or status >= 500:
            # wall time: a Retry-After may be an HTTP date
            delay = parse_retry_after(response.headers.get("Retry-After"), self.clock.time())
            if delay is None:
                delay = backoff_delay(retries, self.rng)
            return max(MIN_DELAY, delay)
        return None

    @staticmethod
    def refused(response):
        """Whether an error answer to a POST is a refusal that surely queued nothing: a 429, or the panel's own words."""
        status = response.status_code
        return status == 429 or errors.answered_by_the_panel(
            status, response.headers.get("Content-Type"), response.content
        )

    def _handed_back(self, delay, response, failure, what, server_id):
        """The error a caller gets for a POST it is to send again ``delay`` seconds later (``hand_back``).

        Only a POST the panel surely did not queue gets here: refused in its own words, or never sent.
        """
        if failure is None:
            error = errors.refused_error(what, response.status_code, response.content, server_id, retry_in=delay)
        else:
            cause = describe_failure(failure, self.panel_address)
            error = errors.transport_error(
                what, cause + "; the request never reached the panel, so nothing was queued", server_id=server_id
            )
            error.retry_in = delay
        return self._said_when(error, response)

    def _said_when(self, error, response):
        """``error`` with ``retry_after``: the seconds the panel's Retry-After asked for (None without one), kept for
        a caller that tries again later on its own (the fleet watcher's next start of a refused server)."""
        header = response.headers.get("Retry-After") if response is not None else None
        error.retry_after = parse_retry_after(header, self.clock.time())
        return error

    def _give_up(self, is_read, retries, delay, remaining, budget_name, response, failure, what, server_id):
        """The error reported when the next retry would end past the deadline."""
        note = " (gave up after %d %s: the next attempt was due in %.1f s, but only %.1f s of %s were left)" % (
            retries,
            "retry" if retries == 1 else "retries",
            delay,
            max(0.0, remaining),
            budget_name,
        )
        if failure is None and not is_read and response.status_code != 429 and self.refused(response):
            return errors.refused_error(
                what, response.status_code, response.content, server_id=server_id, retry_note=note
            )
        if failure is None:
            return errors.error_from_response(
                response.status_code, response.reason, response.content, what, server_id=server_id, retry_note=note
            )
        cause = describe_failure(failure, self.panel_address)
        if not is_read:  # a POST is only retried when it never left, so none was received
            cause += "; the request never reached the panel, so nothing was queued"
        return errors.transport_error(what, cause, retry_note=note, server_id=server_id)

    def _count_wait(self, seconds):
        self.stats["waited_seconds"] += float(seconds or 0.0)
