# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Start, stop and steer an emulator from Python. Standard library only.

with EmulatorProcess() as emulator:
    emulator.control.disconnect("mc-01")
    ...
"""

from __future__ import annotations

import http.client
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import typing as t
import urllib.parse

RUN_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "run.py")


class EmulatorError(RuntimeError):
    """The emulator could not be started, or a control call failed."""


class EmulatorControlError(EmulatorError):
    """A control call was refused; ``status`` and ``body`` hold the emulator's answer."""

    def __init__(self, message: str, status: int | None = None, body: t.Any = None) -> None:
        super().__init__(message)
        self.status = status
        self.body = body


class EmulatorControl:
    """Client of the /_emulator control interface (see docs/development.md)."""

    def __init__(self, control_url: str, timeout: float = 10.0) -> None:
        self.control_url = control_url.rstrip("/")
        self.timeout = timeout
        parsed = urllib.parse.urlsplit(self.control_url)
        self._netloc = parsed.netloc
        self._base_path = parsed.path

    def _call(self, method: str, path: str, body: dict[str, t.Any] | None = None) -> t.Any:
        # http.client rather than urllib: urllib would honour proxy variables from the
        # environment, and on recent Pythons builds an SSL context (loading every CA
        # certificate) for each opener, which costs more than the call itself.
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"Content-Type": "application/json"} if data is not None else {}
        connection = http.client.HTTPConnection(self._netloc, timeout=self.timeout)
        try:
            connection.request(method, self._base_path + path, body=data, headers=headers)
            response = connection.getresponse()
            status, raw = response.status, response.read()
        except (OSError, http.client.HTTPException) as error:
            raise EmulatorControlError(f"{method} {path} failed: {error}") from None
        finally:
            connection.close()
        if status < 400:
            return json.loads(raw or b"null")
        try:
            answer = json.loads(raw)
            message = answer["error"]["message"]
        except (ValueError, KeyError, TypeError):
            answer, message = raw, raw.decode("utf-8", "replace")
        raise EmulatorControlError(f"{method} {path} failed with {status}: {message}", status, answer)

    @staticmethod
    def _quote(value: str) -> str:
        return urllib.parse.quote(value, safe="")

    def reset(self) -> None:
        self._call("POST", "/reset")

    def state(self) -> dict[str, t.Any]:
        return self._call("GET", "/state")

    def counters(self) -> dict[str, t.Any]:
        return self._call("GET", "/counters")

    def settings(self, **settings: t.Any) -> dict[str, t.Any]:
        """Change settings (none given: just read them); returns every setting."""
        if not settings:
            return self._call("GET", "/settings")
        return self._call("POST", "/settings", settings)

    def server(self, server_id: str) -> dict[str, t.Any]:
        """One server as the panel shows it, plus its agent, queue, transition and history."""
        return self._call("GET", f"/servers/{self._quote(server_id)}")

    def set_server(self, server_id: str, **fields: t.Any) -> dict[str, t.Any]:
        return self._call("POST", f"/servers/{self._quote(server_id)}", fields)

    def disconnect(self, server_id: str) -> dict[str, t.Any]:
        return self._call("POST", f"/servers/{self._quote(server_id)}/disconnect")

    def reconnect(self, server_id: str) -> dict[str, t.Any]:
        return self._call("POST", f"/servers/{self._quote(server_id)}/reconnect")

    def checkin(self, server_id: str) -> dict[str, t.Any]:
        """Force one check-in of the server's agent now; the answer lists the actions it applied."""
        return self._call("POST", f"/servers/{self._quote(server_id)}/checkin")

    def advance(self, seconds: float) -> dict[str, t.Any]:
        return self._call("POST", "/advance", {"seconds": seconds})

    def create_token(
        self, account: str, user: str, name: str, scope: str, value: str | None = None, role: str | None = None
    ) -> str:
        """Create an API token and return its secret value (``role`` also adds or changes the user)."""
        spec = {"account": account, "user": user, "name": name, "scope": scope, "value": value}
        if role is not None:
            spec["role"] = role
        return self._call("POST", "/tokens", spec)["value"]

    def revoke_token(self, name: str) -> dict[str, t.Any]:
        return self._call("POST", f"/tokens/{self._quote(name)}/revoke")

    def set_account(self, account: str, plan: str | None = None, paid: bool | None = None) -> dict[str, t.Any]:
        body: dict[str, t.Any] = {}
        if plan is not None:
            body["plan"] = plan
        if paid is not None:
            body["paid"] = paid
        return self._call("POST", f"/accounts/{self._quote(account)}", body)

    def add_fault(self, **spec: t.Any) -> str:
        return self._call("POST", "/faults", spec)["id"]

    def faults(self) -> list[dict[str, t.Any]]:
        return self._call("GET", "/faults")["faults"]

    def clear_faults(self) -> None:
        self._call("DELETE", "/faults")


class EmulatorProcess:  # pylint: disable=too-many-instance-attributes
    """The emulator as a child process on a free loopback port."""

    def __init__(
        self,
        fixture: str | None = None,
        fleet_size: int | None = None,
        python: str = sys.executable,
        *,
        controls: bool = True,
        startup_timeout: float = 15.0,
        extra_args: t.Sequence[str] = (),
        stderr: t.Any = None,
    ) -> None:
        self.fixture = fixture
        self.fleet_size = fleet_size
        self.python = python
        self.controls = controls
        self.startup_timeout = startup_timeout
        self.extra_args = tuple(extra_args)
        self.stderr = stderr  # where the emulator's log goes (a file object); None: this process's stderr
        self.live_url: str | None = None
        self.planned_url: str | None = None
        self.control_url: str | None = None
        self.pid: int | None = None
        self.control: EmulatorControl | None = None
        self._process: subprocess.Popen | None = None
        self._reader: threading.Thread | None = None

    def command(self) -> list[str]:
        # --watch-stdin: the emulator stops when our end of its stdin closes, so it cannot outlive
        # this process even if we are killed before stop() runs.
        command = [self.python, RUN_SCRIPT, "--host", "127.0.0.1", "--port", "0", "--watch-stdin"]
        if self.fixture is not None:
            command += ["--fixture", os.fspath(self.fixture)]
        if self.fleet_size is not None:
            command += ["--fleet-size", str(self.fleet_size)]
        if not self.controls:
            command.append("--no-controls")
        return command + list(self.extra_args)

    def start(self) -> EmulatorProcess:
        if self._process is not None:
            raise EmulatorError("the emulator is already running")
        process = subprocess.Popen(  # pylint: disable=consider-using-with
            self.command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr
        )
        self._process = process
        lines: queue.Queue = queue.Queue()
        self._reader = threading.Thread(
            target=_forward_lines, args=(process.stdout, lines), name="emulator-stdout", daemon=True
        )
        self._reader.start()
        try:
            first = lines.get(timeout=self.startup_timeout)
        except queue.Empty:
            self.stop()
            raise EmulatorError(f"the emulator printed nothing within {self.startup_timeout} s") from None
        if not first:
            code = self.stop()
            raise EmulatorError(f"the emulator exited with code {code} before it was ready (see its stderr)")
        announcement = json.loads(first)
        self.live_url = announcement["live"]
        self.planned_url = announcement["planned"]
        self.control_url = announcement["control"]
        self.pid = announcement["pid"]
        self.control = EmulatorControl(self.control_url) if self.control_url else None
        return self

    def stop(self, timeout: float = 10.0) -> int | None:
        """SIGTERM, then SIGKILL if it does not go; returns the exit code."""
        process, self._process = self._process, None
        if process is None:
            return None
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=timeout)
        process.stdin.close()
        if self._reader is not None:
            # The reader sees end of file once the process is gone; then its pipe can be closed.
            self._reader.join(timeout=5)
            self._reader = None
        process.stdout.close()
        return process.returncode

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def __enter__(self) -> EmulatorProcess:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def _forward_lines(stream: t.IO[bytes], lines: queue.Queue) -> None:
    """Hand the first line over, then keep draining stdout so the child can never block on a full pipe."""
    first = stream.readline()
    lines.put(first.decode("utf-8").strip())
    while stream.read(65536):
        pass
