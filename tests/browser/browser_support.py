# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where Chromium is, and a check that fails (never skips) a test when it or Playwright is missing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
ARTEFACTS = REPO_ROOT / ".tmp" / "browser-test"
CHROMIUM = os.environ.get("GAMEPANEL_CHROMIUM", "/usr/bin/chromium")


def chromium_problem() -> str | None:
    """Why Chromium cannot run here, or None."""
    if not os.access(CHROMIUM, os.X_OK):
        log = REPO_ROOT / ".tmp" / "apt-chromium.log"
        detail = ""
        if log.is_file():
            detail = "\nlast lines of the installation log:\n" + "\n".join(
                log.read_text(encoding="utf-8", errors="replace").splitlines()[-10:]
            )
        return (
            f"Chromium is not installed at {CHROMIUM}: `make chromium` installs Debian's chromium package "
            f"(as root); set GAMEPANEL_CHROMIUM for another path.{detail}"
        )
    return None


def require_browser() -> None:
    """Fail the calling test (never skip it) when Chromium or Playwright is missing, saying why."""
    problem = chromium_problem()
    if problem:
        pytest.fail(problem, pytrace=False)
    try:
        import playwright.sync_api  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
    except ImportError as exc:
        pytest.fail(
            f"Playwright for Python is missing ({exc}): run the test with .venv/browser (make browser-test)",
            pytrace=False,
        )
