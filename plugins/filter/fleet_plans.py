# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet_plans filter: fleet_plan for every host of a batch at once, keyed by host."""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.plugin_utils.job_planning import plans


def fleet_plans(fleet, job, settings, hostvars, hosts, window=None, read_failure=None):
    """See fleet_plans.yml."""
    return plans(fleet, job, settings, hostvars, hosts, window, read_failure)


class FilterModule(object):

    def filters(self):
        return {"fleet_plans": fleet_plans}
