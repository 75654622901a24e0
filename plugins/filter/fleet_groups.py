# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet_groups filter: a batch's acting hosts as server_control tasks with hosts, one per kind of action."""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.plugin_utils.job_decisions import groups


def fleet_groups(plans, first=False, after=None):
    """See fleet_groups.yml."""
    return groups(plans, first=first, after=after)


class FilterModule(object):

    def filters(self):
        return {"fleet_groups": fleet_groups}
