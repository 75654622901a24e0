# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Nothing crosses between accounts: each host through its own source's token, its own account.

Two panels list the same servers (two_accounts.py); each panel counts the requests of each token
it saw, so a token sent to the other account's panel shows. The environment's token is set to the
eu account's on purpose: a job that took it for every host would send it to the us panel.
"""

from __future__ import annotations

import pytest

from test_accounts_jobs import posts, run_job
from test_fleet_jobs import outcomes, summary
from two_accounts import TOKENS, inventory_directory, own_token_only, source

EU_TOKEN = TOKENS["eu"][1]
US_TOKEN = TOKENS["us"][1]
NO_TOKEN_VARIABLES = {"GAMEPANEL_EU_TOKEN": None, "GAMEPANEL_US_TOKEN": None}


@pytest.fixture
def panels(emulator, second_emulator):
    return {"eu": emulator, "us": second_emulator}


def without_token_env(text):
    return "\n".join(line for line in text.splitlines() if not line.startswith("api_token_env")) + "\n"


def token_file(directory, account, token):
    path = directory / ("%s-token" % account)
    path.write_text(token + "\n")
    path.chmod(0o600)
    return path


def test_each_source_token_file_is_the_jobs_token_for_its_hosts(ansible, panels):
    """The scheduled job's GAMEPANEL_API_TOKEN_FILE (eu's token) reaches neither the us panel nor replaces its file."""
    secrets = ansible.workdir / "secrets"
    secrets.mkdir()
    texts = dict(
        (account, without_token_env(source(account, panels[account])) + "api_token_file: %s\n" % path)
        for account, path in (
            ("eu", token_file(secrets, "eu", EU_TOKEN)),
            ("us", token_file(secrets, "us", US_TOKEN)),
        )
    )
    directory = inventory_directory(ansible.workdir, panels["eu"], panels["us"], **texts)
    env = dict(NO_TOKEN_VARIABLES, GAMEPANEL_API_TOKEN_FILE=str(secrets / "eu-token"))
    run = run_job(ansible, panels, "restart_fleet", directory=directory, env=env)
    assert run.rc == 0, run.describe()
    assert posts(panels["eu"]) == {"mc-02": 1, "ark-01": 1}
    assert posts(panels["us"]) == {"mc-02": 1, "ark-01": 1}
    assert own_token_only(panels["eu"], panels["us"])
    assert EU_TOKEN not in run.stdout and US_TOKEN not in run.stdout


def test_a_token_written_in_each_source_is_read_from_it_by_the_job(ansible, panels):
    texts = dict(
        (account, without_token_env(source(account, panels[account])) + "api_token: %s\n" % token)
        for account, token in (("eu", EU_TOKEN), ("us", US_TOKEN))
    )
    directory = inventory_directory(ansible.workdir, panels["eu"], panels["us"], **texts)
    env = dict(NO_TOKEN_VARIABLES, GAMEPANEL_API_TOKEN=EU_TOKEN)
    run = run_job(ansible, panels, "ensure_online", directory=directory, env=env)
    assert run.rc == 0, run.describe()
    for panel in panels.values():
        assert posts(panel) == {"mc-03": 1, "rust-02": 1}
    assert own_token_only(panels["eu"], panels["us"])
    assert US_TOKEN not in run.stdout


def test_a_users_group_named_account_all_changes_no_hosts_account(ansible, panels):
    """A parent group account_all over both accounts: each host is still acted on through its own panel."""
    directory = inventory_directory(ansible.workdir, panels["eu"], panels["us"])
    (directory / "zz-groups.yml").write_text(
        "all:\n  children:\n    account_all:\n      children:\n        account_eu:\n        account_us:\n"
    )
    run = run_job(ansible, panels, "restart_fleet")
    assert run.rc == 0, run.describe()
    assert posts(panels["eu"]) == {"mc-02": 1, "ark-01": 1}
    assert posts(panels["us"]) == {"mc-02": 1, "ark-01": 1}
    assert own_token_only(panels["eu"], panels["us"])
    lines = summary(run, "Summary of the rolling restart")
    assert "  account eu: 6 server(s): 4 skipped, 2 restarted" in lines, lines
    assert "  account us: 6 server(s): 4 skipped, 2 restarted" in lines, lines


def test_a_token_variable_of_another_account_stops_the_job_before_anything_is_sent(ansible, panels):
    """gamepanel_api_token for every host (eu's token): the us hosts must not send it to the us panel."""
    directory = inventory_directory(ansible.workdir, panels["eu"], panels["us"])
    (directory / "group_vars").mkdir()
    (directory / "group_vars" / "all.yml").write_text("gamepanel_api_token: %s\n" % EU_TOKEN)
    run = run_job(ansible, panels, "restart_fleet", directory=directory)
    assert run.rc == 2, run.describe()
    for panel in panels.values():
        assert posts(panel) == {}
    # the us panel saw the inventory's read with its own token, nothing with eu's
    assert own_token_only(panels["eu"], panels["us"])
    expected = (
        "account us: this task would use the token from the variable gamepanel_api_token, but the inventory read "
        "this account's panel with the token from the environment variable GAMEPANEL_US_TOKEN. Nothing was sent."
    )
    assert expected in run.stdout, run.describe()
    assert EU_TOKEN not in run.stdout


def test_two_sources_on_one_panel_naming_one_server_twice_send_nothing(ansible, emulator):
    """One panel read by two sources, each with its own token: every server is two hosts, one per source.

    Their groups would run at once, each on its own read: ark-01, restarted as the canary through one
    host, was restarted again through the other (min_uptime 0). The job now stops before sending.
    """
    directory = inventory_directory(ansible.workdir, emulator, emulator)
    run = run_job(ansible, {"eu": emulator, "us": emulator}, "restart_fleet", directory=directory)
    assert run.rc != 0
    assert posts(emulator) == {}
    refusal = "eu_ARK_Island (account eu) and us_ARK_Island (account us) stand for the same server (ark-01)"
    assert refusal in run.stdout
    # the one control task refuses the batch before reading or sending anything: every host of it fails
    # with the refusal itself, not with a step of the role that tripped over it
    results = outcomes(run)
    assert all(outcome["result"] == "failed" for outcome in results.values()), results
    assert all(refusal in outcome["reason"] for outcome in results.values()), results
