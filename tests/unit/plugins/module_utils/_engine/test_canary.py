# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The canary step of the many-servers engine (_engine/canary.py) on a fake clock."""

from __future__ import annotations

import pytest

from ansible_collections.gamepanel.panel.plugins.module_utils._engine.result import ControlFailed
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.request import ControlRequest
from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import PanelAuthError
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.many_servers import run_many_servers

from panel_fakes import FakeClient, server  # pylint: disable=import-error


def fleet(count, busy=()):
    """``count`` servers online for a day, empty but those in ``busy`` (5 players)."""
    return FakeClient(
        *(
            server("srv-%02d" % number, "Server %d" % number, players=5 if number in busy else 0)
            for number in range(count)
        )
    )


def restarts_apply(client, delay=3.0, never=()):
    """Each restart shows ``delay`` s after its POST, except on the servers in ``never`` (agent gone)."""

    def react(server_id, action):
        if server_id not in never:
            client.later(delay, server_id, uptime_seconds=1)

    client.on_post = react


def run(client, ids=None, check_mode=False, **options):
    ids = list(client.servers) if ids is None else ids
    options.setdefault("max_players", 0)
    request = ControlRequest("restarted", ids=ids, **options)
    return run_many_servers(client, request, ids, check_mode=check_mode)


def posts(client):
    return [(when, server_id) for when, unused, server_id in client.posts]


def by_id(result):
    return dict((line["id"], line) for line in result["servers"])


def test_the_canary_is_the_first_server_acted_on_and_is_confirmed_before_anything_else_is_sent():
    client = fleet(4, busy=(0,))  # the first server has players on: it is left alone, not the canary
    restarts_apply(client)
    result = run(client, canary=1)
    sent = posts(client)
    assert [server_id for unused, server_id in sent] == ["srv-01", "srv-02", "srv-03"]
    canary_sent, rest_sent = sent[0][0], sent[1][0]
    # one confirming read of the canary, a poll_interval after its answer, before the rest is sent
    reads_between = [when for when, what, unused in client.log if what == "LIST" and canary_sent < when <= rest_sent]
    assert reads_between == [pytest.approx(canary_sent + 5.0)]
    assert rest_sent >= canary_sent + 5.0
    assert result["canary"] == dict(
        ids=["srv-01"], confirmed=True, msg="The canary (srv-01) came back before anything else was sent."
    )
    assert result["summary"]["converged"] == 3 and result["summary"]["skipped"] == 1


def test_a_canary_that_does_not_come_back_stops_the_task_and_nothing_else_is_sent():
    client = fleet(3)
    restarts_apply(client, never=("srv-00",))
    with pytest.raises(ControlFailed) as failure:
        run(client, canary=1, wait_timeout=30)
    assert [server_id for unused, server_id in posts(client)] == ["srv-00"]
    message = failure.value.message
    assert message.startswith("1 of 3 servers failed: srv-00: ")
    assert message.endswith("The canary (srv-00) did not come back: nothing else was sent.")
    lines = by_id(failure.value.result)
    for server_id in ("srv-01", "srv-02"):
        assert lines[server_id]["changed"] is False and lines[server_id]["action"] is None
        assert lines[server_id]["skipped_reason"] == (
            "Not sent: the canary (srv-00) did not come back, so nothing else was sent."
        )
    assert failure.value.result["canary"]["confirmed"] is False


def test_the_canaries_are_the_first_of_ids_in_the_order_given_not_the_panels():
    client = fleet(5)
    client.page_size = 2
    restarts_apply(client)
    result = run(client, ids=["srv-04", "srv-01", "srv-03", "srv-00", "srv-02"], canary=2)
    order = [server_id for unused, server_id in posts(client)]
    assert order[:2] == ["srv-04", "srv-01"]
    assert sorted(order[2:]) == ["srv-00", "srv-02", "srv-03"]
    assert result["canary"]["ids"] == ["srv-04", "srv-01"]


def test_with_no_server_to_send_there_is_no_canary_and_nothing_is_sent():
    client = fleet(2, busy=(0, 1))
    result = run(client, canary=1)
    assert client.posts == []
    assert result["canary"] == dict(ids=[], confirmed=None, msg="No server was to be sent: no canary, nothing sent.")
    assert result["summary"]["skipped"] == 2


def test_when_none_is_free_the_first_server_whose_players_leave_is_the_canary():
    client = fleet(3, busy=(0, 1, 2))
    restarts_apply(client)
    client.later(3, "srv-01", players={"current": 0, "max": 20})
    client.later(4, "srv-00", players={"current": 0, "max": 20})
    result = run(client, canary=1, drain_timeout=60)
    sent = posts(client)
    assert [server_id for unused, server_id in sent] == ["srv-00", "srv-01"]
    # both drained by the first pass (5 s); srv-00 comes first there and is the canary, srv-01 waits for it
    assert result["canary"]["ids"] == ["srv-00"] and result["canary"]["confirmed"] is True
    confirmed = [when for when, what, unused in client.log if what == "LIST" and when > sent[0][0]][0]
    assert sent[1][0] >= confirmed >= sent[0][0] + 3
    assert "5 players online" in by_id(result)["srv-02"]["skipped_reason"]  # still busy when its drain ended


def test_a_server_draining_when_the_canary_fails_is_not_sent_either():
    client = fleet(2, busy=(1,))
    restarts_apply(client, never=("srv-00",))
    client.later(3, "srv-01", players={"current": 0, "max": 20})
    with pytest.raises(ControlFailed):
        run(client, canary=1, drain_timeout=120, wait_timeout=30)
    assert [server_id for unused, server_id in posts(client)] == ["srv-00"]


def test_check_mode_sends_nothing_and_names_the_canary_it_would_send():
    client = fleet(3, busy=(0,))
    result = run(client, canary=1, check_mode=True)
    assert client.posts == []
    assert result["canary"] == dict(ids=["srv-01"], confirmed=None, msg="Check mode: the canary would be srv-01.")


def test_without_a_canary_the_result_has_none_and_nothing_is_held():
    client = fleet(2)
    restarts_apply(client)
    result = run(client)
    assert result["canary"] is None
    assert posts(client)[1][0] == posts(client)[0][0]  # both sent on the first read


@pytest.mark.parametrize(
    "options, problem",
    [
        (dict(server_id="srv-00", canary=1), "canary works with ids"),
        (dict(ids=["srv-00"], canary=1, wait=False), "canary needs wait: true"),
        (dict(ids=["srv-00"], canary=-1), "canary must not be negative."),
    ],
)
def test_a_canary_the_task_cannot_keep_is_refused(options, problem):
    assert any(found.startswith(problem) for found in ControlRequest("restarted", **options).problems())


def test_a_refused_canary_stops_the_task_and_the_servers_held_back_are_reported_not_sent():
    client = fleet(3)
    client.post_error = PanelAuthError("The panel refused the token (HTTP 401).", status=401)
    with pytest.raises(ControlFailed) as failure:
        run(client, canary=1)
    assert [server_id for unused, server_id in posts(client)] == ["srv-00"]
    lines = by_id(failure.value.result)
    assert "refused the token" in lines["srv-00"]["msg"]
    for server_id in ("srv-01", "srv-02"):
        assert lines[server_id]["failed"] and lines[server_id]["action"] is None
        assert lines[server_id]["msg"].startswith("Not sent: the task stopped before it came to this server")
    assert failure.value.result["canary"] == dict(
        ids=[], confirmed=None, msg="The task stopped before its canary was sent: nothing was sent."
    )
