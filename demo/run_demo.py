# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Drive `make demo`: the collection against the bundled panel emulator, end to end.

1. start the emulator with its default fleet through the harness the tests use
   (tests/emulator/harness.py EmulatorProcess: a free port, stopped by its PID);
2. show the fleet as an inventory (ansible-inventory --graph on demo/fleet.gamepanel.yml);
3. report the fleet's status (the ready playbook gamepanel.panel.status);
4. run the rolling restart job, gamepanel.panel.restart_fleet (role gamepanel.panel.rolling_restart):
   two at a time, the first batch's first restart alone as its canary, skipping servers with players
   on, ending with its summary;
5. report the status again;
and always stop the emulator whatever happened (the harness also makes it exit when
this process dies: it watches its stdin).

Run it with the Python of a virtual environment that holds ansible-core, requests and
aiohttp, with ANSIBLE_COLLECTIONS_PATH pointing at an installed gamepanel.panel
(`make demo` does all of that).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The emulator's own harness starts and stops it, exactly as the test suites do.
sys.path.insert(0, str(ROOT / "tests"))
from emulator.harness import EmulatorError, EmulatorProcess  # noqa: E402  pylint: disable=wrong-import-position

WORK = ROOT / ".tmp" / "demo"
INVENTORY = ROOT / "demo" / "fleet.gamepanel.yml"
REPORT_DIR = WORK / "fleet-report"
PLUGINS = {
    "module gamepanel.panel.server_info": "plugins/modules/server_info.py",
    "module gamepanel.panel.server_control": "plugins/modules/server_control.py",
    "inventory plugin gamepanel.panel.servers": "plugins/inventory/servers.py",
    "playbook gamepanel.panel.status": "playbooks/status.yml",
    "playbook gamepanel.panel.restart_fleet": "playbooks/restart_fleet.yml",
    "role gamepanel.panel.rolling_restart": "roles/rolling_restart/tasks/main.yml",
}
DEMO_TOKEN = "gp-test-owner-control"  # the emulator's default fixture: account acme (Team plan), owner olivia


def banner(text: str) -> None:
    """Print a step heading."""
    print(f"\n==== {text}", flush=True)


def installed_collection() -> Path | None:
    """The gamepanel.panel found on ANSIBLE_COLLECTIONS_PATH, if any."""
    for entry in os.environ.get("ANSIBLE_COLLECTIONS_PATH", "").split(os.pathsep):
        if not entry:
            continue
        path = Path(entry)
        for base in (path / "ansible_collections", path):
            if base.name == "ansible_collections" and (base / "gamepanel" / "panel").is_dir():
                return base / "gamepanel" / "panel"
    return None


def check_collection() -> None:
    """Fail clearly when the collection, or a piece the demo needs, is missing."""
    collection = installed_collection()
    if collection is None:
        raise SystemExit(
            "demo: gamepanel.panel is not installed in ANSIBLE_COLLECTIONS_PATH "
            f'({os.environ.get("ANSIBLE_COLLECTIONS_PATH", "unset")}); run it with `make demo`.'
        )
    missing = [name for name, path in PLUGINS.items() if not (collection / path).is_file()]
    if missing:
        raise SystemExit(
            f'demo: the collection at {collection} lacks {", ".join(missing)}; ' "the demo needs them all."
        )


def run(command: list[str], env: dict[str, str]) -> None:
    """Run one step, showing its output; stop the demo when it fails."""
    print("$ " + " ".join(Path(part).name if index == 0 else part for index, part in enumerate(command)), flush=True)
    result = subprocess.run(command, env=env, cwd=ROOT, check=False, stdin=subprocess.DEVNULL)
    if result.returncode != 0:
        raise SystemExit(f'demo: step failed (exit {result.returncode}): {" ".join(command)}')


def write_report(playbook: str, env: dict[str, str]) -> None:
    """The last step: the HTML fleet report (gamepanel.panel.report), and where it is."""
    banner("fleet report (ansible-playbook gamepanel.panel.report, role gamepanel.panel.fleet_report)")
    run(
        [
            playbook,
            "gamepanel.panel.report",
            "-e",
            f"fleet_report_dest={REPORT_DIR}",
            "-e",
            '{"fleet_report_include": ["metrics", "resources"]}',
        ],
        env,
    )
    print(f"fleet report written: {REPORT_DIR / 'fleet-report.html'} (open it in a browser)", flush=True)


def main() -> int:
    """Run the demo; the exit code says whether every step worked."""
    bin_dir = Path(sys.executable).parent
    check_collection()
    WORK.mkdir(parents=True, exist_ok=True)
    emulator = EmulatorProcess(startup_timeout=30.0)
    started = time.monotonic()
    try:
        banner("starting the panel emulator (tests/emulator, through emulator.harness.EmulatorProcess)")
        try:
            emulator.start()
        except EmulatorError as error:
            raise SystemExit(f"demo: {error}") from None
        print(f"emulator pid {emulator.pid}, live API at {emulator.live_url}", flush=True)

        env = dict(os.environ)
        env.update(
            {
                "GAMEPANEL_BASE_URL": emulator.live_url,
                "GAMEPANEL_API_TOKEN": DEMO_TOKEN,
                "GAMEPANEL_RATE_LIMIT": "600",
                "GAMEPANEL_STATE_DIR": str(WORK / "state"),
                "ANSIBLE_LOCALHOST_WARNING": "False",
                "ANSIBLE_INVENTORY_UNPARSED_WARNING": "False",
                "ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED": "True",
                "ANSIBLE_RETRY_FILES_ENABLED": "False",
                "ANSIBLE_CALLBACK_RESULT_FORMAT": "yaml",
                "ANSIBLE_PYTHON_INTERPRETER": sys.executable,
            }
        )
        env.setdefault("ANSIBLE_HOME", str(WORK / "ansible-home"))
        playbook = str(bin_dir / "ansible-playbook")

        banner("the fleet as an inventory (gamepanel.panel.servers)")
        run([str(bin_dir / "ansible-inventory"), "-i", str(INVENTORY), "--graph"], env)

        banner("fleet status (ansible-playbook gamepanel.panel.status)")
        run([playbook, "-i", str(INVENTORY), "gamepanel.panel.status"], env)

        banner(
            "rolling restart: two at a time, a canary first, servers with players on skipped "
            "(ansible-playbook gamepanel.panel.restart_fleet)"
        )
        run(
            [
                playbook,
                "-i",
                str(INVENTORY),
                "gamepanel.panel.restart_fleet",
                "-e",
                "batch=2",
                "-e",
                "rolling_restart_max_players=0",
                "-e",
                "rolling_restart_poll_interval=0.5",
                "-e",
                "rolling_restart_wait_timeout=60",
            ],
            env,
        )

        banner("fleet status after the restart (ansible-playbook gamepanel.panel.status)")
        run([playbook, "-i", str(INVENTORY), "gamepanel.panel.status"], env)

        write_report(playbook, env)
    finally:
        pid = emulator.pid
        if emulator.stop() is not None:
            print(f"\n==== emulator (pid {pid}) stopped", flush=True)
    print(f"\ndemo finished in {time.monotonic() - started:.1f}s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
