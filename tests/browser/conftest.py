# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Browser tests: the integration harness's ``ansible`` fixture, and headless Chromium.

Chromium is Debian's ``chromium`` package (``make chromium`` installs it), driven by Playwright
for Python through ``executable_path``: Playwright's own browser downloads are never used.
A missing browser or Playwright fails the test with the reason; it is never skipped.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from browser_support import ARTEFACTS, CHROMIUM, require_browser

# The integration harness's fixture, reused as it is.
from integration.conftest import ansible  # noqa: F401  pylint: disable=unused-import


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the session (tests call require_browser() first, so they fail, not error)."""
    require_browser()
    from playwright.sync_api import sync_playwright  # pylint: disable=import-outside-toplevel

    with sync_playwright() as playwright:
        # --no-sandbox: the test may run as root (CI), where Chromium's sandbox refuses to start.
        instance = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        try:
            yield instance
        finally:
            instance.close()


@pytest.fixture
def artefacts() -> Path:
    """Where screenshots are kept (ignored by git)."""
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    return ARTEFACTS
