# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Injected failures: error statuses, a proxy's error page, dropped connections and added latency."""

from __future__ import annotations

import dataclasses
import random
import re
import typing as t

KINDS = ("status", "proxy", "drop", "latency")
# The error page of the proxy that a ``proxy`` fault plays: Envoy's, when the panel behind it reset
# the connection before its answer's headers (the body Envoy writes, in an HTML page as a
# load balancer's custom error page has it).
PROXY_PAGE = (
    "<html><head><title>503 Service Unavailable</title></head><body><h1>503 Service Unavailable</h1>"
    "<p>upstream connect error or disconnect/reset before headers. reset reason: connection termination</p>"
    "</body></html>"
)
PHASES = ("before", "after")
VARIANTS = ("live", "planned")


class FaultSpecError(ValueError):
    pass


@dataclasses.dataclass
class Fault:  # pylint: disable=too-many-instance-attributes
    """One fault rule.

    ``phase`` only matters for POSTs: "before" fires before the panel looks at the request
    (nothing is queued), "after" fires once the action has been queued, so the client sees a
    failure for an action that will run. Any other method meets the fault before handling.

    Whose answer the client gets: a ``status`` fault before queueing is the panel's own (its JSON
    error); after queueing the panel itself said 202, so what fails is something on the way and
    its answer is not the panel's (an empty body, as a gateway's 502 has). A ``proxy`` fault is a
    proxy's HTML error page (PROXY_PAGE, status 503 unless given) in either phase.
    """

    fault_id: str
    kind: str
    status: int | None
    seconds: float
    method: str | None
    path: str | None
    variant: str | None
    phase: str
    rate: float
    count: int | None
    body: str | None
    retry_after: str | None = None  # a status fault's Retry-After header, as sent
    fired: int = 0
    pattern: re.Pattern | None = dataclasses.field(default=None, repr=False)

    def matches(self, variant: str, method: str, path: str, phase: str) -> bool:
        if self.count is not None and self.fired >= self.count:
            return False
        if self.method is not None and self.method != method:
            return False
        if self.variant is not None and self.variant != variant:
            return False
        if method == "POST" and self.phase != phase:
            return False
        if method != "POST" and phase != "before":
            return False
        return self.pattern is None or self.pattern.search(path) is not None

    def describe(self) -> dict[str, t.Any]:
        fields = dataclasses.asdict(self)
        del fields["pattern"]
        fields["id"] = fields.pop("fault_id")
        return fields


def _optional_choice(spec: dict[str, t.Any], key: str, choices: tuple[str, ...]) -> str | None:
    value = spec.get(key)
    if value is None:
        return None
    if value not in choices:
        raise FaultSpecError(f"fault {key} must be one of {', '.join(choices)} or null, not {value!r}")
    return value


class FaultRegistry:
    def __init__(self) -> None:
        self._faults: list[Fault] = []
        self._next_id = 1

    def __bool__(self) -> bool:
        return bool(self._faults)

    def add(self, spec: dict[str, t.Any]) -> Fault:
        known = {
            "kind",
            "status",
            "seconds",
            "method",
            "path",
            "variant",
            "phase",
            "rate",
            "count",
            "body",
            "retry_after",
        }
        unknown = sorted(set(spec) - known)
        if unknown:
            raise FaultSpecError(f"unknown fault field(s): {', '.join(unknown)}")
        kind = spec.get("kind")
        if kind not in KINDS:
            raise FaultSpecError(f"fault kind must be one of {', '.join(KINDS)}, not {kind!r}")
        status = spec.get("status", 503 if kind in ("status", "proxy") else None)
        if kind in ("status", "proxy") and (not isinstance(status, int) or not 400 <= status <= 599):
            raise FaultSpecError(
                f"a status fault needs status between 400 and 599 (500, 502 or 503 usually), not {status!r}"
            )
        seconds = spec.get("seconds", 0.0 if kind != "latency" else None)
        if not isinstance(seconds, (int, float)) or seconds < 0:
            raise FaultSpecError(f"fault seconds must be a number of seconds >= 0, not {seconds!r}")
        method = spec.get("method")
        method = method.upper() if isinstance(method, str) else None
        path = spec.get("path")
        try:
            pattern = re.compile(path) if path is not None else None
        except re.error as exc:
            raise FaultSpecError(f"fault path is not a valid regular expression: {exc}") from exc
        rate = spec.get("rate", 1.0)
        if not isinstance(rate, (int, float)) or not 0 <= rate <= 1:
            raise FaultSpecError(f"fault rate must be between 0 and 1, not {rate!r}")
        count = spec.get("count")
        if count is not None and (not isinstance(count, int) or count < 0):
            raise FaultSpecError(f"fault count must be a whole number >= 0 or null, not {count!r}")
        retry_after = spec.get("retry_after")
        if retry_after is not None:
            if kind not in ("status", "proxy"):
                raise FaultSpecError("retry_after only goes with a status or proxy fault")
            if isinstance(retry_after, bool) or not isinstance(retry_after, (int, str)):
                raise FaultSpecError(f"fault retry_after must be whole seconds or an HTTP date, not {retry_after!r}")
            retry_after = str(retry_after)
        fault = Fault(
            fault_id=f"fault-{self._next_id}",
            kind=kind,
            status=status if kind in ("status", "proxy") else None,
            seconds=float(seconds),
            method=method,
            path=path,
            variant=_optional_choice(spec, "variant", VARIANTS),
            phase=_optional_choice(spec, "phase", PHASES) or "before",
            rate=float(rate),
            count=count,
            body=spec.get("body"),
            retry_after=retry_after,
            pattern=pattern,
        )
        self._next_id += 1
        self._faults.append(fault)
        return fault

    def clear(self) -> None:
        self._faults.clear()

    def describe(self) -> list[dict[str, t.Any]]:
        return [fault.describe() for fault in self._faults]

    def fire(self, variant: str, method: str, path: str, phase: str, rng: random.Random) -> tuple[float, Fault | None]:
        """Roll every matching fault: the seconds to wait first, and the status/drop fault that then answers, if any."""
        delay = 0.0
        for fault in self._faults:
            if not fault.matches(variant, method, path, phase):
                continue
            if fault.rate < 1 and rng.random() >= fault.rate:
                continue
            fault.fired += 1
            delay += fault.seconds
            if fault.kind == "latency":
                continue
            return delay, fault
        return delay, None
