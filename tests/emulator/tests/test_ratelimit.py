# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Section 8: per-token limits per minute (Pro 120, Team 600); 429 past them, with or without Retry-After.

The minute slides by default; ``rate_limit_window: fixed`` counts calendar minutes instead."""

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


def at_the_start_of_a_calendar_minute(live, control, token=OWNER):
    """Move the emulated clock to just after a minute turns (within its first second), by way of a 429.

    With a limit of 1 a second request is refused with the whole seconds to the next minute
    (rounded up): advancing by that lands at most a second into a fresh minute, and the
    test then has the rest of it, in real time, to send its requests in one minute."""
    control.settings(rate_limits={"team": 1})
    live.get("/servers/mc-01", token=token)
    reply = live.get("/servers/mc-01", token=token)
    assert reply.status == 429
    control.advance(int(reply.headers["Retry-After"]))


def test_the_minute_slides_by_default(control):
    assert control.settings()["rate_limit_window"] == "sliding"


def test_a_fixed_minute_counts_the_calendar_minute_and_retry_after_says_when_it_turns(live, control):
    control.settings(rate_limit_window="fixed")
    at_the_start_of_a_calendar_minute(live, control)
    control.settings(rate_limits={"team": 3})
    assert spend(live, 3, OWNER) == [200, 200, 200]
    reply = live.get("/servers/mc-01", token=OWNER)
    assert reply.status == 429 and reply.error_code == "rate_limited"
    retry_after = int(reply.headers["Retry-After"])
    assert 58 <= retry_after <= 60  # the rest of this minute, not a minute after the first request
    control.advance(retry_after - 2)
    assert spend(live, 1, OWNER) == [429]  # still the same calendar minute
    control.advance(2)
    assert spend(live, 4, OWNER) == [200, 200, 200, 429]  # a new minute: the whole limit again


def test_a_fixed_minute_allows_the_limit_at_the_end_of_a_minute_and_again_at_the_start_of_the_next(live, control):
    """What a fixed minute allows and a sliding one refuses: 2 x the limit within a few seconds."""
    control.settings(rate_limit_window="fixed")
    at_the_start_of_a_calendar_minute(live, control)
    control.settings(rate_limits={"team": 3})
    control.advance(57)  # the last seconds of the minute
    assert spend(live, 3, OWNER) == [200, 200, 200]
    reply = live.get("/servers/mc-01", token=OWNER)
    assert reply.status == 429
    control.advance(int(reply.headers["Retry-After"]))  # the next minute, seconds later
    assert spend(live, 3, OWNER) == [200, 200, 200]
    # The same requests against a sliding minute: the second lot is refused.
    control.reset()
    control.settings(rate_limits={"team": 3})
    control.advance(57)
    assert spend(live, 3, OWNER) == [200, 200, 200]
    control.advance(4)
    assert spend(live, 1, OWNER) == [429]


def test_retry_after_can_be_switched_off(live, control):
    control.settings(rate_limits={"team": 1}, retry_after=False)
    assert spend(live, 2, OWNER) == [200, 429]
    reply = live.get("/servers/mc-01", token=OWNER)
    assert reply.status == 429
    assert "Retry-After" not in reply.headers
    assert reply.error_code == "rate_limited"


def test_answers_announce_the_plans_limit_only_when_asked(live, control):
    assert "X-RateLimit-Limit" not in live.get("/servers/mc-01", token=OWNER).headers
    control.settings(rate_limit_headers=True)
    assert live.get("/servers/mc-01", token=OWNER).headers["X-RateLimit-Limit"] == "600"
    assert live.get("/servers/pro-01", token=PRO).headers["X-RateLimit-Limit"] == "120"
    assert live.get("/servers/nope", token=OWNER).headers["X-RateLimit-Limit"] == "600"  # on a refusal too
    assert "X-RateLimit-Limit" not in live.get("/servers/mc-01", token="gp-unknown").headers


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
