# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault injection: error statuses, dropped connections, latency; for POSTs before or after queueing."""

from __future__ import annotations

import http.client
import time

import pytest

from emulator.harness import EmulatorControlError

from .apiclient import STOP_TIME


@pytest.mark.parametrize("status", [500, 502, 503])
def test_status_fault_answers_then_runs_out(live, control, status):
    control.add_fault(kind="status", status=status, method="GET", count=1)
    reply = live.get("/servers")
    assert reply.status == status
    assert reply.error_code == "injected_fault"
    assert live.get("/servers").status == 200
    assert control.counters()["responses"] == {str(status): 1, "200": 1}


def test_status_fault_with_a_plain_text_body(live, control):
    control.add_fault(kind="status", status=502, body="<html>Bad Gateway</html>")
    reply = live.get("/servers/mc-01")
    assert reply.status == 502
    assert reply.headers["Content-Type"].startswith("text/plain")
    assert reply.raw == b"<html>Bad Gateway</html>"


def test_a_share_of_requests_fails(live, control):
    control.settings(seed=7)
    control.add_fault(kind="status", status=503, rate=0.5)
    statuses = [live.get("/servers/mc-01").status for _attempt in range(60)]
    failures = statuses.count(503)
    assert 10 <= failures <= 50
    assert set(statuses) == {200, 503}


def test_the_same_seed_fails_the_same_requests(live, control):
    def pattern():
        control.clear_faults()
        control.settings(seed=11)
        control.add_fault(kind="status", status=502, rate=0.3)
        return [live.get("/servers/mc-01").status for _attempt in range(40)]

    first = pattern()
    assert first == pattern()
    assert 502 in first and 200 in first


@pytest.mark.parametrize("value", [120, "Wed, 21 Oct 2015 07:28:00 GMT"])
def test_a_status_fault_can_carry_retry_after(live, control, value):
    control.add_fault(kind="status", status=503, retry_after=value, count=1)
    reply = live.get("/servers")
    assert reply.status == 503
    assert reply.headers["Retry-After"] == str(value)
    assert control.faults()[0]["retry_after"] == str(value)
    assert "Retry-After" not in live.get("/servers").headers


def test_path_and_method_filters(live, control):
    control.add_fault(kind="status", status=500, method="GET", path=r"^/servers/mc-02$")
    assert live.get("/servers/mc-02").status == 500
    assert live.get("/servers/mc-01").status == 200
    assert live.get("/servers/mc-02/players").status == 200
    assert live.control("mc-02", "stop").status == 202


def test_variant_filter(live, planned, control):
    control.add_fault(kind="status", status=503, variant="planned")
    assert planned.get("/servers").status == 503
    assert live.get("/servers").status == 200


def test_drop_closes_the_connection_without_an_answer(live, control):
    control.add_fault(kind="drop", method="GET", count=1)
    with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
        live.get("/servers")
    assert live.get("/servers").status == 200
    assert control.counters()["requests_total"] == 2


def test_latency_delays_the_answer(live, control):
    control.add_fault(kind="latency", seconds=0.3, count=1)
    started = time.monotonic()
    assert live.get("/servers/mc-01").status == 200
    assert time.monotonic() - started >= 0.3


def test_a_status_fault_can_wait_before_failing(live, control):
    control.add_fault(kind="status", status=504, seconds=0.3, count=1)
    started = time.monotonic()
    assert live.get("/servers").status == 504
    assert time.monotonic() - started >= 0.3


def test_post_fault_before_queueing_leaves_nothing_queued(live, still):
    still.add_fault(kind="status", status=503, method="POST", phase="before")
    reply = live.control("mc-01", "stop")
    assert reply.status == 503
    counters = still.counters()
    assert counters["posts"] == {"mc-01": 1}
    assert counters["actions_queued"] == {}
    still.checkin("mc-01")
    still.advance(1)
    assert live.server("mc-01")["status"] == "online"
    assert still.counters()["actions_applied"] == {}


@pytest.mark.parametrize("kind", ["status", "drop"])
def test_post_fault_after_queueing_still_applies_the_action(live, still, kind):
    still.add_fault(kind=kind, status=502, method="POST", phase="after", count=1)
    if kind == "drop":
        with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
            live.control("mc-01", "stop")
    else:
        assert live.control("mc-01", "stop").status == 502
    assert still.counters()["actions_queued"] == {"mc-01": 1}
    still.checkin("mc-01")
    still.advance(STOP_TIME + 1)
    assert live.server("mc-01")["status"] == "offline"
    assert still.counters()["actions_applied"] == {"mc-01": 1}


def test_a_status_fault_after_queueing_is_not_the_panels_json(live, still):
    still.add_fault(kind="status", status=502, method="POST", phase="after", count=1)
    reply = live.control("mc-01", "stop")
    assert (reply.status, reply.raw) == (502, b"")  # a gateway's answer: the panel itself said 202
    assert still.counters()["actions_queued"] == {"mc-01": 1}


def test_proxy_fault_after_queueing_answers_the_proxys_page_and_the_action_runs(live, still):
    still.add_fault(kind="proxy", method="POST", phase="after", count=1)
    reply = live.control("mc-01", "restart")
    assert reply.status == 503
    assert reply.headers["Content-Type"].startswith("text/html") and reply.headers["Server"] == "envoy"
    assert b"upstream connect error or disconnect/reset before headers" in reply.raw
    counters = still.counters()
    assert (counters["posts"], counters["actions_queued"], counters["responses"]) == (
        {"mc-01": 1},
        {"mc-01": 1},
        {"503": 1},
    )
    still.checkin("mc-01")
    still.advance(STOP_TIME + 10)
    assert still.counters()["restarts"] == {"mc-01": 1}


def test_proxy_fault_before_queueing_queues_nothing(live, still):
    still.add_fault(kind="proxy", status=502, method="POST", retry_after=3, count=1)
    reply = live.control("mc-01", "stop")
    assert (reply.status, reply.headers["Retry-After"]) == (502, "3")
    assert reply.raw.startswith(b"<html>")
    assert still.counters()["actions_queued"] == {}


def test_after_phase_does_not_fire_for_refused_posts(live, still):
    still.add_fault(kind="status", status=503, method="POST", phase="after", count=1)
    assert live.control("mc-01", "explode").status == 422
    assert live.control("mc-01", "stop").status == 503
    assert still.counters()["actions_queued"] == {"mc-01": 1}


def test_latency_after_queueing(live, still):
    still.add_fault(kind="latency", seconds=0.3, method="POST", phase="after")
    started = time.monotonic()
    assert live.control("mc-01", "stop").status == 202
    assert time.monotonic() - started >= 0.3
    assert still.counters()["actions_queued"] == {"mc-01": 1}


def test_faults_are_listed_and_cleared(live, control):
    fault_id = control.add_fault(kind="status", status=500)
    assert [fault["id"] for fault in control.faults()] == [fault_id]
    assert live.get("/servers").status == 500
    assert control.faults()[0]["fired"] == 1
    control.clear_faults()
    assert control.faults() == []
    assert live.get("/servers").status == 200


@pytest.mark.parametrize(
    "spec",
    [
        {"kind": "explode"},
        {"kind": "status", "status": 200},
        {"kind": "latency"},
        {"kind": "status", "rate": 2},
        {"kind": "drop", "path": "("},
        {"kind": "drop", "phase": "during"},
        {"kind": "drop", "colour": "red"},
        {"kind": "drop", "retry_after": 5},
        {"kind": "status", "retry_after": 1.5},
        {"kind": "status", "retry_after": True},
        {"kind": "proxy", "status": 302},
    ],
)
def test_bad_fault_specs_are_refused(control, spec):
    with pytest.raises(EmulatorControlError) as refused:
        control.add_fault(**spec)
    assert refused.value.status == 400
    assert control.faults() == []
