# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault bench: a fleet restart on a faulty panel, the controller killed part-way, then the same job again.

    python tests/bench/bench_faults.py [--size 1000] [--repeat 3] [--forms ids role] [--kill-at 0.4]

For each form of the job it restarts every online server of the emulator's generated fleet
(fast agents: check-in every 0.5 s, boot 0.3 s) while the emulator injects, from a seeded generator:

* 3% of action POSTs refused by the panel in its own words (HTTP 503, its JSON error, Retry-After 1;
  nothing queued);
* 3% of action POSTs queued, then answered 502 with an empty body (a gateway's answer);
* 1.5% of action POSTs queued, then answered 503 with a proxy's HTML page (Envoy's
  "upstream connect error or disconnect/reset before headers");
* 5% of reads dropped without an answer, 10% slowed by 0.3 s and 3% by 2.5 s (past request_timeout, 2 s):
  a job reads the fleet in a few dozen list pages, so these rates make a few of them fail.

The controller (ansible-playbook, its workers and the modules they run) is killed with SIGKILL once the
emulator has received POSTs for ``--kill-at`` of the online servers; then the same job runs again
to its end, on the same state directory (the ledger), the faults still on.  Forms:

  ids   one gamepanel.panel.server_control task with ``ids`` (every online server), min_uptime 600
  role  the ready playbook gamepanel.panel.restart_fleet (the rolling_restart role; its canary of one,
        min_uptime 600), over the gamepanel.panel.servers inventory, max_players null (players on
        are no reason to skip here)

It reports, from the emulator's counters: the servers restarted exactly once after run + re-run
(the target is 95% or more), twice or more (must be 0) and never, each of the latter named with
what the re-run said of it; the tasks each run started; the wall time.  It talks to nothing but
its own emulator on 127.0.0.1, and asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import signal
import subprocess
import sys
import tempfile
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
ACCOUNT = "acme"
SEED = 20261127

FAULTS = (
    dict(kind="status", status=503, method="POST", phase="before", rate=0.03, retry_after=1),
    dict(kind="status", status=502, method="POST", phase="after", rate=0.03),
    dict(kind="proxy", method="POST", phase="after", rate=0.015),
    dict(kind="drop", method="GET", rate=0.05),
    dict(kind="latency", method="GET", seconds=0.3, rate=0.10),
    dict(kind="latency", method="GET", seconds=2.5, rate=0.03),
)

CONNECTION = {"request_timeout": 2, "retry_timeout": 30}

IDS_PLAY = """
- name: Restart the fleet, one task with ids
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Restart
      gamepanel.panel.server_control:
        ids: "{{ fleet_ids }}"
        state: restarted
        min_uptime: 600
        wait_timeout: 120
        poll_interval: 1
        request_timeout: %(request_timeout)d
        retry_timeout: %(retry_timeout)d
      register: restart
      ignore_errors: true

    - name: Lines
      ansible.builtin.copy:
        dest: "{{ lines_file }}"
        content: "{{ restart.servers | default([]) | to_json }}"
        mode: "0600"
""" % CONNECTION

# The inventory hands its connection settings on to the job (gamepanel_connection).
INVENTORY = (
    "plugin: gamepanel.panel.servers\nhostname_source: id\nrate_limit: 0\nrequest_timeout: %(request_timeout)d\nretry_timeout: %(retry_timeout)d\n"
    % CONNECTION
)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--forms", nargs="+", default=["ids", "role"], choices=["ids", "role"])
    parser.add_argument("--kill-at", type=float, default=0.4, help="share of the online servers POSTed to")
    parser.add_argument("--keep", help="keep the working files here")
    parser.add_argument("--json", help="also write every figure to this file")
    return parser.parse_args()


def children_of():
    """{parent pid: [child pids]} of every process now (Linux /proc)."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry, encoding="ascii", errors="replace") as handle:
                parent = int(handle.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(entry))
    return children


def kill_tree(root):
    """SIGKILL ``root`` and every process under it, each by its id.

    Not the process group alone: Ansible's workers start sessions of their own (setsid), so a
    group kill leaves them, and the module they run, going on to the end of the task.
    """
    for unused in range(5):  # a fork made while we look is caught by the next pass
        tree, pending = [], [root]
        children = children_of()
        while pending:
            pid = pending.pop()
            tree.append(pid)
            pending.extend(children.get(pid, []))
        alive = [pid for pid in tree if os.path.exists("/proc/%d" % pid)]
        if not alive:
            return
        for pid in alive:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.1)


class FaultBench:
    def __init__(self, args, workdir, emulator):
        self.args = args
        self.workdir = Path(workdir)
        self.collections = collections_path(workdir)
        self.emulator = emulator
        self.control = emulator.control

    def prepare(self):
        """The fleet back to the fixture, fast agents, every online server up longer than min_uptime; faults on."""
        control = self.control
        control.reset()
        control.set_account(ACCOUNT, plan="team")
        control.settings(
            seed=SEED,
            rate_limits={"team": 100000},
            checkin_interval=0.5,
            checkin_jitter=0.1,
            boot_time=0.3,
            stop_time=0.2,
        )
        control.advance(600)  # the generated uptimes start at 60 s: all past min_uptime now
        online = [s["id"] for s in control.state()["servers"] if s["id"].startswith("srv-") and s["status"] == "online"]
        for fault in FAULTS:
            control.add_fault(**fault)
        return online

    def env(self, state_dir):
        return ansible_environment(
            self.collections,
            self.workdir,
            self.emulator.live_url,
            TOKEN,
            0,
            state_dir,
            ANSIBLE_INVENTORY_UNPARSED_WARNING="False",
        )

    def command(self, form, online, lines_file):
        if form == "ids":
            play = self.workdir / "ids.yml"
            play.write_text(IDS_PLAY)
            extra = {"fleet_ids": online, "lines_file": str(lines_file)}
            return [
                ansible_command("ansible-playbook"),
                "-i",
                "localhost,",
                "-c",
                "local",
                str(play),
                "-e",
                json.dumps(extra),
            ]
        inventory = self.workdir / "fleet.gamepanel.yml"
        inventory.write_text(INVENTORY)
        extra = dict(rolling_restart_max_players=None, rolling_restart_wait_timeout=120)
        return [
            ansible_command("ansible-playbook"),
            "-i",
            str(inventory),
            "gamepanel.panel.restart_fleet",
            "-e",
            json.dumps(extra),
        ]

    def run(self, form, online, state_dir, label, kill_after=None):
        """One ansible-playbook run; killed (its process group) once ``kill_after`` POSTs reached the panel."""
        lines_file = self.workdir / ("%s-lines.json" % label)
        log_path = self.workdir / ("%s.log" % label)
        started = time.perf_counter()
        with open(log_path, "w", encoding="utf-8") as log:
            process = subprocess.Popen(  # pylint: disable=consider-using-with
                self.command(form, online, lines_file),
                env=self.env(state_dir),
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=self.workdir,
                start_new_session=True,
            )
            killed = False
            while process.poll() is None:
                if kill_after is not None and sum(self.control.counters()["posts"].values()) >= kill_after:
                    kill_tree(process.pid)
                    killed = True
                    break
                time.sleep(0.2)
            rc = process.wait()
        text = log_path.read_text(encoding="utf-8", errors="replace")
        return {
            "rc": rc,
            "killed": killed,
            "wall": round(time.perf_counter() - started, 1),
            "tasks": len(re.findall(r"^TASK \[", text, re.MULTILINE)),
            "log": str(log_path),
            "lines": json.loads(lines_file.read_text()) if lines_file.exists() else None,
        }

    def measure(self, form, repetition):
        online = self.prepare()
        state_dir = Path(tempfile.mkdtemp(prefix="state-", dir=self.workdir))
        label = "%s-%d" % (form, repetition)
        first = self.run(form, online, state_dir, label + "-run", kill_after=int(len(online) * self.args.kill_at))
        posts_at_kill = sum(self.control.counters()["posts"].values())
        again = self.run(form, online, state_dir, label + "-rerun")
        time.sleep(2.0)  # the last queued actions run (agents check in every 0.5 s)
        counters = self.control.counters()
        fired = dict(
            (
                fault["kind"]
                + " "
                + str(fault.get("status") or fault.get("seconds"))
                + " "
                + str(fault.get("method"))
                + " "
                + fault["phase"],
                fault["fired"],
            )
            for fault in self.control.faults()
        )
        restarts = counters["restarts"]
        once = [s for s in online if restarts.get(s, 0) == 1]
        twice = [s for s in online if restarts.get(s, 0) >= 2]
        never = [s for s in online if restarts.get(s, 0) == 0]
        return {
            "form": form,
            "repetition": repetition,
            "online": len(online),
            "once": len(once),
            "once_percent": round(100.0 * len(once) / len(online), 1),
            "twice": twice,
            "never": never,
            "said": self.said(again, twice + never),
            "posts_at_kill": posts_at_kill,
            "posts": sum(counters["posts"].values()),
            "faults_fired": fired,
            "run": dict((k, v) for k, v in first.items() if k != "lines"),
            "rerun": dict((k, v) for k, v in again.items() if k != "lines"),
        }

    @staticmethod
    def said(run, server_ids):
        """What the re-run said of each server: its line (ids), or the first log line naming it (the role)."""
        found = {}
        if run["lines"]:
            by_id = dict((line["id"], line) for line in run["lines"])
            for server_id in server_ids:
                line = by_id.get(server_id) or {}
                found[server_id] = line.get("msg") or line.get("skipped_reason") or "(no line)"
            return found
        text = Path(run["log"]).read_text(encoding="utf-8", errors="replace")
        for server_id in server_ids:
            match = re.search(r"[^\n]*%s\b[^\n]*" % re.escape(server_id), text)
            found[server_id] = match.group(0).strip()[:300] if match else "(not named in the log)"
        return found


def report(row):
    print(
        "| %s | %d | %d | %d (%.1f%%) | %d | %d | %d | %d+%d | %.1f+%.1f | %s |"
        % (
            row["form"],
            row["repetition"],
            row["online"],
            row["once"],
            row["once_percent"],
            len(row["twice"]),
            len(row["never"]),
            row["posts_at_kill"],
            row["run"]["tasks"],
            row["rerun"]["tasks"],
            row["run"]["wall"],
            row["rerun"]["wall"],
            "killed" if row["run"]["killed"] else "rc %d" % row["run"]["rc"],
        ),
        flush=True,
    )
    for server_id in row["twice"]:
        print("    restarted twice: %s: %s" % (server_id, row["said"].get(server_id)), flush=True)
    for server_id in row["never"]:
        print("    not restarted: %s: %s" % (server_id, row["said"].get(server_id)), flush=True)
    print("    faults fired: %s; re-run rc %d" % (json.dumps(row["faults_fired"]), row["rerun"]["rc"]), flush=True)


def main():
    args = parse_args()
    workdir = args.keep or tempfile.mkdtemp(prefix="bench-faults-")
    Path(workdir).mkdir(parents=True, exist_ok=True)
    print(
        "# bench_faults %s, load average %s, %s, Python %s"
        % (
            time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            " ".join("%.1f" % value for value in os.getloadavg()),
            platform.platform(),
            platform.python_version(),
        )
    )
    print(
        "| form | # | online | restarted once | twice | never | POSTs at the kill | tasks run+re-run "
        "| wall s run+re-run | first run |\n|---|---|---|---|---|---|---|---|---|---|",
        flush=True,
    )
    rows = []
    with EmulatorProcess(fleet_size=args.size) as emulator:
        bench = FaultBench(args, workdir, emulator)
        for form in args.forms:
            for repetition in range(1, args.repeat + 1):
                row = bench.measure(form, repetition)
                rows.append(row)
                report(row)
    print("# done, load average %s; working files in %s" % (" ".join("%.1f" % v for v in os.getloadavg()), workdir))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
