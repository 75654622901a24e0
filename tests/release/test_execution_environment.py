# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The execution environment: ansible-builder makes a build context from
execution-environment.yml, and the Python requirements that context gathers from the
collection (its own introspection script, run as the image build runs it) install
everything the collection needs into a fresh virtual environment.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
EE_DEFINITION = REPO_ROOT / "execution-environment.yml"
PIP_TIMEOUT = 300
# What every execution environment brings itself; the collection must not ask for it again.
PROVIDED_BY_EE = ("ansible-core", "ansible", "ansible-runner", "pyyaml", "jinja2")


@pytest.fixture(scope="module")
def context(builder_context) -> Path:
    """`ansible-builder create` on the repository's definition (the helpers are in conftest.py)."""
    return builder_context(EE_DEFINITION)


def test_definition_is_builder_v3():
    with EE_DEFINITION.open(encoding="utf-8") as stream:
        definition = yaml.safe_load(stream)
    assert definition["version"] == 3
    names = [entry["name"] for entry in definition["dependencies"]["galaxy"]["collections"]]
    assert names == ["gamepanel.panel"]


def test_context_installs_the_collection(context):
    with (context / "_build" / "requirements.yml").open(encoding="utf-8") as stream:
        galaxy = yaml.safe_load(stream)
    assert [entry["name"] for entry in galaxy["collections"]] == ["gamepanel.panel"]
    containerfile = (context / "Containerfile").read_text(encoding="utf-8")
    assert "ansible-galaxy collection install" in containerfile
    assert "introspect.py introspect" in containerfile


def test_context_requirements_install_what_the_collection_needs(context, introspect, run, collections_path, tmp_path):
    """The image build's introspection step over the built collection, then a fresh venv from its output."""
    gathered = introspect(context, tmp_path)
    requirements = gathered.requirements
    assert gathered.names == {"requests"}, requirements.read_text(encoding="utf-8")
    assert not gathered.names & set(PROVIDED_BY_EE)
    assert not gathered.bindep

    venv = tmp_path / "fresh-venv"
    run([sys.executable, "-m", "venv", venv])
    python = venv / "bin" / "python"
    run(
        [python, "-m", "pip", "install", "--disable-pip-version-check", "--progress-bar", "off", "-r", requirements],
        timeout=PIP_TIMEOUT,
    )
    # The collection's API client, imported in that venv: it finds requests there.
    probe = (
        "from ansible_collections.gamepanel.panel.plugins.module_utils._api import client; "
        "import requests; assert client.HAS_REQUESTS, client.REQUESTS_IMPORT_ERROR; print(requests.__version__)"
    )
    # -I: nothing from this process's environment or site-packages; only the collection is added.
    result = run(
        [python, "-I", "-c", "import sys; sys.path.insert(0, sys.argv[1]); exec(sys.argv[2])", collections_path, probe]
    )
    assert result.stdout.strip()
