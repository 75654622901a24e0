# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The environment's proxy variables: a panel at plain http on this machine is reached directly, https via the proxy.

A company machine sets HTTP_PROXY (and friends) for everything; a panel reached through
a tunnel at http://127.0.0.1 must not have its token handed to that proxy in clear. The
proxy here is a RecordingProxy: every connection that reaches it is recorded, none is forwarded.
"""

from __future__ import annotations

import json

import pytest

from panel_doubles import RecordingProxy

INFO = "reliability/info.yml"
CONTROL = "reliability/control.yml"


@pytest.fixture
def proxy():
    with RecordingProxy() as recorder:
        yield recorder


def proxy_environment(proxy):
    """Every proxy variable pointing at ``proxy``, and no NO_PROXY to exempt this machine."""
    names = ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")
    env = dict((name, proxy.url) for name in names)
    env.update({"NO_PROXY": None, "no_proxy": None})
    return env


def test_a_restart_at_a_loopback_panel_works_and_nothing_reaches_the_proxy(ansible, emulator, proxy):
    run = ansible.playbook(
        CONTROL, extra_vars={"rc_id": "mc-01", "rc_wait_timeout": 60}, env=proxy_environment(proxy), timeout=120
    )
    assert run.rc == 0, run.describe()
    control = run.result("Registered")["msg"]["control"]
    assert control.get("failed") is not True, control
    assert control["changed"] is True and control["converged"] is True
    counters = emulator.control.counters()
    assert counters["posts"]["mc-01"] == 1 and counters["restarts"]["mc-01"] == 1
    assert proxy.lines == []


def test_the_inventory_at_a_loopback_panel_reads_directly_and_nothing_reaches_the_proxy(ansible, emulator, proxy):
    run = ansible.inventory("minimal.gamepanel.yml", env=proxy_environment(proxy))
    assert run.rc == 0, run.describe()
    hostvars = run.json["_meta"]["hostvars"].values()
    # json.dumps: ansible-core may wrap the value in its {"__ansible_unsafe": ...} marker
    assert any('"mc-01"' in json.dumps(host.get("gamepanel_id")) for host in hostvars), run.describe()
    assert emulator.control.counters()["requests"]["owner-control"]["live GET /servers"] == 1
    assert proxy.lines == []


def test_an_https_panel_is_still_asked_for_through_the_proxy(ansible, proxy):
    # No panel is behind: the proxy answers 502 to the CONNECT and the read fails. What matters is that the
    # proxy was asked for a TLS tunnel, inside which the token would travel, and never saw the token.
    run = ansible.playbook(
        INFO,
        base_url="https://panel.example.invalid/v1",
        extra_vars={"ri_id": "mc-01", "ri_request_timeout": 2, "ri_retry_timeout": 0},
        env=proxy_environment(proxy),
        timeout=120,
    )
    assert run.rc == 0, run.describe()
    info = run.result("Registered")["msg"]["info"]
    assert info["failed"] is True
    assert proxy.lines and all(line.startswith("CONNECT panel.example.invalid:443 ") for line in proxy.lines)
    assert all("gp-test-owner-control" not in head for head in proxy.headers)
    assert "gp-test-owner-control" not in run.stdout + run.stderr
