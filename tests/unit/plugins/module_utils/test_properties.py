# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Property-based tests (hypothesis): path encoding, response parsing, the convergence rule."""

from __future__ import annotations

import json
import math
from urllib.parse import unquote, urlsplit

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.gamepanel.panel.plugins.module_utils._api import errors
from ansible_collections.gamepanel.panel.plugins.module_utils._api.client import encode_segment
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.request import ControlRequest
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.convergence import UPTIME_TOLERANCE, Convergence
from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import PanelError
from ansible_collections.gamepanel.panel.plugins.module_utils._api.server_records import SERVER_FIELDS

from panel_fakes import BASE_URL, TOKEN, FakePanel

PROFILE = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ids = st.text(min_size=1, max_size=300).filter(lambda text: text.strip())  # blank ids are refused, tested elsewhere
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda children: st.lists(children, max_size=6) | st.dictionaries(st.text(max_size=12), children, max_size=6),
    max_leaves=30,
)


# -- path encoding -----------------------------------------------------------------------------


@PROFILE
@given(ids)
def test_any_id_is_one_safe_segment_that_decodes_back(server_id):
    encoded = encode_segment(server_id)
    assert encoded.isascii()
    assert not set(encoded) & set("/?# \\")
    assert encoded not in (".", "..")
    assert unquote(encoded) == server_id


@PROFILE
@given(ids)
def test_the_request_goes_to_exactly_one_server_path(server_id):
    panel = FakePanel()
    panel.reply(json={"id": server_id, "name": "n", "status": "online"})
    server = panel.client().get_server(server_id)
    assert server["id"] == server_id
    sent = panel.sent[0]
    path = urlsplit(sent.url).path
    assert not urlsplit(sent.url).query and not urlsplit(sent.url).fragment
    assert path.startswith(urlsplit(BASE_URL).path + "/servers/")
    assert path.count("/") == urlsplit(BASE_URL).path.count("/") + 2
    assert unquote(path.rsplit("/", 1)[1]) == server_id


# -- response parsing ----------------------------------------------------------------------------


@PROFILE
@given(
    st.integers(min_value=400, max_value=599),
    st.binary(max_size=3000) | json_values.map(lambda v: json.dumps(v).encode()),
)
def test_any_error_answer_becomes_a_short_panel_error(status, body):
    error = errors.error_from_response(status, "Reason", body, "GET /servers/x", server_id="x")
    assert isinstance(error, PanelError)
    assert error.status == status
    assert len(str(error)) < 700
    message = errors.panel_message(body)
    assert message is None or len(message) <= 200


@PROFILE
@given(json_values)
def test_any_json_list_answer_gives_servers_or_a_panel_error(body):
    panel = FakePanel()
    panel.reply(body=json.dumps(body))
    try:
        servers = panel.client().list_servers()
    except PanelError as error:
        assert len(str(error)) < 700 and TOKEN not in str(error)
        return
    for server in servers:
        assert tuple(server) == SERVER_FIELDS
        assert server["id"] is None or isinstance(server["id"], str)


@PROFILE
@given(json_values | st.binary(max_size=500).map(lambda raw: raw.decode("latin-1")))
def test_any_server_answer_gives_a_server_or_a_panel_error(body):
    panel = FakePanel()
    panel.reply(body=body if isinstance(body, str) else json.dumps(body))
    try:
        server = panel.client().get_server("mc-01")
    except PanelError as error:
        assert len(str(error)) < 700
        return
    assert tuple(server) == SERVER_FIELDS and isinstance(server["id"], str)


# -- the convergence rule (Convergence.uptime_reset) ---------------------------------------------

BEFORE_READ_AT = 1_700_000_000.0
uptimes = st.floats(min_value=0, max_value=10**8, allow_nan=False, allow_infinity=False)
seconds = st.floats(min_value=0, max_value=10**5, allow_nan=False, allow_infinity=False)
fractions = st.floats(min_value=0, max_value=0.999, allow_nan=False)


def convergence(before_uptime):
    before = {"id": "s", "status": "online", "uptime_seconds": before_uptime}
    return Convergence(ControlRequest("restarted", server_id="s"), before, BEFORE_READ_AT)


@PROFILE
@given(uptimes, seconds, seconds, fractions, fractions)
def test_an_uptime_consistent_with_no_restart_is_never_a_reset(true_uptime, gap, read_lag, lost_before, lost_now):
    """No restart: the later uptime is the earlier true uptime plus at least the gap between the reads.

    The panel shows whole seconds (floor), and the panel may read the server somewhat
    after the request started (``read_lag``): neither may look like a reset.
    """
    before = math.floor(true_uptime + lost_before)
    now = (
        math.floor(true_uptime + lost_before + gap + read_lag + lost_now)
        if lost_now
        else math.floor(true_uptime + lost_before + gap + read_lag)
    )
    assert not convergence(before).uptime_reset({"uptime_seconds": now}, BEFORE_READ_AT + gap)


@PROFILE
@given(uptimes, seconds)
def test_an_uptime_that_dropped_is_always_a_reset(before, gap):
    for now in (0, before / 2, before - 1):
        if 0 <= now < before:
            assert convergence(before).uptime_reset({"uptime_seconds": now}, BEFORE_READ_AT + gap)
            assert convergence(before).uptime_reset({"uptime_seconds": now})  # also without read times


@PROFILE
@given(uptimes, seconds, seconds)
def test_a_restart_read_later_is_a_reset_once_the_gap_outgrows_the_tolerance(before, since_restart, extra_gap):
    """A restart shows an uptime no larger than the time since it; the gap between reads includes that time.

    (The one exception by design: a read showing exactly the earlier uptime is taken for a stale copy.)
    """
    gap = since_restart + extra_gap
    now = math.floor(since_restart)
    if now < before + gap - UPTIME_TOLERANCE and now != before:
        assert convergence(before).uptime_reset({"uptime_seconds": now}, BEFORE_READ_AT + gap)


@PROFILE
@given(uptimes, seconds)
def test_a_stale_copy_of_the_earlier_read_is_never_a_reset(before, gap):
    assert not convergence(before).uptime_reset({"uptime_seconds": before}, BEFORE_READ_AT + gap)
