# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet_reads filter: the reads of several accounts as one, each server with its account."""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.plugin_utils.job_accounts import merged_reads


def fleet_reads(reads, hostvars, hosts_only=False):
    """See fleet_reads.yml."""
    return merged_reads(reads, hostvars, hosts_only)


class FilterModule(object):

    def filters(self):
        return {"fleet_reads": fleet_reads}
