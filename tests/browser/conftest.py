# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Browser tests: the integration harness's ``ansible`` fixture, and headless Chromium.

Chromium is Debian's ``chromium`` package (``make chromium`` installs it), driven by Playwright
for Python through ``executable_path``: Playwright's own browser downloads are never used.
A missing browser or Playwright fails the test with the reason; it is never skipped.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# The integration harness's fixture, reused as it is.
from integration.conftest import ansible  # noqa: F401  pylint: disable=unused-import

REPO_ROOT = Path(__file__).resolve().parents[2]
ARTEFACTS = REPO_ROOT / '.tmp' / 'browser-test'
CHROMIUM = os.environ.get('GAMEPANEL_CHROMIUM', '/usr/bin/chromium')


def chromium_problem() -> str | None:
    """Why Chromium cannot run here, or None."""
    if not os.access(CHROMIUM, os.X_OK):
        log = REPO_ROOT / '.tmp' / 'apt-chromium.log'
        detail = ''
        if log.is_file():
            detail = '\nlast lines of the installation log:\n' + '\n'.join(
                log.read_text(encoding='utf-8', errors='replace').splitlines()[-10:])
        return (f'Chromium is not installed at {CHROMIUM}: `make chromium` installs Debian\'s chromium package '
                f'(as root); set GAMEPANEL_CHROMIUM for another path.{detail}')
    return None


@pytest.fixture(scope='session')
def browser():
    """One headless Chromium for the session."""
    problem = chromium_problem()
    if problem:
        pytest.fail(problem, pytrace=False)
    try:
        from playwright.sync_api import sync_playwright  # pylint: disable=import-outside-toplevel
    except ImportError as exc:
        pytest.fail(f'Playwright for Python is missing ({exc}): run the test with .venv/browser '
                    '(make browser-test)', pytrace=False)
    with sync_playwright() as playwright:
        # --no-sandbox: the test may run as root (CI), where Chromium's sandbox refuses to start.
        instance = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=['--no-sandbox'])
        try:
            yield instance
        finally:
            instance.close()


@pytest.fixture
def artefacts() -> Path:
    """Where screenshots are kept (ignored by git)."""
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    return ARTEFACTS
