# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The modules' and the control_plan filter's EXAMPLES, run as documented against the emulator's default fleet.

The examples mix tasks and whole plays; the tasks run in a play on localhost, the plays as
they are, over the gamepanel.panel.servers inventory, in the documented order. Only the
addresses change: the example panel address becomes the emulator's, the variables the
examples read their token from are set, and the planned-variant examples run with the
planned variant's address in GAMEPANEL_BASE_URL, as a user of that variant would have it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import yaml

PLUGINS = Path(__file__).resolve().parents[2] / "plugins"
MODULES = PLUGINS / "modules"
EXAMPLE_PANEL = "https://panel.example.com/api/v1"
OWNER_TOKEN = "gp-test-owner-control"  # a control token of the emulator's default fixture
INVENTORY = "plugin: gamepanel.panel.servers\n"


def examples(module, base_url):
    """The module's EXAMPLES (a list of tasks and plays), with the example panel address replaced by ``base_url``."""
    tree = ast.parse((MODULES / (module + ".py")).read_text(encoding="utf-8"))
    text = next(
        node.value.value for node in tree.body if isinstance(node, ast.Assign) and node.targets[0].id == "EXAMPLES"
    )
    assert EXAMPLE_PANEL in text  # the substitution must keep meaning something
    return yaml.safe_load(text.replace(EXAMPLE_PANEL, base_url))


def filter_examples(name):
    """A filter's EXAMPLES (from its YAML documentation), a list of tasks."""
    return yaml.safe_load(
        yaml.safe_load((PLUGINS / "filter" / (name + ".yml")).read_text(encoding="utf-8"))["EXAMPLES"]
    )


def split_by_variant(module, items):
    """(live items, planned items): the planned ones need the planned variant's address."""
    planned = [item for item in items if (item.get("gamepanel.panel." + module) or {}).get("api_variant") == "planned"]
    return [item for item in items if item not in planned], planned


def playbook(items):
    """Plays as they are; each run of consecutive tasks becomes a play on localhost."""
    plays, tasks = [], []
    for item in items + [None]:
        if item is not None and "hosts" not in item:
            tasks.append(item)
            continue
        if tasks:
            plays.append({"name": "example tasks", "hosts": "localhost", "gather_facts": False, "tasks": tasks})
            tasks = []
        if item is not None:
            plays.append(item)
    return yaml.safe_dump(plays, sort_keys=False)


def test_the_server_info_examples_run(ansible, emulator):
    live, planned = split_by_variant("server_info", examples("server_info", emulator.live_url))
    assert live and planned

    run = ansible.playbook(playbook(live), extra_vars={"vault_gamepanel_token": OWNER_TOKEN})
    assert run.rc == 0, run.describe()
    offline = run.result("Show the servers that are not online")["msg"]
    assert sorted(offline) == ["Modded", "Rust Test"]
    assert run.result("Show who is playing")["mc01.servers[0].details.players"]  # mc-01 has 3 players
    # the block under module_defaults: its address and token are the example's, pointed at the emulator
    survival = run.result('Online Minecraft servers whose name starts with "Survival"')["servers"]
    assert [server["id"] for server in survival] == ["mc-01"]
    assert sorted(server["id"] for server in run.result("Every Rust server, whatever its status")["servers"]) == [
        "rust-01",
        "rust-02",
    ]

    run = ansible.playbook(playbook(planned), variant="planned")
    assert run.rc == 0, run.describe()
    assert not any(emulator.control.counters()["posts"].values())  # reading sends no action


def test_the_server_control_examples_run(ansible, emulator):
    control = emulator.control
    control.settings(checkin_interval=0.05, checkin_jitter=0)
    control.set_server("rust-01", players=1)  # within the fleet example's max_players, so it needs no 10-minute drain
    live, planned = split_by_variant("server_control", examples("server_control", emulator.live_url))
    assert len(planned) == 1 and any("hosts" in item for item in live)

    run = ansible.playbook(playbook(live), inventory=INVENTORY, env={"ACME_PANEL_TOKEN": OWNER_TOKEN})
    assert run.rc == 0, run.describe()
    counters = control.counters()
    # Survival (mc-01) restarted by the first example and by the nightly loop; the fleet play
    # restarts the online servers up for an hour or more (mc-02, rust-01, ark-01; mc-01 had just
    # come back); rust-02 is stopped already; mc-03 gets a start without waiting; the fast
    # pattern restarts every server online when the inventory was read (mc-01, mc-02, rust-01,
    # ark-01) once more, and its second task confirms each restart the first one queued.
    assert counters["restarts"] == {"mc-01": 3, "mc-02": 3, "rust-01": 2, "ark-01": 2}
    assert counters["actions_queued"]["mc-03"] == 1 and "rust-02" not in counters["actions_queued"]
    confirmed = run.results("Confirm the restarts the first task queued")
    assert sorted(item["server"]["id"] for item in confirmed) == ["ark-01", "mc-01", "mc-02", "rust-01"]
    assert all(item["converged"] is True and item["changed"] is False for item in confirmed)
    # the ids example comes last: every Minecraft server came up within the hour, so it sends nothing
    [in_one_task] = run.results("Restart those up for an hour or more")
    assert sorted(line["id"] for line in in_one_task["servers"]) == ["mc-01", "mc-02", "mc-03"]
    assert in_one_task["changed"] is False and in_one_task["summary"]["unchanged"] == 3

    run = ansible.playbook(playbook(planned), variant="planned")
    assert run.rc == 0, run.describe()
    assert control.counters()["restarts"]["mc-01"] == 4


def test_the_control_plan_examples_run_and_act_only_where_the_filter_says(ansible, emulator):
    tasks = filter_examples("control_plan")
    for task in tasks:
        if "gamepanel.panel.server_control" in task:
            task["gamepanel.panel.server_control"]["poll_interval"] = 0.3
    run = ansible.playbook(playbook(tasks))
    assert run.rc == 0, run.describe()
    counters = emulator.control.counters()
    # min_uptime 3600, max_players 0: mc-01 and rust-01 have players, mc-03 and rust-02 are offline
    assert {server: count for server, count in counters["posts"].items() if count} == {"mc-02": 1, "ark-01": 1}
    assert counters["restarts"] == {"mc-02": 1, "ark-01": 1}
    assert run.result("Say why a server is left alone")["msg"] == "recently_restarted"
