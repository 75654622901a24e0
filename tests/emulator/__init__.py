# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Panel emulator: a real HTTP server that behaves as the v1 specification says.

Test infrastructure only; the collection never imports this package. Start it with
``python tests/emulator/run.py`` or through ``emulator.harness.EmulatorProcess``.
"""

from __future__ import annotations
