# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""End-to-end tests of the fleet watcher: a real ansible-rulebook against the emulator (make eda-test).

pytest runs in .venv/test-ansible-2.19 (the emulator, the collection's module_utils);
ansible-rulebook, ansible-galaxy and ansible-playbook come from the virtual environment
named by $GAMEPANEL_EDA_VENV (make sets it to .venv/eda), and the collection from
$GAMEPANEL_TEST_COLLECTIONS_PATH, the built and installed tarball, as a user has it.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
import uuid
from pathlib import Path

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
TOKEN = "gp-test-owner-control"


def eda_bin() -> Path:
    venv = os.environ.get("GAMEPANEL_EDA_VENV") or str(REPO_ROOT / ".venv" / "eda")
    path = Path(venv) / "bin"
    if not (path / "ansible-rulebook").exists():
        pytest.fail("ansible-rulebook is not installed in %s: run make eda-test (it builds .venv/eda)" % venv)
    return path


def collections_path() -> str:
    configured = os.environ.get("GAMEPANEL_TEST_COLLECTIONS_PATH")
    if not configured:
        pytest.fail("GAMEPANEL_TEST_COLLECTIONS_PATH is not set: run make eda-test (it installs the built collection)")
    return configured


RUN_MARKER = "GAMEPANEL_EDA_TEST_RUN"


def marked_processes(name: str, value: str) -> list[int]:
    """The pids of this user's processes whose environment has ``name=value``."""
    wanted = ("%s=%s" % (name, value)).encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue  # gone, or not ours
        if wanted in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


class Rulebook:
    """One ansible-rulebook process (its own process group), its output in files, stopped by its pid."""

    def __init__(
        self,
        workdir: Path,
        base_url: str,
        variables: dict,
        env: dict | None = None,
        rulebook: str = "gamepanel.panel.keep_online",
        token: str = TOKEN,
        inventory: str = "plugin: gamepanel.panel.servers\n",
    ):
        self.workdir = workdir
        self.stdout_path = workdir / "rulebook.out"
        self.stderr_path = workdir / "rulebook.err"
        self.state_dir = workdir / "state"
        self.state_dir.mkdir(exist_ok=True)
        (workdir / "fleet.gamepanel.yml").write_text(inventory, encoding="utf-8")
        (workdir / "vars.yml").write_text(yaml.safe_dump(variables), encoding="utf-8")
        path = eda_bin()
        self.env = {key: value for key, value in os.environ.items() if not key.startswith(("ANSIBLE_", "GAMEPANEL_"))}
        self.env.update(
            {
                "PATH": "%s:%s" % (path, os.environ.get("PATH", "")),
                "ANSIBLE_COLLECTIONS_PATH": collections_path(),
                "ANSIBLE_HOME": str(workdir / "ansible-home"),
                "ANSIBLE_LOCAL_TEMP": str(workdir / "ansible-tmp"),
                "ANSIBLE_NOCOLOR": "1",
                "ANSIBLE_FORCE_COLOR": "0",
                "ANSIBLE_LOCALHOST_WARNING": "False",
                "GAMEPANEL_API_TOKEN": token,
                "GAMEPANEL_STATE_DIR": str(self.state_dir),
                "PYTHONUNBUFFERED": "1",
                # inherited by every process the rulebook starts, so that stop() finds them all
                RUN_MARKER: uuid.uuid4().hex,
            }
        )
        if base_url is not None:  # None: the panel is named in the inventory file only
            self.env["GAMEPANEL_BASE_URL"] = base_url
        self.env.update(env or {})
        self.command = [
            str(path / "ansible-rulebook"),
            "-r",
            rulebook,
            "-i",
            "fleet.gamepanel.yml",
            "--vars",
            "vars.yml",
            "-v",
        ]
        self.process = None
        self.started = None

    def start(self) -> "Rulebook":
        with open(self.stdout_path, "wb") as out, open(self.stderr_path, "wb") as err:
            self.process = subprocess.Popen(  # pylint: disable=consider-using-with
                self.command,
                cwd=self.workdir,
                env=self.env,
                stdout=out,
                stderr=err,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        self.started = time.monotonic()
        return self

    def stop(self) -> None:
        """SIGTERM to the group of the process this test started, then SIGKILL; then the playbooks it ran.

        ansible-runner starts each playbook in a session of its own, which outlives the rulebook
        when the rulebook is stopped: those are found by the marker in their environment.
        """
        if self.process is not None and self.process.poll() is None:
            for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
                try:
                    os.killpg(self.process.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    self.process.wait(timeout=wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
        for pid in marked_processes(RUN_MARKER, self.env[RUN_MARKER]):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def output(self) -> str:
        text = ""
        for path in (self.stdout_path, self.stderr_path):
            if path.exists():
                text += path.read_text(encoding="utf-8", errors="replace")
        return text

    def describe(self) -> str:
        return "command: %s\n--- output ---\n%s" % (" ".join(self.command), self.output()[-20000:])

    def wait_for(self, pattern: str, timeout: float, since: int = 0) -> re.Match:
        """The first match of ``pattern`` in the output after offset ``since``; fails the test on timeout or exit."""
        deadline = time.monotonic() + timeout
        compiled = re.compile(pattern)
        while True:
            match = compiled.search(self.output(), since)
            if match:
                return match
            if self.process.poll() is not None:
                pytest.fail(
                    "ansible-rulebook exited (%s) before %r\n%s" % (self.process.returncode, pattern, self.describe())
                )
            if time.monotonic() > deadline:
                pytest.fail("no %r within %s s\n%s" % (pattern, timeout, self.describe()))
            time.sleep(0.1)


@pytest.fixture
def rulebook(tmp_path):
    """Start ansible-rulebook with ``rulebook(base_url, variables, env=None, inventory=...)``; stopped (by pid) after the test."""
    started = []

    def start(base_url, variables, env=None, **kwargs):
        process = Rulebook(tmp_path, base_url, variables, env, **kwargs).start()
        started.append(process)
        return process

    yield start
    for process in started:
        process.stop()
