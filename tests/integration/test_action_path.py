# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The action plugins' two paths give the same results.

On the controller (localhost, or any host with a local connection) server_info and
server_control run in Ansible's worker process; delegated to another host they execute
the module there.  ``far_away`` stands for such a host: the test connection plugin
``elsewhere`` (tests/integration/connection_plugins) runs commands on this machine but
is not the local connection.  Kept module files (ANSIBLE_KEEP_REMOTE_FILES) prove which
path each task took.
"""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
INVENTORY = """
all:
  hosts:
    localhost:
      ansible_connection: local
    far_away:
      ansible_connection: elsewhere
"""
TOKEN = "gp-test-owner-control"  # given through module_defaults only
READ_ONLY = "gp-test-owner-read"  # the controller's GAMEPANEL_API_TOKEN
# What differs between two runs of the same task whatever the path: timings and request stats.
VOLATILE = {
    "elapsed",
    "api",
    "item",
    "ansible_loop_var",
    "_ansible_no_log",
    "_ansible_delegated_vars",
    "_ansible_item_label",
    "_ansible_ignore_errors",
    "ansible_facts",
    "_ansible_verbose_always",
    "deprecations",
    "warnings",
    "uptime_seconds",
    "cpu",
    "memory_mb",
    "exception",
    "online_seconds",
    "joined_at",
}


def comparable(value):
    if isinstance(value, dict):
        return dict((key, comparable(item)) for key, item in value.items() if key not in VOLATILE)
    if isinstance(value, list):
        return [comparable(item) for item in value]
    return value


def both(results, case):
    in_process, module = results[case]
    assert in_process["item"]["key"] == "in_process" and module["item"]["key"] == "module"
    return in_process, module


def run_both_paths(ansible, tmp_path, verbosity=0):
    remote_tmp = tmp_path / "remote-tmp"
    run = ansible.playbook(
        "action_path/both_paths.yml",
        inventory=INVENTORY,
        verbosity=verbosity,
        token=READ_ONLY,
        extra_vars={"env_token": TOKEN},
        env={
            "ANSIBLE_CONNECTION_PLUGINS": str(TESTS / "connection_plugins"),
            "ANSIBLE_KEEP_REMOTE_FILES": "1",
            "ANSIBLE_REMOTE_TMP": str(remote_tmp),
        },
    )
    assert run.rc == 0, run.describe()
    return run, remote_tmp


def test_both_paths_give_the_same_results(ansible, emulator, tmp_path):
    run, remote_tmp = run_both_paths(ansible, tmp_path)
    results = run.result("Results")["msg"]

    for case in (
        "read_one",
        "read_filtered",
        "nothing_to_do",
        "predicted",
        "unknown",
        "unsupported",
        "from_environment",
    ):
        in_process, module = both(results, case)
        assert comparable(in_process) == comparable(module), case

    read, unused = both(results, "read_one")
    assert [server["id"] for server in read["servers"]] == ["mc-01"]
    nothing, unused = both(results, "nothing_to_do")
    assert (nothing["changed"], nothing["action"]) == (False, None)
    predicted, unused = both(results, "predicted")
    assert (predicted["changed"], predicted["action"]) == (True, "stop")
    assert predicted["diff"] == {"before": {"status": "online"}, "after": {"status": "offline"}}
    unknown, unused = both(results, "unknown")
    assert unknown["failed"] is True and unknown["status"] == 404 and "no-such-server" in unknown["msg"]
    unsupported, unused = both(results, "unsupported")
    assert (
        unsupported["failed"] is True
        and "Unsupported parameters" in unsupported["msg"]
        and "colour" in unsupported["msg"]
    )
    environment, unused = both(results, "from_environment")
    assert environment["failed"] is True and environment["status"] == 401 and "revoked" in environment["msg"]
    in_process, module = both(results, "restarted")
    assert set(comparable(in_process)) == set(comparable(module))
    assert ("invocation" in in_process) == ("invocation" in module)  # ansible-core 2.19+: only with INJECT_INVOCATION

    in_process, module = both(results, "restarted")
    for result in (in_process, module):
        assert (result["changed"], result["action"], result["converged"]) == (True, "restart", True)
        assert set(result) >= {"before", "server", "elapsed", "skipped_reason", "api"}
    counters = emulator.control.counters()
    assert (counters["posts"], counters["restarts"]) == ({"rust-01": 1, "ark-01": 1}, {"rust-01": 1, "ark-01": 1})

    # The delegated tasks executed the module (one kept module file each); the others did not.
    kept = sorted(path.name for path in remote_tmp.rglob("AnsiballZ_*.py"))
    assert kept == ["AnsiballZ_server_control.py"] * 5 + ["AnsiballZ_server_info.py"] * 3


def test_the_token_stays_out_of_verbose_output(ansible, emulator, tmp_path):
    # (Tokens set through a task's environment: are shown by Ansible itself, at -vvv, in
    # the command that starts a module; that is the module path's behaviour, not ours.)
    run, unused = run_both_paths(ansible, tmp_path, verbosity=4)
    assert TOKEN not in run.stdout and TOKEN not in run.stderr


def test_both_paths_return_the_host_ledger_fact(ansible, emulator, tmp_path):
    run = run_both_paths(ansible, tmp_path)[0]
    results = run.result("Results")["msg"]
    for case in ("nothing_to_do", "predicted"):
        in_process, module = both(results, case)
        assert in_process["ansible_facts"] == module["ansible_facts"] == {"gamepanel_ledger": []}, case
    in_process, module = both(results, "unknown")
    assert ("ansible_facts" in in_process) == ("ansible_facts" in module)
    in_process, module = both(results, "restarted")
    facts = {"in_process": in_process["ansible_facts"], "module": module["ansible_facts"]}
    ids = {path: {entry["id"] for entry in fact["gamepanel_ledger"]} for path, fact in facts.items()}
    # each holds its own server's restart (and, where the loop's facts reach the next item, the other's)
    assert "rust-01" in ids["in_process"] and "ark-01" in ids["module"], ids
    shapes = {(tuple(sorted(entry)), entry["action"]) for fact in facts.values() for entry in fact["gamepanel_ledger"]}
    assert len(shapes) == 1, shapes
