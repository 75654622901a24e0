# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: the two sentences engine/one_server.py still imports from here; every wording is engine/messages.py's.

one_server.py is being rewritten elsewhere (the one follow-up scheduler): when it imports them from
engine/messages.py, this module goes.
"""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.module_utils.engine.messages import (
    applied_message,
    nothing_to_confirm_message,
)

__all__ = ["applied_message", "nothing_to_confirm_message"]
