# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: the one shape of every failed task of the collection: TaskFailed, built by failure_from_error.

Both ways a task runs (a module, or the action plugin in the controller's worker) end a
failure the same way: a ``msg``, the PanelError's ``status`` (None without one), the API
statistics when a client was made, and the return values the task already had.
"""

from __future__ import annotations


class TaskFailed(Exception):
    """The task fails with ``msg``; ``result`` holds its other return values."""

    def __init__(self, msg, **result):
        super(TaskFailed, self).__init__(msg)
        self.msg = msg
        self.result = result


def failure_from_error(error, client=None, msg=None, **result):
    """The one shape of every failure: TaskFailed with ``msg`` (``error``'s message by default),
    ``status`` (None without one) and, given a client, ``api`` stats.

    ``result`` holds any return values the task already has (``changed``, ``server``...).
    """
    result["status"] = getattr(error, "status", None)
    if client is not None:
        result["api"] = client.stats
    return TaskFailed(str(error) if msg is None else msg, **result)


def fail_task(module, failure):
    """Fail the module with a TaskFailed, the way the action plugins report one."""
    module.fail_json(msg=failure.msg, **failure.result)
