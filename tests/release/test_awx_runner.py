# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A job run the way AWX / Automation Platform runs it: ansible-runner, a private data
directory, the inventory plugin as inventory source, and the API token injected only as
an environment variable by the collection's own credential type (extensions/awx/credential_type.yml).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
import yaml
from jinja2.sandbox import SandboxedEnvironment

REPO_ROOT = Path(__file__).resolve().parents[2]
CREDENTIAL_TYPE = REPO_ROOT / "extensions" / "awx" / "credential_type.yml"
PLAYBOOK = "gamepanel.panel.restart_fleet"
IDENT = "restart-fleet"
RUNNER_TIMEOUT = 600


def credential_type() -> dict:
    with CREDENTIAL_TYPE.open(encoding="utf-8") as stream:
        return yaml.safe_load(stream)


def inject(definition: dict, inputs: dict) -> dict[str, str]:
    """The environment a credential of this type gives a job: each env injector rendered
    with the credential's inputs, as AWX renders them (Jinja2, sandboxed)."""
    jinja = SandboxedEnvironment()
    return {
        name: jinja.from_string(template).render(**inputs) for name, template in definition["injectors"]["env"].items()
    }


def test_credential_type_shape():
    """The fields AWX asks for and the variables the collection reads, nothing else."""
    definition = credential_type()
    fields = {field["id"]: field for field in definition["inputs"]["fields"]}
    assert definition["kind"] == "cloud"
    assert set(fields) == {"token", "base_url", "variant"}
    assert fields["token"].get("secret") is True
    assert not any(fields[name].get("secret") for name in ("base_url", "variant"))
    assert fields["variant"]["choices"] == ["live", "planned"]
    assert set(definition["inputs"]["required"]) == {"token", "base_url", "variant"}
    assert set(definition["injectors"]) == {"env"}
    assert inject(definition, {"token": "t0k", "base_url": "https://p.example/v1", "variant": "planned"}) == {
        "GAMEPANEL_API_TOKEN": "t0k",
        "GAMEPANEL_BASE_URL": "https://p.example/v1",
        "GAMEPANEL_API_VARIANT": "planned",
    }


def private_data_dir(
    root: Path, credential_env: dict[str, str], job_env: dict[str, str], extravars=None, name="pdd"
) -> Path:
    """project/, inventory/ and env/ as AWX hands them to ansible-runner."""
    pdd = root / name
    (pdd / "project").mkdir(parents=True)
    (pdd / "inventory").mkdir()
    (pdd / "env").mkdir()
    (pdd / "inventory" / "fleet.gamepanel.yml").write_text("plugin: gamepanel.panel.servers\n", encoding="utf-8")
    (pdd / "env" / "envvars").write_text(yaml.safe_dump({**job_env, **credential_env}), encoding="utf-8")
    extravars = extravars or {"target": "gamepanel", "batch": 10}  # restart_fleet's own variables
    (pdd / "env" / "extravars").write_text(yaml.safe_dump(extravars), encoding="utf-8")
    return pdd


def inventory_hosts(ansible_inventory: Path, pdd: Path, env: dict[str, str]) -> set[str]:
    """Every host the inventory source yields (the job targets them all)."""
    listed = subprocess.run(
        [str(ansible_inventory), "-i", str(pdd / "inventory"), "--list"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return set(json.loads(listed.stdout)["_meta"]["hostvars"])


def job_events(artifacts: Path) -> list[dict]:
    events = []
    for path in sorted((artifacts / "job_events").glob("*.json")):
        with path.open(encoding="utf-8") as stream:
            events.append(json.load(stream))
    return events


def files_holding(directory: Path, secret: str) -> list[str]:
    """Every file under directory whose bytes contain secret (grep -rl)."""
    found = subprocess.run(["grep", "-rlF", "--", secret, str(directory)], capture_output=True, text=True, check=False)
    assert found.returncode in (0, 1), found.stderr
    return sorted(str(Path(line).relative_to(directory)) for line in found.stdout.splitlines())


@pytest.fixture
def runner_bin(tool) -> Path:
    return tool("runner", "ansible-runner").parent


def test_restart_fleet_under_ansible_runner(emulator, tmp_path, runner_bin, collections_path):
    """restart_fleet succeeds for every host, with the token known only to the job's environment."""
    token = emulator.control.create_token("acme", "olivia", "awx-credential", "control")
    emulator.control.settings(checkin_interval=0.05, checkin_jitter=0)
    credential_env = inject(credential_type(), {"token": token, "base_url": emulator.live_url, "variant": "live"})
    job_env = {
        # What the execution environment provides: the collection and a Python with requests.
        "ANSIBLE_COLLECTIONS_PATH": str(collections_path),
        "ANSIBLE_PYTHON_INTERPRETER": str(runner_bin / "python"),
        "ANSIBLE_HOME": str(tmp_path / "ansible-home"),
        "GAMEPANEL_STATE_DIR": str(tmp_path / "state"),
    }
    pdd = private_data_dir(tmp_path, credential_env, job_env)
    # The runner's own process gets no GAMEPANEL_* or ANSIBLE_* variable: only env/envvars carries them.
    base_env = {key: value for key, value in os.environ.items() if not key.startswith(("ANSIBLE_", "GAMEPANEL_"))}
    base_env["PATH"] = f"{runner_bin}{os.pathsep}{base_env.get('PATH', '')}"

    expected_hosts = inventory_hosts(runner_bin / "ansible-inventory", pdd, {**base_env, **job_env, **credential_env})
    assert len(expected_hosts) == 6
    requests_before = emulator.control.counters()["requests"].get("awx-credential", {})

    run, stdout = run_job(runner_bin, pdd, base_env, IDENT)
    artifacts = pdd / "artifacts" / IDENT
    assert run.returncode == 0, f"ansible-runner exited {run.returncode}\n{run.stderr}\n{stdout}"
    assert (artifacts / "rc").read_text(encoding="utf-8").strip() == "0"
    assert (artifacts / "status").read_text(encoding="utf-8").strip() == "successful"

    events = job_events(artifacts)
    assert events, "the job wrote no event"
    host_events = [event for event in events if event.get("event_data", {}).get("host")]
    # The role runs once per batch (run_once, as the ready playbook gives it): a batch's tasks run on
    # its first host, and every other host's outcome is recorded by a loop item delegated to it.
    seen = {event["event_data"]["host"] for event in host_events} | set(delegated_hosts(host_events))
    # Every server's host; besides them, at most the controller (plays that check the inventory).
    assert expected_hosts <= seen, f"no event for {sorted(expected_hosts - seen)}"
    assert seen - expected_hosts <= {"localhost"}, f"unexpected hosts {sorted(seen - expected_hosts)}"
    # ... and what AWX keeps of the job (fact storage): every host's outcome.
    cache = artifacts / "fact_cache"
    for host in expected_hosts:
        # ansible-runner's jsonfile cache names a host's file with a prefix of its own
        files = [path for path in cache.iterdir() if path.name == host or path.name.endswith("_" + host)]
        assert len(files) == 1, (host, sorted(path.name for path in cache.iterdir()))
        outcome = cached_fact(files[0], "gamepanel_outcome")
        assert outcome["result"] in ("restarted", "skipped"), (host, outcome)
    failed = [
        event["event_data"]["host"]
        for event in host_events
        if event["event"] in ("runner_on_failed", "runner_on_unreachable")
        and not event["event_data"].get("ignore_errors")
    ]
    assert not failed
    stats = [event for event in events if event["event"] == "playbook_on_stats"]
    assert stats and not stats[-1]["event_data"].get("failures") and not stats[-1]["event_data"].get("dark")

    # The job reached the panel with the credential's token, and restarted the online servers.
    requests_after = emulator.control.counters()["requests"].get("awx-credential", {})
    assert sum(requests_after.values()) > sum(requests_before.values())
    assert emulator.control.counters()["restarts"]

    # What the job produced, events, stdout, stderr, status, rc, fact cache, must not hold the token.
    # ansible-runner also keeps a record of how it started the job, `command`, holding the environment
    # it was given (env/envvars included, so the credential's variable): that file is runner's own
    # echo of its input, written readable by its owner only, and in AWX deleted with the private data
    # directory at the end of the job. The token may be there as the injected variable and nowhere else.
    holding = files_holding(artifacts, token)
    assert holding in ([], ["command"]), f"the token leaked into {holding}"
    command_file = artifacts / "command"
    assert stat.S_IMODE(command_file.stat().st_mode) == 0o600
    with command_file.open(encoding="utf-8") as stream:
        command = json.load(stream)
    assert command["env"].pop("GAMEPANEL_API_TOKEN") == token
    assert token not in json.dumps(command)
    assert token not in stdout and token not in run.stdout and token not in run.stderr


def delegated_hosts(events):
    """The hosts a delegated loop item named (a fact set on them), from the job's item events."""
    for event in events:
        if event["event"] == "runner_item_on_ok":
            delegated = (event["event_data"].get("res") or {}).get("_ansible_delegated_vars") or {}
            if delegated.get("ansible_delegated_host"):
                yield delegated["ansible_delegated_host"]


def cached_fact(path: Path, name: str):
    """One fact of a host's jsonfile fact cache file, as the next job will read it.

    Newer ansible-core writes the facts as a JSON string under ``__payload__`` and a list
    fact with its origin, as ``{"value": [...], "tags": ...}``.
    """
    document = json.loads(path.read_text(encoding="utf-8"))
    if "__payload__" in document:
        document = json.loads(document["__payload__"])
    value = document.get(name)
    return value["value"] if isinstance(value, dict) and "value" in value else value


def run_job(runner_bin: Path, pdd: Path, base_env: dict[str, str], ident: str):
    """One job: ansible-runner on the private data directory; returns (the finished process, the job's stdout)."""
    run = subprocess.run(
        [str(runner_bin / "ansible-runner"), "run", str(pdd), "--playbook", PLAYBOOK, "--ident", ident, "--quiet"],
        env=base_env,
        capture_output=True,
        text=True,
        timeout=RUNNER_TIMEOUT,
        check=False,
    )
    stdout_file = pdd / "artifacts" / ident / "stdout"
    return run, stdout_file.read_text(encoding="utf-8") if stdout_file.exists() else ""


def test_a_second_job_with_an_empty_state_directory_does_not_queue_again(
    emulator, tmp_path, runner_bin, collections_path
):
    """Two AWX jobs that share only the fact cache: what the first queued, the second does not queue again.

    Job 1 restarts a server whose agent is away: its wait runs out and the job fails, the
    restart queued. Job 2 runs in a new private data directory with an empty state directory
    (a fresh execution environment); only the fact cache, which AWX keeps between jobs when fact
    storage is on, is the same. It must send no second restart.
    """
    token = emulator.control.create_token("acme", "olivia", "awx-ledger", "control")
    emulator.control.settings(checkin_interval=0.05, checkin_jitter=0)
    emulator.control.disconnect("rust-01")
    credential_env = inject(credential_type(), {"token": token, "base_url": emulator.live_url, "variant": "live"})

    def job_env(job):
        return {
            "ANSIBLE_COLLECTIONS_PATH": str(collections_path),
            "ANSIBLE_PYTHON_INTERPRETER": str(runner_bin / "python"),
            "ANSIBLE_HOME": str(tmp_path / f"ansible-home-{job}"),
            "GAMEPANEL_STATE_DIR": str(tmp_path / f"state-{job}"),  # nothing shared on disk
        }

    base_env = {key: value for key, value in os.environ.items() if not key.startswith(("ANSIBLE_", "GAMEPANEL_"))}
    base_env["PATH"] = f"{runner_bin}{os.pathsep}{base_env.get('PATH', '')}"
    inventory = tmp_path / "fleet.gamepanel.yml"
    inventory.write_text("plugin: gamepanel.panel.servers\n", encoding="utf-8")
    listed = subprocess.run(
        [str(runner_bin / "ansible-inventory"), "-i", str(inventory), "--list"],
        env={**base_env, **job_env(1), **credential_env},
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    hostvars = json.loads(listed.stdout)["_meta"]["hostvars"]
    assert hostvars, listed.stdout + listed.stderr
    # ansible-inventory of the newest ansible-core marks untrusted strings as {"__ansible_unsafe": ...}
    host = next(
        name
        for name, variables in hostvars.items()
        if variables.get("gamepanel_id") in ("rust-01", {"__ansible_unsafe": "rust-01"})
    )
    # rust-01 has players on: the job restarts it all the same
    extravars = {"target": host, "batch": 1, "rolling_restart_wait_timeout": 3, "rolling_restart_max_players": None}

    first = private_data_dir(tmp_path, credential_env, job_env(1), extravars, name="job-1")
    run, stdout = run_job(runner_bin, first, base_env, "job-1")
    assert run.returncode != 0, stdout  # the agent is away: the restart is queued, not confirmed
    assert "queued, not yet applied" in stdout
    assert emulator.control.counters()["posts"].get("rust-01", 0) == 1
    # ansible-runner keeps the job's facts in artifacts/<ident>/fact_cache (a jsonfile cache); AWX with
    # fact storage on saves them after a job and writes them there again before the next one.
    facts = first / "artifacts" / "job-1" / "fact_cache"
    carried = [cached_fact(path, "gamepanel_ledger") for path in facts.iterdir()]
    assert [(entry["id"], entry["action"], entry["state"]) for entries in carried if entries for entry in entries] == [
        ("rust-01", "restart", "queued")
    ], stdout
    assert not files_holding(facts, token)

    second = private_data_dir(tmp_path, credential_env, job_env(2), extravars, name="job-2")
    shutil.copytree(facts, second / "artifacts" / "job-2" / "fact_cache")
    run, stdout = run_job(runner_bin, second, base_env, "job-2")
    assert run.returncode == 0, stdout
    assert "already pending" in stdout
    assert emulator.control.counters()["posts"].get("rust-01", 0) == 1  # not queued again

    emulator.control.reconnect("rust-01")
    emulator.control.advance(5)
    assert emulator.control.counters()["restarts"].get("rust-01", 0) == 1
