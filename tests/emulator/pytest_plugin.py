# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""pytest plugin: the fixture ``emulator``, one emulator process per session, reset before every test.

``second_emulator`` is a second panel alike, for tests of an inventory with several accounts.

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
    return _reset(emulator_process)


def _reset(process: EmulatorProcess) -> EmulatorProcess:
    if not process.running:
        # A test that killed it must not take the rest of the session down with it.
        process.stop()
        process.start()
    process.control.reset()
    return process


@pytest.fixture(scope="session")
def second_emulator_process() -> t.Iterator[EmulatorProcess]:
    """A second panel (default fixture: the same accounts, server ids and names), started on first use."""
    with EmulatorProcess() as process:
        yield process


@pytest.fixture
def second_emulator(
    second_emulator_process: EmulatorProcess,
) -> EmulatorProcess:  # pylint: disable=redefined-outer-name
    """The second panel, reset to its fixture: for tests of an inventory with several accounts."""
    return _reset(second_emulator_process)
