# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What every gamepanel.panel module shares: its connection options, its client, its failures.

The options are documented once, in the ``gamepanel.panel.panel`` doc fragment;
keep the two in step.
"""

from __future__ import annotations

from ansible.module_utils.basic import env_fallback, missing_required_lib

from ansible_collections.gamepanel.panel.plugins.module_utils.client import (
    HAS_REQUESTS,
    REQUESTS_IMPORT_ERROR,
    PanelClient,
)
from ansible_collections.gamepanel.panel.plugins.module_utils.errors import PanelError


def panel_argument_spec():
    """The argument spec of the shared connection options (a new dict on every call).

    ``api_token`` and ``base_url`` are not ``required`` in the spec, so that a missing
    one is reported by ``client_from_module`` with a message that says where to get it.
    """
    return dict(
        api_token=dict(type="str", no_log=True, fallback=(env_fallback, ["GAMEPANEL_API_TOKEN"])),
        base_url=dict(type="str", fallback=(env_fallback, ["GAMEPANEL_BASE_URL"])),
        api_variant=dict(type="str", choices=["live", "planned"], default="live",
                         fallback=(env_fallback, ["GAMEPANEL_API_VARIANT"])),
        validate_certs=dict(type="bool", default=True),
        request_timeout=dict(type="float", default=30.0),
        rate_limit=dict(type="int", default=120, fallback=(env_fallback, ["GAMEPANEL_RATE_LIMIT"])),
        retry_timeout=dict(type="float", default=60.0),
        allow_insecure_http=dict(type="bool", default=False, fallback=(env_fallback, ["GAMEPANEL_ALLOW_INSECURE_HTTP"])),
    )


def client_from_module(module):
    """A PanelClient configured from the module's parameters; fails the module on bad settings."""
    if not HAS_REQUESTS:
        module.fail_json(msg=missing_required_lib("requests"), exception=REQUESTS_IMPORT_ERROR)
    params = module.params
    try:
        client = PanelClient(
            params["base_url"],
            params["api_token"],
            api_variant=params["api_variant"],
            validate_certs=params["validate_certs"],
            request_timeout=params["request_timeout"],
            rate_limit=params["rate_limit"],
            retry_timeout=params["retry_timeout"],
            allow_insecure_http=params["allow_insecure_http"],
        )
    except PanelError as error:
        fail_from_error(module, error)
    for warning in client.warnings:
        module.warn(warning)
    return client


def fail_from_error(module, error, client=None, **result):
    """Fail the module with ``error``'s message, adding ``status`` and, given a client, ``api`` stats.

    ``result`` holds any return values the module already has (``changed``, ``server``...).
    """
    result["status"] = getattr(error, "status", None)
    if client is not None:
        result["api"] = client.stats
    module.fail_json(msg=str(error), **result)
