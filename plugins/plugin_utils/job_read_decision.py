# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""PRIVATE: what server_control would decide on one read of a server, without sending anything.

The filter control_plan (plugins/filter/control_plan.py) gives it, for a record already read.
"""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.gamepanel.panel.plugins.module_utils._engine.request import (
    ACTION_FOR_STATE,
    REQUEST_OPTIONS,
    ControlRequest,
)
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.convergence import players_of, status_of, uptime_of
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.decision import (
    HELD_BY_PLAYERS,
    HELD_BY_STATUS,
    decide_on_read,
)

# Why no action would be sent, as returned in ``reason``.
REASONS = {HELD_BY_STATUS: "status_not_allowed", HELD_BY_PLAYERS: "busy"}


def _whole_number(value, option):
    """``value`` as an int (None stays None); text of digits is accepted, as the module's argument spec does."""
    if value is None:
        return None
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise AnsibleFilterError("control_plan: %s must be a whole number or null, not %r." % (option, value))


def _statuses(value, option):
    if value is None:
        return None
    if isinstance(value, str) or not all(isinstance(item, str) for item in value):
        raise AnsibleFilterError("control_plan: %s must be a list of statuses, not %r." % (option, value))
    return list(value)


def control_plan(server, state, min_uptime=None, max_players=None, stopped_statuses=None, only_if_status=None):
    """server_control's decision on the read ``server`` (a server_info record); see control_plan.yml."""
    if not isinstance(server, dict):
        raise AnsibleFilterError(
            "control_plan expects a server record (a dictionary, as server_info returns it), not %r." % (server,)
        )
    if state not in ACTION_FOR_STATE:
        raise AnsibleFilterError(
            "control_plan: state must be one of %s, not %r." % (", ".join(ACTION_FOR_STATE), state)
        )
    stopped = _statuses(stopped_statuses, "stopped_statuses")
    request = ControlRequest(
        state,
        min_uptime=_whole_number(min_uptime, "min_uptime"),
        max_players=_whole_number(max_players, "max_players"),
        stopped_statuses=REQUEST_OPTIONS["stopped_statuses"].default if stopped is None else stopped,
        only_if_status=_statuses(only_if_status, "only_if_status"),
    )
    problems = request.problems()
    if problems:
        raise AnsibleFilterError("control_plan: %s" % " ".join(problems))

    action, held_by = decide_on_read(request, server)
    if held_by is not None:
        action, reason = None, REASONS[held_by]
    elif action is None:
        # planned_action leaves a restart out only for min_uptime; started and stopped only when the state holds
        reason = "recently_restarted" if state == "restarted" else "in_state"
    else:
        reason = None
    return {
        "action": action,
        "reason": reason,
        "status": status_of(server),
        "uptime": uptime_of(server),
        "players": players_of(server),
    }
