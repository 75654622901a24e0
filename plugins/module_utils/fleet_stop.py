# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: the signal that a many-servers task sends nothing more (a panel error about the whole task)."""

from __future__ import annotations


class FleetStopped(Exception):
    """A panel error that concerns the whole task, not one server: nothing more is sent."""

    def __init__(self, error):
        super(FleetStopped, self).__init__(str(error))
        self.error = error
