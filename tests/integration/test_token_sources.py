# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Each way the docs give the token, run as docs/authentication.md shows it, against the emulator.

A token file (GAMEPANEL_API_TOKEN_FILE, api_token_file), an inline vault value in the inventory
file with a vaulted gamepanel_api_token beside it, and the inventory's own token file, which is
the job's token whatever the environment holds. The emulator counts requests per token (by its name), so each
test sees which token asked for what. The environment way runs in test_readme_example.py,
the AWX credential in tests/release/test_awx_runner.py.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml
from jinja2.sandbox import SandboxedEnvironment

from conftest import BIN_DIR
from test_fleet_jobs import FAST, posts, ready

READ_ONLY = "gp-test-owner-read"  # counted by the emulator as "owner-read"
CONTROL = "gp-test-owner-control"  # counted as "owner-control"
# ensure_online on the default fleet starts the two stopped servers.
STARTED = {"mc-03": 1, "rust-02": 1}
CREDENTIAL_TYPE = Path(__file__).resolve().parents[2] / "extensions" / "awx" / "credential_type.yml"
# The emulator's names of the inventory's one list read and of an action request.
INVENTORY_READ = {"live GET /servers": 1}
ACTION = "live POST /servers/{id}/control"


def inventory_file(emulator, *lines):
    return "\n".join(["plugin: gamepanel.panel.servers", "base_url: %s" % emulator.live_url] + list(lines)) + "\n"


def token_file(ansible, name, token, mode=0o600):
    path = ansible.workdir / name
    path.write_text(token + "\n", encoding="utf-8")
    path.chmod(mode)
    return path


def run_ensure_online(ansible, inventory, env, **kwargs):
    """The ready ensure_online job with no token and no base_url in the environment but what ``env`` adds."""
    env = dict({"GAMEPANEL_BASE_URL": None}, **env)
    return ansible.playbook(ready("ensure_online"), inventory=inventory, token=None, env=env, extra_vars=FAST, **kwargs)


def test_a_token_file_in_the_environment_serves_the_inventory_and_the_job(ansible, emulator):
    path = token_file(ansible, "panel-token", CONTROL)
    run = run_ensure_online(ansible, inventory_file(emulator), {"GAMEPANEL_API_TOKEN_FILE": path})
    assert run.rc == 0, run.describe()
    counters = emulator.control.counters()
    assert posts(counters) == STARTED
    assert set(counters["requests"]) == {"owner-control"}
    assert CONTROL not in run.stdout + run.stderr


@pytest.mark.parametrize("job_token", ["GAMEPANEL_API_TOKEN", "GAMEPANEL_API_TOKEN_FILE"])
def test_the_inventorys_token_file_is_the_jobs_token_whatever_the_environment_holds(ansible, emulator, job_token):
    """The source's api_token_file reads the panel and serves the job; the environment's token is not sent."""
    control = token_file(ansible, "control-token", CONTROL)
    env = {job_token: READ_ONLY if job_token == "GAMEPANEL_API_TOKEN" else token_file(ansible, "other", READ_ONLY)}
    run = run_ensure_online(ansible, inventory_file(emulator, "api_token_file: %s" % control), env)
    assert run.rc == 0, run.describe()
    counters = emulator.control.counters()
    assert posts(counters) == STARTED
    assert set(counters["requests"]) == {"owner-control"}, counters


def test_a_read_only_inventory_token_file_is_never_swapped_for_the_environments_control_token(ansible, emulator):
    """One account, two tokens: the job keeps the source's (read-only) token and fails loudly, never guessing."""
    read_only = token_file(ansible, "read-only-token", READ_ONLY)
    inventory = inventory_file(emulator, "api_token_file: %s" % read_only)
    run = run_ensure_online(ansible, inventory, {"GAMEPANEL_API_TOKEN": CONTROL})
    assert run.rc == 2, run.describe()
    assert set(emulator.control.counters()["requests"]) == {"owner-read"}
    assert "is read-only" in run.stdout and CONTROL not in run.stdout + run.stderr


def test_api_token_file_as_a_template_of_the_systemd_credentials_directory(ansible, emulator):
    credentials = ansible.workdir / "credentials"
    credentials.mkdir()
    token_file(ansible, "credentials/gamepanel-token", READ_ONLY, mode=0o400)
    credentials.chmod(0o500)  # as systemd leaves it
    inventory = inventory_file(
        emulator, "api_token_file: \"{{ lookup('ansible.builtin.env', 'CREDENTIALS_DIRECTORY') }}/gamepanel-token\""
    )
    listed = ansible.inventory(inventory, token=None, env={"CREDENTIALS_DIRECTORY": credentials})
    assert listed.rc == 0 and "Survival" in listed.json["_meta"]["hostvars"], listed.describe()
    assert emulator.control.counters()["requests"] == {"owner-read": INVENTORY_READ}


def test_the_file_token_is_a_no_log_value(ansible, emulator):
    path = token_file(ansible, "panel-token", READ_ONLY)
    run = ansible.playbook(
        "- hosts: localhost\n  gather_facts: false\n  tasks:\n"
        "    - name: Read\n      gamepanel.panel.server_info:\n        id: mc-01\n",
        token=None,
        # the arguments echoed back (ansible-core 2.21 adds them only when asked; older ones always do)
        env={"GAMEPANEL_API_TOKEN_FILE": path, "ANSIBLE_INJECT_INVOCATION": "true"},
        verbosity=4,
    )
    assert run.rc == 0, run.describe()
    assert run.result("Read")["invocation"]["module_args"]["api_token"] == "VALUE_SPECIFIED_IN_NO_LOG_PARAMETER"
    assert READ_ONLY not in run.stdout + run.stderr


def test_an_awx_credentials_environment_serves_the_inventory_and_the_job(ansible, emulator):
    definition = yaml.safe_load(CREDENTIAL_TYPE.read_text(encoding="utf-8"))
    inputs = {"token": CONTROL, "base_url": emulator.live_url, "variant": "live"}
    # What AWX gives the inventory update and the job: each env injector rendered with the inputs.
    injected = {
        name: SandboxedEnvironment().from_string(template).render(**inputs)
        for name, template in definition["injectors"]["env"].items()
    }
    run = run_ensure_online(ansible, "plugin: gamepanel.panel.servers\n", injected)
    assert run.rc == 0, run.describe()
    counters = emulator.control.counters()
    assert posts(counters) == STARTED and set(counters["requests"]) == {"owner-control"}


def vault(ansible, password_file, name, secret):
    """``ansible-vault encrypt_string --stdin-name NAME`` as the docs show it: the secret on stdin, never an argument."""
    completed = subprocess.run(
        [str(BIN_DIR / "ansible-vault"), "encrypt_string", "--vault-password-file", str(password_file)]
        + ["--stdin-name", name],
        input=secret,
        capture_output=True,
        text=True,
        env=ansible.environment(token=None, playbook=False),
        cwd=ansible.workdir,
        check=True,
    )
    return completed.stdout


def test_an_inline_vault_token_in_the_inventory_file_serves_the_job_too(ansible, emulator):
    """The job reads the source's api_token again from its file (vault decrypted), with no variable holding it."""
    password_file = ansible.workdir / "vault-password"
    password_file.write_text("integration-vault-password\n", encoding="utf-8")
    password_file.chmod(0o600)
    inventory = inventory_file(emulator) + vault(ansible, password_file, "api_token", CONTROL)
    run = run_ensure_online(
        ansible, inventory, {"ANSIBLE_VAULT_PASSWORD_FILE": password_file, "GAMEPANEL_API_TOKEN": READ_ONLY}
    )
    assert run.rc == 0, run.describe()
    counters = emulator.control.counters()
    assert posts(counters) == STARTED
    assert set(counters["requests"]) == {"owner-control"}, counters
    assert READ_ONLY not in run.stdout + run.stderr and CONTROL not in run.stdout + run.stderr


def test_a_world_readable_token_file_stops_the_inventory_and_the_module_before_anything_is_sent(ansible, emulator):
    path = token_file(ansible, "panel-token", CONTROL, mode=0o644)
    env = {"GAMEPANEL_API_TOKEN_FILE": path, "ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED": "true"}
    listed = ansible.inventory(inventory_file(emulator), token=None, env=env)
    assert listed.rc != 0, listed.describe()
    said = " ".join(listed.stderr.split())
    assert "The API token file %s (from GAMEPANEL_API_TOKEN_FILE) can be read by every user" % path in said, said
    read = ansible.playbook(
        "- hosts: localhost\n  gather_facts: false\n  tasks:\n"
        "    - name: Read\n      gamepanel.panel.server_info:\n        id: mc-01\n",
        token=None,
        env={"GAMEPANEL_API_TOKEN_FILE": path},
    )
    assert read.rc == 2, read.describe()
    assert "(mode 0644)" in read.result("Read")["msg"] and "chmod 600" in read.result("Read")["msg"]
    assert CONTROL not in listed.stdout + listed.stderr + read.stdout + read.stderr
    assert emulator.control.counters()["requests_total"] == 0


def test_without_a_token_the_inventory_names_only_what_it_reads(ansible, emulator):
    run = ansible.inventory(
        inventory_file(emulator), token=None, env={"ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED": "true"}
    )
    assert run.rc != 0, run.describe()
    said = " ".join(run.stderr.split())
    assert "No API token was given to the inventory" in said and "api_token_file" in said, said
    assert "gamepanel_api_token" not in said
