# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: sending one action once: the ledger entry first, then the POST, then what its answer means.

* The ``sending`` entry is claimed before the POST, atomically: of several processes deciding
  the same action on one server at once exactly one sends; the others follow its entry.
* An answer that was lost (PanelAmbiguousError) means the panel may hold the action: the entry
  becomes ``may_be_queued`` and the action is never sent again.
* Any other PanelError means the panel surely did not queue it: the entry goes, so that it
  holds nothing back.
"""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.module_utils.rules import open_entries
from ansible_collections.gamepanel.panel.plugins.module_utils.api.errors import PanelAmbiguousError, PanelError
from ansible_collections.gamepanel.panel.plugins.module_utils.state.ledger import MAY_BE_QUEUED, QUEUED


class ActionSender(object):
    """Sends one action of one task; ``entry`` is the ledger entry it wrote (None without a ledger, or once dropped)."""

    def __init__(self, client, ledger):
        self.client = client
        self.ledger = ledger
        self.entry = None
        self.answered_at = None  # wall time the POST's answer came (or was lost): wait reads must be newer

    def claim(self, server_id, action, read, replace=False):
        """Write the ``sending`` entry: ``(True, None)``, or ``(False, entry)`` when an open one stands.

        ``read`` (a TimedRead) is what the decision rested on; ``replace`` is ignore_pending.
        """
        if self.ledger is None:
            return True, None
        entry, standing = self.ledger.claim(server_id, action, open_entries.before_of(read), replace=replace)
        self.entry = entry
        return entry is not None, standing

    def send(self, server_id, action):
        """POST ``action`` once.  Returns the PanelAmbiguousError when the answer was lost, else None.

        Any other PanelError is raised after the entry was dropped: nothing was queued.
        """
        try:
            self.client.queue_action(server_id, action)
        except PanelAmbiguousError as error:
            self.answered_at = self.client.clock.time()
            self.mark(MAY_BE_QUEUED)
            return error
        except PanelError:
            if self.entry is not None:
                self.ledger.drop(self.entry)
                self.entry = None
            raise
        self.answered_at = self.client.clock.time()
        self.mark(QUEUED)
        return None

    def mark(self, state):
        """Move the entry this task wrote to ``state`` (nothing without one)."""
        if self.entry is not None:
            self.entry = self.ledger.mark(self.entry, state) or self.entry
