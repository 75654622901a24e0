# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fleet restart benchmark: the collection against ansible.builtin.uri and a no-op, side by side.

    python tests/bench/bench_fleet.py [--sizes 60 200] [--json figures.json] [--quick]

For every row (fleet size, plan, forks) it restarts the emulator's whole generated
fleet (inventory: the gamepanel.panel.servers plugin, check-in every 2.5 s, boot 2 s)
with:

  A   one gamepanel.panel.server_control task per host, as users write it
  A-module  the same, forced through module execution (a non-local connection, as
            when delegated): the per-host cost before the action plugin
  A-role    the gamepanel.panel.rolling_restart role, when the collection has one
  B   the same job written with ansible.builtin.uri (read, POST, poll with until)
  C   a no-op (ansible.builtin.debug) over the same hosts: Ansible's own floor
  C-module  a no-op module (ansible.builtin.ping): what a module costs per host

and reports wall time, requests the panel received, 429s, servers restarted exactly
once / twice / never (the emulator's counters), the controller's peak memory (the
sum of the resident memory of ansible-playbook and all its processes, sampled), the
panel's part of the real floor (the fleet read and N requests, the first RATE at once and each
further RATE a minute later, + one check-in + the boot time; the no-op row is Ansible's part) and the ratios.
Then two controllers at once (separate state directories, one token, each
restarting half of the fleet), first with half the rate each, then the full rate each.

It talks to nothing but its own emulator on 127.0.0.1, and asserts nothing about time.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))

from emulator.harness import EmulatorProcess  # noqa: E402  pylint: disable=wrong-import-position
from bench_setup import (
    ansible_command,
    ansible_environment,
    collections_path,
)  # noqa: E402  pylint: disable=wrong-import-position

TOKEN = "gp-test-owner-control"
TOKEN_NAME = "owner-control"
ACCOUNT = "acme"
PLANS = {"pro": 120, "team": 600}
CHECKIN_SECONDS = 2.5
BOOT_SECONDS = 2.0

INVENTORY = "plugin: gamepanel.panel.servers\nhostname_source: id\n"

COLLECTION_PLAY = """
- name: Restart the fleet with the collection
  hosts: all
  gather_facts: false
  tasks:
    - name: Restart
      gamepanel.panel.server_control:
        id: "{{ gamepanel_id }}"
        state: restarted
"""

ROLE_PLAY = """
- name: Restart the fleet with the rolling_restart role
  hosts: all
  gather_facts: false
  vars:
    rolling_restart_min_uptime: 0  # the fleet's generated uptimes start at 60 s: restart them all
  roles:
    - gamepanel.panel.rolling_restart
"""

URI_PLAY = """
- name: Restart the fleet with ansible.builtin.uri
  hosts: all
  gather_facts: false
  vars:
    api: "{{ lookup('ansible.builtin.env', 'GAMEPANEL_BASE_URL') }}"
    auth:
      Authorization: "Bearer {{ lookup('ansible.builtin.env', 'GAMEPANEL_API_TOKEN') }}"
  tasks:
    - name: Read the server
      ansible.builtin.uri:
        url: "{{ api }}/servers/{{ gamepanel_id }}"
        headers: "{{ auth }}"
        status_code: [200, 429]
      register: before
      until: before.status == 200
      retries: 60
      delay: 2

    - name: Queue the restart
      ansible.builtin.uri:
        url: "{{ api }}/servers/{{ gamepanel_id }}/control"
        method: POST
        headers: "{{ auth }}"
        body_format: json
        body: {action: restart}
        status_code: [202, 429]
      register: queued
      until: queued.status == 202
      retries: 60
      delay: 2

    - name: Wait until it is back up
      ansible.builtin.uri:
        url: "{{ api }}/servers/{{ gamepanel_id }}"
        headers: "{{ auth }}"
        status_code: [200, 429]
      register: current
      until: >-
        current.status == 200 and current.json.status == 'online'
        and (before.json.status != 'online' or current.json.uptime_seconds < before.json.uptime_seconds)
      retries: 60
      delay: 5
"""

NOOP_PLAY = """
- name: No-op over the fleet
  hosts: all
  gather_facts: false
  tasks:
    - name: Nothing
      ansible.builtin.debug:
        msg: "{{ gamepanel_id }}"
"""

PING_PLAY = """
- name: No-op module over the fleet
  hosts: all
  gather_facts: false
  tasks:
    - name: Nothing
      ansible.builtin.ping:
"""

# A connection plugin that works like the local one but is not "local": tasks through it
# execute the module, as they would on a delegated host.
ELSEWHERE_PLUGIN = REPO / "tests" / "integration" / "connection_plugins"


PAGE_SIZE = 100  # the emulator's default page of a list read


def send_seconds(requests, rate):
    """Seconds to send ``requests`` at ``rate`` a minute, the first ``rate`` at once.

    In a sliding minute a request frees its slot 60 s after it went, so requests k and
    k + ``rate`` are at least a minute apart: the (rate + 1)-th cannot go before 60 s,
    the (2 rate + 1)-th before 120 s, and so on, however the first ones were spread.
    """
    return 0.0 if requests <= 0 else ((requests - 1) // rate) * 60.0


def panel_floor(size, plan):
    """The panel's part of the real floor: the fleet read and N requests at the plan's limit, a check-in, a boot."""
    pages = -(-size // PAGE_SIZE)
    return send_seconds(pages + size, PLANS[plan]) + CHECKIN_SECONDS + BOOT_SECONDS


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[60, 200])
    parser.add_argument("--json", help="also write every figure to this file")
    parser.add_argument(
        "--quick", action="store_true", help="only the collection rows and the no-op (no uri, no module rows)"
    )
    parser.add_argument("--no-two-controllers", action="store_true")
    parser.add_argument("--keep", help="keep the working files here")
    return parser.parse_args()


def has_role(collections):
    return (Path(collections) / "ansible_collections" / "gamepanel" / "panel" / "roles" / "rolling_restart").is_dir()


class MemorySampler(threading.Thread):
    """Peak of the summed proportional set size (PSS) of a process and all its descendants (Linux /proc).

    PSS, not RSS: forks share most of their pages with the parent, and RSS would count
    each shared page once per fork."""

    def __init__(self, pid, interval=0.2):
        super().__init__(daemon=True)
        self.pid = pid
        self.interval = interval
        self.peak_kib = 0
        self.samples = []  # (time.monotonic(), KiB): where in the run the memory went
        self.stopping = threading.Event()

    def run(self):
        while not self.stopping.is_set():
            kib = tree_rss_kib(self.pid)
            self.samples.append((time.monotonic(), kib))
            self.peak_kib = max(self.peak_kib, kib)
            self.stopping.wait(self.interval)

    def stop(self):
        self.stopping.set()
        self.join()


def tree_rss_kib(root):
    parents = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry, encoding="ascii", errors="replace") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            parents[int(entry)] = int(fields[1])
        except (OSError, IndexError, ValueError):
            continue
    members = {root}
    changed = True
    while changed:
        changed = False
        for pid, parent in parents.items():
            if parent in members and pid not in members:
                members.add(pid)
                changed = True
    return sum(pss_kib(pid) for pid in members)


def pss_kib(pid):
    try:
        with open("/proc/%d/smaps_rollup" % pid, encoding="ascii", errors="replace") as handle:
            for line in handle:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


class Bench:
    def __init__(self, args, workdir):
        self.args = args
        self.workdir = Path(workdir)
        self.collections = collections_path(workdir)
        self.rows = []
        self.emulator = None
        self.inventory_text = None  # the inventory file of the next run (None: INVENTORY)

    # -- set-up --------------------------------------------------------------------------

    def prepare(self, plan):
        control = self.emulator.control
        control.reset()
        control.set_account(ACCOUNT, plan=plan)
        control.settings(checkin_interval=CHECKIN_SECONDS, checkin_jitter=0.0, boot_time=BOOT_SECONDS, stop_time=0.0)

    def env(self, rate_limit, state_dir, extra=None):
        return ansible_environment(
            self.collections,
            self.workdir,
            self.emulator.live_url,
            TOKEN,
            rate_limit,
            state_dir,
            ANSIBLE_CONNECTION_PLUGINS=str(ELSEWHERE_PLUGIN),
            **(extra or {}),
        )

    def write(self, name, text):
        path = self.workdir / name
        path.write_text(text)
        return path

    def start(self, play, forks, env, limit=None, extra_vars=None):
        command = [
            ansible_command("ansible-playbook"),
            "-i",
            str(self.write("fleet.gamepanel.yml", self.inventory_text or INVENTORY)),
            "-f",
            str(forks),
            str(play),
        ]
        if limit:
            command += ["--limit", limit]
        if extra_vars:
            command += ["-e", json.dumps(extra_vars)]
        log = open(
            self.workdir / ("run-%d.log" % time.monotonic_ns()), "w", encoding="utf-8"
        )  # pylint: disable=consider-using-with
        process = subprocess.Popen(
            command, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=self.workdir
        )  # pylint: disable=consider-using-with
        return process, log

    # -- one measured run ------------------------------------------------------------------

    def timed_run(self, play, forks, env, extra_vars=None):
        """Run ``play`` to its end; returns (wall seconds, rc, peak KiB of its processes, log path)."""
        started = time.perf_counter()
        process, log = self.start(play, forks, env, extra_vars=extra_vars)
        sampler = MemorySampler(process.pid)
        sampler.start()
        rc = process.wait()
        wall = time.perf_counter() - started
        sampler.stop()
        log.close()
        self.memory_samples = sampler.samples
        return wall, rc, sampler.peak_kib, log.name

    def measure(self, label, play_text, size, plan, forks, extra_vars=None, restarts=True):
        self.prepare(plan)
        state_dir = Path(tempfile.mkdtemp(prefix="state-", dir=self.workdir))
        play = self.write("play.yml", play_text)
        env = self.env(PLANS[plan], state_dir)
        wall, rc, peak_kib, log_name = self.timed_run(play, forks, env, extra_vars=extra_vars)
        row = self.figures(label, size, plan, forks, wall, rc, peak_kib, restarts, log_name)
        self.rows.append(row)
        print(format_row(row), flush=True)
        return row

    def figures(self, label, size, plan, forks, wall, rc, peak_kib, restarts, log_name):
        counters = self.emulator.control.counters()
        requests = sum(counters["requests"].get(TOKEN_NAME, {}).values())
        fleet = [server["id"] for server in self.emulator.control.state()["servers"] if server["id"].startswith("srv-")]
        applied = counters.get("restarts", {})
        once = sum(1 for server_id in fleet if applied.get(server_id, 0) == 1)
        twice = sum(1 for server_id in fleet if applied.get(server_id, 0) >= 2)
        never = sum(1 for server_id in fleet if applied.get(server_id, 0) == 0)
        floor = panel_floor(size, plan)  # the real floor without the no-op, which is a row of its own
        return {
            "job": label,
            "size": size,
            "plan": plan,
            "forks": forks,
            "rc": rc,
            "wall": round(wall, 1),
            "floor": round(floor, 1),
            "wall_per_floor": round(wall / floor, 2),
            "requests": requests,
            "requests_per_server": round(requests / size, 2),
            "http_429": counters.get("responses", {}).get("429", 0),
            "once": once if restarts else None,
            "twice": twice if restarts else None,
            "never": never if restarts else None,
            "peak_mib": round(peak_kib / 1024.0),
            "log": log_name,
        }

    def two_controllers(self, size, plan, rate_each, label):
        """Two ansible-playbook runs at once, one token, separate state directories, half the fleet each."""
        self.prepare(plan)
        play = self.write("play.yml", COLLECTION_PLAY)
        half = size // 2
        runs = []
        started = time.perf_counter()
        for index, limit in enumerate(("all[0:%d]" % (half - 1), "all[%d:]" % half)):
            state_dir = Path(tempfile.mkdtemp(prefix="state-%d-" % index, dir=self.workdir))
            runs.append(self.start(play, 20, self.env(rate_each, state_dir), limit=limit))
        codes = [process.wait() for process, unused in runs]
        wall = time.perf_counter() - started
        for unused, log in runs:
            log.close()
        row = self.figures(
            label, size, plan, "2x20", wall, max(codes), 0, True, " ".join(log.name for unused, log in runs)
        )
        row["peak_mib"] = None
        self.rows.append(row)
        print(format_row(row), flush=True)


def format_row(row):
    restarted = "-" if row["once"] is None else "%s/%s/%s" % (row["once"], row["twice"], row["never"])
    return "| %s | %s | %s | %s | %.1f | %.1f | %.2f× | %d | %.2f | %d | %s | %s | %s |" % (
        row["job"],
        row["size"],
        row["plan"],
        row["forks"],
        row["wall"],
        row["floor"],
        row["wall_per_floor"],
        row["requests"],
        row["requests_per_server"],
        row["http_429"],
        restarted,
        "-" if row["peak_mib"] is None else row["peak_mib"],
        row["rc"],
    )


HEADER = (
    "| job | N | plan | forks | wall s | floor s | wall/floor | requests | per server | 429s | "
    "restarted once/twice/never | peak MiB | rc |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|"
)


def main():
    args = parse_args()
    rows_plan = [("pro", 20), ("team", 20), ("team", 50)]
    workdir = args.keep or tempfile.mkdtemp(prefix="bench-fleet-")
    Path(workdir).mkdir(parents=True, exist_ok=True)
    bench = Bench(args, workdir)
    role = has_role(bench.collections)
    print(
        "# bench_fleet %s, load average %s, %s, Python %s"
        % (
            time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            " ".join("%.1f" % value for value in os.getloadavg()),
            platform.platform(),
            platform.python_version(),
        )
    )
    print("# rolling_restart role: %s" % ("measured" if role else "not in this collection yet: not measured"))
    print(HEADER, flush=True)
    for size in args.sizes:
        with EmulatorProcess(fleet_size=size) as emulator:
            bench.emulator = emulator
            for plan, forks in rows_plan:
                bench.measure("A collection", COLLECTION_PLAY, size, plan, forks)
                if role:
                    bench.measure("A rolling_restart role", ROLE_PLAY, size, plan, forks)
                if not args.quick:
                    bench.measure("B uri", URI_PLAY, size, plan, forks)
                    if plan == "team":
                        bench.measure(
                            "A collection, module path",
                            COLLECTION_PLAY,
                            size,
                            plan,
                            forks,
                            extra_vars={"ansible_connection": "elsewhere"},
                        )
                bench.measure("C no-op (debug)", NOOP_PLAY, size, plan, forks, restarts=False)
                if not args.quick and plan == "team":
                    bench.measure("C no-op module (ping)", PING_PLAY, size, plan, forks, restarts=False)
            if size == max(args.sizes) and not args.no_two_controllers:
                bench.two_controllers(size, "pro", PLANS["pro"] // 2, "A two controllers, half rate each")
                bench.two_controllers(size, "pro", PLANS["pro"], "A two controllers, full rate each")
    load = " ".join("%.1f" % value for value in os.getloadavg())
    print("# done, load average %s; working files in %s" % (load, workdir))
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": bench.rows, "load_average_end": load}, indent=1))


if __name__ == "__main__":
    main()
