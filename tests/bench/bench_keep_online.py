# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""keep_online at fleet scale: a mass outage recovered, and the watcher's share of the budget.

    python tests/bench/bench_keep_online.py [--cases 1000:100,10000:1000] [--interval 5] [--quiet 60]

For each case SIZE:DOWN, starts its own emulator with SIZE servers (Team, 600 requests a
minute, the list in pages of 100, the emulator's fast agents), every server online for an hour,
and a real ansible-rulebook running gamepanel.panel.keep_online (keep_online_interval
``--interval``; the rate_limit of 600 written in the inventory file). It measures:

* the watcher's requests a minute over ``--quiet`` seconds with nothing happening, against its
  budget share (0.25 x 600 = 150 a minute);
* one ensure_online run over DOWN stopped servers, run by hand beforehand (the "one playbook
  run" of the target);
* then DOWN servers go offline at once: the seconds until every one of them is online again,
  against 2 x (interval + check-in + boot + that run); how many ensure_online runs; whether each
  server got exactly one start; the panel's 429 answers.

ansible-rulebook comes from $GAMEPANEL_EDA_VENV (default .venv/eda), the collection from
$GAMEPANEL_TEST_COLLECTIONS_PATH (make bench sets it). Bounded: every wait has a deadline.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "eda"))
# tests/conftest.py makes ansible_collections.gamepanel.panel importable from this checkout.
import conftest  # noqa: E402,F401  pylint: disable=wrong-import-position,unused-import

from emulator.harness import EmulatorProcess  # noqa: E402  pylint: disable=wrong-import-position

RATE = 600  # Team
PAGE_SIZE = 100
CHECKIN_SECONDS = 0.2  # the emulator's fast agents (tests/emulator/fixture.py)
BOOT_SECONDS = 0.3
INVENTORY = "plugin: gamepanel.panel.servers\nrate_limit: %d\n" % RATE


def load_rulebook_class():
    import importlib.util

    spec = importlib.util.spec_from_file_location("eda_conftest", HERE.parent / "eda" / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Rulebook


def wait_until(predicate, timeout, what, pause=0.5):
    """Poll ``predicate`` every ``pause`` s (a read of the whole fleet's state is not free at 10,000)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(pause)
    raise SystemExit("%s did not happen within %s s" % (what, timeout))


def list_reads(control):
    return control.counters()["requests"].get("owner-control", {}).get("live GET /servers", 0)


def statuses(control, ids):
    wanted = set(ids)
    return [server["status"] for server in control.state()["servers"] if server["id"] in wanted]


def bring_online(control, size):
    """Every server of the generated fleet online for an hour (it has every tenth offline, a few installing)."""
    for number in range(1, size + 1):
        if number % 10 == 0 or number % 97 == 0:
            control.set_server("srv-%05d" % number, status="online", uptime_seconds=3600)


def timed_playbook_run(rulebook, ids):
    """One ensure_online run over ``ids`` by hand, with the rulebook's environment: its seconds."""
    started = time.monotonic()
    completed = subprocess.run(
        [
            os.path.join(os.path.dirname(rulebook.command[0]), "ansible-playbook"),
            "gamepanel.panel.ensure_online",
            "-i",
            "fleet.gamepanel.yml",
            "-e",
            "target_ids=%s" % ",".join(ids),
        ],
        cwd=rulebook.workdir,
        env=rulebook.env,
        capture_output=True,
        text=True,
        check=False,
    )
    if completed.returncode != 0:
        raise SystemExit("the ensure_online run by hand failed:\n%s" % completed.stdout[-5000:])
    return time.monotonic() - started


def run_case(size, down, interval, quiet):
    rulebook_class = load_rulebook_class()
    ids = ["srv-%05d" % number for number in range(1, size + 1) if number % 10 and number % 97][:down]
    with tempfile.TemporaryDirectory() as work, EmulatorProcess(fleet_size=size) as emulator:
        control = emulator.control
        control.settings(live_list_style="paged_body", page_size=PAGE_SIZE, rate_limits={"team": RATE})
        bring_online(control, size)
        rulebook = rulebook_class(
            Path(work),
            emulator.live_url,
            {"keep_online_interval": interval, "keep_online_wait_timeout": 600},
            env={"GAMEPANEL_RATE_LIMIT": str(RATE)},
            inventory=INVENTORY,
        ).start()
        try:
            rulebook.wait_for(r"baseline read \(%d servers\)" % size, timeout=600)

            # the watcher alone, nothing happening: its requests a minute
            before, started = list_reads(control), time.monotonic()
            time.sleep(quiet)
            per_minute = (list_reads(control) - before) * 60.0 / (time.monotonic() - started)

            # one playbook run over the same number of stopped servers, by hand (its servers are
            # not the outage's: the watcher sees them go down and starts them too, once)
            others = ["srv-%05d" % number for number in range(size, 0, -1) if number % 10 and number % 97][:down]
            for server_id in others:
                control.set_server(server_id, status="offline", uptime_seconds=0)
            one_run = timed_playbook_run(rulebook, others)
            wait_until(lambda: set(statuses(control, others)) == {"online"}, 600, "the hand run's servers online")
            time.sleep(2 * interval)  # the watcher saw them online: their hand-outs are over
            runs_before = len(re.findall(r"ensure_online: \d+ server\(s\)", rulebook.output()))
            posts_before = dict(control.counters()["posts"])

            down_at = time.monotonic()
            for server_id in ids:
                control.set_server(server_id, status="offline", uptime_seconds=0)
            wait_until(lambda: set(statuses(control, ids)) == {"online"}, 1200, "the outage's servers online")
            recovered = time.monotonic() - down_at
            time.sleep(2 * interval)  # more reads: nothing else may be started
            counters = control.counters()
            runs = re.findall(r"ensure_online: (\d+) server\(s\)", rulebook.output())[runs_before:]
        finally:
            rulebook.stop()
    starts = [counters["posts"].get(server_id, 0) - posts_before.get(server_id, 0) for server_id in ids]
    floor = interval + CHECKIN_SECONDS + BOOT_SECONDS + one_run
    return {
        "size": size,
        "down": down,
        "watcher_per_minute": per_minute,
        "one_run": one_run,
        "recovered": recovered,
        "target": 2 * floor,
        "runs": runs,
        "once": all(count == 1 for count in starts),
        "starts": sum(starts),
        "rate_limited": counters["rate_limited"],
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--cases", default="1000:100")
    parser.add_argument("--interval", type=float, default=5.0)
    parser.add_argument("--quiet", type=float, default=60.0)
    args = parser.parse_args()
    header = (
        "servers",
        "down",
        "watcher req/min",
        "share",
        "one run s",
        "recovered s",
        "target s",
        "runs",
        "once",
        "429",
    )
    print("%8s %6s %16s %6s %10s %12s %9s %12s %5s %4s" % header)
    for case in args.cases.split(","):
        size, down = (int(part) for part in case.split(":"))
        result = run_case(size, down, args.interval, args.quiet)
        print(
            "%8d %6d %16.1f %6.2f %10.1f %12.1f %9.1f %12s %5s %4d"
            % (
                result["size"],
                result["down"],
                result["watcher_per_minute"],
                result["watcher_per_minute"] / RATE,
                result["one_run"],
                result["recovered"],
                result["target"],
                "+".join(result["runs"]),
                "yes" if result["once"] else "NO (%d)" % result["starts"],
                result["rate_limited"],
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
