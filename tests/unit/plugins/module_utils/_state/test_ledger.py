# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The ledger's storage: claim, mark, expiry, merge, durability, privacy."""

from __future__ import annotations

import json
import os
import stat

from ansible_collections.gamepanel.panel.plugins.module_utils._state import ledger as ledger_module
from ansible_collections.gamepanel.panel.plugins.module_utils._state.ledger import Ledger, bucket_kind
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.entry_states import (
    DONE,
    MAY_BE_QUEUED,
    QUEUED,
    SENDING,
    public_view,
)
from ansible_collections.gamepanel.panel.plugins.module_utils._state.files import StateFiles

from panel_fakes import FakeClock

PANEL = "live https://panel.example/api/v1"


def make_ledger(tmp_path, clock=None, horizon=3600, panel=PANEL):
    return Ledger(StateFiles("k" * 64, str(tmp_path)), panel, clock or FakeClock(), horizon)


def test_a_claim_writes_a_sending_entry_and_a_second_claim_gets_the_first(tmp_path):
    ledger = make_ledger(tmp_path)
    entry, existing = ledger.claim("srv-1", "restart", before={"status": "online", "uptime_seconds": 7200})
    assert existing is None and entry["state"] == SENDING
    again, existing = make_ledger(tmp_path).claim("srv-1", "restart")
    assert again is None and existing["queued_at"] == entry["queued_at"] and existing["state"] == SENDING


def test_a_different_action_or_server_is_claimed_independently(tmp_path):
    ledger = make_ledger(tmp_path)
    ledger.claim("srv-1", "restart")
    assert ledger.claim("srv-1", "stop")[0] is not None
    assert ledger.claim("srv-2", "restart")[0] is not None
    assert len(ledger.open_entries()) == 3


def test_marking_moves_the_state_and_done_entries_are_no_longer_open(tmp_path):
    ledger = make_ledger(tmp_path)
    entry, unused = ledger.claim("srv-1", "restart")
    assert ledger.mark(entry, QUEUED)["state"] == QUEUED
    assert ledger.mark(entry, MAY_BE_QUEUED)["state"] == MAY_BE_QUEUED
    assert ledger.mark(entry, DONE)["state"] == DONE
    assert ledger.open_entries("srv-1") == []
    assert ledger.find("srv-1", "restart")["state"] == DONE
    assert ledger.claim("srv-1", "restart")[0] is not None  # a done action may be asked for again


def test_replace_claims_over_an_open_entry_and_the_old_claim_can_no_longer_mark_it(tmp_path):
    clock = FakeClock()
    ledger = make_ledger(tmp_path, clock)
    first, unused = ledger.claim("srv-1", "restart")
    clock.sleep(5)
    second, existing = ledger.claim("srv-1", "restart", replace=True)
    assert existing is None and second["queued_at"] > first["queued_at"]
    assert ledger.mark(first, DONE) is None
    assert ledger.find("srv-1", "restart")["state"] == SENDING


def test_entries_expire_after_the_horizon(tmp_path):
    clock = FakeClock()
    ledger = make_ledger(tmp_path, clock, horizon=100)
    ledger.claim("srv-1", "restart")
    clock.sleep(99)
    assert len(ledger.open_entries()) == 1
    clock.sleep(2)
    assert ledger.open_entries() == []
    assert ledger.claim("srv-1", "restart")[0] is not None


def test_an_entry_a_horizon_in_the_future_expires_too(tmp_path):
    # written while the wall clock was a day ahead, then set right: it must not live a day longer than the horizon
    clock = FakeClock()
    ledger = make_ledger(tmp_path, clock, horizon=100)
    clock.wall_offset += 86400
    ledger.claim("srv-1", "restart")
    clock.wall_offset -= 86400
    assert ledger.open_entries() == []
    assert ledger.claim("srv-1", "restart")[0] is not None
    clock.wall_offset += 50  # a skew within the horizon: the entry written then is kept
    ledger.claim("srv-2", "restart")
    clock.wall_offset -= 50
    assert sorted(entry["id"] for entry in ledger.open_entries()) == ["srv-1", "srv-2"]


def test_the_horizon_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv(ledger_module.HORIZON_ENV, "600")
    assert ledger_module.horizon_from_environment() == 600
    monkeypatch.setenv(ledger_module.HORIZON_ENV, "soon")
    assert ledger_module.horizon_from_environment() == ledger_module.DEFAULT_HORIZON


def test_another_panels_entries_are_not_seen(tmp_path):
    make_ledger(tmp_path, panel="live http://127.0.0.1:1/v1").claim("srv-1", "restart")
    assert make_ledger(tmp_path).entries() == []


def test_merge_takes_the_most_recently_updated_copy(tmp_path):
    clock = FakeClock()
    here = make_ledger(tmp_path / "here", clock)
    there = make_ledger(tmp_path / "there", clock)
    entry, unused = there.claim("srv-1", "restart")
    clock.sleep(1)
    queued = there.mark(entry, QUEUED)
    assert here.merge([queued, {"not": "an entry"}]) == 1
    assert here.find("srv-1", "restart")["state"] == QUEUED
    stale = dict(queued, state=SENDING, updated_at=queued["updated_at"] - 1)
    assert here.merge([stale]) == 0
    assert here.find("srv-1", "restart")["state"] == QUEUED


def test_the_file_is_private_holds_no_secret_and_is_replaced_whole(tmp_path):
    ledger = make_ledger(tmp_path)
    ledger.claim("srv-1", "restart", before={"status": "online"})
    path = ledger.path("srv-1")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    inode = os.stat(path).st_ino
    ledger.claim("srv-1", "stop")
    assert os.stat(path).st_ino != inode  # a new file renamed over the old one, never rewritten in place
    document = json.loads(open(path).read())
    assert sorted(entry["action"] for entry in document["entries"].values()) == ["restart", "stop"]
    assert [name for name in os.listdir(tmp_path) if ".new-" in name] == []


def test_a_crash_while_writing_leaves_the_previous_ledger_whole(tmp_path, monkeypatch):
    ledger = make_ledger(tmp_path)
    ledger.claim("srv-1", "restart")

    def crash(*args):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", crash)
    try:
        ledger.files.update(bucket_kind("srv-1"), lambda document: document["entries"].clear(), durable=True)
    except OSError:
        pass
    monkeypatch.undo()
    assert [entry["id"] for entry in make_ledger(tmp_path).entries()] == ["srv-1"]


def test_without_a_usable_state_directory_the_ledger_lives_in_the_process(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("")
    ledger = make_ledger(blocked / "sub")
    assert not ledger.durable
    entry, unused = ledger.claim("srv-1", "restart")
    assert ledger.claim("srv-1", "restart") == (None, entry)


def test_public_view_shows_four_fields():
    entry = {"id": "a", "action": "restart", "queued_at": 1.0, "state": QUEUED, "before": {}, "owner": "1@h"}
    assert public_view(entry) == {"id": "a", "action": "restart", "queued_at": 1.0, "state": QUEUED}


def test_drop_removes_only_the_entry_this_process_wrote(tmp_path):
    clock = FakeClock()
    ledger = make_ledger(tmp_path, clock)
    first, unused = ledger.claim("srv-1", "restart")
    assert ledger.drop(first) is True and ledger.entries("srv-1") == []
    first, unused = ledger.claim("srv-1", "restart")
    clock.sleep(5)
    second, unused = ledger.claim("srv-1", "restart", replace=True)
    assert ledger.drop(first) is False  # a newer claim replaced it: not ours to remove
    assert [entry["queued_at"] for entry in ledger.entries("srv-1")] == [second["queued_at"]]


def test_a_dropped_entry_leaves_a_not_queued_note_that_holds_nothing_back(tmp_path):
    clock = FakeClock()
    ledger = make_ledger(tmp_path, clock)
    first, unused = ledger.claim("srv-1", "start")
    clock.sleep(2)
    assert ledger.drop(first) is True
    notes = make_ledger(tmp_path, clock).not_queued_of(["srv-1", "srv-2"])
    assert notes["srv-2"] == []
    assert [(note["action"], note["queued_at"], note["noted_at"]) for note in notes["srv-1"]] == [
        ("start", first["queued_at"], first["queued_at"] + 2)
    ]
    again, standing = ledger.claim("srv-1", "start")  # a note is no open entry
    assert again is not None and standing is None


def test_a_note_keeps_the_refusals_status_and_when_the_panel_said_to_come_back(tmp_path):
    clock = FakeClock()
    ledger = make_ledger(tmp_path, clock)
    entry, unused = ledger.claim("srv-1", "start")
    clock.sleep(2)
    assert ledger.drop(entry, status=429, retry_after=30.0) is True
    (note,) = ledger.not_queued_of(["srv-1"])["srv-1"]
    assert (note["status"], note["retry_at"]) == (429, note["noted_at"] + 30.0)
    entry, unused = ledger.claim("srv-1", "start")
    ledger.drop(entry)  # no answer at all: neither is known
    (note,) = ledger.not_queued_of(["srv-1"])["srv-1"]
    assert (note["status"], note["retry_at"]) == (None, None)


def test_an_entry_given_up_on_leaves_no_note_and_old_notes_expire(tmp_path):
    clock = FakeClock()
    ledger = make_ledger(tmp_path, clock, horizon=100)
    entry, unused = ledger.claim("srv-1", "start")
    assert ledger.drop(entry, not_queued=False) is True
    assert ledger.not_queued_of(["srv-1"]) == {"srv-1": []}
    entry, unused = ledger.claim("srv-1", "stop")
    ledger.drop(entry)
    clock.sleep(101)
    assert ledger.not_queued_of(["srv-1"]) == {"srv-1": []}


def test_a_fleet_is_spread_over_buckets_and_read_back_whole(tmp_path):
    ledger = make_ledger(tmp_path)
    servers = ["srv-%05d" % number for number in range(200)]
    for server_id in servers:
        ledger.claim(server_id, "restart")
    files = {ledger.path(server_id) for server_id in servers}
    assert len(files) == ledger_module.BUCKETS  # 200 ids fill every bucket
    assert sorted(entry["id"] for entry in ledger.entries()) == servers
    assert [entry["id"] for entry in ledger.entries("srv-00007")] == ["srv-00007"]
    # a write rewrites only the bucket of its server
    untouched = {path: os.stat(path).st_ino for path in files if path != ledger.path("srv-00007")}
    ledger.mark(ledger.find("srv-00007", "restart"), QUEUED)
    assert {path: os.stat(path).st_ino for path in untouched} == untouched


def test_carried_entries_of_many_servers_land_in_their_buckets(tmp_path):
    source = make_ledger(tmp_path / "a")
    for number in range(40):
        source.claim("srv-%02d" % number, "start")
    here = make_ledger(tmp_path / "b")
    assert here.merge(source.entries()) == 40
    assert sorted(entry["id"] for entry in here.entries()) == sorted("srv-%02d" % number for number in range(40))
    assert here.find("srv-13", "start")["state"] == SENDING
