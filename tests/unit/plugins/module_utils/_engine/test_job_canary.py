# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One canary for a task over several accounts (_engine/job_canary.py), each account in a thread of its own.

Each account is a FakeClient with a fake clock of its own; what the accounts sent, in the real order
across their threads, is the evidence: nothing is sent to any account before the canary came back.
"""

from __future__ import annotations

import threading

import pytest

from ansible_collections.gamepanel.panel.plugins.module_utils._engine.many_accounts import Account, run_many_accounts
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.request import ControlRequest
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.result import ControlFailed

from panel_fakes import FakeClient, server  # pylint: disable=import-error

SENT = []
_LOCK = threading.Lock()


@pytest.fixture(autouse=True)
def fresh_log():
    del SENT[:]


def account(label, count=3, busy=(), lost=(), first=0):
    """An account of ``count`` servers (ids srv-<first>...), empty but ``busy``; restarts apply 3 s after their POST
    but on ``lost`` (its agent is gone)."""
    client = FakeClient(
        *(
            server("srv-%02d" % number, "Server %d" % number, players=5 if number in busy else 0)
            for number in range(first, first + count)
        )
    )

    def react(server_id, action):
        with _LOCK:
            SENT.append((label, server_id))
        if server_id not in lost:
            client.later(3.0, server_id, uptime_seconds=1)

    client.on_post = react
    ids = list(client.servers)
    request = ControlRequest("restarted", ids=ids, max_players=0, canary=1, wait_timeout=30)
    return Account(label, client, request, None, dict((server_id, "%s_%s" % (label, server_id)) for server_id in ids))


def test_the_first_accounts_first_server_to_act_on_is_the_canary_and_nothing_is_sent_before_it_came_back():
    accounts = [account("eu", busy=(0,)), account("us")]
    result = run_many_accounts(accounts, 1)
    assert SENT[0] == ("eu", "srv-01")
    assert sorted(SENT[1:]) == [("eu", "srv-02"), ("us", "srv-00"), ("us", "srv-01"), ("us", "srv-02")]
    assert result["canary"]["ids"] == ["srv-01"] and result["canary"]["confirmed"] is True
    assert result["canary"]["account"] == "eu" and result["canary"]["hosts"] == ["eu_srv-01"]
    assert result["summary"]["changed"] == 5


def test_an_account_with_nothing_to_send_passes_the_canary_to_the_next():
    accounts = [account("eu", busy=(0, 1, 2)), account("us", lost=("srv-00",))]
    with pytest.raises(ControlFailed) as failed:
        run_many_accounts(accounts, 1)
    assert SENT == [("us", "srv-00")]
    assert failed.value.message.endswith("The canary (srv-00) did not come back: nothing else was sent.")


def test_four_accounts_the_first_two_busy_the_third_canary_lost_the_fourth_gets_nothing():
    accounts = [
        account("a", busy=(0, 1, 2)),
        account("b", busy=(0, 1, 2)),
        account("c", lost=("srv-00",)),
        account("d"),
    ]
    with pytest.raises(ControlFailed) as failed:
        run_many_accounts(accounts, 1)
    assert SENT == [("c", "srv-00")]
    lines = dict((line["host"], line) for line in failed.value.result["servers"])
    assert (
        lines["d_srv-00"]["skipped_reason"]
        == "Not sent: the canary (srv-00) did not come back, so nothing else was sent."
    )
    assert failed.value.result["canary"]["account"] == "c"


def test_an_account_whose_run_stops_before_its_canary_step_keeps_no_one_waiting():
    eu = account("eu")
    eu.client.read_failures = [_auth_error()]
    result_or_failure = None
    with pytest.raises(ControlFailed) as failed:
        run_many_accounts([eu, account("us")], 1)
    result_or_failure = failed.value.result
    us = [line for line in result_or_failure["servers"] if line["account"] == "us"]
    assert all(line["changed"] for line in us) and SENT[0] == ("us", "srv-00")


def test_without_a_canary_every_account_sends_at_once():
    run_many_accounts([account("eu"), account("us")], 0)
    assert sorted(SENT) == [("eu", "srv-00"), ("eu", "srv-01"), ("eu", "srv-02")] + [
        ("us", "srv-00"),
        ("us", "srv-01"),
        ("us", "srv-02"),
    ]


def _auth_error():
    from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import PanelAuthError

    return PanelAuthError("The panel refused the API token (HTTP 401).", status=401)


def test_in_check_mode_the_canary_it_would_be_names_its_host():
    result = run_many_accounts([account("eu", busy=(0,)), account("us")], 1, check_mode=True)
    assert SENT == []
    assert result["canary"]["ids"] == ["srv-01"] and result["canary"]["hosts"] == ["eu_srv-01"]
    assert result["canary"]["msg"] == "Check mode: the canary would be srv-01."
