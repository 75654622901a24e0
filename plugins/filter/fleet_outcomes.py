# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet_outcomes filter: every host's gamepanel_outcome of a batch, from the lines of the job's control task."""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.plugin_utils.job_decisions import outcomes


def fleet_outcomes(
    control,
    job,
    settings,
    hosts,
    check_mode=False,
    window=None,
    starts=None,
    canary_before=False,
    failure=None,
    canary_lost_before=None,
):
    """See fleet_outcomes.yml."""
    return outcomes(
        control, job, settings, hosts, check_mode, window, starts, canary_before, failure, canary_lost_before
    )


class FilterModule(object):

    def filters(self):
        return {"fleet_outcomes": fleet_outcomes}
