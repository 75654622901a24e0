# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Every retry path, on scripted exchanges and a fake clock (nothing is slept for real)."""

from __future__ import annotations

import email.utils
import socket
from http.client import RemoteDisconnected

import pytest
import requests
from urllib3.exceptions import ConnectTimeoutError, MaxRetryError, NewConnectionError, ProtocolError, ReadTimeoutError

from ansible_collections.gamepanel.panel.plugins.module_utils._api import errors

from ansible_collections.gamepanel.panel.plugins.module_utils._api import retry
from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import (
    PanelAmbiguousError,
    PanelApiError,
    PanelError,
    PanelNotFoundError,
    PanelRateLimitError,
    PanelRefusedError,
    PanelTransportError,
)

from panel_fakes import TOKEN, FakeClock, NoBudget

SERVER = {"id": "mc-01", "name": "Survival", "game": "minecraft", "status": "online"}
RATE_LIMITED = {"error": {"code": "rate_limited", "message": "Rate limit exceeded"}}


# -- realistic transport failures, built the way requests and urllib3 raise them ----------


def refused():
    """What requests raises when nothing listens: the request was never sent."""
    reason = NewConnectionError(None, "Failed to establish a new connection: [Errno 111] Connection refused")
    reason.__cause__ = ConnectionRefusedError(111, "Connection refused")
    return requests.exceptions.ConnectionError(MaxRetryError(None, "/v1/servers", reason))


def dns_failure():
    reason = NewConnectionError(None, "Failed to resolve 'panel.example.test'")
    reason.__cause__ = socket.gaierror(-2, "Name or service not known")
    return requests.exceptions.ConnectionError(MaxRetryError(None, "/v1/servers", reason))


def connect_timeout():
    return requests.exceptions.ConnectTimeout(MaxRetryError(None, "/v1/servers", ConnectTimeoutError("timed out")))


def connection_dropped():
    """The panel closed the connection after the request was written (no answer)."""
    return requests.exceptions.ConnectionError(
        ProtocolError("Connection aborted.", ConnectionResetError(104, "Connection reset by peer"))
    )


def read_timeout():
    return requests.exceptions.ReadTimeout(ReadTimeoutError(None, "/v1/servers", "Read timed out."))


def tls_failure():
    return requests.exceptions.SSLError(
        MaxRetryError(None, "/v1/servers", Exception("[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed"))
    )


# -- pure helpers -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, expected",
    [
        (None, None),
        ("", None),
        ("  ", None),
        ("7", 7.0),
        (" 12 ", 12.0),
        ("1.5", 1.5),
        ("-3", 0.0),
        ("soon", None),
    ],
)
def test_parse_retry_after_seconds(value, expected):
    assert retry.parse_retry_after(value, now=0.0) == expected


def test_parse_retry_after_http_date():
    now = 1_700_000_000.0
    assert retry.parse_retry_after(email.utils.formatdate(now + 42, usegmt=True), now) == pytest.approx(42.0)
    assert retry.parse_retry_after(email.utils.formatdate(now - 42, usegmt=True), now) == 0.0
    assert retry.parse_retry_after(
        email.utils.formatdate(now + 5, localtime=False).replace("-0000", "GMT"), now
    ) == pytest.approx(5.0)


def test_backoff_is_exponential_capped_and_jittered():
    low = [retry.backoff_delay(n, rng=lambda: 0.0) for n in range(8)]
    high = [retry.backoff_delay(n, rng=lambda: 0.999999) for n in range(8)]
    assert low == [0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 15.0, 15.0]
    assert high == pytest.approx([1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0, 30.0], rel=1e-5)
    assert retry.backoff_delay(1000, rng=lambda: 0.5) <= retry.BACKOFF_CAP


@pytest.mark.parametrize(
    "make, expected",
    [
        (refused, True),
        (dns_failure, True),
        (connect_timeout, True),
        (connection_dropped, False),
        (read_timeout, False),
        (lambda: requests.exceptions.ChunkedEncodingError("incomplete read"), False),
    ],
)
def test_nothing_was_sent(make, expected):
    assert retry.nothing_was_sent(make()) is expected


def test_nothing_was_sent_on_a_real_refused_connection():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    listener.close()  # nothing listens on that port now
    with pytest.raises(requests.exceptions.ConnectionError) as caught:
        requests.get("http://127.0.0.1:%d/v1/servers" % port, timeout=5)
    assert retry.nothing_was_sent(caught.value)


# -- 429 ----------------------------------------------------------------------------------


def test_429_honours_retry_after_seconds(panel):
    panel.reply(status=429, json=RATE_LIMITED, headers={"Retry-After": "7"}).reply(json=SERVER)
    client = panel.client()
    assert client.get_server("mc-01")["id"] == "mc-01"
    assert panel.clock.sleeps == [7.0]
    assert client.stats == {"requests": 2, "retries": 1, "waited_seconds": 7.0}


def test_429_honours_retry_after_http_date(panel):
    when = email.utils.formatdate(panel.clock.time() + 12, usegmt=True)
    panel.reply(status=429, json=RATE_LIMITED, headers={"Retry-After": when}).reply(json=SERVER)
    panel.client().get_server("mc-01")
    assert panel.clock.sleeps == [pytest.approx(12.0)]


def test_429_retry_after_zero_still_waits_a_little(panel):
    panel.reply(status=429, headers={"Retry-After": "0"}).reply(json=SERVER)
    panel.client().get_server("mc-01")
    assert panel.clock.sleeps == [retry.MIN_DELAY]


def test_429_without_retry_after_backs_off_with_capped_jitter(panel):
    for unused in range(7):
        panel.reply(status=429, json=RATE_LIMITED)
    panel.reply(json=SERVER)
    client = panel.client(retry_timeout=600)
    client.get_server("mc-01")
    sleeps = panel.clock.sleeps
    assert len(sleeps) == 7
    for number, slept in enumerate(sleeps):
        step = min(retry.BACKOFF_CAP, retry.BACKOFF_BASE * 2**number)
        assert step / 2 <= slept <= step
    assert max(sleeps) <= retry.BACKOFF_CAP
    assert client.stats["retries"] == 7
    assert client.stats["waited_seconds"] == pytest.approx(sum(sleeps), abs=0.001)


def test_429_budget_exhausted_raises_rate_limit_error(panel):
    for unused in range(50):
        panel.reply(status=429, json=RATE_LIMITED)
    client = panel.client(retry_timeout=10)
    with pytest.raises(PanelRateLimitError) as caught:
        client.list_servers()
    panel.adapter.script.clear()
    message = str(caught.value)
    assert caught.value.status == 429
    assert "Rate limit exceeded" in message
    assert "rate_limit" in message and "retry_timeout" in message
    assert "gave up after %d retries" % len(panel.clock.sleeps) in message
    # Never slept past the deadline.
    assert sum(panel.clock.sleeps) <= 10
    assert client.stats["requests"] == len(panel.clock.sleeps) + 1


def test_429_retry_after_beyond_the_deadline_fails_at_once(panel):
    panel.reply(status=429, json=RATE_LIMITED, headers={"Retry-After": "58"})
    client = panel.client(retry_timeout=2)
    with pytest.raises(PanelRateLimitError, match=r"gave up after 0 retries: the next attempt was due in 58\.0 s"):
        client.list_servers()
    assert panel.clock.sleeps == []
    assert client.stats == {"requests": 1, "retries": 0, "waited_seconds": 0.0}


def test_a_refusal_keeps_the_panels_retry_after_for_a_caller_that_tries_again_later(panel):
    panel.reply(status=429, json=RATE_LIMITED, headers={"Retry-After": "58"})
    with pytest.raises(PanelRateLimitError) as caught:
        panel.client(retry_timeout=2).queue_action("mc-01", "start")
    assert caught.value.retry_after == 58.0
    panel.reply(status=503, json={"message": "maintenance"}, headers={"Retry-After": "30"})
    with pytest.raises(PanelRefusedError) as caught:
        panel.client(retry_timeout=2).queue_action("mc-01", "start")
    assert caught.value.retry_after == 30.0
    panel.reply(status=503, json={"message": "maintenance"})  # no Retry-After: none kept
    with pytest.raises(PanelRefusedError) as caught:
        panel.client(retry_timeout=0).queue_action("mc-01", "start")
    assert caught.value.retry_after is None


def test_retry_timeout_zero_disables_retries(panel):
    panel.reply(status=503, json={"message": "maintenance"})
    with pytest.raises(PanelApiError, match="HTTP 503.*maintenance.*gave up after 0 retries"):
        panel.client(retry_timeout=0).list_servers()
    assert panel.clock.sleeps == []


def test_post_429_is_retried(panel):
    panel.reply(status=429, headers={"Retry-After": "3"}).reply(status=202, json={"state": "queued"})
    client = panel.client()
    assert client.queue_action("mc-01", "restart") == {"state": "queued"}
    assert [sent.method for sent in panel.sent] == ["POST", "POST"]
    assert all(sent.json == {"action": "restart"} for sent in panel.sent)
    assert client.stats["retries"] == 1


# -- GET: 5xx and connection failures -------------------------------------------------------


@pytest.mark.parametrize("status", [500, 502, 503, 504])
def test_get_5xx_is_retried(panel, status):
    panel.reply(status=status, body="upstream trouble").reply(json=[SERVER])
    client = panel.client()
    assert client.list_servers()[0]["id"] == "mc-01"
    assert client.stats["retries"] == 1
    assert len(panel.clock.sleeps) == 1


def test_get_503_honours_retry_after(panel):
    panel.reply(status=503, headers={"Retry-After": "4"}).reply(json=[SERVER])
    panel.client().list_servers()
    assert panel.clock.sleeps == [4.0]


def test_get_5xx_until_the_deadline(panel):
    for unused in range(50):
        panel.reply(status=502, json={"error": "bad gateway"})
    client = panel.client(retry_timeout=5)
    with pytest.raises(PanelApiError) as caught:
        client.get_server("mc-01")
    panel.adapter.script.clear()
    assert "HTTP 502" in str(caught.value) and "bad gateway" in str(caught.value)
    assert "gave up after" in str(caught.value)
    assert sum(panel.clock.sleeps) <= 5


@pytest.mark.parametrize(
    "make",
    [
        refused,
        dns_failure,
        connect_timeout,
        connection_dropped,
        read_timeout,
        lambda: requests.exceptions.ChunkedEncodingError("incomplete"),
    ],
)
def test_get_connection_failures_are_retried(panel, make):
    panel.fail(make()).reply(json=SERVER)
    client = panel.client()
    assert client.get_server("mc-01")["id"] == "mc-01"
    assert client.stats["retries"] == 1


def test_get_connection_failure_until_the_deadline(panel):
    for unused in range(50):
        panel.fail(refused())
    with pytest.raises(PanelTransportError) as caught:
        panel.client(retry_timeout=3).list_servers()
    panel.adapter.script.clear()
    message = str(caught.value)
    assert "could not connect to the panel at panel.example.test (Connection refused)" in message
    assert "gave up after" in message
    assert sum(panel.clock.sleeps) <= 3


def test_tls_failure_is_not_retried(panel):
    panel.fail(tls_failure())
    client = panel.client()
    with pytest.raises(PanelTransportError, match="TLS.*validate_certs"):
        client.list_servers()
    assert client.stats["requests"] == 1
    assert panel.clock.sleeps == []


@pytest.mark.parametrize("status", [400, 401, 402, 403, 404, 409, 422])
def test_4xx_is_never_retried(panel, status):
    panel.reply(status=status, json={"message": "no"})
    client = panel.client()
    with pytest.raises(PanelError) as caught:
        client.list_servers()
    assert caught.value.status == status
    assert client.stats["requests"] == 1
    assert panel.clock.sleeps == []


# -- POST: only when surely not accepted ------------------------------------------------------


ENVOY_PAGE = "<html><body>upstream connect error or disconnect/reset before headers. reset reason: connection termination</body></html>"


@pytest.mark.parametrize(
    "status, content_type, body, panels",
    [
        (503, "application/json", '{"error": {"code": "unavailable", "message": "maintenance"}}', True),
        (500, "application/json; charset=utf-8", '{"message": "internal error"}', True),
        (503, "application/problem+json", '{"title": "unavailable"}', True),
        (503, None, '{"error": "busy"}', True),
        (503, "text/html", ENVOY_PAGE, False),
        (503, "text/plain", "upstream connect error or disconnect/reset before headers", False),
        (503, "text/plain", '{"error": "json-looking, but not labelled so"}', False),
        (503, "application/json", "", False),
        (500, None, "", False),
        (503, "application/json", '["not", "an", "object"]', False),
        (502, "application/json", '{"message": "Internal server error"}', False),
        (504, "application/json", '{"message": "Endpoint request timed out"}', False),
    ],
    ids=[
        "json-503",
        "json-500-charset",
        "problem-json",
        "unlabelled-json",
        "envoy-html",
        "envoy-text",
        "json-as-text",
        "empty-json",
        "empty",
        "json-list",
        "gateway-502",
        "gateway-504",
    ],
)
def test_whose_answer_it_is(status, content_type, body, panels):
    assert errors.answered_by_the_panel(status, content_type, body.encode("utf-8")) is panels


@pytest.mark.parametrize(
    "status, answer",
    [
        (502, {"json": {"error": {"message": "agent gateway hiccup"}}}),
        (504, {"json": {"error": {"message": "agent gateway hiccup"}}}),
        (503, {"body": ENVOY_PAGE, "headers": {"Content-Type": "text/html"}}),
        (500, {"body": ""}),
        (503, {"body": "no healthy upstream", "headers": {"Content-Type": "text/plain"}}),
    ],
    ids=["502-json", "504-json", "503-proxy-html", "500-empty", "503-proxy-text"],
)
def test_post_5xx_not_the_panels_is_ambiguous_and_a_restart_is_not_resent(panel, status, answer):
    headers = dict(answer.pop("headers", {}), **{"Retry-After": "1"})
    panel.reply(status=status, headers=headers, **answer)
    client = panel.client()
    with pytest.raises(PanelAmbiguousError) as caught:
        client.queue_action("mc-01", "restart")
    message = str(caught.value)
    assert "may already be queued" in message and "check the server" in message
    assert "HTTP %d" % status in message
    assert (caught.value.status, caught.value.server_id, caught.value.retry_in) == (status, "mc-01", None)
    assert len(panel.sent) == 1
    assert client.stats == {"requests": 1, "retries": 0, "waited_seconds": 0.0}


@pytest.mark.parametrize("status", [500, 503])
def test_post_refused_in_the_panels_own_words_is_sent_again_after_retry_after(panel, status):
    panel.reply(status=status, json={"error": {"message": "maintenance"}}, headers={"Retry-After": "3"})
    panel.reply(status=202, json={"state": "queued"})
    client = panel.client()
    assert client.queue_action("mc-01", "restart") == {"state": "queued"}
    assert [sent.json for sent in panel.sent] == [{"action": "restart"}] * 2
    assert panel.clock.sleeps == [3.0]


def test_post_refused_by_the_panel_past_retry_timeout_says_nothing_was_queued(panel):
    for unused in range(50):
        panel.reply(status=503, json={"error": {"message": "maintenance until 10:00"}}, headers={"Retry-After": "2"})
    with pytest.raises(PanelRefusedError) as caught:
        panel.client(retry_timeout=5).queue_action("mc-01", "restart")
    panel.adapter.script.clear()
    message = str(caught.value)
    assert message.startswith("The panel refused POST /servers/mc-01/control (restart) with HTTP 503 ")
    assert "(maintenance until 10:00)" in message and "nothing was queued" in message
    assert "refused every time (gave up after 2 retries" in message and "retry_timeout=5 s" in message
    assert "may" not in message and caught.value.retry_in is None
    assert len(panel.sent) == 3 and panel.clock.sleeps == [2.0, 2.0]


def test_post_refusal_handed_back_is_not_waited_for(panel):
    panel.reply(status=503, json={"error": {"message": "busy"}}, headers={"Retry-After": "4"})
    with pytest.raises(PanelRefusedError) as caught:
        panel.client().queue_action("mc-01", "stop", hand_back=True)
    assert caught.value.retry_in == 4.0 and "it is sent again in 4.0 s" in str(caught.value)
    assert len(panel.sent) == 1 and panel.clock.sleeps == []


def test_post_429_handed_back_is_a_refusal_too(panel):
    panel.reply(status=429, headers={"Retry-After": "2"})
    with pytest.raises(PanelRefusedError) as caught:
        panel.client().queue_action("mc-01", "restart", hand_back=True)
    assert (caught.value.status, caught.value.retry_in) == (429, 2.0)


@pytest.mark.parametrize("action", ["start", "stop", "restart"])
def test_no_action_whose_answer_is_not_the_panels_is_sent_again_even_handed_back(panel, action):
    panel.reply(status=503, body=ENVOY_PAGE, headers={"Content-Type": "text/html", "Retry-After": "1"})
    with pytest.raises(PanelAmbiguousError) as caught:
        panel.client().queue_action("mc-01", action, hand_back=True)
    assert caught.value.retry_in is None and "may already be queued" in str(caught.value)
    assert len(panel.sent) == 1 and panel.clock.sleeps == []


def test_a_post_that_never_left_is_handed_back_saying_nothing_was_queued(panel):
    panel.fail(refused())
    with pytest.raises(PanelTransportError) as caught:
        panel.client().queue_action("mc-01", "restart", hand_back=True)
    assert caught.value.retry_in is not None and "nothing was queued" in str(caught.value)
    assert len(panel.sent) == 1


def test_post_tls_failure_after_sending_is_ambiguous_but_a_certificate_failure_is_not(panel):
    panel.fail(requests.exceptions.SSLError(MaxRetryError(None, "/v1", Exception("[SSL] bad record mac"))))
    with pytest.raises(PanelAmbiguousError):
        panel.client().queue_action("mc-01", "restart")
    panel.fail(tls_failure())
    with pytest.raises(PanelTransportError, match="TLS"):
        panel.client().queue_action("mc-01", "restart")
    assert len(panel.sent) == 2 and panel.clock.sleeps == []


@pytest.mark.parametrize(
    "make", [connection_dropped, read_timeout, lambda: requests.exceptions.ChunkedEncodingError("incomplete")]
)
def test_post_connection_lost_after_sending_is_ambiguous(panel, make):
    panel.fail(make())
    client = panel.client()
    with pytest.raises(PanelAmbiguousError, match="may already be queued"):
        client.queue_action("mc-01", "stop")
    assert len(panel.sent) == 1
    assert panel.clock.sleeps == []


@pytest.mark.parametrize("make", [refused, dns_failure, connect_timeout])
def test_post_connection_refused_before_sending_is_retried(panel, make):
    panel.fail(make()).reply(status=202, json={"state": "queued"})
    client = panel.client()
    assert client.queue_action("mc-01", "restart") == {"state": "queued"}
    assert len(panel.sent) == 2
    assert client.stats["retries"] == 1


def test_post_refused_until_the_deadline_says_nothing_was_queued(panel):
    for unused in range(50):
        panel.fail(refused())
    with pytest.raises(PanelTransportError) as caught:
        panel.client(retry_timeout=2).queue_action("mc-01", "restart")
    panel.adapter.script.clear()
    assert "nothing was queued" in str(caught.value)
    assert not isinstance(caught.value, PanelAmbiguousError)


def test_planned_restart_5xx_is_ambiguous(panel):
    panel.reply(status=500, body="")
    with pytest.raises(PanelAmbiguousError):
        panel.client(api_variant="planned").queue_action("mc-01", "restart")
    assert len(panel.sent) == 1


def test_404_after_a_retry_is_mapped(panel):
    panel.reply(status=503).reply(status=404, json={"error": {"message": "unknown server"}})
    with pytest.raises(PanelNotFoundError, match="'mc-09'"):
        panel.client().get_server("mc-09")


# -- the rate budget is consulted on every attempt ----------------------------------------------


def test_budget_is_acquired_before_every_attempt_and_its_waits_counted(panel):
    budget = NoBudget(waits=[0.0, 2.5])
    panel.reply(status=503).reply(json=SERVER)
    client = panel.client(budget=budget)
    client.get_server("mc-01")
    assert budget.acquired == 2
    assert client.stats["waited_seconds"] == pytest.approx(2.5 + panel.clock.sleeps[0], abs=0.001)


def test_policy_directly_with_a_fixed_rng():
    clock = FakeClock()
    policy = retry.RetryPolicy(100, clock=clock, rng=lambda: 0.0)
    answers = [requests.exceptions.ConnectTimeout("t"), requests.exceptions.ConnectTimeout("t")]

    def attempt():
        if answers:
            raise answers.pop(0)
        response = requests.Response()
        response.status_code = 200
        return response

    assert policy.send("GET", attempt, "GET /servers").status_code == 200
    assert clock.sleeps == [0.5, 1.0]
    assert policy.stats == {"requests": 3, "retries": 2, "waited_seconds": 1.5}


def test_transport_error_messages_do_not_leak_the_token(panel):
    error = requests.exceptions.ConnectionError("connection to https://x?token=%s reset" % TOKEN)
    panel.fail(error)
    with pytest.raises(PanelAmbiguousError) as caught:
        panel.client().queue_action("mc-01", "restart")
    assert TOKEN not in str(caught.value)


@pytest.mark.parametrize(
    "make, phrase",
    [
        (refused, "could not connect to the panel at h:1 (Connection refused)"),
        (dns_failure, "could not connect to the panel at h:1 (Name or service not known)"),
        (connect_timeout, "was not established within request_timeout"),
        (connection_dropped, "was lost (Connection reset by peer)"),
        (
            lambda: requests.exceptions.ConnectionError(
                ProtocolError(
                    "Connection aborted.", RemoteDisconnected("Remote end closed connection without response")
                )
            ),
            "was lost (Remote end closed connection without response)",
        ),
        (read_timeout, "sent no answer within request_timeout after the request was sent"),
        (tls_failure, "TLS connection to the panel at h:1 failed ([SSL: CERTIFICATE_VERIFY_FAILED]"),
    ],
)
def test_failures_are_described_by_their_innermost_cause(make, phrase):
    assert phrase in retry.describe_failure(make(), "h:1")


def test_a_deadline_counts_down_to_zero_and_names_its_option():
    clock = FakeClock()
    deadline = retry.Deadline(clock, 6, "wait_timeout=6 s")
    assert (deadline.left(), deadline.option) == (6.0, "wait_timeout=6 s")
    clock.sleep(4)
    assert deadline.left() == 2.0
    clock.sleep(10)
    assert deadline.left() == 0.0
    assert retry.Deadline(clock, -3, "drain_timeout=0 s").left() == 0.0


def test_an_ambiguous_error_keeps_what_and_why_as_fields():
    error = errors.ambiguous_error("POST /servers/mc-01/control (restart)", "the connection dropped", server_id="mc-01")
    assert (error.what, error.cause, error.server_id) == (
        "POST /servers/mc-01/control (restart)",
        "the connection dropped",
        "mc-01",
    )
    assert "the connection dropped" in str(error)
    assert errors.PanelAmbiguousError("lost").what is None
