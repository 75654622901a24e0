# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Benchmark: ``ansible-inventory --list`` through the servers plugin versus a static YAML file.

One run starts the panel emulator with a large generated fleet, then times side by side:

* the plugin with no cache (cold: it lists the fleet from the panel),
* the plugin with a warm cache (must make zero requests),
* the yaml inventory plugin reading a static file with the same hosts, groups and variables,
  written from the plugin's own output (the floor Ansible itself sets).

It reports wall times (median and best of --repeat runs), the ratios plugin/static and the
panel requests each plugin run made (from the emulator's counters). It asserts nothing
about timing: figures go to docs/performance.md. It does fail if the static file does not
describe the same inventory, or if a warm-cache run makes a request, because then the
comparison would be meaningless.

Run: python tests/bench/bench_inventory.py [--fleet-size 10000] [--repeat 5] [--json FILE]
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
sys.path.insert(0, str(REPO / 'tests'))

from emulator.harness import EmulatorProcess  # noqa: E402  (needs tests/ on sys.path first)

TOKEN = 'gp-test-owner-control'  # Team plan account of the default fixture
TOKEN_NAME = 'owner-control'
# High enough that neither the emulator nor the shared budget paces the benchmark.
UNTHROTTLED = 1000000

# Variables ansible-inventory adds itself; they are not part of what the plugin produced.
ANSIBLE_MAGIC = ('inventory_file', 'inventory_dir')
LIVE_FIGURES = ('gamepanel_cpu', 'gamepanel_memory_mb', 'gamepanel_uptime_seconds')


def ansible_inventory_command():
    beside_python = Path(sys.executable).with_name('ansible-inventory')
    return str(beside_python) if beside_python.exists() else 'ansible-inventory'


def collections_path(workdir):
    """The installed collection when the Makefile provides one, else a link tree to this checkout."""
    installed = os.environ.get('GAMEPANEL_TEST_COLLECTIONS_PATH')
    if installed:
        return installed
    if REPO.parent.name == 'gamepanel' and REPO.parent.parent.name == 'ansible_collections':
        return str(REPO.parent.parent.parent)
    tree = Path(workdir) / 'collections'
    namespace = tree / 'ansible_collections' / 'gamepanel'
    namespace.mkdir(parents=True)
    (namespace / 'panel').symlink_to(REPO, target_is_directory=True)
    return str(tree)


def requests_made(control):
    return sum(control.counters()['requests'].get(TOKEN_NAME, {}).values())


def run_inventory(source, env):
    """Wall time of one ``ansible-inventory --list`` and its parsed output."""
    started = time.perf_counter()
    completed = subprocess.run([ansible_inventory_command(), '-i', str(source), '--list'],
                               env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if completed.returncode != 0:
        raise SystemExit('ansible-inventory -i %s failed (rc %d):\n%s' % (source, completed.returncode, completed.stderr))
    return elapsed, json.loads(completed.stdout)


class UnsafeText(str):
    """A value the plugin marked unsafe for templating: written with the !unsafe tag, so the static
    file means exactly what the plugin produced (and costs the yaml plugin the same to load)."""


def _represent_unsafe(dumper, value):
    return dumper.represent_scalar('!unsafe', str(value))


YAML_DUMPER = getattr(yaml, 'CSafeDumper', yaml.SafeDumper)
yaml.add_representer(UnsafeText, _represent_unsafe, Dumper=YAML_DUMPER)


def with_unsafe_tags(value):
    """--list output values with ansible-core's {"__ansible_unsafe": ...} markers turned into UnsafeText."""
    if isinstance(value, dict):
        if set(value) == {'__ansible_unsafe'}:
            return UnsafeText(value['__ansible_unsafe'])
        return dict((key, with_unsafe_tags(item)) for key, item in value.items())
    if isinstance(value, list):
        return [with_unsafe_tags(item) for item in value]
    return value


def static_inventory(listing):
    """A yaml-plugin inventory holding exactly the hosts, groups and variables of a --list output."""
    hostvars = with_unsafe_tags(listing['_meta']['hostvars'])
    groups = {}
    for name, group in listing.items():
        if name in ('_meta', 'all', 'ungrouped'):
            continue
        members = group.get('hosts', [])
        if name == 'gamepanel':
            # Variables are written once, on the group every host is in.
            groups[name] = {'hosts': dict((host, hostvars.get(host) or None) for host in members)}
        else:
            groups[name] = {'hosts': dict.fromkeys(members)}
    return {'all': {'children': groups}}


def comparable(listing, mask_live_figures=False):
    """--list output without the variables Ansible adds by itself.

    ``mask_live_figures`` drops the figures the emulator moves with its clock (cpu, memory,
    uptime), for comparing listings taken at different moments.
    """
    listing = json.loads(json.dumps(listing))
    dropped = ANSIBLE_MAGIC + (LIVE_FIGURES if mask_live_figures else ())
    for variables in listing.get('_meta', {}).get('hostvars', {}).values():
        for name in dropped:
            variables.pop(name, None)
    for name, group in listing.items():
        if name != '_meta':
            for members in group.values():
                members.sort()  # the yaml plugin may list children in another order
    return listing


def measure(label, source, env, repeat, control, counts_requests=True):
    times = []
    requests = []
    listing = None
    for _attempt in range(repeat):
        before = requests_made(control) if counts_requests else 0
        elapsed, listing = run_inventory(source, env)
        times.append(elapsed)
        if counts_requests:
            requests.append(requests_made(control) - before)
    return {
        'label': label,
        'median_s': round(statistics.median(times), 3),
        'best_s': round(min(times), 3),
        'runs_s': [round(value, 3) for value in times],
        'requests_per_run': requests if counts_requests else None,
        'hosts': len(listing['_meta']['hostvars']),
    }, listing


@contextlib.contextmanager
def working_directory(keep):
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        yield keep
    else:
        with tempfile.TemporaryDirectory(prefix='gamepanel-bench-') as temporary:
            yield temporary


def write(path, text):
    Path(path).write_text(text, encoding='utf-8')
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--fleet-size', type=int, default=10000)
    parser.add_argument('--repeat', type=int, default=5, help='timed runs per variant (median and best are reported)')
    parser.add_argument('--json', help='also write the figures to this file')
    parser.add_argument('--keep', metavar='DIR', help='write the configurations, static file and cache here and keep them '
                        '(for profiling); default: a temporary directory, removed afterwards')
    args = parser.parse_args(argv)

    with working_directory(args.keep) as workdir, EmulatorProcess(fleet_size=args.fleet_size) as emulator:
        control = emulator.control
        control.settings(rate_limits={'pro': UNTHROTTLED, 'team': UNTHROTTLED})
        env = dict(
            os.environ,
            ANSIBLE_COLLECTIONS_PATH=collections_path(workdir),
            GAMEPANEL_API_TOKEN=TOKEN,
            GAMEPANEL_BASE_URL=emulator.live_url,
            GAMEPANEL_RATE_LIMIT=str(UNTHROTTLED),
            GAMEPANEL_STATE_DIR=str(Path(workdir) / 'state'),
            ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED='true',
            ANSIBLE_INVENTORY_UNPARSED_WARNING='true',
        )
        cold_config = write(Path(workdir) / 'cold.gamepanel.yml', 'plugin: gamepanel.panel.servers\n')
        cached_config = write(Path(workdir) / 'cached.gamepanel.yml', yaml.safe_dump({
            'plugin': 'gamepanel.panel.servers',
            'cache': True,
            'cache_plugin': 'ansible.builtin.jsonfile',
            'cache_connection': str(Path(workdir) / 'cache'),
            'cache_timeout': 3600,
        }))

        # One untimed run of each source first, so every timed run finds warm OS file caches.
        run_inventory(cold_config, env)
        before = requests_made(control)
        _elapsed, cached_listing = run_inventory(cached_config, env)
        fill_requests = requests_made(control) - before

        cold, cold_listing = measure('plugin, no cache', cold_config, env, args.repeat, control)
        warm, _listing = measure('plugin, warm cache', cached_config, env, args.repeat, control)

        static_path = Path(workdir) / 'static.yml'
        with open(static_path, 'w', encoding='utf-8') as handle:
            yaml.dump(static_inventory(cold_listing), handle, Dumper=YAML_DUMPER,
                      default_flow_style=False, allow_unicode=True, sort_keys=False)
        run_inventory(static_path, env)
        static, static_listing = measure('static YAML file', static_path, env, args.repeat, control, counts_requests=False)
        # Ansible's default plugin list tries the auto plugin first, which reads the whole file once
        # more before the yaml plugin does: with only the yaml plugin enabled, the file costs less.
        yaml_only_env = dict(env, ANSIBLE_INVENTORY_ENABLED='ansible.builtin.yaml')
        static_yaml_only, _listing = measure('static, yaml plugin only', static_path, yaml_only_env, args.repeat, control,
                                             counts_requests=False)

        if comparable(static_listing) != comparable(cold_listing):
            raise SystemExit('The static file does not give the plugin\'s inventory: the comparison would be meaningless.')
        # The cache was filled earlier than the cold listing: only the clock-driven figures may differ.
        if comparable(cached_listing, mask_live_figures=True) != comparable(cold_listing, mask_live_figures=True):
            raise SystemExit('The cached inventory differs from the live one.')
        if any(warm['requests_per_run']):
            raise SystemExit('A warm-cache run made requests: %r' % (warm['requests_per_run'],))

    report = {
        'fleet_size': args.fleet_size,
        'repeat': args.repeat,
        'cache_fill_requests': fill_requests,
        'static_file_bytes': static_path.stat().st_size if static_path.exists() else None,
        'results': [cold, warm, static, static_yaml_only],
        'ratio_cold_to_static': round(cold['median_s'] / static['median_s'], 2),
        'ratio_warm_to_static': round(warm['median_s'] / static['median_s'], 2),
        'ratio_cold_to_static_yaml_only': round(cold['median_s'] / static_yaml_only['median_s'], 2),
        'ratio_warm_to_static_yaml_only': round(warm['median_s'] / static_yaml_only['median_s'], 2),
        'python': platform.python_version(),
        'ansible_core': subprocess.run([ansible_inventory_command(), '--version'], capture_output=True, text=True,
                                       check=False).stdout.split('\n')[0],
        'machine': '%s, %d CPUs' % (platform.platform(), os.cpu_count() or 0),
    }
    print_report(report)
    if args.json:
        write(args.json, json.dumps(report, indent=2) + '\n')
    return 0


def print_report(report):
    print('ansible-inventory --list, %d servers, %d timed runs each (%s; Python %s; %s)' % (
        report['fleet_size'], report['repeat'], report['ansible_core'], report['python'], report['machine']))
    print('%-26s %10s %10s %10s  %s' % ('source', 'median s', 'best s', 'hosts', 'panel requests per run'))
    for result in report['results']:
        requests = result['requests_per_run']
        print('%-26s %10.3f %10.3f %10d  %s' % (result['label'], result['median_s'], result['best_s'], result['hosts'],
                                                 'n/a' if requests is None else requests))
    print('plugin (no cache) / static: %.2fx   (/ static, yaml plugin only: %.2fx)'
          % (report['ratio_cold_to_static'], report['ratio_cold_to_static_yaml_only']))
    print('plugin (warm cache) / static: %.2fx   (/ static, yaml plugin only: %.2fx)'
          % (report['ratio_warm_to_static'], report['ratio_warm_to_static_yaml_only']))
    print('requests to fill the cache: %d' % report['cache_fill_requests'])


if __name__ == '__main__':
    sys.exit(main())
