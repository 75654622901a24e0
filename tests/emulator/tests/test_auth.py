# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Specification section 5 (authentication, scopes, roles, revocation) and the plan rules of sections 1 and 7."""

from __future__ import annotations

import pytest

from .apiclient import (
    ADMIN,
    BOOT_TIME,
    MEMBER,
    NO_TOKEN,
    OWNER,
    OWNER_READ,
    PRO,
    REVOKED,
    STARTER,
    STOP_TIME,
    UNPAID,
    Api,
)


def assert_nothing_queued(control, server_id="mc-01"):
    counters = control.counters()
    assert counters["actions_queued"].get(server_id, 0) == 0
    assert control.server(server_id)["pending_actions"] == []


@pytest.mark.parametrize(
    "token, code, counted_as",
    [
        (NO_TOKEN, "missing_token", "(missing)"),
        ("gp-not-a-token", "invalid_token", "(unknown)"),
        (REVOKED, "token_revoked", "revoked"),
    ],
)
def test_bad_tokens_get_401_with_a_json_error(live, control, token, code, counted_as):
    reply = live.get("/servers", token=token)
    assert reply.status == 401
    assert reply.error_code == code
    assert reply.json["error"]["message"]
    assert reply.headers["WWW-Authenticate"].startswith("Bearer")
    assert control.counters()["requests"][counted_as] == {"live GET /servers": 1}


@pytest.mark.parametrize("header", ["Token gp-test-owner-control", "Bearer", "Bearer   ", "gp-test-owner-control"])
def test_malformed_authorization_header_is_401(live, header):
    reply = live.get("/servers", token=NO_TOKEN, headers={"Authorization": header})
    assert reply.status == 401
    assert reply.error_code == "missing_token"


@pytest.mark.parametrize("token", [NO_TOKEN, "gp-not-a-token", REVOKED])
def test_bad_tokens_cannot_queue(live, still, token):
    reply = live.control("mc-01", "stop", token=token)
    assert reply.status == 401
    still.checkin("mc-01")
    assert live.server("mc-01")["status"] == "online"
    assert_nothing_queued(still)
    assert still.counters()["posts"] == {"mc-01": 1}


def test_read_only_token_reads_but_cannot_control(live, still):
    assert live.get("/servers", token=OWNER_READ).status == 200
    assert live.get("/servers/mc-01/players", token=OWNER_READ).status == 200
    reply = live.control("mc-01", "stop", token=OWNER_READ)
    assert reply.status == 403
    assert reply.error_code == "insufficient_scope"
    still.checkin("mc-01")
    assert live.server("mc-01")["status"] == "online"
    assert_nothing_queued(still)


def test_member_with_control_token_is_refused(live, still):
    assert live.get("/servers/mc-01", token=MEMBER).status == 200
    reply = live.control("mc-01", "restart", token=MEMBER)
    assert reply.status == 403
    assert reply.error_code == "insufficient_role"
    assert_nothing_queued(still)


@pytest.mark.parametrize("token", [OWNER, ADMIN])
def test_owner_and_admin_control_tokens_queue(live, still, token):
    reply = live.control("mc-01", "stop", token=token)
    assert reply.status == 202
    assert still.counters()["actions_queued"] == {"mc-01": 1}


def test_starter_plan_is_403_on_everything(emulator, still):
    live = Api(emulator.live_url, token=STARTER)
    planned = Api(emulator.planned_url, token=STARTER)
    try:
        for reply in (
            live.get("/servers"),
            live.get("/servers/starter-01"),
            live.get("/servers/starter-01/metrics"),
            live.control("starter-01", "stop"),
            planned.get("/servers"),
            planned.request("POST", "/servers/starter-01/restart", content_type=None),
        ):
            assert reply.status == 403
            assert reply.error_code == "plan_no_api_access"
    finally:
        live.close()
        planned.close()
    still.checkin("starter-01")
    assert still.server("starter-01")["status"] == "online"
    assert_nothing_queued(still, "starter-01")


def test_unpaid_plan_is_402_until_paid(live, still):
    assert live.get("/servers", token=UNPAID).status == 402
    reply = live.control("unpaid-01", "stop", token=UNPAID)
    assert reply.status == 402
    assert reply.error_code == "payment_required"
    assert_nothing_queued(still, "unpaid-01")
    still.set_account("unpaidco", paid=True)
    assert live.get("/servers", token=UNPAID).status == 200
    assert live.control("unpaid-01", "stop", token=UNPAID).status == 202


def test_plan_changes_take_effect_on_the_next_request(live, control):
    assert live.get("/servers").status == 200
    control.set_account("acme", plan="starter")
    assert live.get("/servers").status == 403
    control.set_account("acme", plan="pro", paid=False)
    assert live.get("/servers").status == 402
    control.set_account("acme", plan="team", paid=True)
    assert live.get("/servers").status == 200


def test_a_token_only_sees_its_own_account(live, still):
    reply = live.get("/servers", token=PRO)
    assert [server["id"] for server in reply.json] == ["pro-01"]
    other = live.get("/servers/mc-01", token=PRO)
    assert other.status == 404
    assert other.error_code == "server_not_found"
    assert live.control("mc-01", "stop", token=PRO).status == 404
    assert_nothing_queued(still)


def test_revocation_fails_the_very_next_request_but_the_server_keeps_reporting(live, still):
    value = still.create_token("acme", "olivia", "ci-token", "control")
    assert live.get("/servers/mc-01", token=value).status == 200
    before = live.server("mc-01")["uptime_seconds"]
    assert live.control("mc-01", "restart", token=value).status == 202
    still.revoke_token("ci-token")
    reply = live.get("/servers/mc-01", token=value)
    assert reply.status == 401
    assert reply.error_code == "token_revoked"
    assert live.control("mc-01", "restart", token=value).status == 401
    # The agent uses its panel key: it still checks in and applies what was queued before the revocation.
    applied = still.checkin("mc-01")["applied"]
    assert [action["action"] for action in applied] == ["restart"]
    assert live.server("mc-01")["status"] == "stopping"
    still.advance(STOP_TIME + BOOT_TIME + 1)
    server = live.server("mc-01")
    assert server["status"] == "online"
    assert server["uptime_seconds"] < before
    counters = still.counters()
    assert counters["actions_queued"] == {"mc-01": 1}
    assert counters["restarts"] == {"mc-01": 1}
    assert counters["requests"]["ci-token"]["live GET /servers/{id}"] == 2


def test_rotation_new_token_works_before_old_is_revoked(live, control):
    new = control.create_token("acme", "olivia", "rotated", "control")
    assert live.get("/servers", token=new).status == 200
    assert live.get("/servers", token=OWNER).status == 200
    control.revoke_token("owner-control")
    assert live.get("/servers", token=OWNER).status == 401
    assert live.get("/servers", token=new).status == 200


def test_servers_control_scope_spelling_is_accepted(live, still):
    value = still.create_token("acme", "adam", "spelled", "servers:control")
    assert live.control("mc-02", "stop", token=value).status == 202


def test_planned_variant_applies_the_same_rules(planned, still):
    assert planned.get("/servers", token=NO_TOKEN).status == 401
    assert planned.get("/servers", token=UNPAID).status == 402
    for token, code in ((OWNER_READ, "insufficient_scope"), (MEMBER, "insufficient_role")):
        reply = planned.request("POST", "/servers/mc-01/restart", token=token, content_type=None)
        assert reply.status == 403
        assert reply.error_code == code
    assert_nothing_queued(still)


@pytest.mark.parametrize(
    "token, path, method, status",
    [
        # Authentication comes first, even for paths that do not exist.
        (NO_TOKEN, "/nowhere", "GET", 401),
        (STARTER, "/nowhere", "GET", 403),
        (UNPAID, "/servers/unknown", "GET", 402),
        # An unknown server is 404 before the scope or role is looked at.
        (OWNER_READ, "/servers/unknown/control", "POST", 404),
        (MEMBER, "/servers/unknown/control", "POST", 404),
        # The role is checked before the body.
        (MEMBER, "/servers/mc-01/control", "POST", 403),
    ],
)
def test_order_of_checks(live, token, path, method, status):
    reply = live.request(method, path, token=token, raw_body=b"not json", content_type="text/plain")
    assert reply.status == status
