# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""pytest plugin: the fixture ``emulator``, one emulator process per session, reset before every test.

Register it with ``pytest_plugins = ["emulator.pytest_plugin"]`` in a top-level conftest (with
``tests/`` on sys.path).
"""

from __future__ import annotations

import typing as t

import pytest

from .harness import EmulatorProcess


@pytest.fixture(scope="session")
def emulator_process() -> t.Iterator[EmulatorProcess]:
    """The session's emulator (default fixture, controls on). Prefer ``emulator``, which also resets it."""
    with EmulatorProcess() as process:
        yield process


@pytest.fixture
def emulator(emulator_process: EmulatorProcess) -> EmulatorProcess:  # pylint: disable=redefined-outer-name
    """The running emulator, reset to its fixture: tests start from the same panel whatever ran before."""
    if not emulator_process.running:
        # A test that killed it must not take the rest of the session down with it.
        emulator_process.stop()
        emulator_process.start()
    emulator_process.control.reset()
    return emulator_process
