# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one shape of a failed task (_entry/failure.py)."""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import PanelNotFoundError
from ansible_collections.gamepanel.panel.plugins.module_utils._entry.failure import failure_from_error


def test_failure_from_error_adds_status_and_api():
    class StatsOnly:
        stats = {"requests": 2, "retries": 1, "waited_seconds": 0.5}

    failure = failure_from_error(
        PanelNotFoundError("Server 'x' was not found.", status=404), client=StatsOnly(), servers=[]
    )
    assert failure.msg == "Server 'x' was not found."
    assert failure.result == {"status": 404, "servers": [], "api": {"requests": 2, "retries": 1, "waited_seconds": 0.5}}


def test_failure_from_error_without_client_or_status():
    failure = failure_from_error(ValueError("plain"))
    assert (failure.msg, failure.result) == ("plain", {"status": None})
