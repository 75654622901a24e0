# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The attributes every gamepanel.panel module shares, written once.

A module extends ``ansible.builtin.action_common_attributes`` (the descriptions of
check_mode, diff_mode and platform) and ``gamepanel.panel.attributes`` (what is the same
for all of ours), then states only its own support and details under ``attributes:``.
Ansible merges each attribute key by key, so the module's entries complete these.
"""

from __future__ import annotations


class ModuleDocFragment(object):

    # Every module: supports check mode fully, talks to the panel over HTTP from wherever
    # it runs, and belongs to the action group module_defaults uses for the connection options.
    DOCUMENTATION = r"""
options: {}
attributes:
  check_mode:
    support: full
  platform:
    platforms: all
  action_group:
    description: Use C(group/gamepanel.panel.panel) in C(module_defaults) to set defaults for this module.
    support: full
    membership:
      - gamepanel.panel.panel
"""

    # Modules that change nothing that a diff could show (server_info, fleet_report_files).
    NO_DIFF = r"""
options: {}
attributes:
  diff_mode:
    support: none
"""
