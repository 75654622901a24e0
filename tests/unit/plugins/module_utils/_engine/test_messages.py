# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Messages say each thing once: an ambiguous POST, a very long id."""

from __future__ import annotations

import re

import pytest

from ansible_collections.gamepanel.panel.plugins.module_utils._engine.one_server import run_one_server
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.result import ControlFailed
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.request import ControlRequest
from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import PanelNotFoundError

from panel_fakes import FakePanel

ONLINE = {"id": "mc-01", "name": "Survival", "status": "online", "uptime_seconds": 86400}


def count(pattern, text):
    return len(re.findall(pattern, text, flags=re.IGNORECASE))


@pytest.mark.parametrize("wait", [True, False])
def test_a_lost_post_answer_is_told_once(wait):
    panel = FakePanel()
    panel.reply(json=ONLINE).reply(status=502, json={"error": {"message": "upstream hiccup"}})
    panel.reply(json=ONLINE).reply(json=ONLINE).reply(json=ONLINE)
    client = panel.client()
    with pytest.raises(ControlFailed) as caught:
        run_one_server(
            client,
            ControlRequest("restarted", server_id="mc-01", wait=wait, wait_timeout=10, poll_interval=5, rate_limit=0),
        )
    message = caught.value.message
    assert count(r"may already be queued", message) == 1
    assert count(r"queued", message) == 1
    assert count(r"not sent again|did not send it again", message) == 1
    assert count(r"check (it|the server)", message) == 1
    assert count(r"HTTP 502", message) == 1 and "upstream hiccup" in message
    assert "Survival (mc-01)" in message
    assert len(message) < 420, len(message)
    panel.adapter.script.clear()


def test_a_very_long_id_is_echoed_once_and_cut():
    long_id = "x" * 5000
    panel = FakePanel()
    panel.reply(status=404, json={"error": {"code": "server_not_found", "message": "No such server."}})
    with pytest.raises(PanelNotFoundError) as caught:
        panel.client().get_server(long_id)
    message = str(caught.value)
    assert long_id not in message
    assert "5000 characters" in message
    assert len(message) < 400


def test_server_control_with_a_very_long_id_keeps_its_message_short():
    long_id = "ü/" * 2500
    panel = FakePanel()
    panel.reply(status=404, json={"error": {"code": "server_not_found", "message": "No such server."}})
    with pytest.raises(ControlFailed) as caught:
        run_one_server(panel.client(), ControlRequest("restarted", server_id=long_id, rate_limit=0))
    assert len(caught.value.message) < 400
    assert long_id not in caught.value.message
    # The full id went on the wire, encoded as one segment.
    assert panel.sent[0].path == "/servers/" + "%C3%BC%2F" * 2500


def test_a_panel_refusing_the_post_past_retry_timeout_is_told_once_and_changes_nothing():
    panel = FakePanel()
    panel.reply(json=ONLINE)
    for unused in range(3):
        panel.reply(status=503, json={"error": {"message": "upstream hiccup"}}, headers={"Retry-After": "4"})
    client = panel.client(retry_timeout=10)
    with pytest.raises(ControlFailed) as caught:
        run_one_server(client, ControlRequest("restarted", server_id="mc-01", wait=True, wait_timeout=10, rate_limit=0))
    message = caught.value.message
    assert count(r"refused", message) == 2 and count(r"HTTP 503", message) == 1 and "upstream hiccup" in message
    assert "refused every time (gave up after 2 retries" in message
    assert count(r"nothing was queued", message) == 1 and "lost" not in message and "may already" not in message
    assert (caught.value.result["changed"], caught.value.result["action"]) == (False, None)
    assert [request.method for request in panel.sent] == ["GET", "POST", "POST", "POST"]  # refusals queue nothing
