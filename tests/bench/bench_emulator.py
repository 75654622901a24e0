# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Benchmark of the panel emulator with a 10,000-server fleet. Standard library only.

    python tests/bench/bench_emulator.py [--fleet-size 10000] [--threads 8] [--duration 5]

Starts its own emulator on 127.0.0.1, measures the latency of GET /servers (the whole fleet
in one answer) and the throughput of GET /servers/{id} from concurrent keep-alive clients,
prints the figures and stops the emulator. It talks to nothing but 127.0.0.1 and is bounded
in time (start-up, a fixed number of list reads, a fixed measuring window).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from emulator.harness import EmulatorProcess  # noqa: E402  pylint: disable=wrong-import-position

TOKEN = "gp-test-owner-read"  # acme's read-only token; --fleet-size replaces acme's fleet


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--fleet-size", type=int, default=10000)
    parser.add_argument("--list-runs", type=int, default=10, help="timed GET /servers reads (after one warm-up)")
    parser.add_argument("--threads", type=int, default=8, help="concurrent clients for GET /servers/{id}")
    parser.add_argument("--duration", type=float, default=5.0, help="seconds of GET /servers/{id} load")
    parser.add_argument("--json", action="store_true", help="also print the figures as one JSON line")
    return parser.parse_args()


def loopback_target(base_url: str) -> tuple[str, int, str]:
    parsed = urllib.parse.urlsplit(base_url)
    if parsed.hostname != "127.0.0.1":
        raise SystemExit(f"refusing to benchmark anything but 127.0.0.1, not {parsed.hostname}")
    return parsed.hostname, parsed.port, parsed.path


def get(connection: http.client.HTTPConnection, path: str) -> tuple[int, bytes]:
    connection.request("GET", path, headers={"Authorization": f"Bearer {TOKEN}"})
    response = connection.getresponse()
    return response.status, response.read()


def measure_list(host: str, port: int, base: str, runs: int, fleet_size: int) -> list[float]:
    connection = http.client.HTTPConnection(host, port, timeout=30)
    try:
        status, body = get(connection, f"{base}/servers")  # warm-up
        if status != 200 or len(json.loads(body)) != fleet_size:
            raise SystemExit(f"GET /servers answered {status} with an unexpected body")
        latencies = []
        for _attempt in range(runs):
            started = time.perf_counter()
            status, body = get(connection, f"{base}/servers")
            latencies.append(time.perf_counter() - started)
            if status != 200:
                raise SystemExit(f"GET /servers answered {status}")
        return latencies
    finally:
        connection.close()


def load_worker(host: str, port: int, base: str, ids: list[str], offset: int, stop_at: float, results: list) -> None:
    connection = http.client.HTTPConnection(host, port, timeout=10)
    done = errors = 0
    latencies = []
    index = offset
    try:
        while time.perf_counter() < stop_at:
            server_id = ids[index % len(ids)]
            index += 7
            started = time.perf_counter()
            try:
                status, _body = get(connection, f"{base}/servers/{server_id}")
            except (OSError, http.client.HTTPException):
                errors += 1
                connection.close()
                connection = http.client.HTTPConnection(host, port, timeout=10)
                continue
            latencies.append(time.perf_counter() - started)
            if status == 200:
                done += 1
            else:
                errors += 1
    finally:
        connection.close()
        results.append((done, errors, latencies))


def measure_throughput(
    host: str, port: int, base: str, fleet_size: int, threads: int, duration: float
) -> dict[str, float]:
    ids = [f"srv-{number:05d}" for number in range(1, fleet_size + 1)]
    results: list = []
    started = time.perf_counter()
    stop_at = started + duration
    workers = [
        threading.Thread(target=load_worker, args=(host, port, base, ids, n * 1000, stop_at, results))
        for n in range(threads)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=duration + 30)
    elapsed = time.perf_counter() - started
    done = sum(result[0] for result in results)
    errors = sum(result[1] for result in results)
    latencies = sorted(latency for result in results for latency in result[2])
    return {
        "requests": done,
        "errors": errors,
        "seconds": elapsed,
        "per_second": done / elapsed,
        "p50_ms": 1000 * latencies[len(latencies) // 2] if latencies else float("nan"),
        "p99_ms": 1000 * latencies[int(len(latencies) * 0.99)] if latencies else float("nan"),
    }


def main() -> int:
    args = parse_args()
    started = time.perf_counter()
    with EmulatorProcess(fleet_size=args.fleet_size) as emulator:
        startup = time.perf_counter() - started
        host, port, base = loopback_target(emulator.live_url)
        # The Team limit (600 a minute) would turn the load into 429s: lift it for the benchmark.
        emulator.control.settings(rate_limits={"team": 10**9})
        lists = measure_list(host, port, base, args.list_runs, args.fleet_size)
        load = measure_throughput(host, port, base, args.fleet_size, args.threads, args.duration)
    figures = {
        "fleet_size": args.fleet_size,
        "startup_seconds": round(startup, 3),
        "list_ms_median": round(1000 * statistics.median(lists), 1),
        "list_ms_min": round(1000 * min(lists), 1),
        "list_ms_max": round(1000 * max(lists), 1),
        "get_one_per_second": round(load["per_second"], 1),
        "get_one_requests": load["requests"],
        "get_one_errors": load["errors"],
        "get_one_p50_ms": round(load["p50_ms"], 2),
        "get_one_p99_ms": round(load["p99_ms"], 2),
        "threads": args.threads,
    }
    print(f"emulator start with {args.fleet_size} servers (harness, until ready): {figures['startup_seconds']:.3f} s")
    print(
        f"GET /servers ({args.fleet_size} servers, {args.list_runs} runs): median {figures['list_ms_median']} ms, "
        f"min {figures['list_ms_min']} ms, max {figures['list_ms_max']} ms"
    )
    print(
        f"GET /servers/{{id}} ({args.threads} keep-alive clients, {args.duration:g} s): {figures['get_one_per_second']} req/s, "
        f"p50 {figures['get_one_p50_ms']} ms, p99 {figures['get_one_p99_ms']} ms, {figures['get_one_errors']} errors"
    )
    if args.json:
        print(json.dumps(figures))
    return 0 if load["errors"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
