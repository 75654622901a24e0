# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``ansible`` fixture: run real ansible-playbook / ansible-inventory against the emulator.

See docs/development.md, "Test harness". Every run:

* uses the ``ansible-playbook`` / ``ansible-inventory`` next to the Python running pytest;
* sees the collection installed in ``$GAMEPANEL_TEST_COLLECTIONS_PATH`` (``make collection``
  installs the built tarball there), or the checkout's link tree when unset;
* starts from the caller's environment with every ``ANSIBLE_*`` and ``GAMEPANEL_*``
  variable removed, then gets ``ANSIBLE_COLLECTIONS_PATH``, ``GAMEPANEL_BASE_URL``,
  ``GAMEPANEL_API_TOKEN``, ``GAMEPANEL_STATE_DIR`` (per test), ``ANSIBLE_HOME`` and
  ``ANSIBLE_LOCAL_TEMP`` (per test), the harness_json stdout callback for playbooks,
  and this Python as ``ansible_python_interpreter``;
* runs in a per-test working directory, so no ``ansible.cfg`` of the checkout applies.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

INTEGRATION_DIR = Path(__file__).resolve().parent
REPO_ROOT = INTEGRATION_DIR.parents[1]
PLAYBOOK_DIR = INTEGRATION_DIR / "playbooks"
CALLBACK_DIR = INTEGRATION_DIR / "callback_plugins"
BIN_DIR = Path(sys.executable).parent
DEFAULT_TOKEN = "gp-test-owner-control"
DEFAULT_TIMEOUT = 300

_UNSET = object()


def collections_path() -> str:
    """The collections path every run sees: $GAMEPANEL_TEST_COLLECTIONS_PATH, else the checkout.

    The checkout is reached the way tests/conftest.py sets it up: directly when it sits
    under ansible_collections/gamepanel/panel, else through the .tmp/collections link tree.
    """
    configured = os.environ.get("GAMEPANEL_TEST_COLLECTIONS_PATH")
    if configured:
        return configured
    if REPO_ROOT.parts[-3:] == ("ansible_collections", "gamepanel", "panel"):
        return str(REPO_ROOT.parents[2])
    return str(REPO_ROOT / ".tmp" / "collections")


class HostResult(dict):
    """One host's result of one task: a plain dict, plus the ``host`` it ran on."""

    def __init__(self, host: str, data: dict):
        super().__init__(data)
        self.host = host


class Run:
    """The outcome of one ansible-playbook or ansible-inventory run."""

    def __init__(self, command: list[str], rc: int, stdout: str, stderr: str, document, duration: float):
        self.command = command
        self.rc = rc
        self.stdout = stdout
        self.stderr = stderr
        self.json = document
        self.duration = duration

    def __repr__(self) -> str:
        return f'<Run rc={self.rc} {" ".join(self.command)!r}>'

    def describe(self) -> str:
        """rc, command, stdout and stderr: for assertion messages."""
        return (
            f'command: {" ".join(self.command)}\nrc: {self.rc}\n'
            f"--- stdout ---\n{self.stdout}\n--- stderr ---\n{self.stderr}"
        )

    def results(self, task_name: str) -> list[HostResult]:
        """Per-host results of every task named ``task_name``, in the order they ran."""
        found = []
        for play in (self.json or {}).get("plays", []):
            for task in play.get("tasks", []):
                if task.get("task", {}).get("name") == task_name:
                    found.extend(HostResult(host, data) for host, data in task.get("hosts", {}).items())
        return found

    def result(self, task_name: str, host: str = "localhost") -> HostResult:
        """The result of the task ``task_name`` on ``host`` (the last one when it ran several times)."""
        matches = [item for item in self.results(task_name) if item.host == host]
        if not matches:
            raise KeyError(f"no result for task {task_name!r} on host {host!r}\n{self.describe()}")
        return matches[-1]


def parse_document(stdout: str):
    """Return the last JSON object printed on stdout at the start of a line, or None."""
    lines = stdout.splitlines()
    ends = [index for index, line in enumerate(lines) if line.rstrip() == "}"]
    starts = [index for index, line in enumerate(lines) if line.rstrip() == "{"]
    for end in reversed(ends):
        for start in reversed([index for index in starts if index < end]):
            try:
                return json.loads("\n".join(lines[start : end + 1]))
            except ValueError:
                continue
    return None


class AnsibleRunner:
    """What the ``ansible`` fixture returns."""

    def __init__(self, request: pytest.FixtureRequest, workdir: Path):
        self._request = request
        self.workdir = workdir
        self.state_dir = workdir / "state"
        self.home = workdir / "ansible-home"
        self.local_temp = workdir / "ansible-tmp"
        for path in (self.state_dir, self.home, self.local_temp):
            path.mkdir(parents=True, exist_ok=True)
        self._counter = 0

    # helpers

    @property
    def emulator(self):
        """The session's emulator (started on first use, so runs that name a base_url need none)."""
        return self._request.getfixturevalue("emulator")

    def _write(self, text: str, suffix: str) -> Path:
        self._counter += 1
        path = self.workdir / f"input-{self._counter}{suffix}"
        path.write_text(text, encoding="utf-8")
        return path

    @staticmethod
    def _is_text(value) -> bool:
        return isinstance(value, str) and "\n" in value

    @staticmethod
    def _resolve(path, *bases: Path) -> Path:
        candidate = Path(path)
        if candidate.is_absolute():
            return candidate
        for base in bases:
            if (base / candidate).exists():
                return base / candidate
        return bases[0] / candidate

    def environment(self, *, token=DEFAULT_TOKEN, base_url=None, variant=None, env=None, playbook=True) -> dict:
        """The environment of one run (see the module docstring)."""
        run_env = {key: value for key, value in os.environ.items() if not key.startswith(("ANSIBLE_", "GAMEPANEL_"))}
        if base_url is None:
            base_url = self.emulator.planned_url if variant == "planned" else self.emulator.live_url
        run_env.update(
            {
                "ANSIBLE_COLLECTIONS_PATH": collections_path(),
                "ANSIBLE_COLLECTIONS_SCAN_SYS_PATH": "False",
                "ANSIBLE_HOME": str(self.home),
                "ANSIBLE_LOCAL_TEMP": str(self.local_temp),
                "ANSIBLE_LOCALHOST_WARNING": "False",
                "ANSIBLE_INVENTORY_UNPARSED_WARNING": "False",
                "ANSIBLE_RETRY_FILES_ENABLED": "False",
                "ANSIBLE_NOCOLOR": "True",
                "ANSIBLE_FORCE_COLOR": "False",
                "GAMEPANEL_BASE_URL": base_url,
                "GAMEPANEL_STATE_DIR": str(self.state_dir),
                "PYTHONUNBUFFERED": "1",
            }
        )
        if playbook:
            run_env.update(
                {
                    "ANSIBLE_CALLBACK_PLUGINS": str(CALLBACK_DIR),
                    "ANSIBLE_STDOUT_CALLBACK": "harness_json",
                    "ANSIBLE_LOAD_CALLBACK_PLUGINS": "True",
                }
            )
        if token is not None:
            run_env["GAMEPANEL_API_TOKEN"] = token
        if variant is not None:
            run_env["GAMEPANEL_API_VARIANT"] = variant
        for key, value in (env or {}).items():
            if value is None:
                run_env.pop(key, None)
            else:
                run_env[key] = str(value)
        return run_env

    def _execute(self, command: list[str], run_env: dict, timeout: float, parse) -> Run:
        started = time.monotonic()
        try:
            completed = subprocess.run(
                command,
                env=run_env,
                cwd=self.workdir,
                capture_output=True,
                text=True,
                timeout=timeout,
                stdin=subprocess.DEVNULL,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:

            def text(value):
                return value.decode("utf-8", "replace") if isinstance(value, bytes) else (value or "")

            pytest.fail(
                f'timed out after {timeout}s: {" ".join(command)}\n--- stdout ---\n{text(exc.stdout)}'
                f"\n--- stderr ---\n{text(exc.stderr)}"
            )
        return Run(
            command,
            completed.returncode,
            completed.stdout,
            completed.stderr,
            parse(completed.stdout),
            time.monotonic() - started,
        )

    # the contract

    def playbook(
        self,
        playbook,
        *,
        token=DEFAULT_TOKEN,
        base_url=None,
        variant=None,
        extra_vars=None,
        env=None,
        check=False,
        diff=False,
        inventory=None,
        limit=None,
        verbosity=0,
        timeout=DEFAULT_TIMEOUT,
    ) -> Run:
        """Run ansible-playbook; ``playbook`` is a path (relative: under tests/integration/playbooks/) or YAML text."""
        if self._is_text(playbook):
            path = self._write(playbook, ".yml")
        else:
            path = self._resolve(playbook, PLAYBOOK_DIR, Path.cwd())
        command = [str(BIN_DIR / "ansible-playbook"), str(path)]
        if inventory is not None:
            command += ["-i", self._inventory_source(inventory)]
        command += ["-e", json.dumps({"ansible_python_interpreter": sys.executable})]
        if extra_vars:
            command += ["-e", json.dumps(extra_vars) if isinstance(extra_vars, dict) else str(extra_vars)]
        if check:
            command.append("--check")
        if diff:
            command.append("--diff")
        if limit:
            command += ["--limit", limit if isinstance(limit, str) else ",".join(limit)]
        if verbosity:
            command.append("-" + "v" * verbosity)
        run_env = self.environment(token=token, base_url=base_url, variant=variant, env=env)
        return self._execute(command, run_env, timeout, parse_document)

    def _inventory_source(self, inventory) -> str:
        if isinstance(inventory, (list, tuple)):
            return ",".join(inventory) + ","
        if self._is_text(inventory):
            suffix = ".gamepanel.yml" if "gamepanel.panel.servers" in inventory else ".yml"
            return str(self._write(inventory, suffix))
        if isinstance(inventory, str) and "," in inventory:
            return inventory
        return str(self._resolve(inventory, PLAYBOOK_DIR, INTEGRATION_DIR, Path.cwd()))

    def inventory(
        self,
        config,
        *,
        args=("--list",),
        token=DEFAULT_TOKEN,
        base_url=None,
        variant=None,
        env=None,
        timeout=DEFAULT_TIMEOUT,
    ) -> Run:
        """Run ansible-inventory on ``config``: a path or the YAML text of a ``*.gamepanel.yml`` file."""
        if self._is_text(config):
            path = self._write(config, ".gamepanel.yml")
        else:
            path = self._resolve(config, INTEGRATION_DIR / "inventory", PLAYBOOK_DIR, INTEGRATION_DIR, Path.cwd())
        command = [str(BIN_DIR / "ansible-inventory"), "-i", str(path)] + list(args)
        run_env = self.environment(token=token, base_url=base_url, variant=variant, env=env, playbook=False)

        def parse(stdout):
            if "--list" not in args:
                return None
            try:
                return json.loads(stdout)
            except ValueError:
                return None

        return self._execute(command, run_env, timeout, parse)


@pytest.fixture
def ansible(request, tmp_path):
    """A runner for real ansible-playbook / ansible-inventory runs (see AnsibleRunner)."""
    return AnsibleRunner(request, tmp_path)
