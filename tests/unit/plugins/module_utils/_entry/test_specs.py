# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""_entry/specs.py: the argument specs both ways a task runs validate against."""

from __future__ import annotations

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.gamepanel.panel.plugins.module_utils._entry.connection import panel_argument_spec
from ansible_collections.gamepanel.panel.plugins.module_utils._entry.specs import SERVER_CONTROL, SERVER_INFO


def validate(spec, **params):
    kwargs = spec.module_kwargs()
    return ArgumentSpecValidator(
        kwargs["argument_spec"],
        mutually_exclusive=kwargs["mutually_exclusive"],
        required_one_of=kwargs["required_one_of"],
    ).validate(params)


def test_server_control_takes_one_of_id_name_and_ids():
    assert validate(SERVER_CONTROL, state="restarted", id="mc-01").error_messages == []
    assert validate(SERVER_CONTROL, state="restarted", id="mc-01", ids=["mc-02"]).error_messages
    assert validate(SERVER_CONTROL, state="restarted").error_messages


def test_both_specs_hold_the_shared_connection_options_and_support_check_mode():
    for spec in (SERVER_CONTROL, SERVER_INFO):
        assert set(panel_argument_spec()) <= set(spec.argument_spec)
        assert spec.module_kwargs()["supports_check_mode"] is True
    assert validate(SERVER_INFO, id="mc-01", name=["Survival"]).error_messages
