# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A panel that refuses connections or never answers: the run fails within its budgets.

Budgets are small (request_timeout 1 s, retry_timeout 2 s); the harness's own run
timeout is the guard against a hang, no duration is asserted.
"""

from __future__ import annotations

import pytest

from panel_doubles import SilentPanel, closed_port

INFO = "reliability/info.yml"
CONTROL = "reliability/control.yml"
BUDGETS = {"request_timeout": 1, "retry_timeout": 2}
HANG_GUARD = 90  # seconds: far above the budgets, far below the harness default


def run_info(ansible, base_url):
    extra = {"ri_" + key: value for key, value in BUDGETS.items()}
    extra["ri_id"] = "mc-01"
    run = ansible.playbook(INFO, base_url=base_url, extra_vars=extra, timeout=HANG_GUARD)
    assert run.rc == 0, run.describe()
    return run.result("Registered")["msg"]["info"]


def flat(text):
    """Ansible wraps warnings to the terminal's width: compare words, not lines."""
    return " ".join(text.split())


@pytest.fixture
def silent_panel():
    with SilentPanel() as panel:
        yield panel


def test_refused_connections_fail_with_the_reason_and_the_retries_spent(ansible):
    port = closed_port()
    info = run_info(ansible, "http://127.0.0.1:%d/v1" % port)
    assert info["failed"] is True
    assert "could not connect to the panel at 127.0.0.1:%d" % port in info["msg"]
    assert "retry_timeout=2 s" in info["msg"]
    assert info["api"]["requests"] >= 2 and info["api"]["retries"] == info["api"]["requests"] - 1


def test_a_panel_that_never_answers_fails_within_request_and_retry_timeouts(ansible, silent_panel):
    info = run_info(ansible, silent_panel.url)
    assert info["failed"] is True
    assert "sent no answer within request_timeout" in info["msg"]
    assert "retry_timeout=2 s" in info["msg"]
    assert info["api"]["requests"] >= 1


def test_server_control_on_a_silent_panel_queues_nothing_and_says_so(ansible, silent_panel):
    extra = {"rc_" + key: value for key, value in BUDGETS.items()}
    extra["rc_id"] = "mc-01"
    run = ansible.playbook(CONTROL, base_url=silent_panel.url, extra_vars=extra, timeout=HANG_GUARD)
    assert run.rc == 0, run.describe()
    control = run.result("Registered")["msg"]["control"]
    assert control["failed"] is True and control["changed"] is False and control["action"] is None
    assert "sent no answer within request_timeout" in control["msg"]


def test_the_inventory_on_a_refusing_panel_fails_with_the_reason(ansible):
    port = closed_port()
    config = (
        "plugin: gamepanel.panel.servers\nrequest_timeout: 1\nretry_timeout: 2\n"
        "base_url: http://127.0.0.1:%d/v1\n" % port
    )
    run = ansible.inventory(config, timeout=HANG_GUARD)
    assert "could not connect to the panel at 127.0.0.1:%d" % port in flat(run.stderr), run.describe()


def test_the_inventory_on_a_silent_panel_fails_within_its_budgets(ansible, silent_panel):
    config = "plugin: gamepanel.panel.servers\nrequest_timeout: 1\nretry_timeout: 2\nbase_url: %s\n" % silent_panel.url
    run = ansible.inventory(config, timeout=HANG_GUARD)
    assert "sent no answer within request_timeout" in flat(run.stderr), run.describe()
