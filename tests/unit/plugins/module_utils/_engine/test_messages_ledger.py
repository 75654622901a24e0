# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""_engine/messages.py, the ledger's part: what a task and a fleet job's host say about the ledger's entries, and what the ledger adds to a Plan."""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.module_utils._engine import messages
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.decision import Plan

QUEUED_AT = 1_700_000_000.0  # 2023-11-14 22:13:20 UTC


def entry(action="restart", state="queued"):
    return {"id": "mc-01", "action": action, "state": state, "queued_at": QUEUED_AT}


def test_an_entry_that_stands_says_when_it_was_queued_why_it_counts_and_how_to_send_anyway():
    message = messages.pending_message(entry(state="may_be_queued"), "Survival (mc-01)")
    assert message.startswith("A restart of Survival (mc-01) was queued at 2023-11-14 22:13:20 UTC")
    assert "its answer was lost" in message and "Nothing new was sent" in message
    assert message.endswith(messages.HOW_TO_CLEAR)


def test_what_the_ledger_adds_to_a_plan():
    counted = Plan("counted", None, entry(state="done"), None, ())
    noted, note = messages.ledger_note(counted, "S (mc-01)", 600)
    assert noted is counted.entry and "less than min_uptime (600 s) ago" in note
    unreadable = Plan("unreadable", "stop", {"why": "not JSON", "kept_as": "/x.damaged-1"}, None, ())
    noted, note = messages.ledger_note(unreadable, "S (mc-01)", None)
    assert noted is None and "could not be read (not JSON)" in note and "/x.damaged-1" in note
    others = (entry("start"), entry("stop"))
    noted, note = messages.ledger_note(Plan("send", "restart", None, None, others), "S (mc-01)", None)
    assert noted is others[-1] and "the ledger still held a start queued at" in note
    assert messages.ledger_note(Plan("send", "restart", None, None, ()), "S", None) == (None, None)


def test_a_followed_entry_says_what_became_of_it():
    applied = messages.followed_applied(entry(), "S (mc-01)")
    assert applied.endswith("A read now shows it applied. Nothing new was sent.")
    unread = messages.followed_unreadable(entry(), "S (mc-01)", "The panel is down.")
    assert "Reading the server failed: The panel is down. Nothing new was sent." in unread


def test_a_fleet_jobs_reasons_use_the_modules_phrases_for_the_same_facts():
    assert messages.when(QUEUED_AT) == "2023-11-14 22:13:20 UTC"
    assert messages.when("2023-11-14 22:13:20 UTC") == "2023-11-14 22:13:20 UTC"  # a carried fact's text
    assert messages.when(None) == "an unknown time"
    assert messages.pending_note(entry()) == (
        "already pending: the restart queued at 2023-11-14 22:13:20 UTC by an earlier run (queued); nothing new sent"
    )
    counted = messages.counted_note(entry(state="done"))
    assert counted.startswith(messages.COUNTS_AS_RESTARTED + ": the restart queued at 2023-11-14 22:13:20 UTC")
    assert messages.COUNTS_AS_RESTARTED in messages.recent_restart_message(entry(state="done"), "S (mc-01)", 600)
    held = messages.still_held([entry(action="stop")])
    assert held == "the ledger still held a stop queued at 2023-11-14 22:13:20 UTC (queued)"
    assert held in messages.other_pending_message([entry(action="stop")], "restart", "S (mc-01)")
