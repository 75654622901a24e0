# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet_plan filter: what a fleet job does with one host, decided on the fleet read, with the reason in words."""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.plugin_utils.job_planning import plan


def fleet_plan(server, job, settings=None, inventory_status=None, window=None, server_id=None, host=None):
    """See fleet_plan.yml."""
    return plan(server, job, settings, inventory_status, window, server_id=server_id, host=host)


class FilterModule(object):

    def filters(self):
        return {"fleet_plan": fleet_plan}
