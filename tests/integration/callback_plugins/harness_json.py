# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Stdout callback used by the integration test harness.

ansible-core ships no JSON stdout callback (``json`` lives in ansible.posix, which
our test environments do not install), so the harness brings this one. It prints
one JSON document when the playbook ends, shaped like ansible.posix.json's:

    {"plays": [{"play": {"name", "id"}, "tasks": [{"task": {"name", "id", "action"},
                                                  "hosts": {HOST: RESULT}}]}],
     "stats": {HOST: {"ok", "changed", "failures", "unreachable", "skipped", "rescued", "ignored"}}}

RESULT is the task result as callbacks receive it (no_log results arrive censored),
plus ``task_action`` (the task's module; a module's own ``action`` return value, such as
server_control's, is kept as it is) and ``failed``/``skipped``/``unreachable`` flags set
from the event.
Works with ansible-core 2.17 (``result._result``) and 2.19+ (``result.result``).
"""

from __future__ import annotations

DOCUMENTATION = r"""
name: harness_json
type: stdout
short_description: One JSON document per playbook run, for the integration test harness
description:
  - Collects every task result and prints them with the play recap as one JSON document.
options: {}
"""

import json
from collections.abc import Mapping

from ansible.plugins.callback import CallbackBase


def _native(value):
    """Turn ansible's own container and text types into plain JSON-able values."""
    if isinstance(value, Mapping):
        return {str(key): _native(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_native(item) for item in value]
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return str(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


class CallbackModule(CallbackBase):
    """Collect results, print them once at the end."""

    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "stdout"
    CALLBACK_NAME = "harness_json"

    def __init__(self, display=None):
        super().__init__(display)
        self._plays = []
        self._current = {}

    # structure

    def v2_playbook_on_play_start(self, play):
        self._plays.append({"play": {"name": play.get_name(), "id": str(play._uuid)}, "tasks": []})
        self._current = {}

    def _start_task(self, task, handler=False):
        if not self._plays:
            self._plays.append({"play": {"name": "", "id": ""}, "tasks": []})
        entry = {
            "task": {"name": task.get_name(), "id": str(task._uuid), "action": task.action, "handler": handler},
            "hosts": {},
        }
        self._plays[-1]["tasks"].append(entry)
        self._current[str(task._uuid)] = entry

    def v2_playbook_on_task_start(self, task, is_conditional):
        self._start_task(task)

    def v2_playbook_on_handler_task_start(self, task):
        self._start_task(task, handler=True)

    # results

    def _record(self, result, **flags):
        raw = getattr(result, "result", None)
        if not isinstance(raw, Mapping):
            raw = result._result
        task = result._task
        host = result._host.get_name()
        entry = self._current.get(str(task._uuid))
        if entry is None:
            self._start_task(task)
            entry = self._current[str(task._uuid)]
        record = _native(raw)
        record.update(flags)
        record["task_action"] = task.action
        entry["hosts"][host] = record

    def v2_runner_on_ok(self, result):
        self._record(result)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._record(result, failed=True, ignore_errors=bool(ignore_errors))

    def v2_runner_on_skipped(self, result):
        self._record(result, skipped=True)

    def v2_runner_on_unreachable(self, result):
        self._record(result, unreachable=True)

    # the document

    def v2_playbook_on_stats(self, stats):
        summary = {host: stats.summarize(host) for host in sorted(stats.processed.keys())}
        document = {"plays": self._plays, "stats": _native(summary)}
        self._display.display(json.dumps(document, indent=2, sort_keys=True))
