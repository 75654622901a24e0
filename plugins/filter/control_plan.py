# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The control_plan filter: what server_control would decide on one read of a server (plugin_utils/job_read_decision.py)."""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.plugin_utils.job_read_decision import control_plan


class FilterModule(object):

    def filters(self):
        return {"control_plan": control_plan}
