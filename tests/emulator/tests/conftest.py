# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The emulator's own suite: real HTTP against a real emulator process."""

from __future__ import annotations

import os
import sys

import pytest

from .apiclient import BOOT_TIME, STOP_TIME, Api

TESTS_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if TESTS_DIR not in sys.path:
    sys.path.insert(0, TESTS_DIR)


def pytest_configure(config: pytest.Config) -> None:
    # Registering the plugin here rather than through ``pytest_plugins``: pytest refuses
    # ``pytest_plugins`` in a conftest below the top level, which this one is when the whole
    # tests/ tree is collected. import_plugin() is a no-op if tests/conftest.py registered it already.
    config.pluginmanager.import_plugin("emulator.pytest_plugin")


@pytest.fixture
def control(emulator):
    return emulator.control


@pytest.fixture
def live(emulator):
    api = Api(emulator.live_url)
    yield api
    api.close()


@pytest.fixture
def planned(emulator):
    api = Api(emulator.planned_url)
    yield api
    api.close()


@pytest.fixture
def still(control):
    """Nothing happens on its own: no agent checks in (tests call control.checkin()) and transitions
    take STOP_TIME and BOOT_TIME seconds of the emulator's clock (tests call control.advance())."""
    control.settings(checkin_interval=1e6, checkin_jitter=0, stop_time=STOP_TIME, boot_time=BOOT_TIME)
    return control
