# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ready fleet jobs over an inventory of two accounts on two panels that list the same servers.

Every server must be acted on exactly once, through its own panel, with its own account's token:
the panels' counters (posts per server id, requests per token name) are the evidence. The two
panels are made to differ (a player on the us panel's mc-02), so an action sent to the wrong one
would show.
"""

from __future__ import annotations

import importlib
import json

import pytest

from test_fleet_jobs import FAST, ready, summary
from two_accounts import TOKENS, inventory_directory, own_token_only, source, token_environment


@pytest.fixture
def panels(emulator, second_emulator):
    second_emulator.control.set_server("mc-02", players={"current": 5, "max": 20})
    return {"eu": emulator, "us": second_emulator}


def run_job(ansible, panels, name, extra_vars=None, directory=None, env=None, check=False):
    directory = directory or inventory_directory(ansible.workdir, panels["eu"], panels["us"])
    return ansible.playbook(
        ready(name),
        inventory=str(directory),
        extra_vars=dict(FAST, **(extra_vars or {})),
        token=None,
        env=dict(token_environment(), **(env or {})),
        check=check,
    )


def posts(panel):
    return dict((server_id, count) for server_id, count in panel.control.counters()["posts"].items() if count)


def test_restart_fleet_restarts_each_accounts_servers_through_its_own_panel_once(ansible, panels):
    run = run_job(ansible, panels, "restart_fleet")
    assert run.rc == 0, run.describe()
    assert posts(panels["eu"]) == {"mc-02": 1, "ark-01": 1}
    assert posts(panels["us"]) == {"ark-01": 1}  # its mc-02 has a player on
    assert own_token_only(panels["eu"], panels["us"])
    lines = summary(run, "Summary of the rolling restart")
    assert lines[:4] == [
        "rolling_restart: 12 server(s): 9 skipped, 3 restarted",
        "The canary (ark-01) came back before anything else was sent.",  # one for the job, eu's first
        "  account eu: 6 server(s): 4 skipped, 2 restarted",
        "  account us: 6 server(s): 5 skipped, 1 restarted",
    ]
    assert "  us_Creative: 5 players online, more than rolling_restart_max_players (0): left alone" in lines

    again = run_job(ansible, panels, "restart_fleet")
    assert again.rc == 0, again.describe()
    assert posts(panels["eu"]) == {"mc-02": 1, "ark-01": 1} and posts(panels["us"]) == {"ark-01": 1}
    assert own_token_only(panels["eu"], panels["us"])


def test_one_canary_for_the_job_whose_loss_keeps_the_other_account_untouched(ansible, panels):
    """eu's first eligible host (eu_ARK_Island) is the job's canary; its agent is gone, so us gets nothing."""
    panels["eu"].control.disconnect("ark-01")
    run = run_job(ansible, panels, "restart_fleet", {"rolling_restart_wait_timeout": 3})
    assert run.rc == 2, run.describe()
    assert posts(panels["eu"]) == {"ark-01": 1} and posts(panels["us"]) == {}
    assert own_token_only(panels["eu"], panels["us"])
    lines = summary(run, "Summary of the rolling restart")
    assert lines[1] == "The canary (ark-01) did not come back: nothing else was sent."
    not_sent = "  us_ARK_Island: Not sent: the canary (ark-01) did not come back, so nothing else was sent."
    assert any(line.startswith(not_sent) for line in lines), "\n".join(lines)


def test_restarts_that_send_no_canary_pass_it_to_the_starts_and_nothing_goes_after_a_lost_one(ansible, panels):
    """Maintenance's two tasks: the restarts (both accounts), then the starts (both accounts).

    Every restart of both accounts is busy through its drain, so the restarts' task sends no canary; the
    starts' task carries it (eu's mc-03 first, in the hosts' order), and its agent is gone: neither the other
    eu start nor any of us's may be sent.
    """
    for panel in panels.values():
        for server_id in ("mc-02", "ark-01"):
            panel.control.set_server(server_id, players={"current": 3, "max": 20})
    panels["eu"].control.disconnect("mc-03")
    settings = {
        "maintenance_restart_after": 3000,
        "maintenance_start_stopped": True,
        "maintenance_drain_timeout": 1,
        "maintenance_canary": 1,
        "maintenance_wait_timeout": 3,
    }
    run = run_job(ansible, panels, "maintenance", settings)
    assert run.rc == 2, run.describe()
    assert posts(panels["eu"]) == {"mc-03": 1} and posts(panels["us"]) == {}
    assert own_token_only(panels["eu"], panels["us"])
    lines = summary(run, "Summary of the maintenance")
    assert "The canary (mc-03) did not come back: nothing else was sent." in lines, lines
    not_sent = "Not sent: the canary (mc-03) did not come back, so nothing else was sent."
    for host in ("eu_Rust_Test", "us_Modded", "us_Rust_Test"):
        assert any(line.startswith("  %s: %s" % (host, not_sent)) for line in lines), "\n".join(lines)


def test_maintenance_restarts_and_starts_per_account(ansible, panels):
    settings = {"maintenance_restart_after": 3000, "maintenance_start_stopped": True}
    checked = run_job(ansible, panels, "maintenance", settings, check=True)
    assert checked.rc == 0, checked.describe()
    assert posts(panels["eu"]) == {} and posts(panels["us"]) == {}  # check mode sends nothing
    assert "  account us: 6 server(s): 3 skipped, 1 restarted, 2 started" in summary(
        checked, "Summary of the maintenance"
    )
    run = run_job(ansible, panels, "maintenance", settings)
    assert run.rc == 0, run.describe()
    assert posts(panels["eu"]) == {"mc-02": 1, "ark-01": 1, "mc-03": 1, "rust-02": 1}
    assert posts(panels["us"]) == {"ark-01": 1, "mc-03": 1, "rust-02": 1}
    assert own_token_only(panels["eu"], panels["us"])


def test_ensure_online_with_one_account_token_in_its_group_vars(ansible, panels):
    """The us account's token comes from group_vars/account_us (a vault file in real use), not from a variable."""
    us_variable, us_token, _label = TOKENS["us"]
    us_source = "\n".join(line for line in source("us", panels["us"]).splitlines() if "api_token_env" not in line)
    directory = inventory_directory(ansible.workdir, panels["eu"], panels["us"], us=us_source + "\n")
    (directory / "group_vars").mkdir()
    (directory / "group_vars" / "account_us.yml").write_text("gamepanel_api_token: %s\n" % us_token)
    # the us source reads its own inventory with the token written for it
    (directory / "us.gamepanel.yml").write_text(us_source + "\napi_token: %s\n" % us_token)
    run = run_job(ansible, panels, "ensure_online", directory=directory, env={us_variable: None})
    assert run.rc == 0, run.describe()
    for panel in panels.values():
        assert posts(panel) == {"mc-03": 1, "rust-02": 1}
    assert own_token_only(panels["eu"], panels["us"])
    assert us_token not in run.stdout


def test_the_report_covers_every_account_with_the_account_shown(ansible, panels):
    run = run_job(ansible, panels, "report")
    assert run.rc == 0, run.describe()
    document = json.loads((ansible.workdir / "fleet-report" / "fleet-report.json").read_text(encoding="utf-8"))
    rows = [(server["account"], server["id"], server["players_current"]) for server in document["servers"]]
    assert len(rows) == 12 and ("eu", "mc-02", 0) in rows and ("us", "mc-02", 5) in rows
    assert document["meta"]["panel"] == "eu: %s; us: %s" % (panels["eu"].live_url, panels["us"].live_url)
    for panel in panels.values():
        # one list read for the inventory, one for the report
        assert list(panel.control.counters()["requests"].values())[0] == {"live GET /servers": 2}
    assert own_token_only(panels["eu"], panels["us"])


def watch(directory, account, state_dir):
    """The fleet watcher of ``account`` (gamepanel.panel.fleet_events, as keep_online runs it for that account's
    source file), reading its panel over HTTP with its own token, its state in ``state_dir``."""
    module = importlib.import_module(
        "ansible_collections.gamepanel.panel.extensions.eda.plugins.event_source.fleet_events"
    )
    variable, token, _label = TOKENS[account]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GAMEPANEL_STATE_DIR", str(state_dir))
        source = module.FleetEventSource(
            {"inventory": str(directory / ("%s.gamepanel.yml" % account)), "found_stopped": False},
            environ={variable: token},
        )
    return source


def crash_seen(sources, panels, state_dir, accounts):
    """Each of ``accounts``' panels crashes mc-01 and its watcher reads the fleet: one incident each."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GAMEPANEL_STATE_DIR", str(state_dir))
        for account in accounts:
            panels[account].control.set_server("mc-01", status="offline", uptime_seconds=0)
            events = [event for event in sources[account].poll() if event["kind"] != "outage"]
            assert [(event["kind"], event["id"], event["status"]) for event in events] == [
                ("status_changed", "mc-01", "offline")
            ]
            panels[account].control.set_server("mc-01", status="online", uptime_seconds=10)
            sources[account].poll()


def test_the_report_shows_the_watchers_incidents_of_every_account_each_under_its_own(ansible, panels):
    """mc-01 crashes on both panels (twice on eu's): the same id, two servers, each under its account."""
    directory = inventory_directory(ansible.workdir, panels["eu"], panels["us"])
    sources = dict((account, watch(directory, account, ansible.state_dir)) for account in ("eu", "us"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GAMEPANEL_STATE_DIR", str(ansible.state_dir))
        for watcher in sources.values():
            assert watcher.poll() == []  # the baseline read
    crash_seen(sources, panels, ansible.state_dir, ["eu", "us", "eu"])

    run = run_job(ansible, panels, "report", directory=directory)
    assert run.rc == 0, run.describe()
    document = json.loads((ansible.workdir / "fleet-report" / "fleet-report.json").read_text(encoding="utf-8"))
    assert [(row["account"], row["id"], row["name"], row["count"]) for row in document["incidents"]] == [
        ("eu", "mc-01", "Survival", 2),
        ("us", "mc-01", "Survival", 1),
    ]
    html = (ansible.workdir / "fleet-report" / "fleet-report.html").read_text(encoding="utf-8")
    assert "<th>Account</th>" in html
    assert '<tr data-id="mc-01" data-account="eu"><td>eu</td>' in html
    assert '<tr data-id="mc-01" data-account="us"><td>us</td>' in html
    # a report of one account shows its own incidents only
    run = run_job(ansible, panels, "report", {"target": "account_us"}, directory=directory)
    assert run.rc == 0, run.describe()
    document = json.loads((ansible.workdir / "fleet-report" / "fleet-report.json").read_text(encoding="utf-8"))
    assert [(row["account"], row["count"]) for row in document["incidents"]] == [("us", 1)]
    for name in ("fleet-report.html", "fleet-report.json"):
        text = (ansible.workdir / "fleet-report" / name).read_text(encoding="utf-8")
        assert all(token not in text for _variable, token, _label in TOKENS.values())


def test_the_report_of_a_target_shows_its_hosts_own_servers_and_reads_only_their_accounts(ansible, panels):
    """mc-02 is on both panels: the target us_Creative is us's mc-02 (5 players), never eu's."""
    run = run_job(ansible, panels, "report", {"target": "us_Creative"})
    assert run.rc == 0, run.describe()
    document = json.loads((ansible.workdir / "fleet-report" / "fleet-report.json").read_text(encoding="utf-8"))
    assert [(server["id"], server["players_current"]) for server in document["servers"]] == [("mc-02", 5)]
    # the inventory reads both panels once; the report reads the us panel only
    requests = dict((name, list(panel.control.counters()["requests"].values())[0]) for name, panel in panels.items())
    assert requests == {"eu": {"live GET /servers": 1}, "us": {"live GET /servers": 2}}
    assert own_token_only(panels["eu"], panels["us"])

    run = run_job(ansible, panels, "report", {"target": "eu_Creative:us_Survival"})
    assert run.rc == 0, run.describe()
    document = json.loads((ansible.workdir / "fleet-report" / "fleet-report.json").read_text(encoding="utf-8"))
    rows = sorted((server["account"], server["id"]) for server in document["servers"])
    assert rows == [("eu", "mc-02"), ("us", "mc-01")]
    assert own_token_only(panels["eu"], panels["us"])


def test_status_shows_each_accounts_servers_with_the_account(ansible, panels):
    run = run_job(ansible, panels, "status", {"target": "eu_Creative:us_Creative:us_Survival"})
    assert run.rc == 0, run.describe()
    lines = [result for result in run.results("Show the servers") if "msg" in result][0]["msg"]
    assert [line.split()[:2] for line in lines[1:-1]] == [["eu", "mc-02"], ["us", "mc-01"], ["us", "mc-02"]]
    assert lines[1].split()[5] == "0/20" and lines[3].split()[5] == "5/20"
    assert lines[-1] == "3 servers, 3 online"
    assert own_token_only(panels["eu"], panels["us"])


def test_ensure_online_target_ids_of_two_accounts_must_name_the_account(ansible, panels):
    run = run_job(ansible, panels, "ensure_online", {"target_ids": "mc-03"})
    assert run.rc == 2, run.describe()
    message = run.result("Fail when an id of target_ids names servers of several accounts", "eu_ARK_Island")["msg"]
    assert "eu_Modded is mc-03, us_Modded is mc-03" in message and "target=account_<account>" in message
    for panel in panels.values():
        assert posts(panel) == {}
    chosen = run_job(ansible, panels, "ensure_online", {"target_ids": "mc-03", "target": "account_us"})
    assert chosen.rc == 0, chosen.describe()
    assert posts(panels["eu"]) == {} and posts(panels["us"]) == {"mc-03": 1}
    assert own_token_only(panels["eu"], panels["us"])
