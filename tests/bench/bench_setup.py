# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What every benchmark that runs ansible-playbook or ansible-inventory needs: the commands and the collection."""

from __future__ import annotations

import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def ansible_command(name):
    """The ansible command beside this Python (the venv's), else the one on PATH."""
    beside_python = Path(sys.executable).with_name(name)
    return str(beside_python) if beside_python.exists() else name


def ansible_environment(collections, workdir, base_url, token, rate_limit, state_dir, **more):
    """The environment of one benchmarked run: this environment without its ANSIBLE_ and GAMEPANEL_ settings,
    then quiet, local Ansible on the bench's collection, and the panel's connection and state directory."""
    env = dict((key, value) for key, value in os.environ.items() if not key.startswith(("ANSIBLE_", "GAMEPANEL_")))
    env.update(
        ANSIBLE_COLLECTIONS_PATH=collections,
        ANSIBLE_HOME=str(Path(workdir) / "ansible-home"),
        ANSIBLE_LOCAL_TEMP=str(Path(workdir) / "ansible-tmp"),
        ANSIBLE_HOST_KEY_CHECKING="False",
        ANSIBLE_RETRY_FILES_ENABLED="False",
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_LOCALHOST_WARNING="False",
        ANSIBLE_PYTHON_INTERPRETER=sys.executable,
        GAMEPANEL_BASE_URL=base_url,
        GAMEPANEL_API_TOKEN=token,
        GAMEPANEL_RATE_LIMIT=str(rate_limit),
        GAMEPANEL_STATE_DIR=str(state_dir),
    )
    env.update(more)
    return env


def collections_path(workdir):
    """The installed collection when the Makefile provides one, else a link tree to this checkout."""
    installed = os.environ.get("GAMEPANEL_TEST_COLLECTIONS_PATH")
    if installed:
        return installed
    if REPO.parent.name == "gamepanel" and REPO.parent.parent.name == "ansible_collections":
        return str(REPO.parent.parent.parent)
    tree = Path(workdir) / "collections"
    namespace = tree / "ansible_collections" / "gamepanel"
    namespace.mkdir(parents=True, exist_ok=True)
    if not (namespace / "panel").exists():
        (namespace / "panel").symlink_to(REPO, target_is_directory=True)
    return str(tree)
