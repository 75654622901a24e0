# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""wait_timeout is a limit, and an outage shorter than the wait does not end it.

The faults come from the emulator (503 with a long Retry-After, or a run of 503s); the
module's own result (elapsed, api) and the emulator's counters are the evidence.
"""

from __future__ import annotations

import threading
import time

CONTROL = "reliability/control.yml"
NEVER = 3600.0


def run_control(ansible, **options):
    extra = {"rc_" + key: value for key, value in options.items()}
    run = ansible.playbook(CONTROL, extra_vars=extra, timeout=120)
    assert run.rc == 0, run.describe()
    return run.result("Registered")["msg"]["control"]


def when_posted(emulator, server_id, then):
    """Run ``then()`` in a thread as soon as the emulator has queued the action.

    Queued, not only received: the emulator counts a POST before it queues its action, so a check-in
    made on the received count alone could come before the action is there to apply.
    """

    def watch():
        deadline = time.monotonic() + 60
        while emulator.control.counters()["actions_queued"].get(server_id, 0) < 1 and time.monotonic() < deadline:
            time.sleep(0.02)
        then()

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def test_a_long_retry_after_during_the_wait_does_not_extend_it(ansible, emulator):
    emulator.control.settings(checkin_interval=NEVER)  # the restart stays queued: the wait must run out
    watcher = when_posted(
        emulator,
        "mc-01",
        lambda: emulator.control.add_fault(
            kind="status", status=503, method="GET", path=r"^/servers/mc-01$", retry_after=20
        ),
    )
    control = run_control(ansible, id="mc-01", wait_timeout=3, poll_interval=0.5, request_timeout=2, retry_timeout=60)
    watcher.join(5)
    assert control["failed"] is True and control["converged"] is False
    assert "wait_timeout=3 s" in control["msg"] and "queued, not yet applied" in control["msg"]
    # The contract: the wait ends within wait_timeout plus one request timeout (3 + 2 s), not after
    # Retry-After (20 s) or retry_timeout (60 s).
    assert control["elapsed"] < 3 + 2 + 1
    counters = emulator.control.counters()
    assert counters["posts"]["mc-01"] == 1 and counters["restarts"].get("mc-01", 0) == 0
    assert emulator.control.faults()[0]["fired"] >= 1


def test_an_outage_shorter_than_the_wait_is_waited_out(ansible, emulator):
    emulator.control.settings(checkin_interval=NEVER)

    def outage():
        emulator.control.add_fault(kind="status", status=503, method="GET", count=6)
        emulator.control.checkin("mc-02")  # the agent applies the restart during the outage

    watcher = when_posted(emulator, "mc-02", outage)
    control = run_control(ansible, id="mc-02", wait_timeout=60, poll_interval=0.2, request_timeout=2, retry_timeout=1)
    watcher.join(5)
    assert control.get("failed") is not True, control["msg"]
    assert control["converged"] is True and control["changed"] is True
    assert emulator.control.faults()[0]["fired"] == 6
    counters = emulator.control.counters()
    assert counters["posts"]["mc-02"] == 1 and counters["restarts"]["mc-02"] == 1
