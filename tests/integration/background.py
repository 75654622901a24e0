# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A playbook run in the background, and the test's own wait on the emulator's counters.

Together they let a test act on the panel at a moment it has seen happen (the module is
polling, draining, waiting), instead of sleeping and hoping the moment has come.
"""

from __future__ import annotations

import threading
import time


class Background:
    """A playbook run in a thread, so the test can act on the emulator while the module waits."""

    def __init__(self, function):
        self.outcome = None
        self.error = None
        self.thread = threading.Thread(target=self._run, args=(function,), daemon=True)
        self.thread.start()

    def _run(self, function):
        try:
            self.outcome = function()
        except BaseException as error:  # pylint: disable=broad-except  # re-raised in join()
            self.error = error

    def join(self, timeout=120):
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "the playbook did not finish"
        if self.error is not None:
            raise self.error
        return self.outcome


def wait_for_counters(emulator, condition, timeout=60):
    """Poll the emulator's counters until ``condition(counters)`` holds (the test's own wait)."""
    deadline = time.monotonic() + timeout
    while True:
        counters = emulator.control.counters()
        if condition(counters):
            return counters
        assert time.monotonic() < deadline, "condition never held; last counters: %r" % counters
        time.sleep(0.05)
