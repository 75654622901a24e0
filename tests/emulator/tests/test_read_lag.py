# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read lag: after a restart is applied, reads report the pre-restart view for a while."""

from __future__ import annotations

import pytest

from emulator.harness import EmulatorControlError

from .apiclient import BOOT_TIME, STOP_TIME


def restart_and_finish(live, control, server_id):
    assert live.control(server_id, "restart").status == 202
    control.checkin(server_id)
    control.advance(STOP_TIME + BOOT_TIME + 0.5)


def test_reads_report_the_old_uptime_for_the_given_number_of_reads(live, still):
    still.settings(read_lag_reads=2)
    before = live.server("mc-01")
    restart_and_finish(live, still, "mc-01")
    assert still.server("mc-01")["uptime_seconds"] < before["uptime_seconds"]  # the restart happened
    lagging = [live.server("mc-01") for unused in range(2)]
    assert [server["status"] for server in lagging] == ["online", "online"]
    assert all(server["uptime_seconds"] >= before["uptime_seconds"] for server in lagging)
    fresh = live.server("mc-01")
    assert fresh["uptime_seconds"] < before["uptime_seconds"]
    assert still.counters()["restarts"] == {"mc-01": 1}


def test_a_list_read_counts_as_one_read_of_each_server(live, still):
    still.settings(read_lag_reads=1)
    before = live.server("mc-01")
    restart_and_finish(live, still, "mc-01")
    listed = dict((server["id"], server) for server in live.get("/servers").json)  # the default list style: an array
    assert listed["mc-01"]["uptime_seconds"] >= before["uptime_seconds"]
    assert live.server("mc-01")["uptime_seconds"] < before["uptime_seconds"]


def test_reads_lag_for_the_given_seconds_of_the_emulated_clock(live, still):
    still.settings(read_lag_seconds=60)
    before = live.server("mc-01")
    restart_and_finish(live, still, "mc-01")
    for unused in range(3):
        server = live.server("mc-01")
        assert server["status"] == "online" and server["uptime_seconds"] >= before["uptime_seconds"]
    still.advance(60)
    assert live.server("mc-01")["uptime_seconds"] < 70


def test_without_the_setting_reads_show_the_restart_at_once(live, still):
    before = live.server("mc-01")
    restart_and_finish(live, still, "mc-01")
    assert live.server("mc-01")["uptime_seconds"] < before["uptime_seconds"]


@pytest.mark.parametrize("settings", [{"read_lag_reads": -1}, {"read_lag_reads": 1.5}, {"read_lag_seconds": "soon"}])
def test_bad_read_lag_settings_are_refused(still, settings):
    with pytest.raises(EmulatorControlError):
        still.settings(**settings)
