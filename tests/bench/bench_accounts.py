# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Two accounts in one job: restart_fleet over two panels against the same job over one, side by side.

    python tests/bench/bench_accounts.py [--size 200] [--plan team] [--repeat 3] [--agents fast|real]

Two emulators, each with a generated fleet of SIZE servers on the plan (online, empty, up an
hour), each read by its own inventory source (``account``, ``hostname_prefix``, its own token in
its own variable). Each repetition runs the ready playbook ``restart_fleet`` with every default
(its canary, then the rest in one batch; the fleet is up an hour, past the default
``rolling_restart_min_uptime``) first over one account alone, then over both, each with fresh
emulator state and state directory. The accounts run at once, each at its own token's pace, so
two should take about the time of one: the ratio two / one is the figure (the target is at most
1.15). Every server is restarted exactly once, and each panel sees its own token only: both are
checked and printed. Nothing about time is asserted.

Beside each run, a one-task no-op over the same hosts: what Ansible itself costs for them. Each run's
physical floor is the panel's part (bench_fleet_engine.job_design_floor of restart_fleet: the fleet read,
the sends at the plan's limit, the canary's check-in and boot, then the rest's, a confirming read; the
same for two accounts, which run at once) plus that no-op; each run's wall over its floor is printed too.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))

from emulator.harness import EmulatorProcess  # noqa: E402  pylint: disable=wrong-import-position
from bench_setup import ansible_command, collections_path  # noqa: E402  pylint: disable=wrong-import-position
from bench_fleet import ACCOUNT, NOOP_PLAY, PLANS  # noqa: E402  pylint: disable=wrong-import-position,import-error
from bench_fleet_engine import job_design_floor  # noqa: E402  pylint: disable=wrong-import-position,import-error
from bench_fleet_engine import spread  # noqa: E402  pylint: disable=wrong-import-position,import-error

TOKENS = {"eu": ("BENCH_EU_TOKEN", "gp-test-owner-control", "owner-control")}
TOKENS["us"] = ("BENCH_US_TOKEN", "gp-test-admin-control", "admin-control")
AGENTS = {"fast": (2.5, 2.0), "real": (30.0, 60.0)}
PLAY = "- name: Run the ready playbook\n  ansible.builtin.import_playbook: gamepanel.panel.restart_fleet\n"


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--size", type=int, default=200)
    parser.add_argument("--plan", choices=sorted(PLANS), default="team")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--agents", choices=sorted(AGENTS), default="fast")
    parser.add_argument("--forks", type=int, default=50)
    parser.add_argument("--profile", action="store_true", help="print each task's wall time of every run")
    return parser.parse_args()


def prepare(panel, plan, agents):
    control = panel.control
    control.reset()
    control.set_account(ACCOUNT, plan=plan)
    checkin, boot = AGENTS[agents]
    control.settings(checkin_interval=checkin, checkin_jitter=0.0, boot_time=boot, stop_time=0.0)
    for server in control.state()["servers"]:
        if server["id"].startswith("srv-"):
            control.set_server(server["id"], status="online", players=0, uptime_seconds=3600)


def source(account, panel, plan):
    return (
        "plugin: gamepanel.panel.servers\naccount: %s\nhostname_prefix: %s_\nhostname_source: id\n"
        "base_url: %s\nrate_limit: %d\napi_token_env: %s\n"
        % (account, account, panel.live_url, PLANS[plan], TOKENS[account][0])
    )


def run(workdir, panels, accounts, args, text=PLAY):
    directory = Path(tempfile.mkdtemp(prefix="inventory-", dir=workdir))
    for account in accounts:
        (directory / ("%s.gamepanel.yml" % account)).write_text(source(account, panels[account], args.plan))
    play = directory.parent / "play.yml"
    play.write_text(text)
    env = {
        "PATH": "/usr/bin:/bin",
        "ANSIBLE_COLLECTIONS_PATH": collections_path(workdir),
        "ANSIBLE_HOME": str(Path(workdir) / "ansible-home"),
        "ANSIBLE_FORKS": str(args.forks),
        "ANSIBLE_NOCOLOR": "1",
        "GAMEPANEL_STATE_DIR": tempfile.mkdtemp(prefix="state-", dir=workdir),
    }
    env.update(dict((variable, token) for variable, token, _name in TOKENS.values()))
    if args.profile:
        env["ANSIBLE_CALLBACK_PLUGINS"] = str(REPO / "tests" / "bench" / "callback_plugins")
        env["ANSIBLE_CALLBACKS_ENABLED"] = "task_times"
    command = [ansible_command("ansible-playbook"), "-i", str(directory), str(play)]
    command += ["-e", "ansible_python_interpreter=%s" % sys.executable]
    started = time.monotonic()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    wall = time.monotonic() - started
    if done.returncode != 0:
        print(done.stdout[-3000:], done.stderr[-2000:])
    for line in (done.stdout + done.stderr).splitlines() if args.profile else ():
        if line.startswith("TASK TIME"):
            seconds, _unit, _started, name = line[len("TASK TIME ") :].split(None, 3)
            print("#   %8s s  %s" % (seconds, name))
    return wall, done.returncode


def restarted_once(panel, size):
    restarts = panel.control.counters()["restarts"]
    return sum(1 for count in restarts.values() if count == 1) == size and max(restarts.values() or [0]) == 1


def main():
    args = parse_args()
    walls = {"one": [], "two": []}
    to_floor = {"one": [], "two": []}
    panel_part = job_design_floor("restart_fleet_defaults", args.size, args.plan, args.forks, args.agents)
    with tempfile.TemporaryDirectory(prefix="bench-accounts-") as workdir:
        with EmulatorProcess(fleet_size=args.size) as eu, EmulatorProcess(fleet_size=args.size) as us:
            panels = {"eu": eu, "us": us}
            print(
                "# %d servers an account, plan %s, agents %s, forks %d"
                % (args.size, args.plan, args.agents, args.forks)
            )
            for repetition in range(args.repeat):
                for name, accounts in (("one", ["eu"]), ("two", ["eu", "us"])):
                    for panel in panels.values():
                        prepare(panel, args.plan, args.agents)
                    wall, rc = run(workdir, panels, accounts, args)
                    once = all(restarted_once(panels[account], args.size) for account in accounts)
                    tokens = [sorted(panels[account].control.counters()["requests"]) for account in accounts]
                    noop, noop_rc = run(workdir, panels, accounts, args, text=NOOP_PLAY)
                    floor = panel_part + noop
                    walls[name].append(wall)
                    to_floor[name].append(wall / floor)
                    print(
                        "run %d %-3s accounts=%d wall=%6.1f s rc=%d every server once=%s tokens=%s; "
                        "no-op %.1f s (rc %d), floor %.1f s, wall / floor %.2f"
                        % (
                            repetition + 1,
                            name,
                            len(accounts),
                            wall,
                            rc,
                            once,
                            tokens,
                            noop,
                            noop_rc,
                            floor,
                            wall / floor,
                        ),
                        flush=True,
                    )
    ratios = [two / one for one, two in zip(walls["one"], walls["two"])]
    for name in ("one", "two"):
        print("%-3s wall min / median / max: %.1f / %.1f / %.1f s" % ((name,) + spread(walls[name])))
    print("two / one ratio min / median / max: %.2f / %.2f / %.2f" % spread(ratios))
    for name in ("one", "two"):
        print(
            "%-3s wall / its physical floor min / median / max: %.2f / %.2f / %.2f" % ((name,) + spread(to_floor[name]))
        )


if __name__ == "__main__":
    main()
