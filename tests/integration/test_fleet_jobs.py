# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet jobs (roles rolling_restart, maintenance, ensure_online and their ready playbooks)
run by ansible-playbook, by FQCN, against the emulator.

The emulator's counters and action history are the evidence of what reached the panel. The
maintenance window is driven through ``maintenance_now``, never by waiting for the clock.
"""

from __future__ import annotations

import datetime
import json

import pytest

from background import Background, wait_for_counters
from emulator.harness import EmulatorProcess

QUEUED_MESSAGE = "queued, not yet applied: the agent has not checked in"
FLEET_SIZE = 24
INVENTORY = "plugin: gamepanel.panel.servers\nhostname_source: id\n"
FAST = {"rolling_restart_poll_interval": 0.3, "maintenance_poll_interval": 0.3, "ensure_online_poll_interval": 0.3}
FORKS = {"ANSIBLE_FORKS": "10"}


def ready(name):
    """A playbook that runs the collection's ready playbook ``name`` by its FQCN."""
    return "- name: Run the ready playbook\n  ansible.builtin.import_playbook: gamepanel.panel.%s\n" % name


def job(ansible, name, extra_vars=None, **kwargs):
    kwargs.setdefault("inventory", INVENTORY)
    return ansible.playbook(ready(name), extra_vars=dict(FAST, **(extra_vars or {})), **kwargs)


def role_task_runs(run, task):
    """Each run of a role's task, in order (one per batch: with serial a batch is a play of its own).

    The callback names a role's task "<role> : <task>".
    """
    return [
        entry
        for play in run.json["plays"]
        for entry in play["tasks"]
        if entry["task"]["name"] == task or entry["task"]["name"].endswith(" : " + task)
    ]


def role_results(run, task):
    """Per-host results of a role's task."""
    return [(host, result) for entry in role_task_runs(run, task) for host, result in entry["hosts"].items()]


def posts(counters):
    return {server_id: count for server_id, count in counters["posts"].items() if count}


def recorded(host, result):
    """``[(host, facts)]`` a set_fact result gave: its own host's, or each delegated loop item's host's."""
    if isinstance(result.get("results"), list):
        return [
            (item["item"]["key"], item["ansible_facts"])
            for item in result["results"]
            if isinstance(item, dict) and "ansible_facts" in item
        ]
    return [(host, result["ansible_facts"])] if "ansible_facts" in result else []


def outcomes(run):
    """gamepanel_outcome per host, from the "Record the outcome" (one loop for the batch) / "Record the failure" results."""
    found = {}
    for name in ("Record the outcome", "Record the failure"):
        for host, result in role_results(run, name):
            for target, facts in recorded(host, result):
                found[target] = facts["gamepanel_outcome"]
    assert found, run.describe()
    return found


def summary(run, task):
    shown = [result for _host, result in role_results(run, task) if not result.get("skipped")]
    assert len(shown) == 1, run.describe()
    return shown[0]["msg"]


def batches(run, task="Record the outcome"):
    """Hosts per batch, in order: those "Record the outcome" set facts on (one run_once loop for the batch)."""
    return [
        sorted(target for host, result in entry["hosts"].items() for target, unused_facts in recorded(host, result))
        for entry in role_task_runs(run, task)
    ]


def moment(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


def queued_at(server):
    return moment(server["history"][-1]["queued_at"])


def back_online(server):
    """When the server's last action had it online again: applied by its agent, then stop_time + boot_time."""
    return moment(server["history"][-1]["applied_at"]) + datetime.timedelta(
        seconds=server["stop_time"] + server["boot_time"]
    )


def servers_by_id(control):
    return {server["id"]: server for server in control.state()["servers"]}


# -- a fleet of 24 ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fleet_process():
    with EmulatorProcess(fleet_size=FLEET_SIZE) as process:
        yield process


@pytest.fixture
def fleet(fleet_process):
    """24 servers (srv-00010 and srv-00020 offline), everyone's players gone but srv-00004's."""
    control = fleet_process.control
    control.reset()
    for server in control.state()["servers"]:
        if server["status"] == "online" and server["id"] != "srv-00004":
            control.set_server(server["id"], players=0)
    control.set_server("srv-00004", players=5)
    return fleet_process


def fail_step_hosts(run, task="Fail the hosts whose restart failed"):
    """The hosts the fail step ran on, per batch."""
    return [sorted(entry["hosts"]) for entry in role_task_runs(run, task)]


def argument_check_hosts(run):
    """The hosts ansible-core's argument check (the task it adds in front of a role's) ran on, per batch."""
    return [
        sorted(entry["hosts"])
        for play in run.json["plays"]
        for entry in play["tasks"]
        if "Validating arguments against arg spec" in entry["task"]["name"]
    ]


def fleet_run(ansible, fleet, name, **extra_vars):
    return job(ansible, name, extra_vars=extra_vars, base_url=fleet.live_url, env=FORKS)


def test_rolling_restart_of_a_fleet_in_batches(ansible, fleet):
    run = fleet_run(ansible, fleet, "restart_fleet", batch=5, rolling_restart_max_players=0)
    assert run.rc == 0, run.describe()
    counters = fleet.control.counters()

    offline, busy = {"srv-00010", "srv-00020"}, "srv-00004"
    eligible = {"srv-%05d" % number for number in range(1, FLEET_SIZE + 1)} - offline - {busy}
    assert set(counters["restarts"]) == eligible and set(counters["restarts"].values()) == {1}
    assert set(posts(counters)) == eligible  # offline and busy servers got no request to act

    # batches of five, the first with its canary (srv-00001, the first host) sent and back first
    groups = batches(run)
    assert [len(group) for group in groups] == [5, 5, 5, 5, 4]
    # no server of a batch queued before every server of the batches before it was back online:
    # applied by its agent, then stop_time + boot_time of the emulator's clock
    state = servers_by_id(fleet.control)
    canary = state["srv-00001"]
    assert all(queued_at(state[host]) >= back_online(canary) for host in groups[0][1:] if host in eligible)
    converged = None
    for group in groups:
        restarted = [state[host] for host in group if host in eligible]
        if converged is not None:
            assert all(moment(server["history"][-1]["queued_at"]) >= converged for server in restarted), groups
        converged = max([back_online(server) for server in restarted] + ([converged] if converged else []))

    found = outcomes(run)
    assert {host for host, outcome in found.items() if outcome["result"] == "restarted"} == eligible
    assert found[busy]["result"] == "skipped" and float(found[busy]["elapsed"]) == 0  # no module run
    assert found[busy]["reason"] == "5 players online, more than rolling_restart_max_players (0): left alone"
    assert all(found[host]["result"] == "skipped" and "offline" in found[host]["reason"] for host in offline)
    lines = summary(run, "Summary of the rolling restart")
    assert lines[0] == "rolling_restart: 24 server(s): 3 skipped, 21 restarted"
    assert lines[1] == "The canary (srv-00001) came back before anything else was sent."
    assert found["srv-00001"]["canary"] == lines[1] and "canary" not in found["srv-00006"]  # the first batch only
    # no host failed: one host per batch looked at the fail step, not each host
    assert [len(hosts) for hosts in fail_step_hosts(run)] == [1] * len(groups)
    # the ready playbook gives the role run_once: ansible-core's argument check ran once per batch
    assert argument_check_hosts(run) == [group[:1] for group in groups]

    # an immediate re-run queues nothing: every server is up for less than min_uptime now
    again = fleet_run(ansible, fleet, "restart_fleet", batch=5, rolling_restart_max_players=0)
    assert again.rc == 0, again.describe()
    assert posts(fleet.control.counters()) == posts(counters)
    assert (
        summary(again, "Summary of the rolling restart")[0] == "rolling_restart: 24 server(s): 3 skipped, 21 unchanged"
    )


def test_restart_fleet_given_a_canary_as_an_extra_var_takes_it_in_the_first_batch_only(ansible, fleet):
    """-e rolling_restart_canary=2 outranks what the playbook passes the role: still, the later batches have none."""
    run = fleet_run(ansible, fleet, "restart_fleet", batch=5, rolling_restart_canary=2)
    assert run.rc == 0, run.describe()
    groups = batches(run)
    assert [len(group) for group in groups] == [5, 5, 5, 5, 4]
    state = servers_by_id(fleet.control)
    # the first batch: its first two restarts (srv-00001, srv-00002) alone, every other one after they came back
    canaries = [state["srv-00001"], state["srv-00002"]]
    first_rest = [host for host in groups[0] if host not in ("srv-00001", "srv-00002", "srv-00004")]
    assert first_rest and all(
        queued_at(state[host]) >= max(back_online(canary) for canary in canaries) for host in first_rest
    )
    # a later batch is sent at once: its third server is queued before its first is back (two canaries of the
    # batch's own would have held it back until then)
    for group in groups[1:]:
        restarted = [host for host in group if host not in ("srv-00010", "srv-00020")]
        assert queued_at(state[restarted[2]]) < back_online(state[restarted[0]]), (group, restarted)
    found = outcomes(run)
    assert [host for host, outcome in sorted(found.items()) if "canary" in outcome] == ["srv-00001", "srv-00002"]
    lines = summary(run, "Summary of the rolling restart")
    assert lines[0] == "rolling_restart: 24 server(s): 3 skipped, 21 restarted"
    assert [line for line in lines if "canary" in line] == [found["srv-00001"]["canary"]]


def test_restart_fleet_with_every_default_sends_a_canary_then_the_rest_and_spares_players(ansible, fleet):
    for server_id in ("srv-00001", "srv-00002"):  # the first hosts are busy: the canary is the first one restarted
        fleet.control.set_server(server_id, players=4)
    run = fleet_run(ansible, fleet, "restart_fleet")  # only the poll interval is shortened
    assert run.rc == 0, run.describe()
    counters = fleet.control.counters()
    offline, busy = {"srv-00010", "srv-00020"}, {"srv-00001", "srv-00002", "srv-00004"}
    eligible = {"srv-%05d" % number for number in range(1, FLEET_SIZE + 1)} - offline - busy
    assert counters["restarts"] == dict.fromkeys(eligible, 1)
    assert posts(counters) == dict.fromkeys(eligible, 1)  # the servers with players on got no request to act
    assert [len(group) for group in batches(run)] == [FLEET_SIZE]  # one batch
    state = servers_by_id(fleet.control)
    canary = state["srv-00003"]
    assert all(queued_at(state[server_id]) >= back_online(canary) for server_id in eligible - {"srv-00003"})
    found = outcomes(run)
    assert found["srv-00004"]["result"] == "skipped"
    assert found["srv-00004"]["reason"] == "5 players online, more than rolling_restart_max_players (0): left alone"
    lines = summary(run, "Summary of the rolling restart")
    assert lines[1:3] == [
        "The canary (srv-00003) came back before anything else was sent.",
        "Requests paced at 120 requests a minute (rate_limit).",
    ]
    assert "  srv-00004: 5 players online, more than rolling_restart_max_players (0): left alone" in lines


def test_restart_fleet_sends_nothing_else_when_the_canary_does_not_come_back(ansible, fleet):
    fleet.control.disconnect("srv-00001")  # the canary's agent is gone: its restart stays queued
    run = fleet_run(ansible, fleet, "restart_fleet", rolling_restart_wait_timeout=3)
    assert run.rc == 2, run.describe()
    counters = fleet.control.counters()
    assert posts(counters) == {"srv-00001": 1} and counters["restarts"] == {}
    found = outcomes(run)
    assert found["srv-00001"]["result"] == "failed" and QUEUED_MESSAGE in found["srv-00001"]["reason"]
    not_sent = "Not sent: the canary (srv-00001) did not come back, so nothing else was sent."
    assert found["srv-00002"] == dict(found["srv-00002"], result="skipped", reason=not_sent)
    lines = summary(run, "Summary of the rolling restart")
    assert lines[:2] == [
        "rolling_restart: 24 server(s): 1 failed, 23 skipped",
        "The canary (srv-00001) did not come back: nothing else was sent.",
    ]
    failed = dict(role_results(run, "Fail the hosts whose restart failed"))["srv-00001"]
    assert failed["failed"] and QUEUED_MESSAGE in failed["msg"]


def test_restart_fleet_restarts_servers_with_players_only_when_told(ansible, fleet):
    run = fleet_run(ansible, fleet, "restart_fleet", target="srv-00004", rolling_restart_max_players="null")
    assert run.rc == 0, run.describe()
    assert fleet.control.counters()["restarts"] == {"srv-00004": 1}
    assert outcomes(run)["srv-00004"]["result"] == "restarted"


def test_maintenance_with_every_default_runs_the_target_in_one_batch(ansible, fleet):
    control = fleet.control
    online = [
        server["id"]
        for server in control.state()["servers"]
        if server["status"] == "online" and server["id"].startswith("srv-")
    ]
    for server_id in online:
        control.set_server(server_id, uptime_seconds=2 * 86400)  # past the default restart_after of a day
    run = fleet_run(ansible, fleet, "maintenance")
    assert run.rc == 0, run.describe()
    eligible = set(online) - {"srv-00004"}
    assert fleet.control.counters()["restarts"] == dict.fromkeys(eligible, 1)
    assert [len(group) for group in batches(run)] == [FLEET_SIZE]
    found = outcomes(run)
    assert found["srv-00004"]["result"] == "skipped"
    assert "5 players online, more than maintenance_max_players (0)" in found["srv-00004"]["reason"]


def test_a_deferred_restart_fails_its_host_and_stops_the_rollout(ansible, fleet):
    fleet.control.disconnect("srv-00003")
    # players or not: this test is about the deferred restart
    run = fleet_run(
        ansible, fleet, "restart_fleet", batch=5, rolling_restart_wait_timeout=3, rolling_restart_max_players="null"
    )
    assert run.rc == 2, run.describe()
    counters = fleet.control.counters()

    groups = batches(run)
    assert groups == [["srv-00001", "srv-00002", "srv-00003", "srv-00004", "srv-00005"]]
    assert set(posts(counters)) == set(groups[0])  # nothing after the failed batch
    assert counters["actions_applied"].get("srv-00003", 0) == 0

    found = outcomes(run)
    assert found["srv-00003"]["result"] == "failed" and QUEUED_MESSAGE in found["srv-00003"]["reason"]
    lines = summary(run, "Summary of the rolling restart")
    assert lines[0].startswith("rolling_restart: 24 server(s): 1 failed, 4 restarted"), lines
    assert any(line.startswith("  srv-00003: ") and QUEUED_MESSAGE in line for line in lines)
    assert any(line.startswith("not reached (19): ") for line in lines)
    failed = dict(role_results(run, "Fail the hosts whose restart failed"))["srv-00003"]
    assert failed["failed"] and QUEUED_MESSAGE in failed["msg"]
    # the batch with the failure ran the fail step on each of its hosts
    assert [len(hosts) for hosts in fail_step_hosts(run)] == [len(groups[0])]


def test_a_server_stopped_since_the_inventory_was_read_is_not_started(ansible, fleet):
    # The inventory says online; the server is stopped before the role reads the fleet again.
    # restart on a stopped server would start it: the role must not send it.
    playbook = """
- name: Stop a server behind the inventory's back, then restart the fleet
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Stop srv-00002
      gamepanel.panel.server_control:
        id: srv-00002
        state: stopped
        poll_interval: 0.3
- name: Restart
  hosts: srv-00001,srv-00002
  gather_facts: false
  roles:
    - role: gamepanel.panel.rolling_restart
      rolling_restart_poll_interval: 0.3
"""
    run = ansible.playbook(playbook, inventory=INVENTORY, base_url=fleet.live_url)
    assert run.rc == 0, run.describe()
    counters = fleet.control.counters()
    assert counters["restarts"] == {"srv-00001": 1}
    assert counters["posts"]["srv-00002"] == 1  # the stop only
    found = outcomes(run)
    assert (
        found["srv-00002"]["result"] == "skipped"
        and "status offline when the batch was read" in found["srv-00002"]["reason"]
    )


def list_reads(counters):
    return sum(routes.get("live GET /servers", 0) for routes in counters["requests"].values())


@pytest.mark.parametrize(
    "name, variables",
    [
        ("restart_fleet", {"rolling_restart_max_players": 0, "rolling_restart_drain_timeout": 60}),
        (
            "maintenance",
            {
                "maintenance_restart_after": 0,
                "maintenance_max_players": 0,
                "maintenance_drain_timeout": 60,
                "maintenance_start_stopped": True,
            },
        ),
    ],
)
def test_a_server_stopped_while_its_players_drain_is_not_started(ansible, fleet, name, variables):
    # srv-00004 is online with 5 players in the role's fleet read, so server_control waits for
    # them to leave; the server is stopped during that wait. The restart that would follow
    # would start it: server_control's own last read must stop it (even where the job may
    # start stopped servers: that is decided on the fleet read, for the next run).
    reads_before = list_reads(fleet.control.counters())
    background = Background(lambda: fleet_run(ansible, fleet, name, target="srv-00004", **variables))
    # the role's fleet read, the read the decision to wait rests on, then reads while players drain
    wait_for_counters(fleet, lambda counters: list_reads(counters) >= reads_before + 4)
    assert posts(fleet.control.counters()) == {}
    fleet.control.set_server("srv-00004", status="offline", players=0)
    run = background.join()
    assert run.rc == 0, run.describe()
    counters = fleet.control.counters()
    assert posts(counters) == {} and not counters["restarts"]
    assert fleet.control.server("srv-00004")["status"] == "offline"
    outcome = outcomes(run)["srv-00004"]
    assert outcome["result"] == "skipped", outcome
    assert "has status offline, not one of only_if_status (online)" in outcome["reason"]


# -- maintenance (default fleet) --------------------------------------------------------------

BERLIN_NIGHT = {"start": "23:00", "end": "03:00", "timezone": "Europe/Berlin"}


def test_maintenance_inside_a_window_across_midnight(ansible, emulator):
    settings = {
        "maintenance_window": BERLIN_NIGHT,
        "maintenance_now": "2026-01-15T23:30:00Z",  # 00:30 in Berlin
        "maintenance_restart_after": 5000,
        "maintenance_max_players": 3,
    }
    run = job(ansible, "maintenance", extra_vars=settings)
    assert run.rc == 0, run.describe()
    counters = emulator.control.counters()
    # mc-01 (86400 s, 3 players) and mc-02 (7200 s, 0) are due; rust-01 has 5 players;
    # ark-01 is up for 3600 s only; the offline ones are not started without maintenance_start_stopped
    assert counters["restarts"] == {"mc-01": 1, "mc-02": 1}
    assert posts(counters) == {"mc-01": 1, "mc-02": 1}
    found = outcomes(run)
    assert (
        found["rust-01"]["result"] == "skipped"
        and "more than maintenance_max_players (3)" in found["rust-01"]["reason"]
    )
    assert (
        found["ark-01"]["result"] == "unchanged"
        and "below maintenance_restart_after (5000 s): not due" in found["ark-01"]["reason"]
    )
    assert found["mc-03"]["result"] == "skipped" and "maintenance_start_stopped is false" in found["mc-03"]["reason"]
    assert (
        summary(run, "Summary of the maintenance")[0] == "maintenance: 6 server(s): 3 skipped, 2 restarted, 1 unchanged"
    )

    again = job(ansible, "maintenance", extra_vars=settings)
    assert again.rc == 0, again.describe()
    assert posts(emulator.control.counters()) == posts(counters)  # the second run sends no control request


@pytest.mark.parametrize(
    "now",
    ["2026-01-15T21:59:00Z", "2026-01-16T02:00:00Z", "2026-07-15T01:00:00Z"],
    ids=["22:59 CET", "03:00 CET (end exclusive)", "03:00 CEST (summer time)"],
)
def test_maintenance_outside_the_window_sends_nothing(ansible, emulator, now):
    settings = {
        "maintenance_window": BERLIN_NIGHT,
        "maintenance_now": now,
        "maintenance_restart_after": 0,
        "maintenance_start_stopped": True,
    }
    run = job(ansible, "maintenance", extra_vars=settings)
    assert run.rc == 0, run.describe()
    counters = emulator.control.counters()
    assert posts(counters) == {}
    assert counters["requests"]["owner-control"] == {"live GET /servers": 1}  # the inventory's read, nothing else
    found = outcomes(run)
    assert len(found) == 6
    assert all(
        outcome["result"] == "skipped"
        and outcome["reason"].startswith("outside maintenance_window 23:00-03:00 Europe/Berlin")
        for outcome in found.values()
    )


def test_a_bare_maintenance_run_acts_at_any_time_and_check_mode_shows_on_which_servers(ansible, emulator):
    """No maintenance_window by default (docs/roles.md): the first run restarts every empty server up a
    day or more, whenever it runs, in one batch; --check, as the docs advise first, names them and sends nothing."""
    for server_id in ("mc-02", "ark-01"):  # online and empty; mc-01 and rust-01 have players on
        emulator.control.set_server(server_id, uptime_seconds=2 * 86400)
    preview = job(ansible, "maintenance", check=True)
    assert preview.rc == 0, preview.describe()
    assert posts(emulator.control.counters()) == {}
    would = {host for host, outcome in outcomes(preview).items() if outcome["result"] == "restarted"}
    assert would == {"mc-02", "ark-01"}
    assert outcomes(preview)["mc-02"]["reason"] == "would be restarted (check mode)"

    run = job(ansible, "maintenance")
    assert run.rc == 0, run.describe()
    assert emulator.control.counters()["restarts"] == {"mc-02": 1, "ark-01": 1}
    assert [len(group) for group in batches(run)] == [6]


def test_maintenance_starts_only_the_stopped_statuses(ansible, emulator):
    emulator.control.set_server("ark-01", status="maintenance")
    settings = {"maintenance_restart_after": 1000000, "maintenance_start_stopped": True}
    run = job(ansible, "maintenance", extra_vars=settings)
    assert run.rc == 0, run.describe()
    counters = emulator.control.counters()
    assert posts(counters) == {"mc-03": 1, "rust-02": 1}
    assert emulator.control.server("mc-03")["status"] == "online"
    found = outcomes(run)
    assert found["ark-01"]["result"] == "skipped" and "status maintenance" in found["ark-01"]["reason"]
    assert found["mc-03"]["result"] == "started"


# -- ensure_online ----------------------------------------------------------------------------


def test_ensure_online_starts_the_stopped_servers_once(ansible, emulator):
    emulator.control.set_server("ark-01", status="maintenance")
    run = job(ansible, "ensure_online")
    assert run.rc == 0, run.describe()
    counters = emulator.control.counters()
    assert posts(counters) == {"mc-03": 1, "rust-02": 1}
    assert counters["actions_applied"] == {"mc-03": 1, "rust-02": 1}
    found = outcomes(run)
    assert found["ark-01"]["result"] == "skipped"
    assert (
        summary(run, "Summary of ensure online")[0] == "ensure_online: 6 server(s): 1 skipped, 2 started, 3 unchanged"
    )

    # the second run changes nothing; the summary reads well in the default callback too
    again = job(ansible, "ensure_online", env={"ANSIBLE_STDOUT_CALLBACK": "default"})
    assert again.rc == 0, again.describe()
    assert posts(emulator.control.counters()) == posts(counters)
    assert "ensure_online: 6 server(s): 1 skipped, 5 unchanged" in again.stdout
    assert "ark-01: status maintenance: not a stopped status, left alone" in again.stdout


# -- bad variables and a bad inventory --------------------------------------------------------

STATIC_INVENTORY = """
all:
  hosts:
    Survival:
      gamepanel_id: mc-01
      gamepanel_status: online
      ansible_connection: local
"""

# Survival and Creative, two servers of the emulator's fixture
TWO_SERVERS = STATIC_INVENTORY + "    Creative:\n      gamepanel_id: mc-02\n      ansible_connection: local\n"


@pytest.mark.parametrize(
    "role, variables, named",
    [
        ("rolling_restart", {"rolling_restart_on_busy": "explode"}, "rolling_restart_on_busy"),
        ("rolling_restart", {"rolling_restart_min_uptime": "soon"}, "rolling_restart_min_uptime"),
        ("rolling_restart", {"rolling_restart_min_uptime": -1}, "rolling_restart_min_uptime"),
        ("rolling_restart", {"rolling_restart_canary": -1}, "rolling_restart_canary"),
        ("rolling_restart", {"rolling_restart_canary": "first"}, "rolling_restart_canary"),
        ("maintenance", {"maintenance_canary": -2}, "maintenance_canary"),
        ("maintenance", {"maintenance_window": {"start": "02:00"}}, "maintenance_window"),
        (
            "maintenance",
            {"maintenance_window": {"start": "25:00", "end": "03:00", "timezone": "UTC"}},
            "maintenance_window.start",
        ),
        (
            "maintenance",
            {"maintenance_window": {"start": "01:00", "end": "03:00", "timezone": "Mars/Olympus"}},
            "maintenance_window.timezone",
        ),
        ("maintenance", {"maintenance_start_stopped": "perhaps"}, "maintenance_start_stopped"),
        ("ensure_online", {"ensure_online_wait_timeout": "long"}, "ensure_online_wait_timeout"),
    ],
)
def test_bad_variables_are_refused_before_any_request(ansible, emulator, role, variables, named):
    playbook = """
- name: Run the role
  hosts: all
  gather_facts: false
  roles:
    - role: gamepanel.panel.%s
""" % role
    run = ansible.playbook(playbook, inventory=STATIC_INVENTORY, extra_vars=variables)
    assert run.rc != 0, run.describe()
    assert named in run.stdout, run.describe()
    assert emulator.control.counters()["requests_total"] == 0


@pytest.mark.parametrize(
    "name, variables, named",
    [
        ("restart_fleet", {"rolling_restart_min_uptime": "soon"}, "rolling_restart_min_uptime"),
        ("maintenance", {"maintenance_start_stopped": "perhaps"}, "maintenance_start_stopped"),
        ("ensure_online", {"ensure_online_wait_timeout": "long"}, "ensure_online_wait_timeout"),
    ],
)
def test_the_ready_playbooks_check_the_variables_once_and_refuse_bad_ones(ansible, emulator, name, variables, named):
    run = job(ansible, name, extra_vars=variables)
    assert run.rc != 0, run.describe()
    assert named in run.stdout, run.describe()
    checks = argument_check_hosts(run)
    assert len(checks) == 1 and len(checks[0]) == 1, checks  # once, for the first batch, which it stopped
    assert emulator.control.counters()["posts"] == {}


@pytest.mark.parametrize("name", ["restart_fleet", "maintenance", "ensure_online", "status"])
def test_a_revoked_token_fails_the_job_with_the_panel_reason(ansible, emulator, name):
    run = job(ansible, name, token="gp-test-revoked")
    assert run.rc == 2, run.describe()
    failure = run.result("Fail when the gamepanel inventory could not be read")
    assert failure["failed"]
    assert "could not be read" in failure["msg"] and "has been revoked" in failure["msg"]
    assert "gp-test-revoked" not in run.stdout + run.stderr
    assert emulator.control.counters()["posts"] == {}


def test_a_panel_that_is_down_fails_the_job(ansible):
    inventory = INVENTORY + "retry_timeout: 1\nrequest_timeout: 2\n"
    run = job(ansible, "restart_fleet", inventory=inventory, base_url="http://127.0.0.1:9/v1")
    assert run.rc == 2, run.describe()
    failure = run.result("Fail when the gamepanel inventory could not be read")
    assert "could not connect to the panel" in failure["msg"]


def test_no_gamepanel_inventory_or_no_matching_host_fails_the_job(ansible, emulator):
    run = ansible.playbook(ready("ensure_online"), inventory=STATIC_INVENTORY)
    assert run.rc == 2, run.describe()
    assert (
        "No gamepanel.panel.servers inventory was given"
        in run.result("Fail when no gamepanel inventory was given")["msg"]
    )

    run = job(ansible, "ensure_online", extra_vars={"target": "game_tetris"})
    assert run.rc == 2, run.describe()
    message = run.result("Fail when the target matches no server")["msg"]
    assert "target 'game_tetris' matches no host" in message and "game_minecraft" in message
    assert emulator.control.counters()["posts"] == {}


def test_status_shows_one_line_per_server_of_the_target(ansible, emulator):
    run = job(ansible, "status", extra_vars={"target": "game_minecraft"})
    assert run.rc == 0, run.describe()
    lines = [result for result in run.results("Show the servers") if "msg" in result][0]["msg"]
    assert [line.split()[0] for line in lines[1:-1]] == ["mc-01", "mc-02", "mc-03"]
    assert lines[-1] == "3 servers, 2 online"
    assert emulator.control.counters()["requests"]["owner-control"] == {"live GET /servers": 2}


def rolling_restart_play(**role_parameters):
    """A play running the rolling_restart role on every host, with these role parameters."""
    lines = "".join("      %s: %s\n" % (name, json.dumps(value)) for name, value in role_parameters.items())
    return (
        "- name: Run the role\n  hosts: all\n  gather_facts: false\n  roles:\n"
        "    - role: gamepanel.panel.rolling_restart\n" + lines
    )


@pytest.mark.parametrize("run_once", [False, True])
def test_a_failed_fleet_read_fails_the_batch_with_a_summary(ansible, emulator, run_once):
    # A static inventory, so that the only list request is the role's own, which the panel refuses.
    emulator.control.add_fault(kind="status", status=403, method="GET", path="^/servers$")
    inventory = TWO_SERVERS
    run = ansible.playbook(rolling_restart_play(run_once=run_once), inventory=inventory)
    assert run.rc == 2, run.describe()
    assert argument_check_hosts(run) == [["Survival"] if run_once else ["Creative", "Survival"]]
    # each host records the failure itself and is failed, whether or not the role is given run_once
    found = outcomes(run)
    assert sorted(found) == ["Creative", "Survival"]
    assert all(outcome["result"] == "failed" and "403" in outcome["reason"] for outcome in found.values())
    assert summary(run, "Summary of the rolling restart")[0] == "rolling_restart: 2 server(s): 2 failed"
    assert fail_step_hosts(run) == [["Creative", "Survival"]]
    assert emulator.control.counters()["posts"] == {}


def test_a_host_that_is_no_server_of_the_fleet_fails_and_the_others_go_on(ansible, emulator):
    inventory = STATIC_INVENTORY + "    not-a-server:\n      ansible_connection: local\n"
    run = ansible.playbook(
        rolling_restart_play(rolling_restart_min_uptime=0, rolling_restart_max_players=None), inventory=inventory
    )
    assert run.rc == 2, run.describe()
    found = outcomes(run)
    assert found["not-a-server"]["result"] == "failed"
    assert found["not-a-server"]["reason"] == (
        "not-a-server has no gamepanel_id: run this role on hosts of the gamepanel.panel.servers inventory."
    )
    assert found["Survival"]["result"] == "restarted"
    assert emulator.control.counters()["posts"] == {"mc-01": 1}


def test_a_batch_that_can_take_no_canary_passes_it_on_and_a_lost_one_stops_the_rollout(ansible, fleet):
    """batch=5: the first batch's servers are all busy, so the second batch's first restart is the job's canary;
    its agent is gone: nothing else is sent, in any batch (1 POST in all)."""
    control = fleet.control
    for number in range(1, 6):
        control.set_server("srv-%05d" % number, players=5)
    control.disconnect("srv-00006")
    run = fleet_run(ansible, fleet, "restart_fleet", batch=5, rolling_restart_wait_timeout=3)
    assert run.rc == 2, run.describe()
    assert posts(control.counters()) == {"srv-00006": 1}
    lines = summary(run, "Summary of the rolling restart")
    assert "The canary (srv-00006) did not come back: nothing else was sent." in lines, "\n".join(lines)


def test_two_fleet_roles_in_one_play_each_keep_their_own_canary_across_batches(ansible, fleet):
    """In batch 1 maintenance sends its canary and rolling_restart none (its servers have players on): in batch 2
    rolling_restart's first restart is still its own canary. Its agent is gone: nothing else goes out."""
    control = fleet.control
    for server_id in ("srv-00001", "srv-00002"):
        control.set_server(server_id, players=3)
    control.disconnect("srv-00003")
    playbook = """
- name: Restart, then the maintenance, in batches of two
  hosts: srv-00001,srv-00002,srv-00003,srv-00005
  gather_facts: false
  serial: 2
  max_fail_percentage: 0
  roles:
    - role: gamepanel.panel.rolling_restart
      run_once: true
      rolling_restart_canary: 1
      rolling_restart_wait_timeout: 3
      rolling_restart_poll_interval: 0.3
    - role: gamepanel.panel.maintenance
      run_once: true
      maintenance_canary: 1
      maintenance_restart_after: 0
      maintenance_max_players: 5
      maintenance_poll_interval: 0.3
"""
    run = ansible.playbook(playbook, inventory=INVENTORY, base_url=fleet.live_url, env=FORKS)
    assert run.rc == 2, run.describe()
    assert posts(control.counters()) == {"srv-00001": 1, "srv-00002": 1, "srv-00003": 1}, (
        posts(control.counters()),
        run.describe(),
    )
    lines = summary(run, "Summary of the rolling restart")
    assert "The canary (srv-00003) did not come back: nothing else was sent." in lines, "\n".join(lines)


ROLLING_RESTART_WITH_A_CANARY = """  roles:
    - role: gamepanel.panel.rolling_restart
      run_once: true
      rolling_restart_canary: 1
      rolling_restart_wait_timeout: 3
      rolling_restart_poll_interval: 0.3
"""


def test_a_lost_canary_ends_the_job_also_where_max_fail_percentage_lets_the_play_go_on(ansible, fleet):
    """Batch 1's canary (srv-00001) does not come back. The play tolerates failures, so its next batches run: they
    send nothing, and their hosts are skipped naming the canary (1 POST in all)."""
    control = fleet.control
    control.disconnect("srv-00001")
    playbook = (
        "- name: Restart six in batches of two, failures tolerated\n"
        "  hosts: srv-00001,srv-00002,srv-00003,srv-00005,srv-00006,srv-00007\n"
        "  gather_facts: false\n  serial: 2\n  max_fail_percentage: 100\n" + ROLLING_RESTART_WITH_A_CANARY
    )
    run = ansible.playbook(playbook, inventory=INVENTORY, base_url=fleet.live_url, env=FORKS)
    assert run.rc == 2, run.describe()
    assert posts(control.counters()) == {"srv-00001": 1}, (posts(control.counters()), run.describe())
    found = outcomes(run)
    assert found["srv-00001"]["result"] == "failed"
    not_sent = "Not sent: the canary (srv-00001) did not come back, so nothing else was sent."
    for host in ("srv-00002", "srv-00003", "srv-00005", "srv-00006", "srv-00007"):
        assert found[host] == dict(found[host], result="skipped", reason=not_sent), (host, found[host])
    # the later batches did not run the control task at all
    sent = [
        result for _host, result in role_results(run, "Restart and wait for the uptime reset") if "servers" in result
    ]
    assert len(sent) == 1, run.describe()


def test_a_later_play_of_the_same_role_does_not_take_an_earlier_plays_canary_for_its_own(ansible, fleet):
    """Play 1 loses its canary (srv-00003, which fails there and is in no batch of play 2). Play 2 rolls in batches
    of one, one, two: srv-00001 is busy, the batch of srv-00003 runs nothing, so srv-00003 keeps play 1's record of a
    canary sent (and lost). The last batch's first restart (srv-00005) is still play 2's canary; its agent is gone:
    srv-00006 gets nothing."""
    control = fleet.control
    control.set_server("srv-00001", players=3)
    control.disconnect("srv-00003")
    control.disconnect("srv-00005")
    playbook = (
        "- name: Restart two servers, the first as the canary\n  hosts: srv-00003,srv-00007\n  gather_facts: false\n"
        + ROLLING_RESTART_WITH_A_CANARY
        + "- name: Restart four in batches of one, one, two\n  hosts: srv-00001,srv-00003,srv-00005,srv-00006\n"
        + "  gather_facts: false\n  serial: [1, 1, 2]\n  max_fail_percentage: 0\n"
        + ROLLING_RESTART_WITH_A_CANARY
    )
    second_plays_canary_lost(ansible, fleet, playbook, {"srv-00003": 1, "srv-00005": 1}, "srv-00005")


def second_plays_canary_lost(ansible, fleet, playbook, posted, canary):
    """Runs two plays whose second one's canary does not come back: only ``posted`` got a POST, and the second
    play's summary (returned) names its canary."""
    run = ansible.playbook(playbook, inventory=INVENTORY, base_url=fleet.live_url, env=FORKS)
    assert run.rc == 2, run.describe()
    assert posts(fleet.control.counters()) == posted, (posts(fleet.control.counters()), run.describe())
    shown = [result["msg"] for _host, result in role_results(run, "Summary of the rolling restart") if "msg" in result]
    assert len(shown) == 2, run.describe()  # one summary for each play
    assert "The canary (%s) did not come back: nothing else was sent." % canary in shown[1], "\n".join(shown[1])
    return shown[1]


TWELVE = ",".join("srv-%05d" % number for number in range(1, 13))


def test_with_a_fact_cache_the_summary_of_a_stopped_rollout_names_the_later_batches_not_reached(
    ansible, fleet, tmp_path
):
    """The first run leaves every host's outcome in the fact cache (AWX fact storage does the same). The second
    run's first batch fails: the hosts of the batches after it are not reached in this run, whatever an earlier
    run recorded on them."""
    cache = {
        "ANSIBLE_CACHE_PLUGIN": "ansible.builtin.jsonfile",
        "ANSIBLE_CACHE_PLUGIN_CONNECTION": str(tmp_path / "facts"),
        "ANSIBLE_CACHE_PLUGIN_TIMEOUT": "3600",
    }
    first = job(
        ansible,
        "restart_fleet",
        extra_vars={"batch": 6, "rolling_restart_min_uptime": 0, "target": TWELVE},
        base_url=fleet.live_url,
        env=dict(FORKS, **cache),
    )
    assert first.rc == 0, first.describe()
    fleet.control.disconnect("srv-00001")
    run = job(
        ansible,
        "restart_fleet",
        extra_vars={
            "batch": 6,
            "rolling_restart_min_uptime": 0,
            "rolling_restart_wait_timeout": 3,
            "target": TWELVE,
        },
        base_url=fleet.live_url,
        env=dict(FORKS, **cache),
    )
    assert run.rc == 2, run.describe()
    lines = summary(run, "Summary of the rolling restart")
    later = ", ".join("srv-%05d" % number for number in range(7, 13))
    assert "not reached (6): %s" % later in lines, "\n".join(lines)
    assert lines[0] == "rolling_restart: 12 server(s): 1 failed, 5 skipped", "\n".join(lines)


def test_with_a_fact_cache_a_host_failed_before_the_role_is_not_counted_with_an_earlier_runs_outcome(
    ansible, emulator, tmp_path
):
    """The first run restarts both servers and leaves their outcomes in the fact cache. In the second, a task of
    the play fails Survival, the first host, before the role: the summary names it not reached, never with the first
    run's word."""
    cache = {
        "ANSIBLE_CACHE_PLUGIN": "ansible.builtin.jsonfile",
        "ANSIBLE_CACHE_PLUGIN_CONNECTION": str(tmp_path / "facts"),
        "ANSIBLE_CACHE_PLUGIN_TIMEOUT": "3600",
    }
    inventory = TWO_SERVERS
    play = rolling_restart_play(
        rolling_restart_min_uptime=0, rolling_restart_max_players=None, rolling_restart_poll_interval=0.3, run_once=True
    )
    first = ansible.playbook(play, inventory=inventory, env=cache)
    assert first.rc == 0, first.describe()
    assert sorted(outcome["result"] for outcome in outcomes(first).values()) == ["restarted", "restarted"]
    failing = play.replace(
        "  roles:\n",
        "  pre_tasks:\n    - name: A check of the user's own\n      ansible.builtin.fail:\n        msg: not today\n"
        "      when: inventory_hostname == 'Survival'\n  roles:\n",
    )
    run = ansible.playbook(failing, inventory=inventory, env=cache)
    assert run.rc == 2, run.describe()
    assert sorted(outcomes(run)) == ["Creative"]
    lines = summary(run, "Summary of the rolling restart")
    assert lines[0] == "rolling_restart: 2 server(s): 1 restarted", "\n".join(lines)
    assert "not reached (1): Survival" in lines, "\n".join(lines)


@pytest.mark.parametrize("second_play", ["Run the role again", "Run the role"])
def test_a_later_play_does_not_count_a_host_an_earlier_play_failed_with_that_plays_outcome(
    ansible, emulator, second_play
):
    """A host that failed in the first play is in none of the second play's batches: its summary names it not
    reached, not failed with the first play's reason; also when both plays have one name."""
    inventory = (
        "all:\n  hosts:\n    not-a-server:\n      ansible_connection: local\n"
        "    Survival:\n      gamepanel_id: mc-01\n      ansible_connection: local\n"
    )
    play = rolling_restart_play(
        rolling_restart_min_uptime=0, rolling_restart_max_players=None, rolling_restart_poll_interval=0.3, run_once=True
    )
    run = ansible.playbook(
        play + "\n" + play.replace("name: Run the role", "name: " + second_play), inventory=inventory
    )
    assert run.rc == 2, run.describe()
    shown = [result["msg"] for _host, result in role_results(run, "Summary of the rolling restart")]
    assert len(shown) == 2, run.describe()
    assert shown[0][0] == "rolling_restart: 2 server(s): 1 failed, 1 restarted", "\n".join(shown[0])
    assert shown[1][0] == "rolling_restart: 2 server(s): 1 restarted", "\n".join(shown[1])
    assert "not reached (1): not-a-server" in shown[1], "\n".join(shown[1])


def broken_shared_steps(indent):
    """The fleet roles' shared steps imported with settings the outcomes cannot read (a bug path no public role
    reaches, so their rescue runs), as one task ``indent`` spaces in."""
    task = (
        "- name: Import them\n  ansible.builtin.import_role:\n    name: gamepanel.panel.internal_fleet_job\n"
        "    rolespec_validate: false\n  run_once: true\n  vars:\n"
        "    internal_fleet_job_name: rolling_restart\n"
        "    internal_fleet_job_settings: [not, a, mapping]\n"
        "    internal_fleet_job_control: {state: restarted, only_if_status: [online], min_uptime: 0, max_players: null,"
        " poll_interval: 0.3, canary: 0}\n"
        "    internal_fleet_job_tasks: {control: Restart, summary: Summary, fail: Fail}\n"
    )
    return "".join(" " * indent + line + "\n" for line in task.splitlines())


def test_a_step_that_breaks_is_recorded_on_its_host_and_the_summary_names_the_others_not_reached(ansible, emulator):
    """The shared steps' rescue, driven through the internal role with settings the outcomes cannot read (a bug
    path no public role reaches): the host the step ran on records the failure and is failed by the fail step; the
    others, failed with the run_once task by ansible-core, are named not reached."""
    inventory = TWO_SERVERS
    play = "- name: The shared steps, broken\n  hosts: all\n  gather_facts: false\n  tasks:\n" + broken_shared_steps(4)
    run = ansible.playbook(play, inventory=inventory)
    assert run.rc == 2, run.describe()
    found = outcomes(run)
    assert sorted(found) == ["Survival"], found
    assert found["Survival"]["result"] == "failed" and found["Survival"]["run"], found
    lines = summary(run, "Summary")
    assert lines[0] == "rolling_restart: 2 server(s): 1 failed", "\n".join(lines)
    assert "not reached (1): Creative" in lines, "\n".join(lines)
    assert sorted(host for host, result in role_results(run, "Fail") if result.get("failed")) == ["Survival"]


def test_a_host_rescued_in_an_earlier_play_does_not_make_a_later_plays_batch_count_as_failed(ansible, emulator):
    """The rescue marks its batch as failed for the job's run only: a later play's batch led by that host still
    sums up once, at the end, and fails no host."""
    broken = (
        "- name: The shared steps, broken, their failures cleared\n  hosts: all\n  gather_facts: false\n  tasks:\n"
        "    - name: Run them\n      block:\n"
        + broken_shared_steps(8)
        + "      rescue:\n        - name: Go on\n          ansible.builtin.meta: clear_host_errors\n"
    )
    later = rolling_restart_play(
        rolling_restart_min_uptime=0, rolling_restart_max_players=None, rolling_restart_poll_interval=0.3, run_once=True
    ).replace("gather_facts: false", "gather_facts: false\n  serial: 1")
    run = ansible.playbook(broken + "\n" + later, inventory=TWO_SERVERS)
    assert run.rc == 0, run.describe()
    assert [
        result["ansible_facts"]["gamepanel_outcome"]["result"]
        for _host, result in role_results(run, "Record the failure")
    ] == ["failed"], run.describe()
    assert posts(emulator.control.counters()) == {"mc-01": 2, "mc-02": 2}  # one in each play
    lines = summary(run, "Summary of the rolling restart")  # shown once: the first batch did not count as failed
    assert lines[0] == "rolling_restart: 2 server(s): 2 restarted", "\n".join(lines)


TWO_FLEET_ROLES = """
- name: Two fleet roles in one play
  hosts: all
  gather_facts: false
  serial: 3
  roles:
    - role: gamepanel.panel.rolling_restart
      run_once: true
      rolling_restart_canary: 1
      rolling_restart_min_uptime: 0
      rolling_restart_poll_interval: 0.3
    - role: gamepanel.panel.ensure_online
      run_once: true
      ensure_online_poll_interval: 0.3
"""


def test_two_fleet_roles_in_one_play_take_each_their_canary_in_the_first_batch_only(ansible, fleet):
    """ensure_online records after rolling_restart on every host of a batch: the next batch of rolling_restart
    still knows its canary went out, and takes none again."""
    limit = ",".join("srv-%05d" % number for number in range(1, 10))
    run = ansible.playbook(TWO_FLEET_ROLES, inventory=INVENTORY, base_url=fleet.live_url, env=FORKS, limit=limit)
    assert run.rc == 0, run.describe()
    canaries = [
        (result.get("canary") or {}).get("ids") or []
        for _host, result in role_results(run, "Restart and wait for the uptime reset")
    ]
    assert len(canaries) == 3 and len(canaries[0]) == 1 and canaries[1:] == [[], []], canaries
    # each role's summary counts its own outcomes, though ensure_online's is the one each host holds last
    records = role_task_runs(run, "Record the outcome")
    assert len(records) == 6, run.describe()
    for name, summary_task, entries in (
        ("rolling_restart", "Summary of the rolling restart", records[0::2]),
        ("ensure_online", "Summary of ensure online", records[1::2]),
    ):
        reasons = dict(
            (target, facts["gamepanel_outcome"]["reason"])
            for entry in entries
            for host, result in entry["hosts"].items()
            for target, facts in recorded(host, result)
        )
        lines = summary(run, summary_task)
        assert lines[0].startswith("%s: 9 server(s): " % name), "\n".join(lines)
        shown = dict(line.strip().split(": ", 1) for line in lines if line.startswith("  srv-"))
        assert dict((host, reason.split(" [")[0]) for host, reason in shown.items()) == reasons, "\n".join(lines)


def test_a_role_included_in_batches_sums_up_every_batch_of_its_run(ansible, emulator):
    """include_role makes the role anew for each batch: the summary still counts every batch of the run."""
    inventory = TWO_SERVERS
    play = (
        "- name: Include the role\n  hosts: all\n  gather_facts: false\n  serial: 1\n  tasks:\n"
        "    - name: Restart\n      ansible.builtin.include_role:\n        name: gamepanel.panel.rolling_restart\n"
        "      vars:\n        rolling_restart_min_uptime: 0\n        rolling_restart_max_players: null\n"
        "        rolling_restart_poll_interval: 0.3\n"
    )
    run = ansible.playbook(play, inventory=inventory)
    assert run.rc == 0, run.describe()
    lines = summary(run, "Summary of the rolling restart")
    assert lines[0] == "rolling_restart: 2 server(s): 2 restarted", "\n".join(lines)


def test_two_hosts_of_one_server_in_one_account_send_nothing(ansible, emulator):
    """Two hosts of one source (one account) with one gamepanel_id: the batch is refused before anything is sent."""
    inventory = STATIC_INVENTORY + "    Survival-again:\n      gamepanel_id: mc-01\n      ansible_connection: local\n"
    run = ansible.playbook(rolling_restart_play(rolling_restart_min_uptime=0, run_once=True), inventory=inventory)
    assert run.rc == 2, run.describe()
    refusal = "hosts: Survival (account default) and Survival-again (account default) stand for the same server (mc-01)"
    found = outcomes(run)
    assert sorted(found) == ["Survival", "Survival-again"]
    assert all(outcome["result"] == "failed" and refusal in outcome["reason"] for outcome in found.values()), found
    assert emulator.control.counters()["posts"] == {}


def test_a_later_play_of_the_same_name_over_other_hosts_sends_its_own_canary(ansible, fleet):
    """Play 1 restarts srv-00001 (its canary). Play 2 has the same name, other hosts, batches of one and three, and
    leaves the role out of its first batch (srv-00001): its first restart (srv-00002) is still its canary, and its
    agent is gone, so srv-00003 and srv-00005 get nothing and the summary counts play 2's hosts only."""
    control = fleet.control
    control.disconnect("srv-00002")
    playbook = (
        "- name: Restart\n  hosts: srv-00001\n  gather_facts: false\n"
        + ROLLING_RESTART_WITH_A_CANARY
        + "- name: Restart\n  hosts: srv-00001,srv-00002,srv-00003,srv-00005\n"
        + "  gather_facts: false\n  serial: [1, 3]\n  max_fail_percentage: 100\n  tasks:\n"
        + "    - name: The role, left out of the first batch\n      ansible.builtin.include_role:\n"
        + "        name: gamepanel.panel.rolling_restart\n"
        + "      vars:\n        rolling_restart_canary: 1\n        rolling_restart_min_uptime: 0\n"
        + "        rolling_restart_wait_timeout: 3\n        rolling_restart_poll_interval: 0.3\n"
        + "      when: inventory_hostname != 'srv-00001'\n"
    )
    shown = second_plays_canary_lost(ansible, fleet, playbook, {"srv-00001": 1, "srv-00002": 1}, "srv-00002")
    assert not [line for line in shown if line.strip().startswith("srv-00001")], "\n".join(shown)
