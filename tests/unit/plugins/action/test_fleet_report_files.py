# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet_report_files action: argument checks, check mode, the files and what it returns."""

from __future__ import annotations

import json
from unittest.mock import MagicMock

import pytest
from ansible.errors import AnsibleActionFail
from ansible.playbook.play_context import PlayContext

from ansible_collections.gamepanel.panel.plugins.action.fleet_report_files import ActionModule
from ansible_collections.gamepanel.panel.plugins.module_utils._api.client import COLLECTION_VERSION

SERVERS = [
    {
        "id": "mc-01",
        "name": "Survival",
        "game": "minecraft",
        "status": "online",
        "players": {"current": 3, "max": 20},
        "cpu": 8.5,
        "memory_mb": 2240,
        "uptime_seconds": 86400,
    },
    {
        "id": "x-01",
        "name": "<b>x</b>",
        "game": None,
        "status": "hibernating",
        "players": None,
        "cpu": None,
        "memory_mb": None,
        "uptime_seconds": None,
    },
]


def run_action(args, check_mode=False):
    task = MagicMock()
    task.args = args
    task.check_mode = check_mode
    task.async_val = 0
    task.action = "gamepanel.panel.fleet_report_files"
    action = ActionModule(task, MagicMock(), PlayContext(), loader=None, templar=None, shared_loader_obj=None)
    return action.run(task_vars={})


def test_writes_the_three_files_and_reports_them(tmp_path):
    dest = tmp_path / "report"
    result = run_action(
        {
            "servers": SERVERS,
            "dest": str(dest),
            "base_url": "https://u:p@panel.example/v1",
            "api_token": "gp-secret-token",
        }
    )
    files = {kind: str(dest / f"fleet-report.{kind}") for kind in ("html", "json", "csv")}
    assert result["changed"] is True
    assert result["files"] == files and result["dest"] == str(dest)
    assert result["written"] == ["csv", "html", "json"]
    assert result["summary"] == {
        "servers": 2,
        "statuses": {"online": 1, "hibernating": 1},
        "players_online": 3,
        "players_capacity": 20,
        "pending": 0,
    }
    document = json.loads((dest / "fleet-report.json").read_text(encoding="utf-8"))
    assert document["meta"]["panel"] == "https://panel.example/v1"
    assert document["meta"]["collection_version"] == COLLECTION_VERSION
    assert document["meta"]["taken_at"] == result["taken_at"]
    assert result["bytes"]["html"] == len((dest / "fleet-report.html").read_bytes())
    assert "&lt;b&gt;x&lt;/b&gt;" in (dest / "fleet-report.html").read_text(encoding="utf-8")
    for path in files.values():
        assert "gp-secret-token" not in (dest / path).read_text(encoding="utf-8")
    assert "gp-secret-token" not in json.dumps(result)


def test_base_url_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMEPANEL_BASE_URL", "http://127.0.0.1:9/v1")
    run_action({"servers": SERVERS, "dest": str(tmp_path)})
    assert (
        json.loads((tmp_path / "fleet-report.json").read_text(encoding="utf-8"))["meta"]["panel"]
        == "http://127.0.0.1:9/v1"
    )


def test_check_mode_writes_nothing(tmp_path):
    dest = tmp_path / "report"
    result = run_action({"servers": SERVERS, "dest": str(dest)}, check_mode=True)
    assert result["changed"] is True and result["written"] == ["csv", "html", "json"]
    assert not dest.exists()


@pytest.mark.parametrize(
    "args, message",
    [
        ({"dest": "/tmp/x"}, "servers"),
        ({"servers": SERVERS}, "dest"),
        ({"servers": SERVERS, "dest": "/tmp/x", "include": ["console"]}, "include"),
        ({"servers": ["mc-01"], "dest": "/tmp/x"}, "servers"),
    ],
)
def test_bad_arguments_fail_before_anything_is_written(args, message):
    with pytest.raises(AnsibleActionFail, match=message):
        run_action(args)


def test_a_file_in_the_way_is_a_clear_failure(tmp_path):
    target = tmp_path / "file"
    target.write_text("x", encoding="utf-8")
    with pytest.raises(AnsibleActionFail, match="the fleet report was not written: .* exists and is not a directory"):
        run_action({"servers": SERVERS, "dest": str(target)})
