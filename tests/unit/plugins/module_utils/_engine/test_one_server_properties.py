# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Property-based tests (hypothesis) of server_control's decision with a ledger entry in every state."""

from __future__ import annotations

import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.gamepanel.panel.plugins.module_utils._engine.one_server import run_one_server
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.result import ControlFailed
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.convergence import TimedRead
from ansible_collections.gamepanel.panel.plugins.module_utils._state.ledger import Ledger
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.entry_states import (
    OPEN_STATES,
    PUBLIC_FIELDS,
    STATES,
)
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.open_entries import proves
from ansible_collections.gamepanel.panel.plugins.module_utils._state.files import StateFiles

from panel_fakes import FakeClient, server
from test_one_server import request

PROFILE = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PANEL = "live https://panel.example/api/v1"
STOPPED = ("offline", "stopped")

reads = st.builds(
    lambda status, uptime: server(status=status, uptime=uptime if status == "online" else 0),
    st.sampled_from(["online", "offline", "stopped", "starting", "maintenance"]),
    st.integers(min_value=0, max_value=200000),
)
entries = st.fixed_dictionaries(
    {
        "action": st.sampled_from(["start", "stop", "restart"]),
        "state": st.sampled_from(STATES),
        "age": st.floats(min_value=0, max_value=5000),
        "before_status": st.sampled_from(["online", "offline"]),
        "before_uptime": st.integers(min_value=0, max_value=200000),
    }
)
options = st.fixed_dictionaries(
    {
        "state": st.sampled_from(["started", "stopped", "restarted"]),
        "min_uptime": st.none() | st.integers(min_value=0, max_value=4000),
        "ignore_pending": st.booleans(),
    }
)


def scene(directory, read, entry):
    """A fake panel showing ``read`` and a ledger holding ``entry``; returns (client, ledger, the entry as stored)."""
    client = FakeClient(read)
    ledger = Ledger(StateFiles("k" * 64, directory), PANEL, client.clock)
    written_at = client.clock.time() - entry["age"]
    ledger.merge(
        [
            {
                "id": "mc-01",
                "action": entry["action"],
                "panel": PANEL,
                "queued_at": written_at,
                "updated_at": written_at,
                "state": entry["state"],
                "before": {
                    "status": entry["before_status"],
                    "uptime_seconds": entry["before_uptime"],
                    "read_started": written_at - 1,
                    "read_at": written_at - 1,
                },
            }
        ]
    )
    return client, ledger, ledger.entries("mc-01")[0]


def decide(client, ledger, option, check_mode=False):
    try:
        return run_one_server(
            client,
            request(
                option["state"], wait=False, min_uptime=option["min_uptime"], ignore_pending=option["ignore_pending"]
            ),
            check_mode=check_mode,
            ledger=ledger,
        )
    except ControlFailed as failure:  # pragma: no cover - nothing fails on this fake panel
        raise AssertionError(failure.message)


@PROFILE
@given(reads, entries, options)
def test_an_open_entry_is_never_sent_again_unless_a_read_proved_it_or_the_user_said_so(read, entry, option):
    with tempfile.TemporaryDirectory() as directory:
        client, ledger, stored = scene(directory, read, entry)
        result = decide(client, ledger, option)
        posted = [what.split(" ", 1)[1] for unused, what, unused_id in client.posts]
        assert len(posted) <= 1
        if posted and posted[0] == entry["action"] and entry["state"] in OPEN_STATES and not option["ignore_pending"]:
            assert proves(stored, TimedRead(read, client.clock.time()), STOPPED)
        assert result["changed"] == bool(posted)
        assert result["pending"] is None or set(result["pending"]) == set(PUBLIC_FIELDS)
        if not posted and result["pending"] is not None:
            assert result["msg"]  # a run the ledger held back says why


@PROFILE
@given(reads, entries, options)
def test_check_mode_predicts_the_run_and_writes_nothing(read, entry, option):
    with tempfile.TemporaryDirectory() as directory:
        client, ledger, unused = scene(directory, read, entry)
        path = ledger.path("mc-01")
        written = open(path, "rb").read()
        predicted = decide(client, ledger, option, check_mode=True)
        assert client.posts == [] and open(path, "rb").read() == written
        applied = decide(client, ledger, option)
        assert (predicted["changed"], predicted["action"]) == (applied["changed"], applied["action"])


@PROFILE
@given(reads, entries, options)
def test_a_run_that_sends_leaves_its_entry_queued(read, entry, option):
    with tempfile.TemporaryDirectory() as directory:
        client, ledger, unused = scene(directory, read, entry)
        result = decide(client, ledger, option)
        if result["changed"]:
            mine = ledger.find("mc-01", result["action"])
            assert mine is not None and mine["state"] == "queued"
            assert mine["queued_at"] == client.clock.time()


@PROFILE
@given(
    reads,
    entries.filter(lambda entry: entry["state"] == "done"),
    options.filter(lambda option: option["min_uptime"] is None),
)
def test_a_done_entry_without_min_uptime_changes_no_decision(read, entry, option):
    with tempfile.TemporaryDirectory() as directory:
        client, ledger, unused = scene(directory, read, entry)
        with_ledger = decide(client, ledger, option)
    without = run_one_server(FakeClient(read), request(option["state"], wait=False))
    assert (with_ledger["changed"], with_ledger["action"]) == (without["changed"], without["action"])
