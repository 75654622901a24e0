# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet_outcomes filter: every host's gamepanel_outcome of a batch, from the lines of the job's control task.

Its options (fleet_outcomes.yml) are the arguments of plugin_utils/job_decisions.py's ``outcomes``, which the
filter is.
"""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.plugin_utils.job_decisions import outcomes


class FilterModule(object):

    def filters(self):
        return {"fleet_outcomes": outcomes}
