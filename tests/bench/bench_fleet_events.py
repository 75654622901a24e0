# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the fleet watcher (gamepanel.panel.fleet_events) costs: requests per minute and seconds per read.

    python tests/bench/bench_fleet_events.py [--sizes 60,1000] [--reads 10]

For each fleet size, starts its own emulator on 127.0.0.1 (``--fleet-size``), runs the source's
FleetEventSource in this process for ``--reads`` reads, with the panel listing the whole fleet in one
answer (``array``, the emulator's default) and then in pages of 100 (``paged_body``), and prints the
requests per read the panel counted, the requests per minute that makes at the default interval
(30 s) and the mean seconds per read. Bounded: a fixed number of reads per case.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
# tests/conftest.py makes ansible_collections.gamepanel.panel importable from this checkout.
import conftest  # noqa: E402,F401  pylint: disable=wrong-import-position,unused-import

from emulator.harness import EmulatorProcess  # noqa: E402  pylint: disable=wrong-import-position

TOKEN = "gp-test-owner-read"
INTERVAL = 30.0


def measure(emulator, style, reads):
    emulator.control.reset()
    emulator.control.settings(live_list_style=style, page_size=100, rate_limits={"team": 100000})
    fleet_events = importlib.import_module(
        "ansible_collections.gamepanel.panel.extensions.eda.plugins.event_source.fleet_events"
    )
    with tempfile.TemporaryDirectory() as state:
        os.environ["GAMEPANEL_STATE_DIR"] = state
        watcher = fleet_events.FleetEventSource(
            {"base_url": emulator.live_url, "api_token": TOKEN, "interval": 0.01, "rate_limit": 0}, environ={}
        )
        asyncio.run(watcher.run(asyncio.Queue(), reads=1))  # the baseline, through the source's loop
        started = time.monotonic()
        for _read in range(reads - 1):
            watcher.poll()  # one read and its change detection, as the loop runs it in its thread
        elapsed = (time.monotonic() - started) * reads / max(1, reads - 1)
    sent = sum(emulator.control.counters()["requests"].get("owner-read", {}).values())
    return sent / reads, elapsed / reads, len(watcher.changes.previous or ())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--sizes", default="60,1000")
    parser.add_argument("--reads", type=int, default=10)
    args = parser.parse_args()
    header = ("servers", "list style", "seen", "requests/read", "requests/min@30s", "s/read")
    print("%8s %-11s %8s %14s %16s %10s" % header)
    for size in [int(item) for item in args.sizes.split(",")]:
        with EmulatorProcess(fleet_size=size) as emulator:
            for style in ("array", "paged_body"):
                per_read, seconds, seen = measure(emulator, style, args.reads)
                row = (size, style, seen, per_read, per_read * 60 / INTERVAL, seconds)
                print("%8d %-11s %8d %14.1f %16.1f %10.3f" % row)


if __name__ == "__main__":
    main()
