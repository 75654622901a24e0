# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""_engine/server.py: what the engine knows of one server, and its two answers (a line of servers, a one-server result)."""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.module_utils._engine.request import ControlRequest
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.server import FINISHED, ControlledServer
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.convergence import TimedRead

from panel_fakes import server

REQUEST = ControlRequest("stopped", server_id="mc-01")
ENTRY = {"id": "mc-01", "action": "stop", "queued_at": 5.0, "state": "queued", "owner": "1@host", "before": {}}


def test_the_first_read_stays_the_before_of_a_one_server_result_and_the_latest_is_its_server():
    controlled = ControlledServer("mc-01")
    controlled.take(TimedRead(server(), 1.0))
    controlled.take(TimedRead(server(status="stopping"), 2.0))
    result = controlled.as_result(REQUEST, 1.5, {"requests": 2})
    assert (result["before"]["status"], result["server"]["status"]) == ("online", "stopping")
    assert "msg" not in result


def test_both_answers_show_the_entry_relied_on_as_users_see_it_and_the_message():
    controlled = ControlledServer("mc-01")
    controlled.take(TimedRead(server(), 1.0))
    controlled.following(ENTRY)
    controlled.finish("followed")
    line = controlled.as_line(REQUEST)
    assert controlled.stage == FINISHED and line["pending"] == {
        "id": "mc-01",
        "action": "stop",
        "queued_at": 5.0,
        "state": "queued",
    }
    assert (line["msg"], line["failed"], line["status"]) == ("followed", False, "online")
    result = controlled.as_result(REQUEST, 0.0, {})
    assert (result["pending"], result["msg"], result["unconfirmed"]) == (line["pending"], "followed", True)


def test_the_diff_shows_the_status_reached_expected_or_unchanged():
    sent = ControlledServer("mc-01")
    sent.take(TimedRead(server(), 1.0))
    sent.before = sent.server
    sent.sending("stop")
    assert sent.as_line(REQUEST, diff=True)["diff"] == {"before": {"status": "online"}, "after": {"status": "offline"}}
    sent.converged = True
    sent.take(TimedRead(server(status="stopped"), 9.0))
    assert sent.as_result(REQUEST, 0.0, {}, diff=True)["diff"]["after"] == {"status": "stopped"}
    untouched = ControlledServer("mc-02")
    untouched.take(TimedRead(server("mc-02"), 1.0))
    untouched.before = untouched.server
    assert untouched.as_line(REQUEST, diff=True)["diff"]["after"] == {"status": "online"}


def test_a_failure_is_final_and_keeps_the_error_behind_it():
    controlled = ControlledServer("mc-01")
    error = ValueError("boom")
    controlled.fail("it broke", error)
    assert (controlled.stage, controlled.failed, controlled.error, controlled.message) == (
        FINISHED,
        True,
        error,
        "it broke",
    )
    assert "mc-01" in controlled.label  # no read yet: named by its id
