# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""gamepanel.panel.server_control: in the controller's worker process when the task runs on the controller.

Documentation, options and return values: the module of the same name.  See
plugins/plugin_utils/action_in_process.py for when the module is executed instead, and
plugins/plugin_utils/job_hosts.py for the ``hosts`` form, which runs here only.
"""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.module_utils._entry.ledger_fact import (
    LEDGER_FACT,
    batch_entries,
    host_entries,
    host_fact,
)
from ansible_collections.gamepanel.panel.plugins.module_utils._entry.specs import SERVER_CONTROL
from ansible_collections.gamepanel.panel.plugins.module_utils._entry.tasks import server_control
from ansible_collections.gamepanel.panel.plugins.plugin_utils.action_in_process import InProcessAction
from ansible_collections.gamepanel.panel.plugins.plugin_utils.job_hosts import run_hosts_task


class ActionModule(InProcessAction):

    TASK_SPEC = SERVER_CONTROL

    def run(self, tmp=None, task_vars=None):
        if (self._task.args or {}).get("hosts") is None:
            return super(ActionModule, self).run(tmp, task_vars)
        return run_hosts_task(self, super(InProcessAction, self).run(tmp, task_vars), task_vars or {})

    def perform(self, params, check_mode, diff, task_vars):
        # The host's ledger fact, as an earlier job left it (AWX fact storage, a fact cache):
        # a job that shares no disk with the last one still knows what that one queued.
        fact_entries = host_entries(task_vars)
        if params.get("ids") is not None:
            # one task for many servers: the facts of every host of the batch (each holds its own server's)
            fact_entries = batch_entries(task_vars)
        # The hosts of the play's batch run this task alongside this one (unless it runs once):
        # its reads can be shared from the start.
        batch_hosts = 1 if self._task.run_once else len(task_vars.get("ansible_play_batch") or [])
        return server_control(
            params, check_mode=check_mode, diff=diff, fact_entries=fact_entries, batch_hosts=batch_hosts
        )

    def after_module(self, result, args, task_vars):
        """The executed module's ledger fact holds its server's entries: keep those the host's fact carried for others."""
        facts = result.get("ansible_facts")
        if args.get("ids") is None and isinstance(facts, dict) and isinstance(facts.get(LEDGER_FACT), list):
            facts.update(host_fact(host_entries(task_vars), facts[LEDGER_FACT], args.get("id")))
        return result
