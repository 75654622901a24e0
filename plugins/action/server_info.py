# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""gamepanel.panel.server_info: in the controller's worker process when the task runs on the controller.

Documentation, options and return values: the module of the same name.  See
plugins/plugin_utils/action_in_process.py for when the module is executed instead.
"""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.module_utils._entry.specs import SERVER_INFO
from ansible_collections.gamepanel.panel.plugins.module_utils._entry.tasks import server_info
from ansible_collections.gamepanel.panel.plugins.plugin_utils.action_in_process import InProcessAction


class ActionModule(InProcessAction):

    TASK_SPEC = SERVER_INFO

    def perform(self, params, check_mode, diff, task_vars):
        return server_info(params)
