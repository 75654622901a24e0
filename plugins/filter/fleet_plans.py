# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet_plans filter: fleet_plan for every host of a batch at once, keyed by host."""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.plugin_utils.job_accounts import plans_by_account
from ansible_collections.gamepanel.panel.plugins.plugin_utils.job_decisions import decide_hosts


def fleet_plans(fleet, job, settings, hostvars, hosts=None, window=None, read_failure=None):
    """See fleet_plans.yml."""
    if isinstance(fleet, dict):  # the registered loop of one read per account: each names its hosts
        return plans_by_account(fleet, job, settings, hostvars, window)
    return decide_hosts(fleet, job, settings, hostvars, hosts, window, read_failure)


class FilterModule(object):

    def filters(self):
        return {"fleet_plans": fleet_plans}
