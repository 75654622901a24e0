# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""engine/page_passes.py: the follow-up of a task with ids, its schedule and what each pass reads (on a fake clock).

The tasks are run whole (engine/many_servers.py); what these tests look at is when the passes come and
which pages they read.
"""

from __future__ import annotations

import pytest

from ansible_collections.gamepanel.panel.plugins.module_utils.engine.result import ControlFailed
from ansible_collections.gamepanel.panel.plugins.module_utils.api.errors import PanelAmbiguousError, PanelAuthError

from test_many_servers import by_id, fleet, posted, run  # pylint: disable=import-error


def late_lost_answer_beside_a_drain(client, then=None):
    """srv-01's players leave after 12 s, srv-00's after 40 s; srv-01's answer comes 9 s late and is lost.

    srv-00, still draining, is then due for a read of their shared page less than a poll_interval
    after srv-01's lost answer; ``then`` runs right after that answer.
    """
    client.servers["srv-00"]["players"] = {"current": 2, "max": 20}
    client.servers["srv-01"]["players"] = {"current": 2, "max": 20}
    client.later(12, "srv-01", players={"current": 0, "max": 20})
    client.later(40, "srv-00", players={"current": 0, "max": 20})
    lost = PanelAmbiguousError("The answer was lost.", what="POST /servers/srv-01/control")

    def post(server_id, action, hand_back=False):
        client.post_error = lost if server_id == "srv-01" else None
        if server_id == "srv-01":
            client.clock.sleep(9)
            if then is not None:
                then()
        client.later(4, server_id, uptime_seconds=1)  # each agent acts 4 s after the answer

    client.on_post = post


def test_a_wait_is_judged_on_reads_so_a_long_sending_phase_fails_nobody():
    client = fleet(3)

    def slow_post(server_id, action):
        client.later(1, server_id, uptime_seconds=1)  # applied a second later
        client.clock.sleep(50)  # each answer takes 50 s: the first wait is long past its 30 s by the last POST

    client.on_post = slow_post
    result = run(client, wait_timeout=30)
    assert result["summary"]["converged"] == 3


def test_the_confirming_reads_cover_only_pages_still_waited_for():
    client = fleet(4)
    client.page_size = 2
    delays = {"srv-00": 1, "srv-01": 1, "srv-02": 1, "srv-03": 20}
    # uptimes a live panel shows: counting on until the restart, then from 0 again
    client.on_post = lambda server_id, action: client.live_uptime(server_id, restart_at=delays[server_id], horizon=60)
    run(client)
    pages_read = [when for when, what, unused_id in client.log if what == "LIST"]
    last_answer = client.posts[-1][0]
    # 2 pages to act, 2 pages in the first pass (it shows three restarts), then only the second
    # page until srv-03 shows: at the arriving pace for a poll_interval after those outcomes
    # (no closer than the two pages' share of the rate allows, then one a second), then backing off
    assert [round(when - last_answer, 2) for when in pages_read[2:]] == [5.0, 5.0, 7.0, 8.0, 9.0, 10.0, 17.5, 28.75]


def confirming_passes(client):
    """When each list read after the first came, in seconds after the last answer to a POST."""
    return [round(when - client.posts[-1][0], 2) for when, what, unused_id in client.log if what == "LIST"][1:]


def outcomes_spread(client):
    """Agents that take 6 to 20 s (2 s apart), each restart showing at once: outcomes arrive one by one."""
    return lambda server_id, action: client.live_uptime(server_id, restart_at=6 + 2 * int(server_id[4:]), horizon=30)


def boots_seen(client):
    """Every agent takes its restart after 8 s and boots until 20 s, as real agents do (all at once)."""

    def react(server_id, action):
        client.live_uptime(server_id, restart_at=8, horizon=30)
        client.later(8, server_id, status="starting")
        client.later(20, server_id, status="online")

    return react


@pytest.mark.parametrize("count, agents", [(8, outcomes_spread), (2, boots_seen)], ids=["outcomes", "on_their_way"])
def test_once_the_agents_are_at_work_the_passes_come_at_the_pace_the_rate_allows(count, agents):
    client = fleet(count)
    client.on_post = agents(client)
    result = run(client, rate_limit=600)
    assert result["summary"]["converged"] == count
    # backing off until a pass shows the first outcome or a server starting (at 12.5 s: the first
    # pass, 5 s after the last answer, saw nothing yet), then a pass a second until the last shows
    # at 20 s, where the backoff alone would have read next at 23.75 s
    assert confirming_passes(client) == [5.0, 12.5, 13.5, 14.5, 15.5, 16.5, 17.5, 18.5, 19.5, 20.5]


def test_a_server_whose_agent_never_acts_costs_a_poll_interval_of_quick_passes_then_the_backoff():
    client = fleet(2)
    # srv-00 restarts 3 s after its POST; srv-01's agent never takes its restart (its uptime runs on)
    client.on_post = lambda server_id, action: client.live_uptime(
        server_id, restart_at=3 if server_id == "srv-00" else None, horizon=200
    )
    with pytest.raises(ControlFailed) as failure:
        run(client, rate_limit=600, wait_timeout=60)
    assert failure.value.message.startswith("1 of 2 servers failed: srv-01: ")
    # srv-00 shows at 5 s; srv-01 is read a second apart for a poll_interval, then the backoff goes on
    assert confirming_passes(client)[:8] == [5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 17.5, 28.75]


def test_answers_spread_over_time_are_confirmed_by_one_pass_after_the_last():
    client = fleet(5)

    def slow_post(server_id, action):
        client.later(3, server_id, uptime_seconds=1)  # applied 3 s after its POST
        client.clock.sleep(1)  # the answers come a second apart

    client.on_post = slow_post
    result = run(client)
    assert result["summary"]["converged"] == 5
    pages_read = [when for when, what, unused_id in client.log if what == "LIST"]
    # the read to act, then one pass when the last answer is a poll_interval old: it shows them all
    assert len(pages_read) == 1 + 1
    assert pages_read[1] == pytest.approx(client.posts[-1][0] + 1 + 5.0)  # the last answer came 1 s after its POST


def test_a_page_read_for_another_server_does_not_judge_a_lost_answer_before_its_agent_had_time():
    client = fleet(2)
    late_lost_answer_beside_a_drain(client)

    result = run(client, max_players=0, drain_timeout=120, wait=False)
    lines = by_id(result)
    assert posted(client) == ["srv-01", "srv-00"]
    # srv-00, still draining, was due for a read less than a poll_interval after srv-01's lost answer
    lost_answer = client.posts[0][0] + 9
    reads = [when for when, what, unused_id in client.log if what == "LIST"]
    assert any(lost_answer < when < lost_answer + 4 for when in reads)
    # that read was not taken as srv-01's outcome: a read after its agent's time shows the restart
    assert lines["srv-01"]["failed"] is False and lines["srv-01"]["changed"] is True
    assert lines["srv-00"]["failed"] is False and lines["srv-00"]["changed"] is True
    assert len(client.posts) == 2


def test_a_failed_page_read_fails_only_the_servers_it_was_made_for():
    client = fleet(2)
    refused = PanelAuthError("The panel refused the token (HTTP 401).", status=401)
    late_lost_answer_beside_a_drain(client, then=lambda: client.read_failures.append(refused))
    with pytest.raises(ControlFailed) as failure:
        run(client, max_players=0, drain_timeout=120, wait=False)
    lines = by_id(failure.value.result)
    # the read was srv-00's: srv-00 fails; srv-01 keeps its own schedule and a later read shows its restart
    assert failure.value.message.startswith("1 of 2 servers failed: srv-00: ")
    assert "refused the token" in lines["srv-00"]["msg"]
    assert lines["srv-01"]["failed"] is False and lines["srv-01"]["changed"] is True
    assert posted(client) == ["srv-01"]


def test_a_read_after_the_deadline_showing_the_old_uptime_by_coincidence_is_read_once_more():
    # srv-01 was up 10 s when read; its restart is confirmed only after a long sending phase, by a
    # read whose whole-second uptime happens to equal the old one (10 s up again since the restart).
    client = fleet(2, uptime=10)

    def slow_post(server_id, action):
        if server_id == "srv-01":
            client.live_uptime("srv-01", restart_at=3, horizon=60)  # 10 s up again at the first pass, 13 s later
        else:
            client.later(1, server_id, uptime_seconds=1)
        client.clock.sleep(8)

    client.on_post = slow_post
    result = run(client, wait_timeout=3, poll_interval=5)
    assert result["summary"]["converged"] == 2
    assert not by_id(result)["srv-01"]["failed"]
    pages_read = [when for when, what, unused_id in client.log if what == "LIST"]
    assert len(pages_read) == 1 + 2  # the read to act, the pass that could not tell, one more read
    assert pages_read[2] - pages_read[1] == pytest.approx(2.0)  # soon after: a live uptime has moved on


def test_an_uptime_frozen_at_the_old_value_still_ends_the_wait():
    # a panel answering the pre-restart uptime over and over (a cached answer) proves nothing: the
    # second such read after the deadline fails the server, saying the agent was not seen to act
    client = fleet(1, uptime=60)
    client.on_post = lambda server_id, action: client.clock.sleep(8)
    with pytest.raises(ControlFailed) as failure:
        run(client, wait_timeout=3, poll_interval=5)
    assert "queued, not yet applied" in failure.value.result["servers"][0]["msg"]
    assert len(client.lists) == 1 + 2
