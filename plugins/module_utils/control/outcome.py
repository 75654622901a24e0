# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: what a server_control task returns, as the steps of the run fill it in.

A ControlOutcome holds the task's answer so far (the read before, the action, whether
anything changed or converged, why nothing was sent, the ledger entry relied on, the
message); ``as_result`` turns it into the result dict, the same shape whether the task
succeeds or fails.
"""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.module_utils.rules import open_entries
from ansible_collections.gamepanel.panel.plugins.module_utils.rules.convergence import status_of
from ansible_collections.gamepanel.panel.plugins.module_utils.rules.decision import expected_status


class ControlOutcome(object):
    """The answer of one server_control task as far as the run got."""

    def __init__(self):
        self.before = None  # the read the decision rested on
        self.action = None  # the action sent (or that may have been), None when nothing was
        self.changed = False
        self.converged = None  # None: not waited for
        self.skipped_reason = None
        self.pending = None  # the ledger entry the decision relied on
        self.followed = False  # nothing was sent because an open entry for the same action stands
        self.message = None  # what the run says when it succeeds without the obvious outcome

    def sending(self, action):
        self.action, self.changed = action, True

    def not_sent(self):
        """The POST surely did not queue the action (the panel refused it)."""
        self.action, self.changed = None, False

    def following(self, entry):
        """Nothing is sent: ``entry`` (open, same action) stands and is followed."""
        self.pending, self.action, self.changed, self.followed = entry, None, False, True

    def unconfirmed(self, check_mode):
        """Whether an action this task sent, or an open one it followed, is still to be confirmed (confirm_only)."""
        if check_mode or self.converged:
            return False
        return self.action is not None or self.followed

    def as_result(self, request, server, elapsed, api, check_mode=False, diff=False):
        """The task's result dict; ``server`` is the latest read."""
        result = {
            "changed": self.changed,
            "action": self.action,
            "before": self.before,
            "server": server,
            "converged": self.converged,
            "elapsed": elapsed,
            "skipped_reason": self.skipped_reason,
            "pending": open_entries.view(self.pending),
            "unconfirmed": self.unconfirmed(check_mode),
            "api": api,
        }
        if self.message is not None:
            result["msg"] = self.message
        if diff and self.before is not None:
            result["diff"] = {
                "before": {"status": status_of(self.before)},
                "after": {"status": self.after(request, server)},
            }
        return result

    def after(self, request, server):
        return status_after(request, self.before, server, self.converged, self.changed)


def status_after(request, before, latest, converged, changed):
    """The status diff mode shows after, for one server: reached (a wait saw it), expected (sent), or unchanged."""
    if converged:
        return status_of(latest)
    if changed:
        return expected_status(request, before)
    return status_of(before)
