# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: server_control's options, each declared once, and what a task asks for (ControlRequest).

SERVER_CONTROL_OPTIONS is the one declaration of every option of server_control (its own here, the
connection options from _api/client.py): the argument spec (_entry/specs.py), ControlRequest's defaults
and the names of the options ControlRequest holds derive from it.  DOCUMENTATION stays a literal
(ansible-doc reads it without importing); ansible-test sanity holds it against the derived spec.
"""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.module_utils._rules.convergence import DEFAULT_STOPPED_STATUSES
from ansible_collections.gamepanel.panel.plugins.module_utils._api.client import CONNECTION_OPTIONS
from ansible_collections.gamepanel.panel.plugins.module_utils._api.options import Option, Options

ACTION_FOR_STATE = {"started": "start", "stopped": "stop", "restarted": "restart"}

# What a task acts on: exactly one of them (_entry/specs.py). The rest are what it asks for.
TARGETS = Options(
    Option("id", "str"),
    Option("name", "str"),
    Option("ids", "list", elements="str"),
    Option("hosts", "list", elements="str"),
)

# The options ControlRequest holds, with the value each takes when not given.
#   only_if_status  None: any status may be acted on (an empty list is refused by problems())
#   ignore_pending  send even when the ledger holds an open entry for the same action (replacing it)
#   confirm_only    send nothing: confirm the action an earlier task queued (the ledger's entry for it)
#   max_read_age    ids: the oldest read (seconds) an action may rest on; older, the server is read again
#   canary          ids: how many servers are sent alone and confirmed first (_engine/canary.py)
REQUEST_OPTIONS = Options(
    Option("wait", "bool", default=True),
    Option("wait_timeout", "int", default=300),
    Option("poll_interval", "float", default=5.0),
    Option("min_uptime", "int"),
    Option("max_players", "int"),
    Option("drain_timeout", "int", default=0),
    Option("on_busy", "str", choices=["skip", "fail"], default="skip"),
    Option("stopped_statuses", "list", elements="str", default=DEFAULT_STOPPED_STATUSES),
    Option("only_if_status", "list", elements="str"),
    Option("ignore_pending", "bool", default=False),
    Option("confirm_only", "bool", default=False),
    Option("max_read_age", "float", default=30),
    Option("canary", "int", default=0),
) + CONNECTION_OPTIONS.only("api_variant", "rate_limit")

SERVER_CONTROL_OPTIONS = (
    TARGETS
    + Options(Option("state", "str", required=True, choices=list(ACTION_FOR_STATE)))
    + REQUEST_OPTIONS
    + CONNECTION_OPTIONS.without(*REQUEST_OPTIONS.names)
)

_DEFAULTS = REQUEST_OPTIONS.defaults()


class ControlRequest:
    """What the user asked for (``problems()`` checks it); usually built from the module's parameters.

    ``ids``: the servers of a many-servers task (None: one server, by ``server_id`` or ``name``);
    every other keyword is one of REQUEST_OPTIONS, attributes of the same name.
    """

    def __init__(self, state, server_id=None, name=None, ids=None, **options):
        unknown = sorted(set(options) - set(_DEFAULTS))
        if unknown:
            raise TypeError("ControlRequest has no option %s" % ", ".join(unknown))
        self.state = state
        self.server_id = server_id
        self.name = name
        self.ids = None if ids is None else tuple(ids)
        self.__dict__.update(_DEFAULTS, **options)
        self.stopped_statuses = tuple(self.stopped_statuses)
        if self.only_if_status is not None:
            self.only_if_status = tuple(self.only_if_status)

    @classmethod
    def from_params(cls, params):
        """The request a task's parameters make; an option that is absent or None keeps the constructor's default.

        An empty ``stopped_statuses`` stays empty, so problems() refuses it instead of silently using
        the default; a ``rate_limit`` of 0 (pacing off) stays 0.
        """
        options = dict((option, params[option]) for option in _DEFAULTS if params.get(option) is not None)
        return cls(
            params["state"], server_id=params.get("id"), name=params.get("name"), ids=params.get("ids"), **options
        )

    @property
    def action(self):
        return ACTION_FOR_STATE[self.state]

    def problems(self):
        """Sentences describing values the argument spec cannot rule out; empty when the request is usable."""
        found = []
        if self.poll_interval is None or self.poll_interval <= 0:
            found.append("poll_interval must be more than 0 seconds.")
        for option in ("wait_timeout", "drain_timeout", "min_uptime", "max_players"):
            value = getattr(self, option)
            if value is not None and value < 0:
                found.append("%s must not be negative." % option)
        if not self.stopped_statuses:
            found.append("stopped_statuses must name at least one status.")
        if self.only_if_status is not None and not self.only_if_status:
            found.append("only_if_status must name at least one status (or be left out to act in any status).")
        if self.max_read_age is None or self.max_read_age <= 0:
            found.append("max_read_age must be more than 0 seconds.")
        if self.ids is not None and self.confirm_only:
            found.append(
                "confirm_only works on one server (id or name); with ids the task confirms what it sends (wait)."
            )
        if self.canary and self.ids is None:
            found.append("canary works with ids: the first servers of ids the task acts on are sent first.")
        if self.canary and not self.wait:
            found.append("canary needs wait: true: the canary is confirmed before anything else is sent.")
        if self.canary is not None and self.canary < 0:
            found.append("canary must not be negative.")
        if self.ids is not None and any(not str(server_id).strip() for server_id in self.ids):
            found.append("ids must not hold an empty id.")
        if self.confirm_only and self.ignore_pending:
            found.append(
                "confirm_only sends nothing and ignore_pending asks to send the action anyway: choose one of them."
            )
        return found
