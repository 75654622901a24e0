# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""README's cron recipe, taken from README as it is, run against the emulator: the token is in no
process's arguments and in no environment of the job while it runs.

The job is held in the middle of its run the emulator's way: the agent of the server it
restarts is disconnected, so the restart stays queued and the job keeps waiting for it until
the test has looked at every process and reconnects the agent.
"""

from __future__ import annotations

import os
import re
import secrets
import subprocess
from pathlib import Path

from background import wait_for_counters
from conftest import BIN_DIR

README = Path(__file__).resolve().parents[2] / "README.md"
# The paths of the recipe, each replaced by one of the test's own.
WORKDIR, TOKEN_FILE, LOCK, LOG = (
    "/srv/ansible",
    "/etc/gamepanel/token",
    "/run/lock/gamepanel-maintenance.lock",
    "/var/log/gamepanel-maintenance.log",
)


def cron_recipe():
    """(environment lines as a dict, the command) of README's crontab block."""
    section = README.read_text(encoding="utf-8").split("#### cron", 1)[1].split("\n#### ", 1)[0]
    (block,) = re.findall(r"```\n(.*?)```", section, flags=re.S)
    environment, commands = {}, []
    for line in block.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        assignment = re.match(r"^([A-Z_]+)=(.*)$", line)
        if assignment:
            environment[assignment.group(1)] = assignment.group(2)
        else:
            commands.append(line.split(None, 5)[5])  # after minute, hour, day, month, weekday
    (command,) = commands
    return environment, command


def job_processes(root_pid):
    """The pids of ``root_pid`` and every process below it."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open("/proc/%s/stat" % entry, encoding="utf-8", errors="replace") as handle:
                    parent = int(handle.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue  # a process that ended meanwhile
            children.setdefault(parent, []).append(int(entry))
    found, todo = [], [root_pid]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, ()))
    return found


def read_proc(pid, name):
    try:
        with open("/proc/%s/%s" % (pid, name), "rb") as handle:
            return handle.read()
    except OSError:
        return b""  # ended meanwhile, or another user's


def test_the_cron_recipe_keeps_the_token_out_of_every_command_line(ansible, emulator):
    token = "gp-cron-" + secrets.token_hex(12)
    emulator.control.create_token("acme", "olivia", "cron", "control", value=token)
    emulator.control.settings(checkin_interval=0.05, checkin_jitter=0)
    emulator.control.set_server("mc-02", uptime_seconds=200000)  # empty and up for more than a day
    emulator.control.disconnect("mc-02")  # its restart stays queued: the job waits for it
    environment, command = cron_recipe()
    assert environment["GAMEPANEL_API_TOKEN_FILE"] == TOKEN_FILE and "PATH" in environment, environment
    for path in (WORKDIR, LOCK, LOG):
        assert path in command, command

    workdir = ansible.workdir
    (workdir / "fleet.gamepanel.yml").write_text(
        "plugin: gamepanel.panel.servers\nbase_url: %s\n" % emulator.live_url, encoding="utf-8"
    )
    (workdir / "maintenance-vars.yml").write_text(
        "maintenance_max_players: 0\nmaintenance_poll_interval: 0.3\n", encoding="utf-8"
    )
    token_path = workdir / "token"
    token_path.write_text(token + "\n", encoding="utf-8")
    token_path.chmod(0o600)
    log = workdir / "maintenance.log"
    command = (
        command.replace(WORKDIR, str(workdir)).replace(LOCK, str(workdir / "maintenance.lock")).replace(LOG, str(log))
    )
    run_env = ansible.environment(token=None, playbook=False, env={"GAMEPANEL_BASE_URL": None})
    run_env.update(environment, GAMEPANEL_API_TOKEN_FILE=str(token_path))
    run_env["PATH"] = environment["PATH"].replace("/srv/ansible/venv/bin", str(BIN_DIR))

    job = subprocess.Popen(["/bin/sh", "-c", command], env=run_env, stdin=subprocess.DEVNULL)
    try:
        wait_for_counters(emulator, lambda counters: counters["posts"].get("mc-02"))
        # The job is running: its restart is queued and it polls for the outcome.
        arguments = dict((pid, read_proc(pid, "cmdline")) for pid in os.listdir("/proc") if pid.isdigit())
        holders = [pid for pid, cmdline in arguments.items() if token.encode() in cmdline]
        ours = job_processes(job.pid)
        playbook = [pid for pid in ours if b"gamepanel.panel.maintenance" in read_proc(pid, "cmdline")]
        leaked = [pid for pid in ours if token.encode() in read_proc(pid, "environ")]
    finally:
        emulator.control.reconnect("mc-02")
        try:
            rc = job.wait(timeout=300)
        except subprocess.TimeoutExpired:
            job.kill()  # the job's own process group is not ours to end; the shell is
            raise
    assert playbook, "no ansible-playbook process was found running the job"
    assert holders == [], "the token is in the arguments of %s" % holders
    assert leaked == [], "the token is in the environment of %s" % leaked
    output = log.read_text(encoding="utf-8")
    assert rc == 0, output
    assert emulator.control.counters()["restarts"].get("mc-02") == 1, output
    assert set(emulator.control.counters()["requests"]) == {"cron"}
    assert token not in output
