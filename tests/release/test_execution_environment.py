# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The execution environment: ansible-builder makes a build context from
execution-environment.yml, and the Python requirements that context gathers from the
collection (its own introspection script, run as the image build runs it) install
everything the collection needs into a fresh virtual environment.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
EE_DEFINITION = REPO_ROOT / "execution-environment.yml"
PIP_TIMEOUT = 300
# What every execution environment brings itself; the collection must not ask for it again.
PROVIDED_BY_EE = ("ansible-core", "ansible", "ansible-runner", "pyyaml", "jinja2")


def run(command: list, **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run([str(part) for part in command], capture_output=True, text=True, check=False, **kwargs)
    assert result.returncode == 0, f"{command} exited {result.returncode}\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="module")
def context(tool, tmp_path_factory) -> Path:
    """`ansible-builder create` on the repository's definition."""
    directory = tmp_path_factory.mktemp("ee") / "context"
    run(
        [
            tool("builder", "ansible-builder"),
            "create",
            "--file",
            EE_DEFINITION,
            "--context",
            directory,
            "--output-filename",
            "Containerfile",
        ],
        cwd=REPO_ROOT,
    )
    return directory


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


def requirement_names(requirements: Path) -> set[str]:
    names = set()
    for line in requirements.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            for separator in "<>=!~;[ ":
                line = line.split(separator, 1)[0]
            names.add(line.lower())
    return names


def test_context_requirements_install_what_the_collection_needs(context, tool, collections_path, tmp_path):
    """The image build's introspection step over the built collection, then a fresh venv from its output."""
    requirements = tmp_path / "requirements.txt"
    # The builder stage runs this script over the collections the galaxy stage installed;
    # here they are the built tarball's installation.
    run(
        [
            tool("builder", "python"),
            context / "_build" / "scripts" / "introspect.py",
            "introspect",
            "--sanitize",
            "--write-pip",
            requirements,
            "--write-bindep",
            tmp_path / "bindep.txt",
            collections_path,
        ]
    )
    names = requirement_names(requirements)
    assert names == {"requests"}, requirements.read_text(encoding="utf-8")
    assert not names & set(PROVIDED_BY_EE)
    assert not (tmp_path / "bindep.txt").exists() or not (tmp_path / "bindep.txt").read_text(encoding="utf-8").strip()

    venv = tmp_path / "fresh-venv"
    run([sys.executable, "-m", "venv", venv])
    python = venv / "bin" / "python"
    run(
        [python, "-m", "pip", "install", "--disable-pip-version-check", "--progress-bar", "off", "-r", requirements],
        timeout=PIP_TIMEOUT,
    )
    # The collection's API client, imported in that venv: it finds requests there.
    probe = (
        "from ansible_collections.gamepanel.panel.plugins.module_utils import client; "
        "import requests; assert client.HAS_REQUESTS, client.REQUESTS_IMPORT_ERROR; print(requests.__version__)"
    )
    # -I: nothing from this process's environment or site-packages; only the collection is added.
    result = run(
        [python, "-I", "-c", "import sys; sys.path.insert(0, sys.argv[1]); exec(sys.argv[2])", collections_path, probe]
    )
    assert result.stdout.strip()
