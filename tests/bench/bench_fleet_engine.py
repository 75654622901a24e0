# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fleet engine benchmark: every way to restart a fleet, against the panel's real floor, side by side.

    python tests/bench/bench_fleet_engine.py [--rows 60:pro:20 60:team:20 200:team:50 200:pro:50 1000:team:50]
                                             [--jobs noop task fast rolling_restart ...] [--json figures.json]

For every row (fleet size N, plan, forks) the emulator's generated fleet is put online, empty
and up an hour (ensure_online: stopped), check-in every 2.5 s without jitter, boot 2 s, and each job
runs with a fresh emulator state and a fresh state directory (rate budget, ledger):

  noop             ansible.builtin.debug over the same hosts: what Ansible itself costs
  ids              server_control with ids: the whole fleet in one task (run_once), one process
  task             one server_control task per host as users write it (wait: true)
  fast             the documented fast pattern: wait: false, then confirm_only: true
  rolling_restart  the role over the whole fleet in one batch (min_uptime 0), given run_once
                   as its README advises (ansible-core's argument check then runs once)
  rolling_restart_checked_per_host  the same without run_once: the argument check on every host
  rolling_restart_one_failed  rolling_restart with the POST of the fleet's last server refused (400): a failed
                   batch, whose fail step runs on every host (its floor: one more no-op)
  maintenance      the role over the whole fleet in one batch (restart_after 0), run_once
  ensure_online    the role over the whole fleet in one batch, every server stopped first, run_once
  restart_fleet    the ready playbook: one batch, its canary (one server) restarted and confirmed
                   before the rest (rolling_restart_min_uptime 0, like the role rows)
  restart_fleet_defaults, maintenance_defaults
                   the ready playbooks as a newcomer runs them: no variable given, the connection
                   (base_url, rate_limit) only in the inventory file, the token only in the
                   environment (maintenance: the fleet up two days, past its default threshold)
  second_consumer  rolling_restart while another client spends half the plan's rate on the
                   same token (plain GETs at a steady pace); only at the largest Team row
  ids_second_consumer  the ids job beside the same other client; only at the largest Team row

``--repeat N`` runs each row's jobs N times in a row, each time with its own no-op row, then prints
for each job the wall time and the ratio to the floor as min / median / max.

``--profile`` prints under its row each task's wall time and the peak memory while it ran (a
callback in callback_plugins/ and the memory sampler's samples).

The real floor is what no client can beat: the fleet read (one request per page of 100) and N
requests to act, the first RATE of them at once and each further RATE a minute later (a token
that sent nothing in the last minute may spend its whole minute at once; in a sliding minute the
(RATE + 1)-th request cannot go before 60 s), then one check-in and one boot, then one confirming
read of the fleet, plus the no-op row measured in the same run. ``--agents real`` gives the agents
a 30 s check-in and a 60 s boot (the fast default: 2.5 s and 2 s). The per-host task also gets its fork floor:
max(ceil(N / forks) x (check-in + boot), the panel's part of the real floor) + the no-op, and
restart_fleet the floor of its canary: the true floor plus one more check-in and boot (the canary's,
which the rest of the fleet waits for).
Requests, 429s and restarts come from the emulator's counters; peak memory is the PSS of
ansible-playbook and all its processes (bench_fleet.MemorySampler); ``tasks`` counts the tasks the
run started, skipped ones included (every row is one batch: a role's tasks per batch). Nothing is asserted
about time.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import re
import statistics
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from bench_fleet import (  # pylint: disable=import-error
    ACCOUNT,
    BOOT_SECONDS,
    CHECKIN_SECONDS,
    COLLECTION_PLAY,
    NOOP_PLAY,
    PAGE_SIZE,
    PLANS,
    TOKEN,
    TOKEN_NAME,
    Bench,
    send_seconds,
)
from emulator.harness import EmulatorProcess  # noqa: E402  pylint: disable=wrong-import-position,import-error

DEFAULT_ROWS = ["60:pro:20", "60:team:20", "200:team:50", "200:pro:50", "1000:team:50"]
JOBS = [
    "noop",
    "ids",
    "task",
    "fast",
    "rolling_restart",
    "rolling_restart_checked_per_host",
    "rolling_restart_one_failed",
    "maintenance",
    "ensure_online",
    "restart_fleet",
    "restart_fleet_defaults",
    "maintenance_defaults",
    "second_consumer",
    "ids_second_consumer",
]

FAST_PLAY = """
- name: Restart the fleet, queue first and confirm after
  hosts: all
  gather_facts: false
  tasks:
    - name: Queue the restart
      gamepanel.panel.server_control:
        id: "{{ gamepanel_id }}"
        state: restarted
        wait: false
      register: queued

    - name: Confirm the restarts
      gamepanel.panel.server_control:
        id: "{{ gamepanel_id }}"
        state: restarted
        confirm_only: true
      when: queued.unconfirmed
"""


IDS_PLAY = """
- name: The fleet in one task
  hosts: all
  gather_facts: false
  tasks:
    - name: Restart every server of the play, one process for all
      gamepanel.panel.server_control:
        # the bench's inventory names hosts by their server id (hostname_source: id)
        ids: "{{ ansible_play_hosts }}"
        state: restarted
      run_once: true
"""


def role_play(role, variables, run_once=True):
    """The role over the whole fleet in one batch, given ``run_once`` as its README advises (or not)."""
    lines = "".join("    %s: %s\n" % (key, value) for key, value in variables.items())
    return (
        "- name: The %s role over the whole fleet in one batch\n  hosts: all\n  gather_facts: false\n"
        "  vars:\n%s  roles:\n    - role: gamepanel.panel.%s\n      run_once: %s\n" % (role, lines, role, run_once)
    )


def ready_play(name):
    return "- name: The ready playbook\n  ansible.builtin.import_playbook: gamepanel.panel.%s\n" % name


# The ready playbooks run as the README says: the connection in the inventory file, the token in
# the environment, every variable left at its default.
NEWCOMER_JOBS = ("restart_fleet_defaults", "maintenance_defaults")
UP_TWO_DAYS = 2 * 86400

PLAYS = {
    "ids": IDS_PLAY,
    "task": COLLECTION_PLAY,
    "fast": FAST_PLAY,
    "rolling_restart": role_play("rolling_restart", {"rolling_restart_min_uptime": 0}),
    # without run_once on the role: ansible-core's argument check on every host
    "rolling_restart_checked_per_host": role_play("rolling_restart", {"rolling_restart_min_uptime": 0}, run_once=False),
    "rolling_restart_one_failed": role_play("rolling_restart", {"rolling_restart_min_uptime": 0}),
    "maintenance": role_play("maintenance", {"maintenance_restart_after": 0}),
    "ensure_online": role_play("ensure_online", {}),
    "restart_fleet": ready_play("restart_fleet"),
    "restart_fleet_defaults": ready_play("restart_fleet"),
    "maintenance_defaults": ready_play("maintenance"),
    "second_consumer": role_play("rolling_restart", {"rolling_restart_min_uptime": 0}),
    "ids_second_consumer": IDS_PLAY,
}
CONSUMED_JOBS = ("second_consumer", "ids_second_consumer")
# A failed batch fails each failed host by a task over every host of the batch: Ansible's round over the hosts
# once more, so its floor holds the no-op twice.
FAILED_JOB = "rolling_restart_one_failed"
TASK_TIMES = Path(__file__).resolve().parent / "callback_plugins"


class SecondConsumer(threading.Thread):
    """Another client of the same token: GETs of one server at half the plan's rate until stopped."""

    def __init__(self, base_url, per_minute):
        super().__init__(daemon=True)
        self.url = base_url.rstrip("/") + "/servers/srv-00001"
        self.interval = 60.0 / per_minute
        self.stopping = threading.Event()
        self.sent = 0
        self.refused = 0

    def run(self):
        while not self.stopping.wait(self.interval):
            request = urllib.request.Request(self.url, headers={"Authorization": "Bearer " + TOKEN})
            try:
                with urllib.request.urlopen(request, timeout=5) as answer:  # noqa: S310 - the local emulator
                    answer.read()
            except urllib.error.HTTPError as error:
                self.refused += error.code == 429
            except OSError:
                pass
            self.sent += 1

    def stop(self):
        self.stopping.set()
        self.join()


UP_AN_HOUR = 3600
# Agent timing: the emulator's fast agents, or agents that behave like real ones.
AGENTS = {"fast": (CHECKIN_SECONDS, BOOT_SECONDS), "real": (30.0, 60.0)}


class EngineBench(Bench):
    agents = "fast"
    profile = False

    def profile_env(self):
        if not self.profile:
            return None
        return {"ANSIBLE_CALLBACK_PLUGINS": str(TASK_TIMES), "ANSIBLE_CALLBACKS_ENABLED": "task_times"}

    def print_task_times(self, log_name):
        """Each task's wall time and the peak memory (PSS of the process tree) sampled while it ran."""
        with open(log_name, encoding="utf-8") as log:
            for line in log:
                if not line.startswith("TASK TIME"):
                    continue
                seconds, unused_unit, started, name = line[len("TASK TIME ") :].split(None, 3)
                begin, end = float(started), float(started) + float(seconds)
                during = [kib for when, kib in self.memory_samples if begin <= when < end]
                peak = "%6d MiB" % round(max(during) / 1024.0) if during else "     - MiB"
                print("#   %8s s  %s  %s" % (seconds, peak, name.rstrip()), flush=True)

    def prepare_fleet(self, plan, stopped=False, uptime=None):
        """A fresh emulator state: every server online, empty and up an hour (or stopped), the plan's rate.

        The hour keeps the fleet like one a restart job meets (rolling_restart leaves a server up
        less than its min_uptime, 600 s by default, alone): a server brought online seconds before
        the run can show, at the first confirming read, a new uptime equal to its old one to the
        second, a read that cannot tell and costs one more (Convergence.undecided).
        """
        self.prepare(plan)
        control = self.emulator.control
        checkin, boot = AGENTS[self.agents]
        control.settings(checkin_interval=checkin, checkin_jitter=0.0, boot_time=boot, stop_time=0.0)
        for server_id in self.fleet():
            if stopped:
                control.set_server(server_id, status="stopped", players=0)
            else:
                control.set_server(server_id, status="online", players=0, uptime_seconds=uptime or UP_AN_HOUR)

    def fleet(self):
        """The generated fleet of the bench's account (the fixture's own servers are not in the inventory's account)."""
        return [server["id"] for server in self.emulator.control.state()["servers"] if server["id"].startswith("srv-")]

    def run_job(self, job, size, plan, forks, noop_wall):
        stopped = job == "ensure_online"
        self.prepare_fleet(plan, stopped=stopped, uptime=UP_TWO_DAYS if job == "maintenance_defaults" else None)
        play = self.write("play.yml", NOOP_PLAY if job == "noop" else PLAYS[job])
        state_dir = Path(tempfile.mkdtemp(prefix="state-", dir=self.workdir))
        env = self.env(PLANS[plan], state_dir, self.profile_env())
        # the ready playbook's canary, then the rest of the fleet in one batch
        extra_vars = {"batch": size, "rolling_restart_min_uptime": 0} if job == "restart_fleet" else None
        self.inventory_text = None
        if job in NEWCOMER_JOBS:
            self.inventory_text = "plugin: gamepanel.panel.servers\nbase_url: %s\nrate_limit: %d\n" % (
                self.emulator.live_url,
                PLANS[plan],
            )
            for variable in ("GAMEPANEL_BASE_URL", "GAMEPANEL_RATE_LIMIT"):
                env.pop(variable)
        if job == FAILED_JOB:
            refused = "^/servers/%s/control$" % self.fleet()[-1]
            self.emulator.control.add_fault(kind="status", status=400, method="POST", path=refused, phase="before")
        consumer = None
        if job in CONSUMED_JOBS:
            consumer = SecondConsumer(self.emulator.live_url, PLANS[plan] / 2.0)
            consumer.start()
        wall, rc, peak_kib, log_name = self.timed_run(play, forks, env, extra_vars=extra_vars)
        if consumer is not None:
            consumer.stop()
        if self.profile:
            self.print_task_times(log_name)
        if rc != 0 and job != FAILED_JOB:
            self.keep_failed_servers(job, size, log_name)
        return self.engine_figures(job, size, plan, forks, wall, rc, peak_kib, noop_wall, consumer, log_name)

    def keep_failed_servers(self, job, size, log_name):
        """The emulator's view (agent, queue, history) of each server a failed run names, kept beside the log.

        A run that failed tells what the collection saw; this tells what the panel did, while the
        emulator that knows it is still up.
        """
        with open(log_name, encoding="utf-8") as log:
            named = sorted(set(re.findall(r"\b(srv-\d{5})(?:: |\]: FAILED)", log.read())))
        views = dict((server_id, self.emulator.control.server(server_id)) for server_id in named[:200])
        path = Path(self.workdir) / ("failed-%s-%d.json" % (job, size))
        path.write_text(json.dumps(views, indent=1))
        print("# %s at %d failed; the emulator's view of the %d servers it names: %s" % (job, size, len(views), path))

    def engine_figures(self, job, size, plan, forks, wall, rc, peak_kib, noop_wall, consumer, log_name):
        counters = self.emulator.control.counters()
        mine = sum(counters["requests"].get(TOKEN_NAME, {}).values())
        if consumer is not None:
            mine -= consumer.sent  # the other client's requests count for the token, not for the job
        fleet = self.fleet()
        acted = counters.get("actions_applied" if job == "ensure_online" else "restarts", {})
        row = {
            "job": job,
            "size": size,
            "plan": plan,
            "forks": forks,
            "rc": rc,
            "wall": round(wall, 1),
            "requests": mine,
            "requests_per_server": round(mine / float(size), 2),
            "http_429": counters.get("responses", {}).get("429", 0),
            "consumer_429": consumer.refused if consumer is not None else None,
            "by_endpoint": counters["requests"].get(TOKEN_NAME, {}),
            "peak_mib": round(peak_kib / 1024.0),
            "tasks": tasks_run(log_name),
            "log": log_name,
        }
        if job != "noop":
            floor = true_floor(size, plan, self.agents) + noop_wall
            row.update(
                once=sum(1 for server_id in fleet if acted.get(server_id, 0) == 1),
                twice=sum(1 for server_id in fleet if acted.get(server_id, 0) >= 2),
                never=sum(1 for server_id in fleet if acted.get(server_id, 0) == 0),
                floor=round(floor, 1),
                ratio=round(wall / floor, 2),
            )
            design_floor = job_design_floor(job, size, plan, forks, self.agents)
            if design_floor is not None:
                design_floor += noop_wall * (2 if job == FAILED_JOB else 1)
                row.update(design_floor=round(design_floor, 1), design_ratio=round(wall / design_floor, 2))
        return row


def tasks_run(log_name):
    """The tasks the run started, skipped ones included: each row here is one batch, so a role's tasks per batch.

    Every task costs Ansible its round over the hosts even when it does nothing; fewer tasks is the
    part of a job's time above the floor that the collection, not the panel, decides.
    """
    with open(log_name, encoding="utf-8") as log:
        return sum(1 for line in log if line.startswith("TASK ["))


def job_design_floor(job, size, plan, forks, agents):
    """The floor of a job whose design waits for agents more than once or runs a second round over the hosts (None
    for the others), without the no-op.

    One server_control task per host waits for its agent in every wave of ``forks`` hosts; the
    ready playbook's canary is sent, checked in, booted and confirmed before the rest is sent; a failed
    batch's floor is the true one, with the no-op counted twice by the caller.
    """
    checkin, boot = AGENTS[agents]
    if job == "task":
        return max(math.ceil(size / float(forks)) * (checkin + boot), true_floor(size, plan, agents))
    if job in ("restart_fleet", "restart_fleet_defaults"):
        return true_floor(size, plan, agents) + checkin + boot
    if job == FAILED_JOB:
        return true_floor(size, plan, agents)
    return None


def true_floor(size, plan, agents):
    """The panel's part of the real floor (bench_fleet.panel_floor) with the agents' timing, plus one confirming read.

    The confirming read of the fleet (one request per page) comes after the last check-in and boot:
    no client can show every outcome with less.
    """
    pages = -(-size // PAGE_SIZE)
    checkin, boot = AGENTS[agents]
    return send_seconds(2 * pages + size, PLANS[plan]) + checkin + boot


def format_row(row):
    def show(key, pattern="%s"):
        return "–" if row.get(key) is None else pattern % row[key]

    restarted = "–" if row.get("once") is None else "%d / %d / %d" % (row["once"], row["twice"], row["never"])
    design = "–" if row.get("design_floor") is None else "%.1f s, %.2f×" % (row["design_floor"], row["design_ratio"])
    return "| %s | %d | %s | %d | %.1f | %s | %s | %s | %d | %.2f | %s | %s | %d | %d | %d |" % (
        row["job"],
        row["size"],
        row["plan"],
        row["forks"],
        row["wall"],
        show("floor", "%.1f"),
        show("ratio", "%.2f×"),
        design,
        row["requests"],
        row["requests_per_server"],
        "%d%s" % (row["http_429"], "" if row.get("consumer_429") is None else " (other: %d)" % row["consumer_429"]),
        restarted,
        row["peak_mib"],
        row["tasks"],
        row["rc"],
    )


def spread(values):
    """``(min, median, max)`` of ``values``: how a figure of runs repeated in a row is reported."""
    return min(values), statistics.median(values), max(values)


def spread_lines(rows):
    """One line per job and row of the runs repeated in a row: wall and ratio to the floor, min / median / max."""
    runs = {}
    for row in rows:
        if row.get("ratio") is not None:
            runs.setdefault((row["job"], row["size"], row["plan"], row["forks"]), []).append(row)
    lines = []
    for (job, size, plan, forks), repeated in runs.items():
        walls = spread([row["wall"] for row in repeated])
        ratios = spread([row["ratio"] for row in repeated])
        lines.append(
            "# %s %d %s forks %d, %d runs in a row: wall %.1f / %.1f / %.1f s, ratio %.2f / %.2f / %.2f× (min / median / max), rc %s"
            % (
                job,
                size,
                plan,
                forks,
                len(repeated),
                walls[0],
                walls[1],
                walls[2],
                ratios[0],
                ratios[1],
                ratios[2],
                ",".join(str(row["rc"]) for row in repeated),
            )
        )
    return lines


HEADER = (
    "| job | N | plan | forks | wall s | true floor s | wall / floor | floor of its design, ratio | requests | per server "
    "| 429s | acted once / twice / never | peak MiB | tasks | rc |\n"
    "|---|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---|---:|---:|---:|"
)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--rows", nargs="+", default=DEFAULT_ROWS, help="N:plan:forks, e.g. 200:team:50")
    parser.add_argument("--jobs", nargs="+", default=JOBS, choices=JOBS)
    parser.add_argument("--json", help="also write every figure to this file")
    parser.add_argument("--agents", choices=sorted(AGENTS), default="fast", help="agent timing (real: 30 s, 60 s)")
    parser.add_argument("--keep", help="keep the working files here")
    parser.add_argument("--profile", action="store_true", help="print each task's wall time of every run")
    parser.add_argument(
        "--repeat", type=int, default=1, help="run each row's jobs this many times in a row (each with its no-op)"
    )
    parser.add_argument("--quick", action="store_true", help="accepted for make bench; the rows say what runs")
    return parser.parse_args()


def main():
    args = parse_args()
    workdir = args.keep or tempfile.mkdtemp(prefix="bench-engine-")
    Path(workdir).mkdir(parents=True, exist_ok=True)
    bench = EngineBench(args, workdir)
    bench.agents = args.agents
    bench.profile = args.profile
    print(
        "# bench_fleet_engine %s agents, %s, load average %s, %s, Python %s, %d CPUs"
        % (
            args.agents,
            time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            " ".join("%.1f" % value for value in os.getloadavg()),
            platform.platform(),
            platform.python_version(),
            os.cpu_count() or 0,
        )
    )
    print(HEADER, flush=True)
    rows = [(int(size), plan, int(forks)) for size, plan, forks in (spec.split(":") for spec in args.rows)]
    largest_team = max((size for size, plan, unused in rows if plan == "team"), default=None)
    for size, plan, forks in rows:
        with EmulatorProcess(fleet_size=size) as emulator:
            bench.emulator = emulator
            for unused_run in range(max(1, args.repeat)):
                noop = bench.run_job("noop", size, plan, forks, 0.0)
                bench.rows.append(noop)
                print(format_row(noop), flush=True)
                for job in args.jobs:
                    if job == "noop" or (job in CONSUMED_JOBS and (plan != "team" or size != largest_team)):
                        continue
                    row = bench.run_job(job, size, plan, forks, noop["wall"])
                    bench.rows.append(row)
                    print(format_row(row), flush=True)
    if args.repeat > 1:
        for line in spread_lines(bench.rows):
            print(line)
    print("# done, load average %s; working files in %s" % (" ".join("%.1f" % v for v in os.getloadavg()), workdir))
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": bench.rows, "account": ACCOUNT}, indent=1))


if __name__ == "__main__":
    main()
