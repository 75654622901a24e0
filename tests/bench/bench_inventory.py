# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Benchmark: the servers inventory plugin versus a static YAML file with the same hosts.

One run starts the panel emulator with a large generated fleet, then times side by side:

* the plugin with no cache (it lists the fleet from the panel),
* the plugin with a warm cache (must make zero requests),
* the yaml inventory plugin reading a static file with the same hosts, groups and variables,
  written from the plugin's own output (the floor Ansible itself sets), once with Ansible's
  default plugin list and once with only the yaml plugin enabled.

Two commands are timed for each source: ``ansible-inventory --list`` (builds the inventory, then
resolves and prints every host's variables) and ``ansible all --list-hosts`` (builds the inventory
only: the cost a playbook pays at its start). Reported: wall times (median and best of --repeat
runs), the ratios plugin/static and the panel requests of every plugin run (emulator counters).

Nothing about timing is asserted: the figures go to tests/bench/RESULTS.md. The run does fail if
the static file does not describe the plugin's inventory, or if a warm-cache run makes a
request, since the comparison would then be meaningless.

Run: python tests/bench/bench_inventory.py [--fleet-size 10000] [--repeat 5] [--json FILE] [--keep DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))

from emulator.harness import EmulatorProcess  # noqa: E402  (needs tests/ on sys.path first)
from bench_setup import ansible_command, collections_path  # noqa: E402  pylint: disable=wrong-import-position

TOKEN = "gp-test-owner-control"  # Team plan account of the default fixture
TOKEN_NAME = "owner-control"
# High enough that neither the emulator nor the shared budget paces the benchmark.
UNTHROTTLED = 1000000

# Variables ansible-inventory adds itself; they are not part of what the plugin produced.
ANSIBLE_MAGIC = ("inventory_file", "inventory_dir")
# Figures the emulator moves with its clock.
LIVE_FIGURES = ("gamepanel_cpu", "gamepanel_memory_mb", "gamepanel_uptime_seconds")

LIST = "ansible-inventory --list"
LIST_HOSTS = "ansible all --list-hosts"


class UnsafeText(str):
    """A value the plugin marked unsafe for templating: written with the !unsafe tag, so the static
    file means exactly what the plugin produced (and costs the yaml plugin the same to load)."""


def _represent_unsafe(dumper, value):
    return dumper.represent_scalar("!unsafe", str(value))


YAML_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
yaml.add_representer(UnsafeText, _represent_unsafe, Dumper=YAML_DUMPER)


def requests_made(control):
    return sum(control.counters()["requests"].get(TOKEN_NAME, {}).values())


def command_line(kind, source):
    if kind == LIST:
        return [ansible_command("ansible-inventory"), "-i", str(source), "--list"]
    return [ansible_command("ansible"), "all", "-i", str(source), "--list-hosts"]


def run(kind, source, env):
    """Wall time of one command, and what it printed: the parsed listing, or the number of hosts."""
    started = time.perf_counter()
    completed = subprocess.run(command_line(kind, source), env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if completed.returncode != 0:
        raise SystemExit("%s on %s failed (rc %d):\n%s" % (kind, source, completed.returncode, completed.stderr))
    if kind == LIST:
        return elapsed, json.loads(completed.stdout)
    # "  hosts (N):" heads the output of --list-hosts.
    return elapsed, int(completed.stdout.split("(", 1)[1].split(")", 1)[0])


def measure(kind, label, source, env, repeat, control=None):
    """``repeat`` timed runs; ``control`` given: also the panel requests of each run."""
    times, requests, output = [], [], None
    for _attempt in range(repeat):
        before = requests_made(control) if control else 0
        elapsed, output = run(kind, source, env)
        times.append(elapsed)
        if control:
            requests.append(requests_made(control) - before)
    result = {
        "command": kind,
        "label": label,
        "median_s": round(statistics.median(times), 3),
        "best_s": round(min(times), 3),
        "runs_s": [round(value, 3) for value in times],
        "requests_per_run": requests if control else None,
        "hosts": len(output["_meta"]["hostvars"]) if kind == LIST else output,
    }
    return result, output


def with_unsafe_tags(value):
    """--list output values with ansible-core's {"__ansible_unsafe": ...} markers turned into UnsafeText."""
    if isinstance(value, dict):
        if set(value) == {"__ansible_unsafe"}:
            return UnsafeText(value["__ansible_unsafe"])
        return dict((key, with_unsafe_tags(item)) for key, item in value.items())
    if isinstance(value, list):
        return [with_unsafe_tags(item) for item in value]
    return value


def static_inventory(listing):
    """A yaml-plugin inventory holding exactly the hosts, groups and variables of a --list output."""
    hostvars = with_unsafe_tags(listing["_meta"]["hostvars"])
    groups = {}
    for name, group in listing.items():
        if name in ("_meta", "all", "ungrouped"):
            continue
        members = group.get("hosts", [])
        if name == "gamepanel":
            # Host variables are written once, under the group every host is in.
            groups[name] = {"hosts": dict((host, hostvars.get(host) or None) for host in members)}
        else:
            groups[name] = {"hosts": dict.fromkeys(members)}
    return {"all": {"children": groups}}


def comparable(listing, mask_live_figures=False):
    """--list output without the variables Ansible adds by itself, lists sorted.

    ``mask_live_figures`` drops the figures the emulator moves with its clock, for comparing
    listings taken at different moments.
    """
    listing = json.loads(json.dumps(listing))
    dropped = ANSIBLE_MAGIC + (LIVE_FIGURES if mask_live_figures else ())
    for variables in listing.get("_meta", {}).get("hostvars", {}).values():
        for name in dropped:
            variables.pop(name, None)
    for name, group in listing.items():
        if name != "_meta":
            for members in group.values():
                members.sort()  # the yaml plugin may list children in another order
    return listing


@contextlib.contextmanager
def working_directory(keep):
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        yield keep
    else:
        with tempfile.TemporaryDirectory(prefix="gamepanel-bench-") as temporary:
            yield temporary


def write(path, text):
    Path(path).write_text(text, encoding="utf-8")
    return path


def prepare_sources(workdir, env, control):
    """The plugin configurations and the static file; returns (sources, fill requests, listings)."""
    cold = write(Path(workdir) / "cold.gamepanel.yml", "plugin: gamepanel.panel.servers\n")
    cached = write(
        Path(workdir) / "cached.gamepanel.yml",
        yaml.safe_dump(
            {
                "plugin": "gamepanel.panel.servers",
                "cache": True,
                "cache_plugin": "ansible.builtin.jsonfile",
                "cache_connection": str(Path(workdir) / "cache"),
                "cache_timeout": 3600,
            }
        ),
    )
    before = requests_made(control)
    _elapsed, cached_listing = run(LIST, cached, env)  # fills the cache
    fill_requests = requests_made(control) - before
    _elapsed, cold_listing = run(LIST, cold, env)
    static = Path(workdir) / "static.yml"
    with open(static, "w", encoding="utf-8") as handle:
        yaml.dump(
            static_inventory(cold_listing),
            handle,
            Dumper=YAML_DUMPER,
            default_flow_style=False,
            allow_unicode=True,
            sort_keys=False,
        )
    return (cold, cached, static), fill_requests, (cold_listing, cached_listing)


def check_sources_agree(cold_listing, cached_listing, static_listing):
    if comparable(static_listing) != comparable(cold_listing):
        raise SystemExit("The static file does not give the plugin's inventory: the comparison would be meaningless.")
    # The cache was filled before the cold listing was taken: only the clock-driven figures may differ.
    if comparable(cached_listing, mask_live_figures=True) != comparable(cold_listing, mask_live_figures=True):
        raise SystemExit("The cached inventory differs from the live one.")


def benchmark(args, workdir, emulator):
    control = emulator.control
    control.settings(rate_limits={"pro": UNTHROTTLED, "team": UNTHROTTLED})
    env = dict(
        os.environ,
        ANSIBLE_COLLECTIONS_PATH=collections_path(workdir),
        GAMEPANEL_API_TOKEN=TOKEN,
        GAMEPANEL_BASE_URL=emulator.live_url,
        GAMEPANEL_RATE_LIMIT=str(UNTHROTTLED),
        GAMEPANEL_STATE_DIR=str(Path(workdir) / "state"),
        ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED="true",
    )
    # Ansible's default plugin list tries the auto plugin first, which reads the whole static file
    # once more before the yaml plugin does; with only the yaml plugin enabled the file costs less.
    yaml_only_env = dict(env, ANSIBLE_INVENTORY_ENABLED="ansible.builtin.yaml")
    (cold, cached, static), fill_requests, (cold_listing, cached_listing) = prepare_sources(workdir, env, control)

    results = {}
    for kind in (LIST, LIST_HOSTS):
        run(kind, static, env)  # untimed: warms the OS file cache for the static file
        rows = [
            measure(kind, "plugin, no cache", cold, env, args.repeat, control),
            measure(kind, "plugin, warm cache", cached, env, args.repeat, control),
            measure(kind, "static YAML file", static, env, args.repeat),
            measure(kind, "static, yaml plugin only", static, yaml_only_env, args.repeat),
        ]
        if kind == LIST:
            check_sources_agree(cold_listing, cached_listing, rows[2][1])
        results[kind] = [row for row, _output in rows]
        if any(results[kind][1]["requests_per_run"]):
            raise SystemExit("A warm-cache run made requests: %r" % (results[kind][1]["requests_per_run"],))
    return results, fill_requests, static.stat().st_size


def ratios(rows):
    by_label = dict((row["label"], row["median_s"]) for row in rows)
    return dict(
        ("%s / %s" % (plugin, static), round(by_label[plugin] / by_label[static], 2))
        for plugin in ("plugin, no cache", "plugin, warm cache")
        for static in ("static YAML file", "static, yaml plugin only")
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fleet-size", type=int, default=10000)
    parser.add_argument(
        "--repeat", type=int, default=5, help="timed runs per source and command (median and best reported)"
    )
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument(
        "--keep",
        metavar="DIR",
        help="write the configurations, static file and cache here and keep them "
        "(for profiling); default: a temporary directory, removed afterwards",
    )
    args = parser.parse_args(argv)

    with working_directory(args.keep) as workdir, EmulatorProcess(fleet_size=args.fleet_size) as emulator:
        results, fill_requests, static_bytes = benchmark(args, workdir, emulator)

    report = {
        "fleet_size": args.fleet_size,
        "repeat": args.repeat,
        "cache_fill_requests": fill_requests,
        "static_file_bytes": static_bytes,
        "results": results,
        "ratios": dict((kind, ratios(rows)) for kind, rows in results.items()),
        "python": platform.python_version(),
        "ansible_core": subprocess.run(
            [ansible_command("ansible"), "--version"], capture_output=True, text=True, check=False
        ).stdout.split("\n")[0],
        "machine": "%s, %d CPUs, load average %s at the end"
        % (platform.platform(), os.cpu_count() or 0, " ".join("%.1f" % load for load in os.getloadavg())),
    }
    print_report(report)
    if args.json:
        write(args.json, json.dumps(report, indent=2) + "\n")
    return 0


def print_report(report):
    print(
        "%d servers, %d timed runs per line; %s; Python %s; %s"
        % (report["fleet_size"], report["repeat"], report["ansible_core"], report["python"], report["machine"])
    )
    print(
        "static file: %.1f MB; requests to fill the cache: %d"
        % (report["static_file_bytes"] / 1e6, report["cache_fill_requests"])
    )
    for kind, rows in report["results"].items():
        print()
        print(kind)
        print("  %-26s %9s %9s %7s  %s" % ("source", "median s", "best s", "hosts", "panel requests per run"))
        for row in rows:
            requests = "n/a" if row["requests_per_run"] is None else row["requests_per_run"]
            print(
                "  %-26s %9.2f %9.2f %7d  %s" % (row["label"], row["median_s"], row["best_s"], row["hosts"], requests)
            )
        for name, value in report["ratios"][kind].items():
            print("  %s: %.2fx" % (name, value))


if __name__ == "__main__":
    sys.exit(main())
