# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The time_window filter: is a moment inside a daily window of wall-clock times in an IANA timezone."""

from __future__ import annotations

import datetime
import re

from ansible.errors import AnsibleFilterError

try:
    import zoneinfo
except ImportError:  # Python < 3.9 cannot run the controller anyway; reported when the filter is used
    zoneinfo = None

CLOCK_TIME = re.compile(r"^([01][0-9]|2[0-3]):([0-5][0-9])$")


def _clock_minutes(window, key, what):
    value = window.get(key)
    match = CLOCK_TIME.match(value) if isinstance(value, str) else None
    if not match:
        raise AnsibleFilterError(
            "%s.%s must be a time of day written HH:MM (00:00 to 23:59), not %r." % (what, key, value)
        )
    return int(match.group(1)) * 60 + int(match.group(2))


def _zone(window, what):
    name = window.get("timezone")
    if not isinstance(name, str) or not name.strip():
        raise AnsibleFilterError("%s.timezone is required: an IANA timezone name such as Europe/Berlin or UTC." % what)
    if zoneinfo is None:
        raise AnsibleFilterError("%s needs Python 3.9 or later on the controller (zoneinfo)." % what)
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise AnsibleFilterError(
            "%s.timezone %r is not a known IANA timezone (for example Europe/Berlin, America/New_York, UTC)."
            % (what, name)
        )


def _moment(now, what):
    """``now`` as an aware datetime: None is the current time; text is ISO 8601 with a UTC offset."""
    if now is None or now == "":
        return datetime.datetime.now(datetime.timezone.utc)
    if isinstance(now, datetime.datetime):
        moment = now
    else:
        text = str(now).strip()
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        try:
            moment = datetime.datetime.fromisoformat(text)
        except ValueError:
            raise AnsibleFilterError(
                "The time given for %s, %r, is not an ISO 8601 date and time such as "
                "2026-03-29T01:30:00+00:00." % (what, now)
            )
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise AnsibleFilterError(
            "The time given for %s, %r, has no UTC offset: add one (+00:00, Z, +02:00)." % (what, now)
        )
    return moment


def time_window(window, now=None, what="maintenance_window"):
    """Where ``now`` falls relative to ``window`` ({start, end, timezone}); see time_window.yml."""
    moment = _moment(now, what)
    if window is None or window == {}:
        return {
            "inside": True,
            "reason": "no %s set: any time is allowed" % what,
            "now": moment.isoformat(),
            "local_time": None,
        }
    if not isinstance(window, dict):
        raise AnsibleFilterError("%s must be a dictionary with start, end and timezone, not %r." % (what, window))
    unknown = sorted(set(window) - {"start", "end", "timezone"})
    if unknown:
        raise AnsibleFilterError(
            "%s has unknown keys %s: only start, end and timezone are allowed." % (what, ", ".join(unknown))
        )
    start = _clock_minutes(window, "start", what)
    end = _clock_minutes(window, "end", what)
    if start == end:
        raise AnsibleFilterError(
            "%s.start and %s.end are both %s: a window needs a length." % (what, what, window["start"])
        )
    zone = _zone(window, what)

    # Wall-clock time in the window's zone: on the days clocks change, a window simply
    # covers the local times that exist that day (a skipped hour is never inside it).
    local = moment.astimezone(zone)
    minute = local.hour * 60 + local.minute
    if start < end:
        inside = start <= minute < end
    else:  # crosses midnight: from start to 24:00, then from 00:00 to end
        inside = minute >= start or minute < end
    span = "%s-%s %s" % (window["start"], window["end"], window["timezone"])
    local_text = "%s %s" % (local.strftime("%Y-%m-%d %H:%M"), local.tzname())
    if inside:
        reason = "inside %s %s (now %s)" % (what, span, local_text)
    else:
        reason = "outside %s %s (now %s): nothing sent" % (what, span, local_text)
    return {"inside": inside, "reason": reason, "now": moment.isoformat(), "local_time": local_text}


class FilterModule(object):

    def filters(self):
        return {"time_window": time_window}
