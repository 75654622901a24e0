# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Set-up of the release checks (``make release-check``): where the tools and the built collection are.

These suites drive tools that live in virtual environments of their own (ansible-runner,
ansible-builder, build), found under ``$GAMEPANEL_RELEASE_VENVS`` (the Makefile passes
``.venv``), and the collection installed in ``$GAMEPANEL_TEST_COLLECTIONS_PATH``. A missing
one fails the test with the variable to set: a release check never skips.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]


def _required_dir(variable: str) -> Path:
    value = os.environ.get(variable)
    if not value:
        pytest.fail(f"{variable} is not set; run these checks with `make release-check`")
    path = Path(value)
    if not path.is_dir():
        pytest.fail(f"{variable}={value} is not a directory; run these checks with `make release-check`")
    return path


@pytest.fixture(scope="session")
def venvs_dir() -> Path:
    """The directory holding the tools' virtual environments."""
    return _required_dir("GAMEPANEL_RELEASE_VENVS")


@pytest.fixture(scope="session")
def collections_path() -> Path:
    """The collections path where the built collection tarball is installed."""
    path = _required_dir("GAMEPANEL_TEST_COLLECTIONS_PATH")
    if not (path / "ansible_collections" / "gamepanel" / "panel" / "MANIFEST.json").is_file():
        pytest.fail(f"no built gamepanel.panel under {path}; run `make collection` first")
    return path


@pytest.fixture(scope="session")
def tool():
    """tool(venv, name): the path of an executable in one of the tools' virtual environments."""

    def find(venv: str, name: str) -> Path:
        path = _required_dir("GAMEPANEL_RELEASE_VENVS") / venv / "bin" / name
        if not path.exists():
            pytest.fail(f"{path} is missing; `make venvs` builds .venv/{venv}")
        return path

    return find
