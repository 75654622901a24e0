# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The ledger follows the panel, says when it cannot be kept, and never reads a damaged file as empty."""

from __future__ import annotations

import glob
import hashlib
import os

import pytest

from ansible_collections.gamepanel.panel.plugins.module_utils._rules import decision
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.one_server import run_one_server
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.result import ControlFailed
from ansible_collections.gamepanel.panel.plugins.module_utils._state.ledger import (
    Ledger,
    bucket_kind,
    panel_key,
)
from ansible_collections.gamepanel.panel.plugins.module_utils._state.files import DamagedFile, StateFiles, decode_strict

from panel_fakes import FakeClient, FakeClock, request, server

PANEL = "live https://panel.example/api/v1"


class Client(object):
    """What Ledger.for_client reads of a client: the panel and the clock (and a token hash it must ignore)."""

    def __init__(self, token, base_url="https://panel.example/api/v1", variant="live"):
        self.state_key = hashlib.sha256(token.encode()).hexdigest()
        self.base_url = base_url
        self.api_variant = variant
        self.clock = FakeClock()


def panel_ledger(tmp_path, token="token-a", **client):
    return Ledger.for_client(Client(token, **client), horizon=3600, directory=str(tmp_path))


# -- keyed by the panel ----------------------------------------------------------------------


def test_every_token_of_a_panel_shares_one_ledger(tmp_path):
    entry, unused = panel_ledger(tmp_path, "token-a").claim("srv-1", "restart")
    found = panel_ledger(tmp_path, "token-b").find("srv-1", "restart")
    assert found["queued_at"] == entry["queued_at"]
    assert panel_ledger(tmp_path, "token-b", variant="planned").find("srv-1", "restart") is None  # another panel
    names = os.listdir(str(tmp_path))
    assert all(not name.startswith(Client("token-a").state_key) for name in names), names


def test_no_file_name_or_content_holds_the_token(tmp_path):
    panel_ledger(tmp_path, "gp-secret-token").claim("srv-1", "restart")
    for path in glob.glob(os.path.join(str(tmp_path), "*")):
        assert "gp-secret-token" not in path and b"gp-secret-token" not in open(path, "rb").read()


def test_an_unusable_directory_is_said_with_why_and_what_to_do(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    ledger = Ledger.for_client(Client("t"), directory=str(blocker / "state"))
    assert ledger.durable is False
    (warning,) = ledger.warnings()
    assert warning.startswith("exactly once across runs is off: the state directory %s" % (blocker / "state"))
    assert "GAMEPANEL_STATE_DIR" in warning


def test_a_write_that_fails_turns_the_ledger_off_and_says_so(tmp_path, monkeypatch):
    ledger = panel_ledger(tmp_path)

    def refuse(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(ledger.files, "update", refuse)
    entry, unused = ledger.claim("srv-1", "restart")
    assert entry is not None and ledger.durable is False  # the run goes on, in this process
    assert "No space left on device" in ledger.warnings()[0]


def test_a_controlled_timeout_promises_a_rerun_waits_only_with_a_durable_ledger(tmp_path):
    client = FakeClient(server())
    blocker = tmp_path / "file"
    blocker.write_text("x")
    off = Ledger(StateFiles("k" * 64, str(blocker / "x")), PANEL, client.clock)
    with pytest.raises(ControlFailed) as failure:
        run_one_server(client, request("restarted", wait_timeout=5), ledger=off)
    assert "running this again before then would queue a second restart" in failure.value.message
    assert "waits for it instead" not in failure.value.message


# -- damaged files ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data, why",
    [(b"", "empty"), (b'{"entr', "not JSON"), (b"[1, 2]", "a JSON list"), (b'{"entries": [1]}', "not a JSON object")],
)
def test_a_damaged_bucket_is_kept_aside_and_marks_its_servers(tmp_path, data, why):
    ledger = panel_ledger(tmp_path)
    ledger.claim("srv-1", "restart")
    path = ledger.path("srv-1")
    with open(path, "wb") as handle:
        handle.write(data)

    again = panel_ledger(tmp_path)
    assert again.entries("srv-1") == []
    (kept,) = glob.glob(path + ".damaged-*")
    assert open(kept, "rb").read() == data
    mark = again.unreadable("srv-1")
    assert mark["kept_as"] == kept and why in mark["why"]
    assert any(kept in notice for notice in again.warnings())
    # the mark is in the new file: the next process knows too, and says nothing new
    later = panel_ledger(tmp_path)
    assert later.unreadable("srv-1")["kept_as"] == kept and later.warnings() == []
    other = next(sid for sid in ("a", "b", "c", "d") if bucket_kind(sid) != bucket_kind("srv-1"))
    assert later.unreadable(other) is None


def test_a_damage_mark_clears_for_a_server_sent_with_ignore_pending_and_for_all_when_the_file_goes(tmp_path):
    ledger = panel_ledger(tmp_path)
    ledger.claim("srv-1", "restart")
    with open(ledger.path("srv-1"), "wb") as handle:
        handle.write(b"garbage")
    ledger = panel_ledger(tmp_path)
    neighbour = next("n%d" % n for n in range(500) if bucket_kind("n%d" % n) == bucket_kind("srv-1"))
    assert ledger.unreadable("srv-1") and ledger.unreadable(neighbour)
    ledger.claim("srv-1", "restart", replace=True)
    assert ledger.unreadable("srv-1") is None and ledger.unreadable(neighbour) is not None
    for kept in glob.glob(ledger.path("srv-1") + ".damaged-*"):
        os.unlink(kept)
    assert ledger.unreadable(neighbour) is None


def test_a_damaged_bucket_found_by_a_write_is_kept_aside_too(tmp_path):
    ledger = panel_ledger(tmp_path)
    with open(ledger.path("srv-1"), "wb") as handle:
        handle.write(b"{torn")
    entry, unused = ledger.claim("srv-1", "stop")
    assert entry is not None and glob.glob(ledger.path("srv-1") + ".damaged-*")
    assert ledger.unreadable("srv-1") is not None


def test_the_decision_sends_nothing_for_a_server_of_a_damaged_bucket(tmp_path):
    mark = {"kept_as": "/x", "why": "empty", "at": 0}
    plan = decision.decide(request("restarted"), server(), [], 0, unreadable=mark)
    assert (plan.verdict, plan.action, plan.entry) == (decision.UNREADABLE, "restart", mark)
    assert decision.decide(request("restarted", ignore_pending=True), server(), [], 0, mark).verdict == decision.SEND
    assert decision.decide(request("started"), server(), [], 0, mark).verdict == decision.ALREADY


def test_a_control_run_on_a_damaged_bucket_fails_without_sending(tmp_path):
    client = FakeClient(server())
    ledger = Ledger(StateFiles(panel_key(PANEL), str(tmp_path)), PANEL, client.clock)
    ledger.claim("mc-01", "restart")
    with open(ledger.path("mc-01"), "wb") as handle:
        handle.write(b"not json")
    with pytest.raises(ControlFailed) as failure:
        run_one_server(client, request("restarted"), ledger=ledger)
    assert "could not be read" in failure.value.message and "ignore_pending" in failure.value.message
    assert failure.value.result["changed"] is False
    assert [what for unused, what, unused_id in client.log if what.startswith("POST")] == []


def test_strict_decoding_names_what_is_wrong():
    assert decode_strict(None, "p") == {}
    with pytest.raises(DamagedFile) as damage:
        decode_strict(b"  ", "p")
    assert damage.value.why == "empty"
