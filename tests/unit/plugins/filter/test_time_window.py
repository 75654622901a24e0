# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The time_window filter: wall-clock windows in IANA timezones, across midnight and DST changes."""

from __future__ import annotations

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.gamepanel.panel.plugins.filter.time_window import time_window

NIGHT_BERLIN = {"start": "23:00", "end": "03:00", "timezone": "Europe/Berlin"}
MORNING_NEW_YORK = {"start": "02:00", "end": "05:00", "timezone": "America/New_York"}


@pytest.mark.parametrize(
    "now, inside",
    [
        ("2026-01-15T21:59:59Z", False),  # 22:59:59 CET
        ("2026-01-15T22:00:00Z", True),  # 23:00 CET: start inclusive
        ("2026-01-15T23:30:00Z", True),  # 00:30 CET, after midnight
        ("2026-01-16T01:59:00Z", True),  # 02:59 CET
        ("2026-01-16T02:00:00Z", False),  # 03:00 CET: end exclusive
        ("2026-07-15T21:00:00Z", True),  # 23:00 CEST (UTC+2)
        ("2026-07-15T01:00:00Z", False),  # 03:00 CEST
        ("2026-07-15T00:59:00+00:00", True),
    ],
)
def test_window_across_midnight_in_berlin(now, inside):
    assert time_window(NIGHT_BERLIN, now)["inside"] is inside


def test_a_moment_with_any_offset_is_converted_to_the_window_zone():
    # 00:30 in Berlin written as Tokyo time
    assert time_window(NIGHT_BERLIN, "2026-01-16T08:30:00+09:00")["inside"] is True


@pytest.mark.parametrize(
    "now, inside",
    [
        ("2026-03-08T06:59:00Z", False),  # 01:59 EST, just before clocks skip to 03:00
        ("2026-03-08T07:00:00Z", True),  # 03:00 EDT: 02:00-02:59 never existed that night
        ("2026-03-08T09:00:00Z", False),  # 05:00 EDT
        ("2026-11-01T05:30:00Z", False),  # 01:30 EDT, first pass
        ("2026-11-01T06:30:00Z", False),  # 01:30 EST, second pass of the repeated hour
        ("2026-11-01T07:00:00Z", True),  # 02:00 EST
    ],
)
def test_daylight_saving_changes_in_new_york(now, inside):
    assert time_window(MORNING_NEW_YORK, now)["inside"] is inside


def test_the_reason_names_the_window_and_the_local_time():
    outside = time_window(NIGHT_BERLIN, "2026-01-15T12:00:00Z")
    assert (
        outside["reason"]
        == "outside maintenance_window 23:00-03:00 Europe/Berlin (now 2026-01-15 13:00 CET): nothing sent"
    )
    assert outside["local_time"] == "2026-01-15 13:00 CET"
    assert time_window(NIGHT_BERLIN, "2026-01-15T23:00:00Z")["reason"].startswith("inside maintenance_window")


def test_no_window_is_any_time():
    assert time_window(None, "2026-01-15T12:00:00Z")["inside"] is True
    assert time_window({}, None)["inside"] is True


def test_now_defaults_to_the_current_time():
    result = time_window({"start": "00:00", "end": "23:59", "timezone": "UTC"})
    assert result["now"].endswith("+00:00")


@pytest.mark.parametrize(
    "window, now, message",
    [
        (
            {"start": "24:00", "end": "03:00", "timezone": "UTC"},
            None,
            "maintenance_window.start must be a time of day written HH:MM",
        ),
        ({"start": "1:00", "end": "03:00", "timezone": "UTC"}, None, "maintenance_window.start"),
        ({"start": "01:00", "end": "3", "timezone": "UTC"}, None, "maintenance_window.end"),
        ({"start": "01:00", "end": "01:00", "timezone": "UTC"}, None, "a window needs a length"),
        (
            {"start": "01:00", "end": "03:00", "timezone": "Mars/Olympus"},
            None,
            "'Mars/Olympus' is not a known IANA timezone",
        ),
        ({"start": "01:00", "end": "03:00", "timezone": "../../etc/passwd"}, None, "is not a known IANA timezone"),
        ({"start": "01:00", "end": "03:00"}, None, "maintenance_window.timezone is required"),
        ({"start": "01:00", "end": "03:00", "timezone": "UTC", "tz": "x"}, None, "unknown keys tz"),
        ("01:00-03:00", None, "must be a dictionary"),
        (NIGHT_BERLIN, "tonight", "is not an ISO 8601 date and time"),
        (NIGHT_BERLIN, "2026-01-15T23:00:00", "has no UTC offset"),
    ],
)
def test_bad_input_is_refused_with_a_message_naming_the_setting(window, now, message):
    with pytest.raises(AnsibleFilterError, match=".*") as caught:
        time_window(window, now)
    assert message in str(caught.value)
