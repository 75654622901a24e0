# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""module.py: the shared argument spec, the client from module parameters, failures."""

from __future__ import annotations

import pytest
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.gamepanel.panel.plugins.module_utils import client as client_module
from ansible_collections.gamepanel.panel.plugins.module_utils import module as module_utils
from ansible_collections.gamepanel.panel.plugins.module_utils.client import PanelClient
from ansible_collections.gamepanel.panel.plugins.module_utils.errors import PanelNotFoundError

from panel_fakes import TOKEN

ENV = ("GAMEPANEL_API_TOKEN", "GAMEPANEL_BASE_URL", "GAMEPANEL_API_VARIANT", "GAMEPANEL_RATE_LIMIT",
       "GAMEPANEL_ALLOW_INSECURE_HTTP")


class Failed(Exception):
    pass


class FakeModule:
    def __init__(self, params):
        self.params = params
        self.failure = None
        self.warnings = []

    def warn(self, warning):
        self.warnings.append(warning)

    def fail_json(self, **kwargs):
        self.failure = kwargs
        raise Failed(kwargs["msg"])


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GAMEPANEL_STATE_DIR", str(tmp_path))


def validate(params):
    result = ArgumentSpecValidator(module_utils.panel_argument_spec()).validate(params)
    assert not result.error_messages, result.error_messages
    return result


def test_defaults():
    params = validate({}).validated_parameters
    assert params == {"api_token": None, "base_url": None, "api_variant": "live", "validate_certs": True,
                      "request_timeout": 30.0, "rate_limit": 120, "retry_timeout": 60.0,
                      "allow_insecure_http": False}


def test_environment_fallbacks_and_token_is_no_log(monkeypatch):
    monkeypatch.setenv("GAMEPANEL_API_TOKEN", TOKEN)
    monkeypatch.setenv("GAMEPANEL_BASE_URL", "https://panel.example.test/v1")
    monkeypatch.setenv("GAMEPANEL_API_VARIANT", "planned")
    monkeypatch.setenv("GAMEPANEL_RATE_LIMIT", "600")
    result = validate({})
    params = result.validated_parameters
    assert (params["api_token"], params["base_url"], params["api_variant"], params["rate_limit"]) == (
        TOKEN, "https://panel.example.test/v1", "planned", 600)
    assert TOKEN in result._no_log_values


def test_explicit_options_win_over_environment(monkeypatch):
    monkeypatch.setenv("GAMEPANEL_API_VARIANT", "planned")
    monkeypatch.setenv("GAMEPANEL_RATE_LIMIT", "600")
    params = validate({"api_variant": "live", "rate_limit": 10}).validated_parameters
    assert (params["api_variant"], params["rate_limit"]) == ("live", 10)


def test_spec_is_a_fresh_copy():
    spec = module_utils.panel_argument_spec()
    spec["api_token"]["no_log"] = False
    assert module_utils.panel_argument_spec()["api_token"]["no_log"] is True


def test_client_from_module():
    params = validate({"api_token": TOKEN, "base_url": "https://panel.example.test/v1",
                       "rate_limit": 5, "retry_timeout": 3}).validated_parameters
    client = module_utils.client_from_module(FakeModule(params))
    assert isinstance(client, PanelClient)
    assert client.base_url == "https://panel.example.test/v1"
    assert client.api_variant == "live"


@pytest.mark.parametrize("params, expected", [
    ({"base_url": "https://panel.example.test/v1"}, "GAMEPANEL_API_TOKEN"),
    ({"api_token": TOKEN}, "GAMEPANEL_BASE_URL"),
    ({"api_token": TOKEN, "base_url": "panel.example.test"}, "base_url"),
])
def test_client_from_module_fails_clearly(params, expected):
    module = FakeModule(validate(params).validated_parameters)
    with pytest.raises(Failed, match=expected):
        module_utils.client_from_module(module)
    assert TOKEN not in module.failure["msg"]


def test_missing_requests_uses_missing_required_lib(monkeypatch):
    monkeypatch.setattr(module_utils, "HAS_REQUESTS", False)
    monkeypatch.setattr(module_utils, "REQUESTS_IMPORT_ERROR", "Traceback: no requests")
    module = FakeModule(validate({"api_token": TOKEN, "base_url": "https://p/v1"}).validated_parameters)
    with pytest.raises(Failed, match="requests"):
        module_utils.client_from_module(module)
    assert module.failure["exception"] == "Traceback: no requests"
    assert client_module.HAS_REQUESTS is True  # only the module view was patched


def test_fail_from_error_adds_status_and_api():
    module = FakeModule({})

    class StatsOnly:
        stats = {"requests": 2, "retries": 1, "waited_seconds": 0.5}

    with pytest.raises(Failed):
        module_utils.fail_from_error(module, PanelNotFoundError("Server 'x' was not found.", status=404),
                                     client=StatsOnly(), servers=[])
    assert module.failure == {"msg": "Server 'x' was not found.", "status": 404, "servers": [],
                              "api": {"requests": 2, "retries": 1, "waited_seconds": 0.5}}


def test_fail_from_error_without_client_or_status():
    module = FakeModule({})
    with pytest.raises(Failed):
        module_utils.fail_from_error(module, ValueError("plain"))
    assert module.failure == {"msg": "plain", "status": None}


def test_plain_http_to_another_host_fails_the_module_naming_the_option():
    module = FakeModule(validate({"api_token": TOKEN, "base_url": "http://panel.example.test/v1"}).validated_parameters)
    with pytest.raises(Failed, match="allow_insecure_http"):
        module_utils.client_from_module(module)
    assert TOKEN not in module.failure["msg"]


@pytest.mark.parametrize("params, env", [
    ({"allow_insecure_http": True}, None),
    ({}, "true"),
])
def test_allowed_plain_http_warns_through_the_module(monkeypatch, params, env):
    if env is not None:
        monkeypatch.setenv("GAMEPANEL_ALLOW_INSECURE_HTTP", env)
    params = dict(params, api_token=TOKEN, base_url="http://panel.example.test/v1")
    module = FakeModule(validate(params).validated_parameters)
    client = module_utils.client_from_module(module)
    assert client.base_url == "http://panel.example.test/v1"
    assert module.warnings == [client_module.INSECURE_HTTP_WARNING]


def test_loopback_http_needs_no_option_and_warns_nothing():
    module = FakeModule(validate({"api_token": TOKEN, "base_url": "http://127.0.0.1:8080/v1"}).validated_parameters)
    module_utils.client_from_module(module)
    assert module.warnings == []
