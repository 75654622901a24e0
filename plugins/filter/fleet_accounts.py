# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet_accounts filter: hosts grouped by their inventory account, one host of each for its tasks."""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.plugin_utils.job_accounts import batch_accounts


def fleet_accounts(hosts, hostvars):
    """See fleet_accounts.yml."""
    return batch_accounts(hosts, hostvars)


class FilterModule(object):

    def filters(self):
        return {"fleet_accounts": fleet_accounts}
