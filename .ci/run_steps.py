# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run the steps of `make test`: timed, in parallel lanes, every failure reported at the end.

Usage (the Makefile's `test` target):
    python .ci/run_steps.py --make MAKE --setup venvs,collection,get-pip-standin \\
        --lane sanity,lint,galaxy-importer --lane docs-check,units,emulator-tests,integration

Setup steps run one after the other with their output shown as it comes; the first one that
fails ends the run. Then the lanes run side by side (each lane's steps one after the other),
every step as `MAKE STEP COLLECTION_FROZEN=1` with its output kept in .tmp/logs/STEP.log and
printed whole when the step ends, so the outputs of parallel steps never interleave. A line
every minute says what is still running. The run ends with a table of the steps and their
times, then `steps: N passed, N failed`; the exit code is 1 when any step failed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time

LOG_DIR = os.path.join(".tmp", "logs")
HEARTBEAT = 60.0


class Runner:
    """Steps, their outcomes and a lock for printing."""

    def __init__(self, make: list[str]):
        self.make = make
        self.results: list[tuple[str, str, float]] = []
        self.running: dict[str, float] = {}
        self.lock = threading.Lock()
        self.done = threading.Event()

    def say(self, text: str) -> None:
        """Print a block of lines at once."""
        with self.lock:
            sys.stdout.write(text if text.endswith("\n") else text + "\n")
            sys.stdout.flush()

    def record(self, step: str, ok: bool, took: float) -> None:
        """Remember a step's outcome."""
        with self.lock:
            self.results.append((step, "ok" if ok else "FAILED", took))
            self.running.pop(step, None)

    def setup_step(self, step: str, args: list[str]) -> bool:
        """Run one preparation step, output streamed."""
        self.say(f"\n===== make {step}")
        started = time.monotonic()
        rc = subprocess.call(self.make + args + [step])
        took = time.monotonic() - started
        self.record(step, rc == 0, took)
        self.say(f"===== make {step}: {'ok' if rc == 0 else 'FAILED'} in {took:.0f}s")
        return rc == 0

    def lane_step(self, step: str) -> bool:
        """Run one check, output captured, then printed whole."""
        path = os.path.join(LOG_DIR, f"{step}.log")
        started = time.monotonic()
        with self.lock:
            self.running[step] = started
        with open(path, "w", encoding="utf-8") as log:
            rc = subprocess.call(
                self.make + [step, "COLLECTION_FROZEN=1"],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        took = time.monotonic() - started
        with open(path, encoding="utf-8", errors="replace") as log:
            output = log.read()
        status = "ok" if rc == 0 else "FAILED"
        self.record(step, rc == 0, took)
        self.say(f"\n===== make {step}\n{output}===== make {step}: {status} in {took:.0f}s (log: {path})")
        return rc == 0

    def lane(self, steps: list[str]) -> None:
        """Run a lane's steps in order."""
        for step in steps:
            self.lane_step(step)

    def heartbeat(self) -> None:
        """Every minute, say what is still running."""
        while not self.done.wait(HEARTBEAT):
            now = time.monotonic()
            with self.lock:
                running = ", ".join(f"{step} ({now - started:.0f}s)" for step, started in self.running.items())
            if running:
                self.say(f"----- still running: {running}")


def main() -> int:
    """Run setup, then the lanes; print the summary."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--make", required=True, help="the make command")
    parser.add_argument("--setup", default="", help="comma-separated preparation steps")
    parser.add_argument("--lane", action="append", default=[], help="comma-separated steps run in order")
    options = parser.parse_args()

    os.makedirs(LOG_DIR, exist_ok=True)
    runner = Runner(options.make.split() + ["--no-print-directory"])
    started = time.monotonic()

    setup_ok = True
    for step in [s for s in options.setup.split(",") if s]:
        args = ["-j3", "--output-sync=target"] if step == "venvs" else []
        if not runner.setup_step(step, args):
            setup_ok = False
            break

    if setup_ok:
        lanes = [[s for s in lane.split(",") if s] for lane in options.lane]
        runner.say(f"\n===== running side by side: {' | '.join(' > '.join(lane) for lane in lanes)}")
        threads = [threading.Thread(target=runner.lane, args=(lane,)) for lane in lanes]
        beat = threading.Thread(target=runner.heartbeat, daemon=True)
        beat.start()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        runner.done.set()

    total = time.monotonic() - started
    failed = [result[0] for result in runner.results if result[1] != "ok"]
    lines = [f"\n===== summary (wall clock {total:.0f}s; lanes ran side by side)"]
    lines += [f"  {step:<16} {status:<7} {took:6.0f}s" for step, status, took in runner.results]
    if not setup_ok:
        lines.append("  (setup failed: the checks did not run)")
    lines.append(f"steps: {len(runner.results) - len(failed)} passed, {len(failed)} failed")
    if failed:
        lines.append("failed steps: " + " ".join(failed))
    runner.say("\n".join(lines))
    return 1 if failed or not setup_ok else 0


if __name__ == "__main__":
    sys.exit(main())
