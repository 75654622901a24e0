# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""keep_online over two accounts: one activation per account, each started with its account's inventory file.

Two panels list the same servers; each activation's file names its account, a host name prefix,
its panel and where its token is: the variable holding it, or its token file (docs/accounts.md). GAMEPANEL_API_TOKEN is a
revoked token of both panels: a request that took it instead of the account's own would show in
the counters (keyed by token name) and be refused. A different server goes down on each panel:
each is started exactly once, through its own panel, and nothing else is.
"""

from __future__ import annotations

import time

import pytest

from conftest import Rulebook

ACCOUNTS = {
    "eu": ("EU_TOKEN", "gp-test-owner-control", "owner-control", "mc-01"),
    "us": ("US_TOKEN", "gp-test-admin-control", "admin-control", "rust-01"),
}
VARIABLES = {"keep_online_interval": 1, "keep_online_budget_share": 1, "keep_online_start_found_stopped": False}


def inventory(account, panel, token_place):
    return "plugin: gamepanel.panel.servers\naccount: %s\nhostname_prefix: %s_\nbase_url: %s\n%s\n" % (
        account,
        account,
        panel.live_url,
        token_place,
    )


def token_file(path, token):
    path.write_text(token + "\n")
    path.chmod(0o600)
    return path


def wait_until(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("%s did not happen within %s s" % (what, timeout))
        time.sleep(0.2)


@pytest.mark.parametrize("token_place", ["api_token_env", "api_token_file"])
def test_one_activation_per_account_starts_each_accounts_server_through_its_own_panel(
    tmp_path, emulator, second_emulator, token_place
):
    """With api_token_file, GAMEPANEL_API_TOKEN_FILE names a revoked token's file: the runs must not take it."""
    panels = {"eu": emulator, "us": second_emulator}
    watchers = {}
    try:
        for account, panel in panels.items():
            workdir = tmp_path / account
            workdir.mkdir()
            variable, token, _label, _down = ACCOUNTS[account]
            if token_place == "api_token_env":
                env, place = {variable: token}, "api_token_env: %s" % variable
            else:
                revoked = token_file(workdir / "revoked-token", "gp-test-revoked")
                env = {"GAMEPANEL_API_TOKEN_FILE": str(revoked)}
                place = "api_token_file: %s" % token_file(workdir / "token", token)
            watchers[account] = Rulebook(
                workdir,
                None,
                VARIABLES,
                env=env,
                token="gp-test-revoked",
                inventory=inventory(account, panel, place),
            ).start()
        for watcher in watchers.values():
            watcher.wait_for(r"baseline read \(6 servers\)", timeout=90)
        for account, panel in panels.items():
            panel.control.set_server(ACCOUNTS[account][3], status="offline")
        for account, panel in panels.items():
            down = ACCOUNTS[account][3]
            wait_until(lambda: panel.control.server(down)["status"] == "online", 120, "the start of %s" % down)
            watchers[account].wait_for(r"%s_\S+: started" % account, timeout=60)
        for account, panel in panels.items():
            counters = panel.control.counters()
            assert {key: value for key, value in counters["posts"].items() if value} == {ACCOUNTS[account][3]: 1}
            assert set(counters["requests"]) == {ACCOUNTS[account][2]}, counters["requests"]
    finally:
        for watcher in watchers.values():
            watcher.stop()
