# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A rolling restart of a 50-server fleet on a faulty panel.

The emulator answers about 10% of requests 500/502/503, drops about 5% of connections
(also after a POST was queued) and adds latency spikes, some longer than
request_timeout.  The randomness is seeded; with ten forks the order of requests still
varies, so the assertions hold for every interleaving:

* no server is restarted twice (the emulator's ``restarts`` counter);
* none is lost: each online server is restarted once, or its host failed with a
  message that names it and says whether the restart may be queued (a 503 to the POST
  is the panel's refusal: nothing queued, and it is not sent again);
* a re-run with ``min_uptime`` and no faults leaves every online server restarted
  exactly once, and sends no action to a server the first run restarted.  As
  docs/server_control.md says, a POST whose answer was lost stays "may be queued" in the
  ledger and is not sent again by a plain re-run: the operator checks those servers and
  re-runs them with ``ignore_pending`` where the panel holds nothing (here the emulator's
  own view is that check).

The figures of a run are printed (``pytest -s``) for tests/RELIABILITY.md.
"""

from __future__ import annotations

import json

import pytest

from emulator.harness import EmulatorProcess

PLAYBOOK = "reliability/fleet_restart.yml"
FLEET_SIZE = 50
SEED = 20261123

FAULTS = (
    # About 10% of all requests answered with a server error (GETs, and POSTs before queueing).
    dict(kind="status", status=500, rate=0.034),
    dict(kind="status", status=502, rate=0.034),
    dict(kind="status", status=503, rate=0.034),
    # About 5% of connections dropped without an answer.
    dict(kind="drop", rate=0.05),
    # POSTs whose action was queued, then the answer lost: dropped or a 502.
    dict(kind="drop", method="POST", phase="after", rate=0.1),
    dict(kind="status", status=502, method="POST", phase="after", rate=0.05),
    # Latency spikes: short ones, and a few longer than request_timeout (2 s).
    dict(kind="latency", seconds=0.4, rate=0.05),
    dict(kind="latency", seconds=2.5, rate=0.01),
)


@pytest.fixture(scope="module")
def fleet_emulator():
    with EmulatorProcess(fleet_size=FLEET_SIZE) as process:
        yield process


def inventory_of(servers, ignore_pending=()):
    hosts = {server["id"]: {"gamepanel_id": server["id"], "ansible_connection": "local"} for server in servers}
    for server_id in ignore_pending:
        hosts[server_id]["fleet_ignore_pending"] = True
    return json.dumps({"all": {"hosts": hosts}}) + "\n"


def label(spec):
    """'status 502 POST after', 'latency 0.4 s'...: a fault as the figures name it."""
    words = [spec["kind"], str(spec.get("status") or "%s s" % spec["seconds"] if spec["kind"] != "drop" else "")]
    if spec.get("method"):
        words += [spec["method"], spec.get("phase", "before")]
    return " ".join(word for word in words if word)


def restart_results(run):
    """Each host's registered server_control result."""
    return {item.host: item["msg"]["restart"] for item in run.results("Registered")}


def test_rolling_restart_of_a_faulty_fleet_loses_nothing_and_restarts_nothing_twice(ansible, fleet_emulator):
    control = fleet_emulator.control
    control.reset()
    control.settings(seed=SEED, rate_limits={"team": 100000})
    fleet = [server for server in control.state()["servers"] if server["id"].startswith("srv-")]
    online = [server for server in fleet if server["status"] == "online"]
    assert len(fleet) == FLEET_SIZE and len(online) == 45
    names = {server["id"]: server["name"] for server in online}
    inventory = "---\n" + inventory_of(online).replace("\n", "") + "\n"
    for fault in FAULTS:
        control.add_fault(**fault)

    env = {"ANSIBLE_FORKS": "10"}
    first = ansible.playbook(
        PLAYBOOK, base_url=fleet_emulator.live_url, inventory=inventory, env=env, extra_vars={"batch": 10}, timeout=600
    )
    assert first.rc == 0, first.describe()
    fired = {fault["id"]: fault["fired"] for fault in control.faults()}
    counters = control.counters()
    results = restart_results(first)
    assert sorted(results) == sorted(names)

    restarted_once, unconfirmed, unread = [], [], []
    for server_id, result in results.items():
        restarts = counters["restarts"].get(server_id, 0)
        assert restarts <= 1, "%s restarted %d times" % (server_id, restarts)
        if not result.get("failed"):
            assert result["converged"] is True and restarts == 1, (server_id, result)
            restarted_once.append(server_id)
            continue
        # A failed host names its server and says what became of the restart (the panel's refusal of
        # the POST names it by the id in the request's path).
        refused = "The panel refused POST /servers/%s/control (restart) with HTTP 503" % server_id in result["msg"]
        assert server_id in result["msg"] and (refused or names[server_id] in result["msg"]), result["msg"]
        if result["action"] == "restart":
            assert (
                "may already be queued, not confirmed" in result["msg"] or "queued, not yet applied" in result["msg"]
            ), result["msg"]
            unconfirmed.append(server_id)
        else:
            # nothing queued: never sent (a read failed), or refused (HTTP 503)
            assert counters["posts"].get(server_id, 0) == (1 if refused else 0) and restarts == 0, result
            unread.append(server_id)

    report = json.loads(first.result("Report")["msg"])
    assert sorted(report["restarted"]) == sorted(restarted_once)
    assert sorted(report["unconfirmed"] + report["deferred"]) == sorted(unconfirmed)
    assert sorted(report["failed"]) == sorted(unread)

    # The re-run: the panel healthy again, min_uptime spares every server restarted so far.
    control.clear_faults()
    posts_before = dict(counters["posts"])
    # The operator's check of the unconfirmed servers: no restart applied and none in the panel's queue.
    lost = [
        server_id
        for server_id in unconfirmed
        if counters["restarts"].get(server_id, 0) == 0 and not control.server(server_id)["pending_actions"]
    ]
    inventory = "---\n" + inventory_of(online, ignore_pending=lost).replace("\n", "") + "\n"
    second = ansible.playbook(
        PLAYBOOK,
        base_url=fleet_emulator.live_url,
        inventory=inventory,
        env=env,
        extra_vars={"batch": 10, "fleet_min_uptime": 600},
        timeout=600,
    )
    assert second.rc == 0, second.describe()
    rerun = restart_results(second)
    after = control.counters()
    assert all(not result.get("failed") for result in rerun.values()), [
        (host, result["msg"]) for host, result in rerun.items() if result.get("failed")
    ]
    assert {server_id: after["restarts"].get(server_id, 0) for server_id in names} == {
        server_id: 1 for server_id in names
    }
    needed_rerun = sorted(server_id for server_id in names if counters["restarts"].get(server_id, 0) == 0)
    for server_id in names:
        if server_id not in needed_rerun:  # restarted by the first run: the re-run sent it nothing
            assert after["posts"].get(server_id, 0) == posts_before.get(server_id, 0), server_id
            assert rerun[server_id]["changed"] is False

    figures = {
        "servers": len(names),
        "requests": counters["requests_total"],
        "responses": counters["responses"],
        "faults_fired": {
            label(spec): fired[fault_id]
            for spec, fault_id in zip(FAULTS, sorted(fired, key=lambda key: int(key.split("-")[1])))
        },
        "confirmed_first_run": len(restarted_once),
        "failed_unconfirmed": len(unconfirmed),
        "failed_before_queueing": len(unread),
        "needed_rerun": len(needed_rerun),
        "restarted_by_first_run_though_failed": len([s for s in unconfirmed if counters["restarts"].get(s, 0) == 1]),
        "cleared_with_ignore_pending": len(lost),
    }
    print("\nfleet-faults figures: " + json.dumps(figures, sort_keys=True))
