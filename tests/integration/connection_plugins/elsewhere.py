# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A stand-in for a remote host: runs commands on this machine, but is not the local connection.

Tests and benchmarks point ``ansible_connection`` (or a delegated host) at it to make
the collection's action plugins execute the module as they do on any host that is not
the controller, without needing SSH.
"""

from __future__ import annotations

DOCUMENTATION = """
name: elsewhere
short_description: Like the local connection, but counts as another host (tests only)
description:
  - Executes on this machine through the local connection's code, with its own transport name.
author: gamepanel.panel contributors (@gamepanel)
"""

from ansible.plugins.connection.local import Connection as LocalConnection


class Connection(LocalConnection):
    transport = "elsewhere"
