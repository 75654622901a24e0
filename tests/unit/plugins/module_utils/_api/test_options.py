# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""_api/options.py: an option declared once, and the argument spec and defaults derived from it."""

from __future__ import annotations

import pytest

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.gamepanel.panel.plugins.module_utils._api.options import Option, Options


def test_an_option_gives_its_spec_entry_with_a_list_copy_of_a_tuple_default():
    option = Option("statuses", "list", elements="str", default=("offline", "stopped"), choices=("a", "b"))
    spec = option.spec()
    assert spec == {"type": "list", "elements": "str", "default": ["offline", "stopped"], "choices": ["a", "b"]}
    spec["default"].append("x")
    assert option.default == ("offline", "stopped")
    assert Option("state", "str", required=True).spec() == {"type": "str", "required": True}


def test_an_environment_fallback_is_read_when_the_option_is_not_given(monkeypatch):
    monkeypatch.setenv("OPTIONS_TEST_URL", "http://panel.test/v1")
    options = Options(Option("url", "str", env=["OPTIONS_TEST_URL"]), Option("secret", "str", no_log=True))
    validated = ArgumentSpecValidator(options.argument_spec()).validate({"secret": "s"})
    assert validated.error_messages == []
    assert validated.validated_parameters["url"] == "http://panel.test/v1"
    assert options.argument_spec()["secret"]["no_log"] is True


def test_options_add_up_in_order_and_a_name_is_declared_once():
    first = Options(Option("a", "int", default=1), Option("b", "str"))
    both = first + Options(Option("c", "bool", default=False))
    assert both.names == ("a", "b", "c")
    assert both.defaults() == {"a": 1, "b": None, "c": False}
    assert both.only("c", "a").names == ("c", "a")
    assert both.without("b").names == ("a", "c")
    assert "b" in both and both["b"].type == "str"
    with pytest.raises(ValueError):
        first + Options(Option("a", "int"))
