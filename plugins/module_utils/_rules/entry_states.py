# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: the states of a ledger entry, and what a user sees of one: the ledger's vocabulary, free of storage.

The ledger (_state/ledger.py) stores entries in these states; the rules (_rules/open_entries.py), the
engine and the event source read them.  An entry is one action on one server of one panel:

* ``sending``: written before the POST; a process that dies before it knows the answer
  leaves it so, and nobody can tell whether the panel has it.
* ``queued``: the panel accepted the POST.
* ``may_be_queued``: the POST went out and its answer was lost.
* ``done``: a read proved the outcome.

The first three are *open*: an open entry for the same server and action means the action is
not sent again.
"""

from __future__ import annotations

SENDING = "sending"
QUEUED = "queued"
MAY_BE_QUEUED = "may_be_queued"
DONE = "done"
STATES = (SENDING, QUEUED, MAY_BE_QUEUED, DONE)
OPEN_STATES = (SENDING, QUEUED, MAY_BE_QUEUED)

# The fields of an entry that server_info, server_control and the fleet report show.
PUBLIC_FIELDS = ("id", "action", "queued_at", "state")


def is_open(entry):
    return entry.get("state") in OPEN_STATES


def public_view(entry):
    """What a user sees of an entry: id, action, queued_at, state."""
    return dict((field, entry.get(field)) for field in PUBLIC_FIELDS)
