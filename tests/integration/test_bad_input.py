# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Bad input fails clearly and queues nothing.

Ids with path tricks, names matching nothing or several servers, invalid options and
combinations, and base URLs that are malformed, lack the version segment or answer
something that is not the panel's API.  Loops keep it to a few ansible runs.
"""

from __future__ import annotations

import json

from panel_doubles import CannedPanel

PLAYBOOK = "reliability/bad_input.yml"
LONG_ID = "L" * 5000
BAD_IDS = ["a/b", "..", ".", "%2F", "mc-01/../mc-02", "mc 01", "ünïcødé-☃", "", "   ", LONG_ID, "mc-01?x=1", "#frag"]
MAX_MESSAGE = 700


def flat(text):
    return " ".join(text.split())


def run_cases(ansible, **extra_vars):
    run = ansible.playbook(PLAYBOOK, extra_vars=extra_vars, timeout=300)
    assert run.rc == 0, run.describe()
    return run.result("Registered")["msg"]


def test_ids_with_path_tricks_reach_the_panel_as_one_segment_and_fail_clearly(ansible, emulator):
    results = run_cases(ansible, bad_ids=BAD_IDS)["by_id"]
    assert len(results) == len(BAD_IDS)
    for bad_id, result in zip(BAD_IDS, results):
        assert result["failed"] is True, (bad_id, result)
        message = result["msg"]
        assert len(message) < MAX_MESSAGE and LONG_ID not in message, (bad_id, message)
        if not bad_id.strip():
            assert "The server id is empty" in message
        else:
            assert "was not found" in message and "no server with this id" in message, (bad_id, message)
    counters = emulator.control.counters()["requests"]["owner-control"]
    # Every non-empty id asked for exactly one server: no other route was reached.
    assert counters == {"live GET /servers/{id}": len([bad for bad in BAD_IDS if bad.strip()])}


def test_names_matching_nothing_or_several_servers(ansible, emulator):
    emulator.control.set_server("mc-02", name="Survival")
    cases = [{"name": "Nobody"}, {"name": "Survival"}, {"name": "survival"}, {"name": "S*"}, {"name": ""}]
    results = run_cases(ansible, bad_controls=cases)["controls"]
    messages = [flat(result["msg"]) for result in results]
    assert all(result["failed"] for result in results), messages
    assert "No server is named exactly 'Nobody'" in messages[0]
    assert "2 servers are named 'Survival': Survival (mc-01), Survival (mc-02). Select one by id." in messages[1]
    assert "No server is named exactly 'survival'" in messages[2] and "Similar names" in messages[2]
    assert "No server is named exactly 'S*'" in messages[3]
    assert messages[4]
    assert emulator.control.counters()["posts"] == {}


INVALID_OPTIONS = [
    ({"state": "rebooted", "id": "mc-01"}, "value of state must be one of"),
    ({"id": "mc-01", "name": "Survival"}, "mutually exclusive"),
    ({}, "one of the following is required"),
    ({"id": "mc-01", "wait_timeout": -1}, "wait_timeout must not be negative"),
    ({"id": "mc-01", "poll_interval": 0}, "poll_interval must be more than 0"),
    ({"id": "mc-01", "min_uptime": "soon"}, "min_uptime"),
    ({"id": "mc-01", "max_players": -3}, "max_players must not be negative"),
    ({"id": "mc-01", "on_busy": "wait"}, "value of on_busy must be one of"),
    ({"id": "mc-01", "stopped_statuses": []}, "stopped_statuses must name at least one status"),
    ({"id": "mc-01", "only_if_status": []}, "only_if_status must name at least one status"),
    ({"id": "mc-01", "request_timeout": 0}, "request_timeout must be a positive number"),
    ({"id": "mc-01", "retry_timeout": -5}, "retry_timeout must be zero or a positive number"),
    ({"id": "mc-01", "rate_limit": -1}, "rate_limit must be a number of requests per minute"),
    ({"id": "mc-01", "api_variant": "beta"}, "value of api_variant must be one of"),
    ({"id": "mc-01", "api_variant": "planned", "state": "started"}, "planned API variant"),
    ({"id": "mc-01", "base_url": "not a url"}, "is not an http(s) URL of the API root"),
    ({"id": "mc-01", "base_url": "ftp://panel.example.test/v1"}, "is not an http(s) URL of the API root"),
    ({"id": "mc-01", "base_url": "https://panel.example.test/v1?x=1"}, "no query"),
    ({"id": "mc-01", "base_url": "https:///v1"}, "is not an http(s) URL of the API root"),
    ({"id": "mc-01", "base_url": "http://panel.example.test/v1"}, "allow_insecure_http"),
]


def test_invalid_options_and_combinations_fail_before_anything_is_sent(ansible, emulator):
    cases = [case for case, _expected in INVALID_OPTIONS]
    results = run_cases(ansible, bad_controls=cases)["controls"]
    assert len(results) == len(cases)
    for (case, expected), result in zip(INVALID_OPTIONS, results):
        assert result["failed"] is True, (case, result)
        assert expected in flat(result["msg"]), (case, result["msg"])
        assert len(result["msg"]) < MAX_MESSAGE
    assert emulator.control.counters()["posts"] == {}


def test_a_base_url_without_the_version_segment_blames_base_url_not_the_id(ansible, emulator):
    root = emulator.live_url.rsplit("/v1", 1)[0]
    results = run_cases(
        ansible, bad_controls=[{"id": "mc-01", "base_url": root}, {"id": "mc-01", "base_url": root + "/api"}]
    )["controls"]
    for result in results:
        assert result["failed"] is True
        assert "Check base_url" in result["msg"] and "no version segment" in result["msg"], result["msg"]
        assert "no server with this id" not in result["msg"]
    assert emulator.control.counters()["posts"] == {}


HUGE = b"<html>" + b"A" * (5 * 1024 * 1024) + b"</html>"

# (case, status, body, Content-Type, what the message must say)
FOREIGN_ANSWERS = [
    ("html", 200, b"<!DOCTYPE html><html><body>Welcome to nginx!</body></html>", "text/html", "not JSON"),
    ("empty", 200, b"", "application/json", "empty body"),
    ("invalid JSON", 200, b'{"servers": [', "application/json", "not JSON"),
    ("5 MB of HTML", 200, HUGE, "text/html", "not JSON"),
    (
        "a health check's JSON",
        200,
        json.dumps({"status": "ok", "version": "1.2"}).encode(),
        "application/json",
        "not a server",
    ),
    ("a JSON array", 200, json.dumps([1, 2, 3]).encode(), "application/json", "not a server object"),
    ("an HTML 404", 404, b"<html><h1>404 Not Found</h1></html>", "text/html", "Check base_url"),
    ("an empty 404", 404, b"", "text/plain", "Check base_url"),
    ("5 MB of HTML with a 500", 500, HUGE, "text/html", "not the panel's JSON"),
]


def test_answers_that_are_not_the_panels_api(ansible):
    panels = [
        CannedPanel(status, body, {"Content-Type": content_type})
        for _case, status, body, content_type, _expected in FOREIGN_ANSWERS
    ]
    try:
        cases = [
            {"id": "mc-01", "base_url": panel.root + "/v1", "retry_timeout": 0, "wait_timeout": 3} for panel in panels
        ]
        results = run_cases(ansible, bad_controls=cases)["controls"]
    finally:
        for panel in panels:
            panel.close()
    assert len(results) == len(FOREIGN_ANSWERS)
    for (case, _status, _body, _type, expected), result, panel in zip(FOREIGN_ANSWERS, results, panels):
        message = result["msg"]
        assert result["failed"] is True, case
        assert expected in message, (case, message)
        assert "Check base_url" in message or "does not look like the panel's API" in message, (case, message)
        assert len(message) < MAX_MESSAGE, (case, len(message))
        assert [method for method, _path in panel.requests] == ["GET"], (case, panel.requests)
