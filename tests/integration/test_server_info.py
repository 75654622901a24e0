# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""gamepanel.panel.server_info run by ansible-playbook against the emulator.

Each playbook run costs seconds, so one run covers many cases (one task each) and
the test reads every task's result by name.  The emulator's counters show what
really reached the panel.
"""

from __future__ import annotations

import socket

ACME = ["mc-01", "mc-02", "mc-03", "rust-01", "rust-02", "ark-01"]
SERVER_KEYS = {"id", "name", "game", "status", "players", "cpu", "memory_mb", "uptime_seconds"}
TOKENS = {
    "owner-control": "gp-test-owner-control",
    "owner-read": "gp-test-owner-read",
    "member-control": "gp-test-member-control",
    "revoked": "gp-test-revoked",
    "starter-control": "gp-test-starter",
    "unpaid-control": "gp-test-unpaid",
    "pro-control": "gp-test-pro-control",
}


def ids(result):
    assert not result.get("failed"), result
    return [server["id"] for server in result["servers"]]


def failure(run, task):
    result = run.result(task)
    assert result.get("failed"), result
    return result


def requests_by(emulator, token_name):
    return sum(emulator.control.counters()["requests"].get(token_name, {}).values())


def assert_no_token(run):
    for value in TOKENS.values():
        assert value not in run.stdout, value
        assert value not in run.stderr, value


def test_reading(ansible, emulator):
    """List (paged), by id, filters, every sub-resource, check mode, a member, other list styles."""
    emulator.control.settings(live_list_style="paged_body", page_size=2)
    run = ansible.playbook(
        "server_info/read.yml",
        token=TOKENS["owner-read"],
        extra_vars={"si_control_url": emulator.control_url, "si_member_token": TOKENS["member-control"]},
    )
    assert run.rc == 0, run.describe()

    everything = run.result("List all")
    assert ids(everything) == ACME
    assert everything["changed"] is False
    survival = everything["servers"][0]
    assert set(survival) == SERVER_KEYS
    assert (survival["name"], survival["game"], survival["status"]) == ("Survival", "minecraft", "online")
    assert survival["players"] == {"current": 3, "max": 20}
    assert everything["api"] == {"requests": 3, "retries": 0, "waited_seconds": 0.0}  # six servers, two a page

    checked = run.result("By id in check mode")
    assert ids(checked) == ["rust-01"]
    assert checked["changed"] is False

    rust = run.result("Name pattern with players")
    assert ids(rust) == ["rust-01", "rust-02"]
    assert all(set(server["details"]) == {"players"} for server in rust["servers"])

    assert ids(run.result("Game and status")) == ["mc-01", "mc-02"]
    assert ids(run.result("No match")) == []

    detailed = run.result("Every sub-resource")
    assert ids(detailed) == ["mc-01"]
    server = detailed["servers"][0]
    assert set(server["details"]) == {"players", "metrics", "console", "resources"}
    assert all(body is not None for body in server["details"].values())
    assert server["players"] == {"current": 3, "max": 20}  # the Server field, not the sub-resource
    assert detailed["api"]["requests"] == 5

    assert ids(run.result("A member reads")) == ["mc-02"]

    linked = run.result("List over Link headers")
    assert ids(linked) == ACME
    assert linked["api"]["requests"] == 3
    assert ids(run.result("List in an envelope")) == ["mc-01", "mc-02", "rust-01", "ark-01"]

    counters = emulator.control.counters()
    assert sum(counters["requests"]["member-control"].values()) == 1
    assert counters["posts"] == {}


def test_module_defaults_through_the_action_group(ansible, emulator):
    """The connection set once under group/gamepanel.panel.panel; clear errors without one."""
    run = ansible.playbook(
        "server_info/module_defaults.yml",
        token=None,
        env={"GAMEPANEL_BASE_URL": None},
        extra_vars={"si_url": emulator.live_url, "si_token": TOKENS["owner-control"]},
    )
    assert run.rc == 0, run.describe()
    assert ids(run.result("Through the group")) == ["mc-01"]

    no_token = failure(run, "Without a token")["msg"]
    assert "No API token was given" in no_token
    assert "GAMEPANEL_API_TOKEN" in no_token and "Settings → API tokens" in no_token
    no_url = failure(run, "Without a base URL")["msg"]
    assert "No base_url was given" in no_url and "GAMEPANEL_BASE_URL" in no_url
    assert requests_by(emulator, "owner-control") == 1


def test_planned_variant(ansible, emulator):
    """GAMEPANEL_API_VARIANT=planned: list (paged by the emulator), by id, players; no metrics."""
    run = ansible.playbook("server_info/planned.yml", variant="planned")
    assert run.rc == 0, run.describe()

    assert ids(run.result("List all")) == ACME
    by_id = run.result("By id with players")
    assert ids(by_id) == ["rust-01"]
    assert set(by_id["servers"][0]["details"]) == {"players"}
    assert ids(run.result("Filtered")) == ["mc-01", "mc-02"]

    message = failure(run, "Metrics are not offered")["msg"]
    assert "planned API variant has no metrics endpoint" in message
    assert "api_variant: live" in message

    routes = emulator.control.counters()["requests"]["owner-control"]
    assert all(route.startswith("planned ") for route in routes), routes


def test_errors(ansible, emulator):
    """401, 403, 402, 404, 429, connection refused and bad options, each with its message."""
    emulator.control.settings(rate_limits={"pro": 2, "team": 600})
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    closed_port = probe.getsockname()[1]
    probe.close()
    run = ansible.playbook(
        "server_info/errors.yml",
        extra_vars={
            "si_revoked_token": TOKENS["revoked"],
            "si_starter_token": TOKENS["starter-control"],
            "si_unpaid_token": TOKENS["unpaid-control"],
            "si_limited_token": TOKENS["pro-control"],
            "si_closed_url": "http://127.0.0.1:%d/v1" % closed_port,
        },
    )
    assert run.rc == 0, run.describe()

    revoked = failure(run, "Revoked token")
    assert revoked["status"] == 401
    assert "missing, invalid or revoked" in revoked["msg"]
    assert "Settings → API tokens" in revoked["msg"]
    assert revoked["servers"] == []
    assert revoked["api"]["requests"] == 1

    starter = failure(run, "Starter plan")
    assert starter["status"] == 403
    assert "Starter plan" in starter["msg"] and "read-only" in starter["msg"]

    unpaid = failure(run, "Unpaid plan")
    assert unpaid["status"] == 402
    assert "unpaid" in unpaid["msg"] and "not retried" in unpaid["msg"]
    assert unpaid["api"] == {"requests": 1, "retries": 0, "waited_seconds": 0.0}
    assert requests_by(emulator, "unpaid-control") == 1

    unknown = failure(run, "Unknown id")
    assert unknown["status"] == 404
    assert "Server 'no-such/../server' was not found" in unknown["msg"]

    limited = failure(run, "Rate limited")
    assert limited["status"] == 429
    assert "rate limit is still exceeded" in limited["msg"]
    assert "retry_timeout" in limited["msg"] and "rate_limit" in limited["msg"]
    assert emulator.control.counters()["rate_limited"] >= 1

    closed = failure(run, "Nobody listening")
    assert "could not connect to the panel at 127.0.0.1:%d" % closed_port in closed["msg"]
    assert closed["status"] is None

    assert "mutually exclusive" in failure(run, "Id and filters together")["msg"]
    assert_no_token(run)


def test_token_never_shown_at_high_verbosity(ansible, emulator):
    run = ansible.playbook("server_info/verbose.yml", verbosity=4, env={"SI_OTHER_TOKEN": TOKENS["revoked"]})
    assert run.rc == 0, run.describe()
    assert "ghost-01" in run.stdout  # the verbose run did show its failures...
    assert_no_token(run)  # ...but never a token
    assert requests_by(emulator, "revoked") == 1
