# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""server_control with ``hosts``: several accounts in one task (_engine/many_accounts.py), each in a thread of its own.

The canary across accounts has its own tests (test_job_canary.py); these hold what the accounts
themselves get: they run at the same time, each line names its host and account, and an account
whose run breaks fails its own servers only.
"""

from __future__ import annotations

import threading

import pytest

from ansible_collections.gamepanel.panel.plugins.module_utils._engine import many_accounts
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.many_accounts import Account, run_many_accounts
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.request import ControlRequest
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.result import ControlFailed

from panel_fakes import FakeClient, server  # pylint: disable=import-error


def account(label, count=2, on_first_post=None):
    """An account of ``count`` empty servers whose restarts apply 3 s after their POST (on its own fake clock)."""
    client = FakeClient(*(server("srv-%02d" % number, "Server %d" % number, players=0) for number in range(count)))
    posted = []

    def react(server_id, action):
        if not posted and on_first_post is not None:
            on_first_post()
        posted.append(server_id)
        client.later(3.0, server_id, uptime_seconds=1)

    client.on_post = react
    ids = list(client.servers)
    request = ControlRequest("restarted", ids=ids, max_players=0, wait_timeout=30)
    return Account(label, client, request, None, dict((server_id, "%s_%s" % (label, server_id)) for server_id in ids))


def test_the_accounts_send_at_the_same_time_not_one_after_the_other():
    # each account's first POST waits until the other account has sent its own: run one after the
    # other, the first would wait for the second in vain and the barrier break
    meet = threading.Barrier(2, timeout=10)
    result = run_many_accounts([account("eu", on_first_post=meet.wait), account("us", on_first_post=meet.wait)], 0)
    assert not meet.broken
    assert result["summary"]["changed"] == 4


def test_each_line_names_its_host_and_account_though_the_ids_repeat():
    result = run_many_accounts([account("eu"), account("us")], 0)
    named = sorted((line["account"], line["id"], line["host"]) for line in result["servers"])
    assert named == [
        ("eu", "srv-00", "eu_srv-00"),
        ("eu", "srv-01", "eu_srv-01"),
        ("us", "srv-00", "us_srv-00"),
        ("us", "srv-01", "us_srv-01"),
    ]
    assert [entry["account"] for entry in result["accounts"]] == ["eu", "us"]
    assert all(entry["servers"] == 2 for entry in result["accounts"])


def test_an_account_whose_run_breaks_fails_its_own_servers_only(monkeypatch):
    real_run = many_accounts.run_many_servers

    def breaks_for_us(client, request, ids, **kwargs):
        if client is broken.client:
            raise RuntimeError("a bug in this account's run")
        return real_run(client, request, ids, **kwargs)

    broken = account("us")
    monkeypatch.setattr(many_accounts, "run_many_servers", breaks_for_us)
    with pytest.raises(ControlFailed) as failed:
        run_many_accounts([account("eu"), broken], 0)
    lines = dict((line["host"], line) for line in failed.value.result["servers"])
    assert lines["eu_srv-00"]["changed"] and lines["eu_srv-01"]["changed"]
    for host in ("us_srv-00", "us_srv-01"):
        assert lines[host]["failed"]
        assert "a bug in this account's run" in lines[host]["msg"]
    assert "us_srv-00" in failed.value.message and "eu_srv-00" not in failed.value.message
