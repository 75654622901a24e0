# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
""".ci/ holds only what no stock tool does (docs/development.md, "Repository layout"): each script says what in its
first line, after the shebang if any, and the whole of .ci/ stays within 1,000 lines."""

from __future__ import annotations

import pytest

from ci_scripts import REPO_ROOT

SCRIPTS = sorted(path for path in (REPO_ROOT / ".ci").iterdir() if path.is_file() and path.suffix != ".cfg")


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_the_first_line_says_what_no_stock_tool_does(script):
    lines = script.read_text(encoding="utf-8").splitlines()
    first = lines[1] if lines[0].startswith("#!") else lines[0]
    assert first.startswith("# What no stock tool does: ") and len(first) > len("# What no stock tool does: ") + 20


def test_ci_is_at_most_1000_lines():
    counts = {path.name: len(path.read_text(encoding="utf-8").splitlines()) for path in (REPO_ROOT / ".ci").iterdir()}
    assert sum(counts.values()) <= 1000, counts
