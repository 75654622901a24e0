#!/usr/bin/python
# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: server_info
short_description: Read game servers and their live state from the panel
version_added: 1.0.0
description:
  - Reads one server by O(id), or every server the API token can see, optionally filtered by O(name), O(game)
    and O(status).
  - On request (O(include)), also reads each selected server's sub-resources (players, metrics, console, resources)
    and returns them as the panel gives them.
  - Changes nothing on the panel.
author:
  - gamepanel.panel contributors (@gamepanel)
extends_documentation_fragment:
  - gamepanel.panel.panel
  - ansible.builtin.action_common_attributes
  - gamepanel.panel.attributes
  - gamepanel.panel.attributes.no_diff
attributes:
  check_mode:
    details: The module only reads, so it runs the same in check mode.
options:
  id:
    description:
      - Id of the one server to read. Fails naming the id when the panel does not know it.
      - Mutually exclusive with O(name), O(game) and O(status).
    type: str
  name:
    description:
      - Keep only servers whose display name matches one of these shell-style patterns (V(mc-*), V(Rust ?ain)),
        case-sensitively. A name also matches itself exactly, even when it contains pattern characters.
    type: list
    elements: str
  game:
    description:
      - Keep only servers of one of these games (exact game identifiers, for example V(minecraft)).
    type: list
    elements: str
  status:
    description:
      - Keep only servers whose status is one of these values (exact, for example V(online)).
      - Status values other than V(online) exist and are passed through unchanged.
    type: list
    elements: str
  include:
    description:
      - Sub-resources to read for each selected server, returned under RV(servers[].details).
      - Each costs one request per server, counted against O(rate_limit).
      - The V(planned) API variant offers V(players) only; asking it for another is an error.
    type: list
    elements: str
    choices: [players, metrics, console, resources]
    default: []
seealso:
  - module: gamepanel.panel.server_control
notes:
  - Filters combine with AND; the values inside one filter combine with OR.
  - Without filters, every server the token's account can access is returned.
  - When the task runs on the controller (C(localhost), or hosts with C(ansible_connection=local) such as those of
    the P(gamepanel.panel.servers#inventory) inventory), its action plugin runs it inside Ansible's worker process,
    which saves starting a Python interpreter per host; the controller's Python then needs C(requests). Delegated to
    another host, or with C(become) or C(async), the module is executed there as usual. Both ways return the same
    values.
"""

EXAMPLES = r"""
- name: Read every server (token and address from GAMEPANEL_API_TOKEN and GAMEPANEL_BASE_URL)
  gamepanel.panel.server_info:
  register: fleet

- name: Show the servers that are not online
  ansible.builtin.debug:
    msg: "{{ fleet.servers | rejectattr('status', 'equalto', 'online') | map(attribute='name') | list }}"

- name: Read one server by id, with its players and metrics
  gamepanel.panel.server_info:
    id: mc-01
    include:
      - players
      - metrics
  register: mc01

- name: Show who is playing
  ansible.builtin.debug:
    var: mc01.servers[0].details.players

- name: Set the connection once for every gamepanel.panel module (also works on a play)
  module_defaults:
    group/gamepanel.panel.panel:
      base_url: https://panel.example.com/api/v1
      api_token: "{{ vault_gamepanel_token }}"
      rate_limit: 600  # Team plan
  block:
    - name: Online Minecraft servers whose name starts with "Survival"
      gamepanel.panel.server_info:
        game: minecraft
        status: online
        name: "Survival*"
      register: survival

    - name: Every Rust server, whatever its status
      gamepanel.panel.server_info:
        game: rust
      register: rust_servers

- name: Use the planned API variant (players only)
  gamepanel.panel.server_info:
    api_variant: planned
    include: players
"""

RETURN = r"""
servers:
  description:
    - The selected servers, in the panel's order. Always a list; one element when O(id) is given, empty when no
      server matches the filters.
    - Fields the panel does not send are V(null).
  returned: success
  type: list
  elements: dict
  contains:
    id:
      description: Server identifier, as used in the API's paths.
      type: str
      sample: mc-01
    name:
      description: Display name.
      type: str
      sample: Survival
    game:
      description: Game identifier.
      type: str
      sample: minecraft
    status:
      description: Live status exactly as the panel reports it. V(online) is known; other values exist.
      type: str
      sample: online
    players:
      description: Current players and capacity, or V(null) when the panel does not say.
      type: dict
      contains:
        current:
          description: Players now.
          type: int
          sample: 3
        max:
          description: Player capacity.
          type: int
          sample: 20
    cpu:
      description: CPU usage counter as the panel reports it.
      type: float
      sample: 12.5
    memory_mb:
      description: Memory in megabytes.
      type: int
      sample: 2048
    uptime_seconds:
      description: Uptime in seconds.
      type: int
      sample: 86400
    details:
      description:
        - One key per sub-resource of O(include), each holding the body the panel returned for it, unchanged.
        - The server field RV(servers[].players) is never replaced by the players sub-resource.
      returned: when O(include) is not empty
      type: dict
      sample: {"players": {"players": [{"name": "steve"}]}}
pending:
  description:
    - The actions the collection queued on the returned servers whose outcome is not known yet (the ledger's open
      entries), oldest first. Always a list; empty when nothing is pending.
    - An entry the read itself shows applied (for example a restart whose uptime reset) is not listed. This module
      only reads the ledger; M(gamepanel.panel.server_control) keeps it up to date.
    - See the ledger section of the server_control guide for what each state means and how to clear an entry.
  returned: always
  type: list
  elements: dict
  contains:
    id:
      description: The server the action was queued on.
      type: str
      sample: mc-01
    action:
      description: The action queued.
      type: str
      sample: restart
    queued_at:
      description: When it was queued, in seconds since the epoch.
      type: float
      sample: 1795000000.5
    state:
      description:
        - V(queued) (the panel accepted it), V(may_be_queued) (the answer was lost) or V(sending) (the run that sent it
          stopped before it learned the answer).
      type: str
      sample: queued
pace:
  description: How the task's requests were paced, in words, as RV(gamepanel.panel.server_control#module:pace) says.
  returned: always, except when the connection options are invalid
  type: str
panel:
  description:
    - The panel the task talked to. With a server's C(id) it identifies that server across jobs and tokens
      (Automation Platform counts managed game servers by it). Never holds the token or other credentials.
  returned: always, except when the connection options are invalid
  type: dict
  contains:
    base_url:
      description: The API's base URL as the client uses it (normalized, without user or password).
      type: str
      sample: https://panel.example.com/api/v1
    api_variant:
      description: The API variant, V(live) or V(planned).
      type: str
      sample: live
api:
  description: What the module spent talking to the panel.
  returned: always, except when the connection options are invalid
  type: dict
  contains:
    requests:
      description: HTTP requests sent, retries included.
      type: int
      sample: 2
    retries:
      description: Requests sent again after a rate-limit answer, a server error or a connection failure.
      type: int
      sample: 0
    waited_seconds:
      description: Seconds spent waiting, in backoff and for the shared rate-limit budget.
      type: float
      sample: 0.0
status:
  description: HTTP status of the panel's error answer, when the module failed on one.
  returned: failure
  type: int
  sample: 404
"""

from ansible_collections.gamepanel.panel.plugins.module_utils._entry.specs import SERVER_INFO, run_task_module
from ansible_collections.gamepanel.panel.plugins.module_utils._entry.tasks import server_info


# Two ways this task runs, one implementation (module_utils/_entry/specs.py, server_info):
# - on the controller (localhost, or any host with a local connection, such as the servers
#   inventory's), the action plugin of the same name, plugins/action/server_info.py, runs it in Ansible's
#   worker process, no module executed (plugins/plugin_utils/action_in_process.py says when);
# - everywhere else (delegated to another host, become, async), this file is executed as a module.
# Both return the same values (tests/integration/test_action_path.py compares them).
def main():
    run_task_module(SERVER_INFO, server_info)


if __name__ == "__main__":
    main()
