# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""gamepanel.panel.fleet_events against a panel that answers 500, 429, an HTML page, then refuses a revoked token.

The source runs in this process (its ``FleetEventSource``, the object ``main`` runs) against the emulator:
it must keep running, log why each read failed, emit the change it sees once the panel answers again,
and never log the token.
"""

from __future__ import annotations

import asyncio
import importlib
import logging

fleet_events = importlib.import_module(
    "ansible_collections.gamepanel.panel.extensions.eda.plugins.event_source.fleet_events"
)

LOGGER = "gamepanel.panel.fleet_events"


def drain(queue):
    events = []
    while not queue.empty():
        events.append(queue.get_nowait()["gamepanel"])
    return events


def test_the_source_survives_500_429_html_and_a_revoked_token_and_says_why(emulator, tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("GAMEPANEL_STATE_DIR", str(tmp_path / "state"))
    control = emulator.control
    token = control.create_token("acme", "olivia", "watcher", "read-only", value="gp-watcher-secret-0042")
    # rate_limit 0: no client-side pacing. With pacing on, the shared budget treats a 429 without
    # Retry-After as a full minute (_api/ratelimit.py) and the next read waits up to a minute: right for
    # a real panel, a minute lost for this test, which is about what the source does with failures.
    args = {"base_url": emulator.live_url, "api_token": token, "interval": 0.05, "retry_timeout": 0.2, "rate_limit": 0}
    watcher = fleet_events.FleetEventSource(args, environ={})
    queue = asyncio.Queue()
    caplog.set_level(logging.INFO, logger=LOGGER)

    asyncio.run(watcher.run(queue, reads=1))  # the baseline: it reports the servers found stopped
    # the servers found stopped, then the one outage that hands them to one start
    assert [(event["kind"], event.get("id") or event.get("ids")) for event in drain(queue)] == [
        ("found_stopped", "mc-03"),
        ("found_stopped", "rust-02"),
        ("outage", ["mc-03", "rust-02"]),
    ]
    control.add_fault(kind="status", status=500, method="GET", path="^/servers$", count=1)
    control.add_fault(kind="status", status=429, method="GET", path="^/servers$", count=1)
    control.add_fault(
        kind="status",
        status=502,
        method="GET",
        path="^/servers$",
        count=1,
        body="<html><body><h1>502 Bad Gateway</h1></body></html>",
    )
    asyncio.run(watcher.run(queue, reads=3))
    assert watcher.failures == 3 and drain(queue) == []
    control.set_server("mc-01", status="offline")
    asyncio.run(watcher.run(queue, reads=1))
    events = drain(queue)
    assert [(event["kind"], event.get("id") or event.get("ids")) for event in events] == [
        ("status_changed", "mc-01"),
        ("outage", ["mc-01"]),
    ]
    assert events[0]["status"] == "offline"

    control.revoke_token("watcher")

    async def keeps_running():
        task = asyncio.ensure_future(watcher.run(queue))
        await asyncio.sleep(1.0)
        alive = not task.done()
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
        return alive

    assert asyncio.run(keeps_running()), "the source stopped on a revoked token"
    assert watcher.failures >= 2

    messages = [record.getMessage() for record in caplog.records if record.name == LOGGER]
    failures = [message for message in messages if "the fleet read failed" in message]
    assert any("HTTP 500" in message for message in failures), messages
    assert any("429" in message for message in failures), messages
    assert any("HTTP 502" in message and "Bad Gateway" in message for message in failures), messages
    assert any("HTTP 401" in message for message in failures), messages
    assert any("works again after 3 failed reads" in message for message in messages), messages
    assert all(
        record.levelno == logging.WARNING for record in caplog.records if "the fleet read failed" in record.getMessage()
    )
    assert token not in caplog.text and token not in repr(events)
