# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet_outcome filter: a fleet job's gamepanel_outcome of one host, from its plan and server_control's result."""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.plugin_utils.job_planning import outcome


def fleet_outcome(decided, result=None, check_mode=False, failed=False, confirmed=None, queued=None):
    """See fleet_outcome.yml."""
    return outcome(decided, result, check_mode, failed, confirmed=confirmed, queued=queued)


class FilterModule(object):

    def filters(self):
        return {"fleet_outcome": fleet_outcome}
