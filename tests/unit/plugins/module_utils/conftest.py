# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Fixtures of the API client's unit tests (helpers live in panel_fakes.py)."""

from __future__ import annotations

import pytest

from panel_fakes import FakePanel


@pytest.fixture
def panel():
    """A scripted panel; fails the test when scripted replies were left unused."""
    fake = FakePanel()
    yield fake
    assert not fake.unused, "scripted replies left unused: %r" % (fake.unused,)
