# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""_entry/connection.py: the shared argument spec, and the client from task parameters (its failures)."""

from __future__ import annotations

import pytest
import yaml
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.gamepanel.panel.plugins.doc_fragments import panel as panel_fragment
from ansible_collections.gamepanel.panel.plugins.module_utils._api import client as client_module
from ansible_collections.gamepanel.panel.plugins.module_utils._entry import connection as module_utils
from ansible_collections.gamepanel.panel.plugins.module_utils._api.client import PanelClient

from panel_fakes import TOKEN

ENV = (
    "GAMEPANEL_API_TOKEN",
    "GAMEPANEL_API_TOKEN_FILE",
    "GAMEPANEL_BASE_URL",
    "GAMEPANEL_API_VARIANT",
    "GAMEPANEL_RATE_LIMIT",
    "GAMEPANEL_ALLOW_INSECURE_HTTP",
)


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
    assert params == {
        "api_token": None,
        "base_url": None,
        "api_variant": "live",
        "validate_certs": True,
        "request_timeout": 30.0,
        "rate_limit": 120,
        "retry_timeout": 60.0,
        "allow_insecure_http": False,
    }


def test_environment_fallbacks_and_token_is_no_log(monkeypatch):
    monkeypatch.setenv("GAMEPANEL_API_TOKEN", TOKEN)
    monkeypatch.setenv("GAMEPANEL_BASE_URL", "https://panel.example.test/v1")
    monkeypatch.setenv("GAMEPANEL_API_VARIANT", "planned")
    monkeypatch.setenv("GAMEPANEL_RATE_LIMIT", "600")
    result = validate({})
    params = result.validated_parameters
    assert (params["api_token"], params["base_url"], params["api_variant"], params["rate_limit"]) == (
        TOKEN,
        "https://panel.example.test/v1",
        "planned",
        600,
    )
    assert TOKEN in result._no_log_values


def token_file_in_environment(monkeypatch, tmp_path, mode=0o600):
    path = tmp_path / "token"
    path.write_text(TOKEN + "\n")
    path.chmod(mode)
    monkeypatch.setenv("GAMEPANEL_API_TOKEN_FILE", str(path))
    return path


def test_the_token_file_is_the_last_fallback_and_its_token_is_no_log(monkeypatch, tmp_path):
    token_file_in_environment(monkeypatch, tmp_path)
    result = validate({})
    assert result.validated_parameters["api_token"] == TOKEN and TOKEN in result._no_log_values
    monkeypatch.setenv("GAMEPANEL_API_TOKEN", "gp-from-the-variable")
    assert validate({}).validated_parameters["api_token"] == "gp-from-the-variable"
    assert validate({"api_token": "gp-given"}).validated_parameters["api_token"] == "gp-given"


def test_a_bad_token_file_fails_the_task_naming_it(monkeypatch, tmp_path):
    path = token_file_in_environment(monkeypatch, tmp_path, mode=0o644)
    params = validate({"base_url": "https://panel.example.test/v1"}).validated_parameters
    assert params["api_token"] is None  # the fallback cannot fail a task: the client set-up does
    with pytest.raises(module_utils.TaskFailed, match="can be read by every user") as failure:
        module_utils.client_from_params(params)
    assert "%s (from GAMEPANEL_API_TOKEN_FILE)" % path in failure.value.msg and TOKEN not in failure.value.msg


def test_a_given_token_never_reads_the_token_file(monkeypatch, tmp_path):
    monkeypatch.setenv("GAMEPANEL_API_TOKEN_FILE", str(tmp_path / "absent"))
    assert client_from({"api_token": TOKEN, "base_url": "https://panel.example.test/v1"})


def test_explicit_options_win_over_environment(monkeypatch):
    monkeypatch.setenv("GAMEPANEL_API_VARIANT", "planned")
    monkeypatch.setenv("GAMEPANEL_RATE_LIMIT", "600")
    params = validate({"api_variant": "live", "rate_limit": 10}).validated_parameters
    assert (params["api_variant"], params["rate_limit"]) == ("live", 10)


def test_spec_is_a_fresh_copy():
    spec = module_utils.panel_argument_spec()
    spec["api_token"]["no_log"] = False
    assert module_utils.panel_argument_spec()["api_token"]["no_log"] is True


def client_from(params):
    return module_utils.client_from_params(validate(params).validated_parameters)


def test_client_from_params():
    client = client_from(
        {"api_token": TOKEN, "base_url": "https://panel.example.test/v1", "rate_limit": 5, "retry_timeout": 3}
    )
    assert isinstance(client, PanelClient)
    assert client.base_url == "https://panel.example.test/v1"
    assert client.api_variant == "live"


@pytest.mark.parametrize(
    "params, expected",
    [
        ({"base_url": "https://panel.example.test/v1"}, "GAMEPANEL_API_TOKEN"),
        ({"api_token": TOKEN}, "GAMEPANEL_BASE_URL"),
        ({"api_token": TOKEN, "base_url": "panel.example.test"}, "base_url"),
    ],
)
def test_client_from_params_fails_clearly(params, expected):
    with pytest.raises(module_utils.TaskFailed, match=expected) as failure:
        client_from(params)
    assert TOKEN not in failure.value.msg


def test_missing_requests_uses_missing_required_lib(monkeypatch):
    monkeypatch.setattr(module_utils, "HAS_REQUESTS", False)
    with pytest.raises(module_utils.TaskFailed, match="requests"):
        client_from({"api_token": TOKEN, "base_url": "https://p/v1"})
    assert client_module.HAS_REQUESTS is True  # only the module view was patched


def test_plain_http_to_another_host_fails_naming_the_option():
    with pytest.raises(module_utils.TaskFailed, match="allow_insecure_http") as failure:
        client_from({"api_token": TOKEN, "base_url": "http://panel.example.test/v1"})
    assert TOKEN not in failure.value.msg


@pytest.mark.parametrize(
    "params, env",
    [
        ({"allow_insecure_http": True}, None),
        ({}, "true"),
    ],
)
def test_allowed_plain_http_warns_through_the_client(monkeypatch, params, env):
    if env is not None:
        monkeypatch.setenv("GAMEPANEL_ALLOW_INSECURE_HTTP", env)
    client = client_from(dict(params, api_token=TOKEN, base_url="http://panel.example.test/v1"))
    assert client.base_url == "http://panel.example.test/v1"
    assert client.warnings == [client_module.INSECURE_HTTP_WARNING]


def test_loopback_http_needs_no_option_and_warns_nothing():
    assert client_from({"api_token": TOKEN, "base_url": "http://127.0.0.1:8080/v1"}).warnings == []


def test_the_doc_fragment_shows_the_connection_defaults_the_code_uses():
    fragment = yaml.safe_load(panel_fragment.ModuleDocFragment.DOCUMENTATION)["options"]
    for option, default in client_module.CONNECTION_DEFAULTS.items():
        assert fragment[option]["default"] == default, option
        assert module_utils.panel_argument_spec()[option]["default"] == default, option
