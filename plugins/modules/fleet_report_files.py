#!/usr/bin/python
# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# The work is done on the controller by the action plugin of the same name; this file holds its documentation.

from __future__ import annotations

DOCUMENTATION = r"""
module: fleet_report_files
short_description: Write the fleet report (HTML, JSON, CSV) from servers read with server_info
version_added: 1.0.0
description:
  - Turns the RV(gamepanel.panel.server_info#module:servers) list into three files in a directory on the controller
    (C(fleet-report.html), C(fleet-report.json) and C(fleet-report.csv)).
  - The HTML page is self-contained (inline styles, SVG charts and a small script to sort and filter the table)
    and loads nothing from the network. It shows the servers by status and by game, players online out of
    capacity, the longest uptimes, charts and a table of every server.
  - A figure the panel did not send is shown as missing, never as zero. A status value outside the familiar
    ones gets a colour and legend entry of its own. Every text from the panel is escaped.
  - Sends nothing to the panel. The C(gamepanel.panel.fleet_report) role is the usual way to run it.
author:
  - gamepanel.panel contributors (@gamepanel)
extends_documentation_fragment:
  - gamepanel.panel.panel
  - ansible.builtin.action_common_attributes
  - gamepanel.panel.attributes
  - gamepanel.panel.attributes.no_diff
attributes:
  check_mode:
    details: In check mode the report is prepared but no file is written.
  platform:
    details: Runs on the controller whatever the target host.
options:
  servers:
    description:
      - The servers to report, as RV(gamepanel.panel.server_info#module:servers) returns them.
    type: list
    elements: dict
    required: true
  dest:
    description:
      - Directory on the controller that receives the files; created when missing. Relative paths are taken from
        the directory ansible-playbook runs in.
      - Files of an earlier report there are replaced.
    type: path
    required: true
  include:
    description:
      - Sub-resources that the servers carry under C(details) (read with the O(gamepanel.panel.server_info#module:include)
        option of server_info) and that the report shows as extra columns and charts.
    type: list
    elements: str
    choices: [metrics, resources]
    default: []
  games:
    description:
      - Game filter the servers were read with, printed on the page.
    type: list
    elements: str
    default: []
  statuses:
    description:
      - Status filter the servers were read with, printed on the page.
    type: list
    elements: str
    default: []
  pending:
    description:
      - The actions the collection queued and whose outcome is not known yet, as the RV(gamepanel.panel.server_info#module:pending)
        return value of server_info gives them. Each server with one shows it in the C(Pending) column, and the
        summary counts them.
    type: list
    elements: dict
    default: []
  panels:
    description:
      - For the servers of several accounts (each server and pending entry then carries C(account), as the
        C(gamepanel.panel.fleet_reads) filter gives them) - each account with its panel, as C(account) and
        C(base_url). The page names each account's panel, the table, JSON and CSV get an C(account) column,
        and the connection options are not needed.
      - Empty, the report is of one panel, named by O(base_url).
    type: list
    elements: dict
    default: []
seealso:
  - module: gamepanel.panel.server_info
notes:
  - Of the connection options only O(base_url) is used, to print the panel's address on the page (scheme, host,
    port and path; never a user, password or query). The others are accepted so that C(module_defaults) for
    C(group/gamepanel.panel.panel) apply; nothing is sent to the panel and O(api_token) is not needed.
  - The page template is the one of the C(gamepanel.panel.fleet_report) role, C(templates/fleet_report.html.j2).
"""

EXAMPLES = r"""
- name: Read the fleet with its metrics
  gamepanel.panel.server_info:
    include: [metrics]
  register: fleet

- name: Write the report into ./fleet-report
  gamepanel.panel.fleet_report_files:
    servers: "{{ fleet.servers }}"
    dest: ./fleet-report
    include: [metrics]
  register: report

- name: Say where it is
  ansible.builtin.debug:
    msg: "Open {{ report.files.html }}"
"""

RETURN = r"""
dest:
  description: The directory that holds the files, as an absolute path.
  returned: success
  type: str
  sample: /home/ops/fleet-report
files:
  description: Absolute path of each file.
  returned: success
  type: dict
  sample: {"html": "/home/ops/fleet-report/fleet-report.html", "json": "/home/ops/fleet-report/fleet-report.json",
           "csv": "/home/ops/fleet-report/fleet-report.csv"}
written:
  description: The kinds of file whose content changed (in check mode, every kind).
  returned: success
  type: list
  elements: str
  sample: [csv, html, json]
bytes:
  description: Size of each file in bytes.
  returned: success
  type: dict
  sample: {"html": 64512, "json": 20480, "csv": 4096}
taken_at:
  description: When the report was made (UTC, ISO 8601), as printed on the page.
  returned: success
  type: str
  sample: "2026-11-23T18:45:29+00:00"
summary:
  description: The headline figures of the report.
  returned: success
  type: dict
  contains:
    servers:
      description: Servers in the report.
      type: int
      sample: 6
    statuses:
      description: Servers per status value (C(missing) for servers without one).
      type: dict
      sample: {"online": 4, "offline": 2}
    players_online:
      description: Players online across the servers that report them, or V(null) when none does.
      type: int
      sample: 8
    players_capacity:
      description: Player capacity across the servers that report it, or V(null) when none does.
      type: int
      sample: 270
    pending:
      description: Servers with an action pending (see O(pending)).
      type: int
      sample: 1
"""
