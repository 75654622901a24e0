# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""_engine/follow_up.py: the one follow-up of server_control, driven with one server (id) and with many (ids).

The tasks are run whole on a fake clock (_engine/one_server.py, _engine/many_servers.py); what these
tests look at is when the reads after the sending come, which pages they read, and that one server
read by its own GET is followed exactly as a fleet read by pages.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.gamepanel.panel.plugins.module_utils._engine.follow_up import LONGEST_GAP, WAITED_SHARE, gap
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.many_servers import run_many_servers
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.one_server import run_one_server
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.request import ControlRequest
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.result import ControlFailed
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.convergence import UNDECIDED_RECHECK_SECONDS
from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import PanelAmbiguousError, PanelAuthError

from panel_fakes import FakePanel  # pylint: disable=import-error
from panel_fakes import server as panel_server  # pylint: disable=import-error
from test_many_servers import by_id, fleet, posted, run  # pylint: disable=import-error

PROFILE = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ONE, MANY = "one", "many"


def control(client, how, state="restarted", **options):
    """The task on the fake panel: ``one`` (id, srv-00 read by its own GET) or ``many`` (ids, every server, by pages).

    Returns the result, or the ControlFailed raised.
    """
    options.setdefault("rate_limit", 600)
    try:
        if how == ONE:
            return run_one_server(client, ControlRequest(state, server_id="srv-00", **options))
        ids = list(client.servers)
        return run_many_servers(client, ControlRequest(state, ids=ids, **options), ids)
    except ControlFailed as failure:
        return failure


def reads_after_sending(client):
    """When each read after the last POST came, in seconds after it was sent (GETs and pages alike)."""
    last = max(index for index, (unused, what, unused_id) in enumerate(client.log) if what.startswith("POST"))
    sent = client.posts[-1][0]
    return [round(when - sent, 3) for when, what, unused in client.log[last + 1 :] if what in ("GET", "LIST")]


def expected_reads(outcome_at, poll_interval, wait_timeout):
    """The reads the pace makes until ``outcome_at`` (seconds after the answer) shows, or the wait ends."""
    reads, last = [], 0.0
    while True:
        due = last + gap(last, poll_interval)
        if due > wait_timeout - poll_interval:
            due = wait_timeout  # the last read at the deadline itself
        reads.append(round(due, 3))
        if due >= outcome_at or due >= wait_timeout:
            return reads
        last = due


# -- the pace ------------------------------------------------------------------------------------


def test_the_gap_is_poll_interval_and_a_share_of_the_time_waited_up_to_the_longest_gap():
    assert gap(0, 5) == 5
    assert gap(100, 5) == pytest.approx(5 + 100 * WAITED_SHARE)
    assert gap(10000, 5) == LONGEST_GAP
    assert gap(10000, 45) == 45  # a poll_interval longer than the longest gap is the user's choice


@pytest.mark.parametrize("how", [ONE, MANY])
def test_the_gaps_grow_with_the_time_waited(how):
    client = fleet(1 if how == ONE else 3)
    for server_id in client.servers:  # a slow agent: the restart shows 400 s after the POST
        client.later(400, server_id, uptime_seconds=1)
    result = control(client, how, wait_timeout=600, poll_interval=5)
    assert not isinstance(result, ControlFailed), result.message
    reads = reads_after_sending(client)
    assert reads == expected_reads(400, 5, 600)
    assert reads[:3] == [5, 10.2, 15.608]
    for before, after in zip(reads, reads[1:]):
        assert after - before == pytest.approx(5 + before * WAITED_SHARE, abs=0.002)
    assert reads[-1] >= 400 and len(reads) == 37  # 400 s at one read a poll_interval would be 80


@PROFILE
@given(
    outcome_at=st.floats(min_value=0.5, max_value=400),
    poll_interval=st.sampled_from([1.0, 2.0, 5.0, 10.0]),
    wait_timeout=st.integers(min_value=1, max_value=500),
    count=st.integers(min_value=2, max_value=4),
)
def test_one_server_and_many_are_read_at_the_same_instants(outcome_at, poll_interval, wait_timeout, count):
    runs = {}
    for how, size in ((ONE, 1), (MANY, count)):
        client = fleet(size)
        for server_id in client.servers:  # every agent restarts at the same instant after its POST
            client.later(outcome_at, server_id, uptime_seconds=0, status="starting")
            client.later(outcome_at + 0.25, server_id, uptime_seconds=0, status="online")
        result = control(client, how, wait_timeout=wait_timeout, poll_interval=poll_interval)
        runs[how] = (client, result)
    (one, one_result), (many, many_result) = runs[ONE], runs[MANY]
    assert reads_after_sending(one) == reads_after_sending(many)
    assert set(kind for unused, kind, unused_id in one.log[2:]) <= {"GET", "POST restart"}  # one server: GETs
    assert set(kind for unused, kind, unused_id in many.log[1:]) <= {"LIST", "POST restart"}  # many: pages
    assert len(one.posts) == 1 and len(many.posts) == count
    converged = not isinstance(one_result, ControlFailed)
    assert converged == (not isinstance(many_result, ControlFailed))
    reads = reads_after_sending(one)
    assert reads[-1] <= wait_timeout + UNDECIDED_RECHECK_SECONDS  # no read after the deadline but a recheck
    if converged:
        shown = outcome_at + 0.25
        # the outcome is seen within one gap of showing (a poll_interval and a share of the time waited),
        # or by the read at the deadline that took the place of one less than a poll_interval before it, or
        # by the read made again after one at the deadline that could not tell (the old uptime, shown again)
        assert (
            reads[-1] - shown <= gap(shown, poll_interval) + 0.001
            or reads[-1] == wait_timeout
            or reads[-1] == pytest.approx(wait_timeout + UNDECIDED_RECHECK_SECONDS)
        )
    else:
        assert outcome_at + 0.25 > reads[-1]


# -- what a pass reads -----------------------------------------------------------------------------


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
    # page, at the pace of the time waited, until srv-03 shows
    assert [round(when - last_answer, 2) for when in pages_read[2:]] == [5.0, 5.0, 10.2, 15.61, 21.23]


def test_answers_spread_over_time_are_confirmed_by_one_pass():
    client = fleet(5)

    def slow_post(server_id, action):
        client.later(3, server_id, uptime_seconds=1)  # applied 3 s after its POST
        client.clock.sleep(1)  # the answers come a second apart

    client.on_post = slow_post
    result = run(client)
    assert result["summary"]["converged"] == 5
    pages_read = [when for when, what, unused_id in client.log if what == "LIST"]
    # the read to act, an early look when the first is due (it settles the four whose restarts show
    # already), then the pass the answers due within half a poll_interval of the first were gathered
    # for: no later than without the look, for the last one, which shows by then
    assert len(pages_read) == 1 + 2
    first_answer = client.posts[0][0] + 1
    assert pages_read[1:] == [pytest.approx(first_answer + 5.0), pytest.approx(first_answer + 5.0 + 2.0)]


def test_an_early_look_that_finds_every_outcome_is_the_only_pass():
    client = fleet(5)

    def quick_post(server_id, action):
        client.later(0.5, server_id, uptime_seconds=1)  # every agent acts half a second after its POST
        client.clock.sleep(0.2)  # the answers come 0.2 s apart

    client.on_post = quick_post
    result = run(client)
    assert result["summary"]["converged"] == 5
    pages_read = [when for when, what, unused_id in client.log if what == "LIST"]
    # the read to act, then one read when the first is due: the pass gathered 0.8 s later is not needed
    assert pages_read[1:] == [pytest.approx(client.posts[0][0] + 0.2 + 5.0)]


def test_an_early_look_judges_nothing_it_does_not_settle():
    # without wait, one read judges a lost answer: the look comes when the first is due, too soon for the others
    client = fleet(3)
    client.post_error = PanelAmbiguousError("The answer was lost.", what="POST /servers/srv-0x/control")

    def post(server_id, action, hand_back=False):
        # each agent restarts 5.5 s after its POST; until then the uptime grows (a read there can tell)
        client.live_uptime(server_id, restart_at=5.5, horizon=30)
        client.clock.sleep(1)  # the answers come a second apart

    client.on_post = post
    result = run(client, wait=False)
    assert [line["failed"] for line in result["servers"]] == [False, False, False], result["servers"]
    assert len(client.posts) == 3
    first_answer = client.posts[0][0] + 1
    pages_read = [when for when, what, unused_id in client.log if what == "LIST"]
    assert pages_read[1:] == [pytest.approx(first_answer + 5.0), pytest.approx(first_answer + 5.0 + 2.0)]


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


def test_a_page_read_for_another_server_does_not_judge_a_lost_answer_before_its_agent_had_time():
    client = fleet(2)
    late_lost_answer_beside_a_drain(client)

    result = run(client, max_players=0, drain_timeout=120, wait=False)
    lines = by_id(result)
    assert posted(client) == ["srv-01", "srv-00"]
    # srv-00, still draining, was due for a read less than a poll_interval after srv-01's lost answer
    lost_answer = client.posts[0][0] + 9
    reads = [when for when, what, unused_id in client.log if what == "LIST"]
    assert any(lost_answer <= when < lost_answer + 4 for when in reads)
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


# -- the deadline ------------------------------------------------------------------------------------


@pytest.mark.parametrize("how", [ONE, MANY])
def test_a_read_at_the_deadline_showing_the_old_uptime_by_coincidence_is_read_once_more(how):
    # srv-00 was up 10 s when read; its answer comes 8 s late, past its 3 s wait, and the read at the
    # deadline shows 10 s again, by a coincidence of whole seconds (it restarted a second after the POST)
    client = fleet(1, uptime=10)

    def slow_post(server_id, action):
        client.live_uptime(server_id, restart_at=1, horizon=60)
        client.clock.sleep(8)

    client.on_post = slow_post
    result = control(client, how, wait_timeout=3, poll_interval=5)
    assert not isinstance(result, ControlFailed), result.message
    # at the deadline (3 s after the answer, 8 s after the POST), then UNDECIDED_RECHECK_SECONDS later
    assert reads_after_sending(client) == [11.0, 11.0 + UNDECIDED_RECHECK_SECONDS]


@pytest.mark.parametrize("how", [ONE, MANY])
def test_an_uptime_frozen_at_the_old_value_still_ends_the_wait(how):
    # a panel answering the pre-restart uptime over and over (a cached answer) proves nothing: the
    # second such read after the deadline fails the server, saying the agent was not seen to act
    client = fleet(1, uptime=60)
    client.on_post = lambda server_id, action: client.clock.sleep(8)
    failure = control(client, how, wait_timeout=3, poll_interval=5)
    assert isinstance(failure, ControlFailed)
    assert "queued, not yet applied" in failure.message
    assert reads_after_sending(client) == [11.0, 11.0 + UNDECIDED_RECHECK_SECONDS]


@pytest.mark.parametrize("how", [ONE, MANY])
def test_the_last_read_is_at_the_deadline_not_one_just_before_it(how):
    client = fleet(1)  # the agent never acts
    failure = control(client, how, wait_timeout=12, poll_interval=5)
    assert isinstance(failure, ControlFailed) and "queued, not yet applied" in failure.message
    assert reads_after_sending(client) == [5.0, 12.0]  # not 5, 10 and 12


@pytest.mark.parametrize("how", [ONE, MANY])
def test_a_drain_is_read_at_the_same_pace_and_ends_at_drain_timeout(how):
    client = fleet(1, players=3)
    result = control(client, how, max_players=0, drain_timeout=30, poll_interval=5)
    if how == ONE:
        assert result["skipped_reason"] and "players" in result["skipped_reason"]
    else:
        assert by_id(result)["srv-00"]["skipped_reason"]
    assert client.posts == []
    reads = [round(when - 1000.0, 3) for when, what, unused in client.log if what in ("GET", "LIST")]
    assert reads == [0.0, 5.0, 10.2, 15.608, 21.232, 30.0]  # the last at drain_timeout itself


# -- the deadline is a limit, for one server and many (a real PanelClient on a scripted panel) ------


def wait_server(**fields):
    """mc-01 online, up a day, empty (the read before queueing), with ``fields`` changed."""
    fields.setdefault("players", 0)
    return panel_server(**fields)


def scripted(how, record):
    """What the scripted panel answers to a read of ``record``: the server (GET), or the list holding it."""
    return record if how == ONE else [record]


def restart_on(panel, how, **options):
    """A restart of mc-01 on the scripted ``panel``; returns the result or the ControlFailed, and the time it took."""
    options.setdefault("wait_timeout", 30)
    options.setdefault("poll_interval", 5)
    client = panel.client(retry_timeout=options.pop("retry_timeout", 60))
    started = panel.clock.monotonic()
    try:
        if how == ONE:
            result = run_one_server(client, ControlRequest("restarted", server_id="mc-01", rate_limit=0, **options))
        else:
            request = ControlRequest("restarted", ids=["mc-01"], rate_limit=0, **options)
            result = run_many_servers(client, request, ["mc-01"])
    except ControlFailed as failure:
        return failure, panel.clock.monotonic() - started
    return result, panel.clock.monotonic() - started


@pytest.mark.parametrize("how", [ONE, MANY])
def test_a_long_retry_after_does_not_carry_the_wait_past_wait_timeout(how):
    panel = FakePanel()
    panel.reply(json=scripted(how, wait_server())).reply(status=202, json={"state": "queued"})
    for _reply in range(30):
        panel.reply(status=429, json={"error": {"message": "slow down"}}, headers={"Retry-After": "20"})
    failure, elapsed = restart_on(panel, how, wait_timeout=30)
    assert isinstance(failure, ControlFailed)
    assert elapsed <= 30  # no request time passes on the scripted transport
    assert "wait_timeout=30 s" in failure.message and "queued, not yet applied" in failure.message
    assert len([sent for sent in panel.sent if sent.method == "POST"]) == 1


@pytest.mark.parametrize("how", [ONE, MANY])
def test_an_outage_shorter_than_the_wait_does_not_end_it(how):
    panel = FakePanel()
    panel.reply(json=scripted(how, wait_server())).reply(status=202, json={"state": "queued"})
    for _reply in range(8):  # each read's retries run out (retry_timeout 3 s), the reads go on
        panel.reply(status=503, body="<html>maintenance</html>")
    panel.reply(json=scripted(how, wait_server(uptime=4)))
    result, elapsed = restart_on(panel, how, wait_timeout=300, retry_timeout=3)
    assert not isinstance(result, ControlFailed), result.message
    assert elapsed < 300 and not panel.unused


@pytest.mark.parametrize("how", [ONE, MANY])
def test_a_panel_answering_503_does_not_carry_the_drain_past_drain_timeout(how):
    panel = FakePanel().reply(json=scripted(how, wait_server(players=3)))
    for _reply in range(40):
        panel.reply(status=503, body="<html>maintenance</html>")
    result, elapsed = restart_on(panel, how, max_players=0, drain_timeout=3, retry_timeout=60)
    assert not isinstance(result, ControlFailed), result.message
    assert elapsed <= 3
    reason = result["skipped_reason"] if how == ONE else result["servers"][0]["skipped_reason"]
    assert "more than max_players (0) after waiting drain_timeout (3 s)" in reason
    assert "The last read failed" in reason and "HTTP 503" in reason and "drain_timeout=3 s" in reason
    assert [sent.method for sent in panel.sent] == ["GET", "GET"]  # the read before, and one at drain_timeout
