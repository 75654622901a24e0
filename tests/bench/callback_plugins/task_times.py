# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Bench helper: how long each task of a run took, printed at its end (``--profile`` of the benches).

Each line also gives the task's start on the system's monotonic clock, which the bench's memory
sampler shares, so that the bench can name the task during which the memory peaked."""

from __future__ import annotations

import time

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = """
name: task_times
type: aggregate
short_description: the wall time of each task, printed when the run ends
description: Used by tests/bench to find where a job's time goes.
"""


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "task_times"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super(CallbackModule, self).__init__()
        self.started = time.monotonic()
        self.times = []  # [name, started]

    def _begin(self, name):
        self.times.append([name, time.monotonic()])

    def v2_playbook_on_task_start(self, task, is_conditional):
        self._begin(task.get_name())

    def v2_playbook_on_handler_task_start(self, task):
        self._begin("handler: " + task.get_name())

    def v2_playbook_on_stats(self, stats):
        ends = [started for unused_name, started in self.times[1:]] + [time.monotonic()]
        first = self.times[0][1] if self.times else time.monotonic()
        self._display.display("TASK TIME %8.2f s %14.3f  (start-up, inventory)" % (first - self.started, self.started))
        for (name, started), ended in zip(self.times, ends):
            self._display.display("TASK TIME %8.2f s %14.3f  %s" % (ended - started, started, name))
