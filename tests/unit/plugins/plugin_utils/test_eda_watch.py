# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet watcher's change detection (plugin_utils/eda_watch.py): rules, then properties over any sequence of reads."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gamepanel.panel.plugins.plugin_utils import eda_watch
from ansible_collections.gamepanel.panel.plugins.plugin_utils.eda_watch import (
    ADDED,
    FOUND_STOPPED,
    REMOVED,
    RESTARTED,
    START_FAILED,
    STATUS_CHANGED,
    FleetChanges,
    IncidentRecord,
    action_fits,
    change_kind,
    is_incident,
    wants_start,
)


def server(server_id, status="online", uptime=100, **fields):
    record = {
        "id": server_id,
        "name": "name-%s" % server_id,
        "game": "minecraft",
        "status": status,
        "players": {"current": 0, "max": 10},
        "cpu": 1.0,
        "memory_mb": 100,
        "uptime_seconds": uptime,
    }
    record.update(fields)
    return record


def entry(server_id, action, queued_at, state="queued", updated_at=None):
    return {
        "id": server_id,
        "action": action,
        "panel": "p",
        "queued_at": queued_at,
        "updated_at": queued_at if updated_at is None else updated_at,
        "state": state,
        "before": {},
    }


# -- rules ----------------------------------------------------------------------------------


def test_the_first_read_is_the_baseline_and_gives_no_event_without_found_stopped():
    watch = FleetChanges(found_stopped=False)
    assert watch.observe([server("a"), server("b", "offline", 0)], 10.0) == []
    assert watch.has_baseline


def test_the_first_read_reports_stopped_servers_the_ledger_does_not_explain():
    watch = FleetChanges()
    read = [server("a"), server("b", "offline", 0), server("c", "stopped", 0), server("d", "offline", 0)]
    read.append(server("e", "maintenance", 0))
    # c: the collection stopped it; d: only a restart is queued, which is no reason to stay down
    entries = [entry("c", "stop", 5.0, state="done"), entry("d", "restart", 5.0)]
    events = watch.observe(read, 10.0, entries)
    assert [(event["kind"], event["id"]) for event in events] == [(FOUND_STOPPED, "b"), (FOUND_STOPPED, "d")]
    first = events[0]
    assert (first["expected"], first["stopped"], first["previous_status"], first["status"]) == (
        False,
        True,
        None,
        "offline",
    )
    assert eda_watch.is_incident(first)
    assert watch.observe(read, 20.0, entries) == []  # only the first read


def test_a_stop_queued_after_the_first_read_does_not_explain_it():
    events = FleetChanges().observe([server("b", "offline", 0)], 10.0, [entry("b", "stop", 11.0)])
    assert [event["kind"] for event in events] == [FOUND_STOPPED]


def test_each_kind_of_change_gives_one_event():
    watch = FleetChanges()
    watch.observe([server("a"), server("b"), server("c"), server("d")], 10.0)
    events = watch.observe(
        [server("a", "offline", 0), server("b", uptime=5), server("c", uptime=200), server("e")], 20.0
    )
    assert [(event["kind"], event["id"]) for event in events] == [
        (STATUS_CHANGED, "a"),
        (RESTARTED, "b"),
        (REMOVED, "d"),
        (ADDED, "e"),
    ]
    stopped = events[0]
    assert stopped["previous_status"] == "online" and stopped["status"] == "offline" and stopped["stopped"]
    assert stopped["expected"] is False and stopped["server"]["id"] == "a"
    assert events[2]["status"] is None and events[2]["server"]["id"] == "d"


def test_an_unchanged_server_gives_no_event_whatever_else_moved():
    watch = FleetChanges()
    watch.observe([server("a")], 1.0)
    assert watch.observe([server("a", uptime=130, players={"current": 5, "max": 10}, cpu=50.0, name="x")], 2.0) == []


def test_an_uptime_that_goes_back_while_not_online_is_no_restart():
    assert change_kind(server("a", "offline", 10), server("a", "offline", 0)) is None
    assert change_kind(server("a", uptime=None), server("a", uptime=0)) is None


def test_a_failed_read_is_not_observed_and_the_next_one_compares_with_the_last_good_one():
    watch = FleetChanges()
    watch.observe([server("a")], 1.0)
    events = watch.observe([server("a", "offline", 0)], 50.0)
    assert len(events) == 1
    assert watch.observe([server("a", "offline", 0)], 60.0) == []  # the same change is never given twice


def test_a_stop_the_collection_queued_explains_the_server_going_down():
    watch = FleetChanges()
    watch.observe([server("a")], 100.0)
    events = watch.observe([server("a", "stopping", 0)], 130.0, [entry("a", "stop", 110.0)])
    assert events[0]["expected"] is True and events[0]["expected_by"]["action"] == "stop"
    events = watch.observe([server("a", "offline", 0)], 160.0, [entry("a", "stop", 110.0, "done", 150.0)])
    assert events[0]["expected"] is True


def test_an_entry_queued_after_the_read_or_over_before_the_previous_read_explains_nothing():
    watch = FleetChanges()
    watch.observe([server("a")], 1000.0)
    late = [entry("a", "stop", 1031.0)]
    assert watch.observe([server("a", "offline", 0)], 1030.0, late)[0]["expected"] is False
    watch.observe([server("a")], 1100.0)
    old = [entry("a", "stop", 500.0, "done", 600.0)]
    assert watch.observe([server("a", "offline", 0)], 1200.0, old)[0]["expected"] is False


def test_an_entry_of_another_server_or_action_explains_nothing():
    watch = FleetChanges()
    watch.observe([server("a"), server("b")], 1.0)
    events = watch.observe(
        [server("a", "offline", 0), server("b", uptime=1)],
        9.0,
        [entry("b", "stop", 2.0), entry("a", "start", 2.0), entry("c", "restart", 2.0)],
    )
    assert [event["expected"] for event in events] == [False, False]


def test_which_action_explains_which_change():
    assert action_fits("stop", STATUS_CHANGED, "offline") and action_fits("stop", STATUS_CHANGED, "stopping")
    assert not action_fits("stop", STATUS_CHANGED, "online") and not action_fits("stop", RESTARTED, "online")
    assert action_fits("start", STATUS_CHANGED, "online") and action_fits("start", STATUS_CHANGED, "starting")
    assert not action_fits("start", STATUS_CHANGED, "offline")
    assert action_fits("restart", STATUS_CHANGED, "offline") and action_fits("restart", RESTARTED, "online")
    assert not any(
        action_fits(action, kind, "online") for action in ("start", "stop", "restart") for kind in (ADDED, REMOVED)
    )


def test_incidents_are_unexpected_crashes_restarts_and_starts_that_brought_the_server_up_then_down_only():
    base = {"expected": False, "stopped": False, "previous_status": "online"}
    assert is_incident(dict(base, kind=RESTARTED))
    assert is_incident(dict(base, kind=STATUS_CHANGED, stopped=True))
    assert is_incident(dict(base, kind=STATUS_CHANGED, stopped=True, previous_status="starting"))
    assert is_incident(
        dict(base, kind=START_FAILED, stopped=True, previous_status="offline", start_failure="down_again")
    )
    # a start the panel refused, whose answer was lost, never sent, or never tried (its run stopped at
    # another server's refusal) did nothing to the server: the panel's state, not the server's
    for reason in ("not_queued", "answer_lost", "not_sent", "run_stopped"):
        assert not is_incident(dict(base, kind=START_FAILED, stopped=True, start_failure=reason)), reason
    assert not is_incident(dict(base, kind=STATUS_CHANGED))
    assert not is_incident(dict(base, kind=RESTARTED, expected=True))
    assert not is_incident(dict(base, kind=REMOVED, stopped=False))


@pytest.mark.parametrize("before, after", [("offline", "stopped"), ("stopped", "offline"), ("down", "halted")])
def test_a_change_from_one_stopped_status_to_another_is_no_crash_and_starts_nothing(before, after):
    stopped = ("offline", "stopped", "down", "halted")
    event = {"kind": STATUS_CHANGED, "expected": False, "stopped": True, "previous_status": before, "status": after}
    assert not is_incident(event, stopped) and not wants_start(event, stopped)
    assert is_incident(dict(event, previous_status="online"), stopped) and wants_start(
        dict(event, previous_status="online"), stopped
    )


# -- a start handed out and still down ------------------------------------------------------------

HANDED = 1000.0


def note(queued_at, action="start"):
    return {"id": "a", "action": action, "panel": "p", "queued_at": queued_at, "noted_at": queued_at + 1}


@pytest.mark.parametrize(
    "starts, notes, seen_at, expected",
    [
        # refused, or failed before the panel queued it: over at the first read that sees the note
        ([], [note(HANDED + 5)], HANDED + 6, eda_watch.NOT_QUEUED),
        # a note older than the hand-out is an earlier start's: the hand-out's start is still to come
        ([], [note(HANDED - 5)], HANDED + 6, None),
        # refused, then sent again by a later run and accepted: the accepted one is followed
        ([entry("a", "start", HANDED + 9)], [note(HANDED + 5)], HANDED + 10, None),
        # a lost answer is followed for retry_after (60 here), from the answer
        ([entry("a", "start", HANDED + 5, "may_be_queued", HANDED + 6)], [], HANDED + 65, None),
        ([entry("a", "start", HANDED + 5, "may_be_queued", HANDED + 6)], [], HANDED + 66, eda_watch.ANSWER_LOST),
        # so is a run that stopped before it learned the answer
        ([entry("a", "start", HANDED + 5, "sending")], [], HANDED + 65, eda_watch.ANSWER_LOST),
        # an older lost start that the hand-out's run followed: retry_after from the hand-out
        ([entry("a", "start", HANDED - 500, "may_be_queued")], [], HANDED + 59, None),
        ([entry("a", "start", HANDED - 500, "may_be_queued")], [], HANDED + 60, eda_watch.ANSWER_LOST),
        # accepted: the agent runs it when it checks in, however long it is away: followed, never sent again
        ([entry("a", "start", HANDED + 5, "queued")], [], HANDED + 800, None),
        ([entry("a", "start", HANDED + 5, "queued")], [], HANDED + 905, None),
        ([entry("a", "start", HANDED + 5, "queued")], [], HANDED + 3 * 86400, None),
        # confirmed, yet down again at this read
        ([entry("a", "start", HANDED + 5, "done", HANDED + 20)], [], HANDED + 30, eda_watch.DOWN_AGAIN),
        # nothing came of the hand-out: a run that never ran, or stopped before it came to the server
        ([], [], HANDED + 899, None),
        ([entry("a", "start", HANDED - 500, "done")], [note(HANDED - 400)], HANDED + 900, eda_watch.NOT_SENT),
    ],
)
def test_when_the_start_of_a_server_still_down_is_over(starts, notes, seen_at, expected):
    failure = eda_watch.start_failure(HANDED, starts, notes, seen_at, retry_after=60, hold=900)
    assert (failure and failure[0]) == expected
    if expected == eda_watch.ANSWER_LOST:
        assert failure[1] is starts[-1]  # the open entry to give up on, so that a new start can be sent
    elif failure is not None:
        assert failure[1] is None


@pytest.mark.parametrize(
    "starts, expected",
    [
        ([], eda_watch.RUN_STOPPED),  # the run stopped before it came to the server
        ([entry("a", "start", HANDED - 500, "done")], eda_watch.RUN_STOPPED),  # an older start is not this run's
        ([entry("a", "start", HANDED + 5, "queued")], None),  # sent before the refusal: followed as ever
        ([entry("a", "start", HANDED - 500, "may_be_queued")], None),  # followed by the run, not sent
    ],
)
def test_once_the_run_of_a_hand_out_stopped_a_server_it_did_not_send_is_not_sent(starts, expected):
    failure = eda_watch.start_failure(HANDED, starts, [], HANDED + 7, retry_after=60, hold=900, run_stopped=True)
    assert (failure and failure[0]) == expected


def test_a_refusal_stops_the_run_of_its_hand_out_so_the_servers_it_did_not_send_are_handed_out_again():
    batches = eda_watch.StartBatches(retry_after=60)
    down = [server(server_id, "offline", 0) for server_id in "abcd"]
    crashes = [
        {"kind": STATUS_CHANGED, "id": item["id"], "stopped": True, "expected": False, "previous_status": "online"}
        for item in down[:3]
    ]
    assert batches.batch(crashes, down, HANDED)["ids"] == ["a", "b", "c"]
    fleet = eda_watch.index_fleet(down)
    # the run sent a (accepted), then b (refused): it stopped there, c was never sent
    accepted = entry("a", "start", HANDED + 5)
    failed = batches.failed_starts(fleet, [accepted], {"b": [note(HANDED + 6)]}, HANDED + 7)
    assert [(item[0]["id"], item[1]) for item in failed] == [("b", "not_queued"), ("c", "run_stopped")]
    # without a refusal in its hand-out, a server not sent yet is waited for (its run may be queued)
    assert batches.failed_starts(fleet, [accepted], {}, HANDED + 7) == []


def test_a_failed_start_is_handed_out_again_and_a_given_up_server_is_no_longer_followed():
    batches = eda_watch.StartBatches(retry_after=60)
    down = server("a", "offline", 0)
    crash = {"kind": STATUS_CHANGED, "id": "a", "name": "A", "stopped": True, "expected": False}
    crash.update(previous_status="online", status="offline")
    assert batches.batch([crash], [down], HANDED)["ids"] == ["a"]
    fleet = eda_watch.index_fleet([down])
    assert batches.failed_starts(fleet, [], {}, HANDED + 5) == []
    refused = batches.failed_starts(fleet, [], {"a": [note(HANDED + 2)]}, HANDED + 5)
    assert refused == [(down, eda_watch.NOT_QUEUED, None)]
    assert batches.failed_starts(fleet, [], {"a": [note(HANDED + 2)]}, HANDED + 5, skip={"a"}) == []
    failed = FleetChanges().start_failed(down, eda_watch.NOT_QUEUED, HANDED + 5)
    assert (failed["kind"], failed["start_failure"], failed["expected"], failed["stopped"]) == (
        START_FAILED,
        "not_queued",
        False,
        True,
    )
    assert batches.batch([failed], [down], HANDED + 5)["ids"] == ["a"]  # handed out again ...
    assert batches.handed_out == {"a": HANDED + 5}  # ... and followed from now on
    looping = dict(failed, crash_looping=True)
    outage = batches.batch([looping], [down], HANDED + 70)
    assert outage is None and batches.handed_out == {}
    assert batches.failed_starts(fleet, [], {"a": [note(HANDED + 60)]}, HANDED + 99999) == []


def test_the_backoff_after_refusals_in_a_row_sends_the_first_again_at_the_next_read_then_doubles_up_to_a_cap():
    delays = [eda_watch.refusal_delay(count, base=5, cap=60) for count in range(1, 8)]
    assert delays == [0, 5, 10, 20, 40, 60, 60]


def refusal_note(at, retry_at=None, status=503):
    found = dict(note(at - 0.5), noted_at=at, status=status)
    if retry_at is not None:
        found["retry_at"] = retry_at
    return found


def keep_online_reads(refusing_until, retry_after=None, interval=2.0, until=HANDED + 600):
    """The watcher's reads every ``interval`` s of one crashed server "a": each hand-out's run answers 1 s later,
    refused (a note, with the panel's Retry-After when given) before ``refusing_until``, then accepted and
    applied (the server is up at the read after).  Returns (the times starts were sent, the events, the log)."""
    batches = eda_watch.StartBatches(retry_after=60)
    changes = FleetChanges()
    down, up = server("a", "offline", 0), server("a", "online", 1)
    crash = {"kind": STATUS_CHANGED, "id": "a", "name": "A", "stopped": True, "expected": False}
    crash.update(previous_status="online", status="offline")
    sent, events, logged, notes, entries, is_up = [], [], [], [], [], False
    seen_at = HANDED
    outage = batches.batch([crash], [down], seen_at)
    while seen_at < until:
        if outage is not None:  # the run: one start, sent one second after the read
            sent.append(seen_at + 1)
            if seen_at + 1 < refusing_until:
                notes = [refusal_note(seen_at + 1, retry_after and seen_at + 1 + retry_after)]
            else:
                entries, is_up = [entry("a", "start", seen_at + 1)], True
        seen_at += interval
        fleet = [up if is_up else down]
        failed = batches.failed_starts(eda_watch.index_fleet(fleet), entries, {"a": notes}, seen_at)
        logged.extend((seen_at, state["count"]) for _id, state in batches.refusals.to_log(seen_at))
        read = [changes.start_failed(item, reason, seen_at) for item, reason, _entry in failed]
        events.extend(read)
        outage = batches.batch(read, fleet, seen_at)
    return sent, events, logged


def test_a_start_the_panel_keeps_refusing_is_sent_again_with_a_backoff_until_it_is_taken_and_is_no_incident():
    sent, events, logged = keep_online_reads(refusing_until=HANDED + 120)
    # sent at the crash, at the next read after the first refusal, then 5, 10, 20, 40, 80 s after each
    # refusal (to the next read): never every read, never given up, and taken once the panel takes it
    gaps = [later - earlier for earlier, later in zip(sent, sent[1:])]
    assert gaps == [2, 6, 12, 22, 42, 82], sent
    assert sent[-2] < HANDED + 120 <= sent[-1]
    assert all(event["start_failure"] == eda_watch.NOT_QUEUED for event in events) and len(events) == 6
    assert not any(is_incident(event) for event in events)
    # logged at the first refusal, then at most once a minute (the counts in between are in the next line)
    assert [count for _at, count in logged] == [1, 5, 6], logged
    assert all(later - earlier >= 60 for (earlier, _count), (later, _next) in zip(logged, logged[1:]))


def test_a_refusal_with_retry_after_is_sent_again_no_sooner_than_the_panel_said():
    sent, events, _logged = keep_online_reads(refusing_until=HANDED + 30, retry_after=25)
    gaps = [later - earlier for earlier, later in zip(sent, sent[1:])]
    assert all(gap >= 25 for gap in gaps) and gaps == [26, 26], sent
    assert len(events) == 2 and not any(is_incident(event) for event in events)


def test_the_servers_a_refused_run_did_not_come_to_wait_for_its_backoff_too():
    batches = eda_watch.StartBatches(retry_after=60)
    down = [server(server_id, "offline", 0) for server_id in "ab"]
    crashes = [
        {"kind": STATUS_CHANGED, "id": item["id"], "stopped": True, "expected": False, "previous_status": "online"}
        for item in down
    ]
    fleet = eda_watch.index_fleet(down)
    batches.batch(crashes, down, HANDED)
    # a was refused a second time in a row (handed out again at HANDED): 5 s of backoff from its note
    batches.refusals.refused("a", refusal_note(HANDED - 10))
    notes = {"a": [refusal_note(HANDED + 1)]}
    assert batches.failed_starts(fleet, [], notes, HANDED + 2) == []  # both wait: b's run stopped at a
    assert batches.handed_out == {"a": HANDED, "b": HANDED}
    failed = batches.failed_starts(fleet, [], notes, HANDED + 6)
    assert [(item[0]["id"], item[1]) for item in failed] == [("a", "not_queued"), ("b", "run_stopped")]
    # a server that comes up, or is given up on, starts its count afresh
    batches.release(eda_watch.index_fleet([server("a", "online", 1), down[1]]))
    assert batches.refusals.due_at("a") is None and batches.refusals.due_at("b") is None


def test_a_start_queued_for_an_agent_that_is_away_is_followed_not_sent_again():
    batches = eda_watch.StartBatches(retry_after=60)
    down = server("a", "offline", 0)
    crash = {"kind": STATUS_CHANGED, "id": "a", "stopped": True, "expected": False, "previous_status": "online"}
    batches.batch([crash], [down], HANDED)
    queued = [entry("a", "start", HANDED + 1)]
    for later in (10, 900, 3600, 6 * 86400):
        assert batches.failed_starts(eda_watch.index_fleet([down]), queued, {}, HANDED + later) == []
    # held back meanwhile: a second crash event of it starts nothing new
    assert batches.batch([dict(crash, kind=FOUND_STOPPED)], [down], HANDED + 3600) is None


def test_the_incident_record_counts_within_the_window_and_forgets_old_ones():
    record = IncidentRecord(panel="p")
    event = {"id": "a", "name": "A", "kind": RESTARTED, "status": "online", "previous_status": "online"}
    for at in (0.0, 100.0, 950.0):
        record.add(event, at)
    assert record.count("a", 950.0, 900) == 2
    assert record.count("b", 950.0, 900) == 0
    record.add(event, 950.0 + eda_watch.RECORD_KEEP_SECONDS + 10)
    assert record.count("a", 950.0 + eda_watch.RECORD_KEEP_SECONDS + 10, 10**9) == 1
    assert record.recent(950.0 + eda_watch.RECORD_KEEP_SECONDS + 10)[0]["count"] == 1


def test_record_incident_uses_the_state_file_and_counts_across_watchers(tmp_path):
    from ansible_collections.gamepanel.panel.plugins.module_utils._state.files import StateFiles

    files = StateFiles("f" * 64, str(tmp_path))
    event = {"id": "a", "name": "A", "kind": STATUS_CHANGED, "status": "offline", "previous_status": "online"}
    assert eda_watch.record_incident(files, IncidentRecord(), event, 10.0, 900) == 1
    assert eda_watch.record_incident(StateFiles("f" * 64, str(tmp_path)), IncidentRecord(), event, 20.0, 900) == 2
    assert eda_watch.read_incidents(files, now=30.0)[0]["count"] == 2


# -- properties -------------------------------------------------------------------------------

IDS = ["s1", "s2", "s3", "s4"]
STATUSES = ["online", "offline", "stopped", "starting", "crashed"]
ACTIONS = ["start", "stop", "restart"]

a_server = st.builds(server, st.sampled_from(IDS), st.sampled_from(STATUSES), st.one_of(st.none(), st.integers(0, 50)))
a_read = st.lists(a_server, max_size=6)
an_entry = st.builds(
    lambda server_id, action, offset, state: (server_id, action, offset, state),
    st.sampled_from(IDS),
    st.sampled_from(ACTIONS),
    st.integers(-30, 30),
    st.sampled_from(["sending", "queued", "may_be_queued", "done"]),
)
steps = st.lists(st.tuples(a_read, st.lists(an_entry, max_size=4), st.booleans()), min_size=1, max_size=12)


def _expected_changes(before, after):
    """The changes between two reads, by the rules written independently of eda_watch."""
    old, new = {}, {}
    for record in before:
        old.setdefault(record["id"], record)
    for record in after:
        new.setdefault(record["id"], record)
    changes = {}
    for server_id in set(old) | set(new):
        if server_id not in old:
            changes[server_id] = ADDED
        elif server_id not in new:
            changes[server_id] = REMOVED
        elif old[server_id]["status"] != new[server_id]["status"]:
            changes[server_id] = STATUS_CHANGED
        elif (
            new[server_id]["status"] == "online"
            and old[server_id]["uptime_seconds"] is not None
            and new[server_id]["uptime_seconds"] is not None
            and new[server_id]["uptime_seconds"] < old[server_id]["uptime_seconds"]
        ):
            changes[server_id] = RESTARTED
    return changes


@settings(max_examples=300, deadline=None)
@given(steps)
def test_any_sequence_of_reads_gives_each_change_once_and_expected_only_with_a_matching_entry(sequence):
    watch = FleetChanges(found_stopped=False)
    last_good = None
    now = 1000.0
    for read, raw_entries, failed in sequence:
        now += 60.0
        if failed:
            continue  # a failed read is never observed
        entries = [entry(server_id, action, now + offset, state) for server_id, action, offset, state in raw_entries]
        previous_seen_at = watch.previous_seen_at
        events = watch.observe(read, now, entries)
        if last_good is None:
            assert events == []
        else:
            wanted = _expected_changes(last_good, read)
            got = dict((event["id"], event["kind"]) for event in events)
            assert len(got) == len(events), "one event per server and read"
            assert got == wanted, "each change once, none for an unchanged server"
        for event in events:
            if event["expected"]:
                by = event["expected_by"]
                matching = [
                    item
                    for item in entries
                    if item["id"] == event["id"]
                    and item["action"] == by["action"]
                    and item["queued_at"] <= now
                    and action_fits(item["action"], event["kind"], event["status"])
                    and (
                        item["state"] != "done"
                        or previous_seen_at is None
                        or item["updated_at"] >= previous_seen_at - eda_watch.LAG_GRACE_SECONDS
                    )
                ]
                assert matching, "expected only with a matching ledger entry"
            else:
                assert event["expected_by"] is None
                assert not any(
                    item["id"] == event["id"]
                    and item["queued_at"] <= now
                    and item["state"] != "done"
                    and action_fits(item["action"], event["kind"], event["status"])
                    for item in entries
                )
        last_good = read
