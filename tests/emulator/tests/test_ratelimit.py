# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Section 8: per-token limits per minute (Pro 120, Team 600); 429 past them, with or without Retry-After."""

from __future__ import annotations

from .apiclient import OWNER, OWNER_READ, PRO


def spend(live, count, token, path="/servers/mc-01"):
    statuses = [live.get(path, token=token).status for _attempt in range(count)]
    return statuses


def test_pro_token_gets_120_a_minute_then_429_with_retry_after(live, control):
    assert set(spend(live, 120, PRO, "/servers/pro-01")) == {200}
    reply = live.get("/servers/pro-01", token=PRO)
    assert reply.status == 429
    assert reply.error_code == "rate_limited"
    assert 1 <= int(reply.headers["Retry-After"]) <= 60
    counters = control.counters()
    assert counters["rate_limited"] == 1
    assert counters["responses"] == {"200": 120, "429": 1}


def test_team_token_gets_600_a_minute(live, control):
    assert set(spend(live, 600, OWNER)) == {200}
    assert live.get("/servers/mc-01", token=OWNER).status == 429
    assert control.counters()["rate_limited"] == 1


def test_the_limit_is_per_token(live, control):
    control.settings(rate_limits={"team": 3})
    assert spend(live, 4, OWNER) == [200, 200, 200, 429]
    assert spend(live, 3, OWNER_READ) == [200, 200, 200]


def test_the_window_slides_and_the_budget_comes_back(live, control):
    control.settings(rate_limits={"team": 2})
    assert spend(live, 3, OWNER) == [200, 200, 429]
    first_wait = int(live.get("/servers/mc-01", token=OWNER).headers["Retry-After"])
    control.advance(30)
    reply = live.get("/servers/mc-01", token=OWNER)
    assert reply.status == 429
    assert int(reply.headers["Retry-After"]) <= first_wait - 29
    control.advance(31)
    assert spend(live, 3, OWNER) == [200, 200, 429]


def test_retry_after_can_be_switched_off(live, control):
    control.settings(rate_limits={"team": 1}, retry_after=False)
    assert spend(live, 2, OWNER) == [200, 429]
    reply = live.get("/servers/mc-01", token=OWNER)
    assert reply.status == 429
    assert "Retry-After" not in reply.headers
    assert reply.error_code == "rate_limited"


def test_a_rate_limited_post_queues_nothing(live, still):
    still.settings(rate_limits={"team": 1})
    assert live.get("/servers", token=OWNER).status == 200
    reply = live.control("mc-01", "stop", token=OWNER)
    assert reply.status == 429
    counters = still.counters()
    assert counters["posts"] == {"mc-01": 1}
    assert counters["actions_queued"] == {}
    still.checkin("mc-01")
    assert still.server("mc-01")["status"] == "online"


def test_requests_are_counted_per_token_and_endpoint(live, control):
    live.get("/servers")
    live.get("/servers/mc-01")
    live.get("/servers/mc-01")
    live.control("mc-01", "restart")
    live.get("/servers", token=OWNER_READ)
    counters = control.counters()
    assert counters["requests_total"] == 5
    assert counters["requests"] == {
        "owner-control": {"live GET /servers": 1, "live GET /servers/{id}": 2, "live POST /servers/{id}/control": 1},
        "owner-read": {"live GET /servers": 1},
    }
    assert counters["responses"] == {"200": 4, "202": 1}
