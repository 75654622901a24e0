# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Validation of emulator settings, shared by the fixture loader and the controls."""

from __future__ import annotations

import copy
import typing as t

from .model import LIST_STYLES, PLANS, Settings
from .ratelimit import WINDOW_KINDS

# Timing keys that control.settings() accepts and applies to every server at once.
FLEET_TIMING_KEYS = ("checkin_interval", "checkin_jitter", "boot_time", "stop_time")


class SettingsError(ValueError):
    pass


def require_bool(value: t.Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise SettingsError(f"{name} must be true or false, not {value!r}")
    return value


def require_number(value: t.Any, name: str, minimum: float = 0.0, strictly_above: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SettingsError(f"{name} must be a number, not {value!r}")
    if value < minimum or (strictly_above and value == minimum):
        relation = ">" if strictly_above else ">="
        raise SettingsError(f"{name} must be {relation} {minimum}, not {value!r}")
    return float(value)


def require_int(value: t.Any, name: str, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise SettingsError(f"{name} must be a whole number >= {minimum}, not {value!r}")
    return value


def updated_settings(current: Settings, updates: dict[str, t.Any]) -> Settings:
    """A copy of ``current`` with ``updates`` applied; raises SettingsError and changes nothing on a bad value."""
    result = copy.deepcopy(current)
    for key, value in updates.items():
        if key == "live_list_style":
            if value not in LIST_STYLES:
                raise SettingsError(f"live_list_style must be one of {', '.join(LIST_STYLES)}, not {value!r}")
            result.live_list_style = value
        elif key == "rate_limit_window":
            if value not in WINDOW_KINDS:
                raise SettingsError(f"rate_limit_window must be one of {', '.join(WINDOW_KINDS)}, not {value!r}")
            result.rate_limit_window = value
        elif key == "page_size":
            result.page_size = require_int(value, key, minimum=1)
        elif key in ("retry_after", "fast_restart", "player_churn", "rate_limit_headers"):
            setattr(result, key, require_bool(value, key))
        elif key == "seed":
            result.seed = require_int(value, key)
        elif key == "read_lag_reads":
            result.read_lag_reads = require_int(value, key)
        elif key == "read_lag_seconds":
            result.read_lag_seconds = require_number(value, key)
        elif key == "rate_limits":
            if not isinstance(value, dict):
                raise SettingsError('rate_limits must be a mapping such as {"pro": 120, "team": 600}')
            for plan, limit in value.items():
                if plan not in PLANS or plan == "starter":
                    raise SettingsError(f"rate_limits keys are pro and team, not {plan!r}")
                result.rate_limits[plan] = require_int(limit, f"rate_limits.{plan}", minimum=1)
        else:
            raise SettingsError(f"unknown setting {key!r}")
    return result
