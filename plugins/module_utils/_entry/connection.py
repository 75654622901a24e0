# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: the connection options every gamepanel.panel module shares, and the client made from them.

The options are declared once (_api/client.py, CONNECTION_OPTIONS) and documented once, in the
``gamepanel.panel.panel`` doc fragment; sanity and a unit test keep the two in step.
"""

from __future__ import annotations

from ansible.module_utils.basic import missing_required_lib

from ansible_collections.gamepanel.panel.plugins.module_utils._api.client import (
    CONNECTION_OPTIONS,
    HAS_REQUESTS,
    PanelClient,
)
from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import PanelError
from ansible_collections.gamepanel.panel.plugins.module_utils._api.token_file import token_from_environment
from ansible_collections.gamepanel.panel.plugins.module_utils._entry.failure import TaskFailed, failure_from_error


def panel_argument_spec():
    """The argument spec of the shared connection options (a new dict on every call), from their declaration."""
    return CONNECTION_OPTIONS.argument_spec()


# The connection options PanelClient takes as settings, beside its base_url and token.
_CLIENT_SETTINGS = CONNECTION_OPTIONS.without("base_url", "api_token").names


def client_from_params(params):
    """A PanelClient configured from a task's parameters; TaskFailed on bad settings."""
    if not HAS_REQUESTS:
        raise TaskFailed(missing_required_lib("requests"))
    try:
        return PanelClient(
            params["base_url"],
            # None only when the fallback found no usable token: a bad token file is named now
            params["api_token"] if params["api_token"] is not None else token_from_environment(),
            **dict((name, params[name]) for name in _CLIENT_SETTINGS),
        )
    except PanelError as error:
        raise failure_from_error(error) from None
