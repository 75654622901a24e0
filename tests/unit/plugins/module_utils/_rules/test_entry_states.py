# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""_rules/entry_states.py: which states of a ledger entry are open, and what a user sees of an entry."""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.module_utils._rules.entry_states import (
    DONE,
    MAY_BE_QUEUED,
    QUEUED,
    SENDING,
    is_open,
    public_view,
)


def entry(action, state, queued_at=100.0):
    return {"id": "mc-01", "action": action, "state": state, "queued_at": queued_at, "before": {}}


def test_the_entry_states_open_and_what_a_user_sees():
    assert [is_open(entry("stop", state)) for state in (SENDING, QUEUED, MAY_BE_QUEUED, DONE)] == [
        True,
        True,
        True,
        False,
    ]
    assert public_view(dict(entry("stop", QUEUED), owner="1@host")) == {
        "id": "mc-01",
        "action": "stop",
        "queued_at": 100.0,
        "state": QUEUED,
    }
