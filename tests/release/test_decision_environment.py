# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The decision environment: ansible-builder makes a build context from decision-environment.yml
that installs the collection (its event source, rulebook and playbooks) and ansible-core on a
decision-environment base image, and its introspection gathers what the collection needs (requests);
docs/awx.md shows the definition as it is. The helpers (ansible-builder create, the introspection)
are the execution environment's, in conftest.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
DE_DEFINITION = REPO_ROOT / "decision-environment.yml"
EE_DEFINITION = REPO_ROOT / "execution-environment.yml"
AWX_PAGE = REPO_ROOT / "docs" / "awx.md"
# A fenced block of a Markdown page, possibly indented (in a list item): its indent and its lines.
FENCED_BLOCK = re.compile(r"^(?P<indent> *)```[a-z]*\n(?P<body>.*?)^(?P=indent)```$", re.MULTILINE | re.DOTALL)


def load(path: Path) -> dict:
    with path.open(encoding="utf-8") as stream:
        return yaml.safe_load(stream)


@pytest.fixture(scope="module")
def context(builder_context) -> Path:
    return builder_context(DE_DEFINITION)


def test_definition_is_builder_v3_on_a_decision_environment_image():
    definition = load(DE_DEFINITION)
    assert definition["version"] == 3
    names = [entry["name"] for entry in definition["dependencies"]["galaxy"]["collections"]]
    assert names == ["gamepanel.panel"]
    base_image = definition["images"]["base_image"]["name"]
    assert "/de-minimal-" in base_image or "ansible-rulebook" in base_image, base_image


def test_definition_pins_ansible_core_like_the_execution_environment():
    de_core = load(DE_DEFINITION)["dependencies"]["ansible_core"]
    assert de_core == load(EE_DEFINITION)["dependencies"]["ansible_core"]


def test_context_installs_the_collection_on_the_base_image(context):
    assert [entry["name"] for entry in load(context / "_build" / "requirements.yml")["collections"]] == [
        "gamepanel.panel"
    ]
    containerfile = (context / "Containerfile").read_text(encoding="utf-8")
    base_image = load(DE_DEFINITION)["images"]["base_image"]["name"]
    assert f'ARG EE_BASE_IMAGE="{base_image}"' in containerfile
    assert "ansible-galaxy collection install" in containerfile
    assert "introspect.py introspect" in containerfile
    assert 'ARG PKGMGR="/usr/bin/microdnf"' in containerfile
    assert "ansible-core>=2.19.0" in containerfile


def test_context_gathers_what_the_collection_needs(context, introspect, tmp_path):
    gathered = introspect(context, tmp_path)
    assert gathered.names == {"requests"}, gathered.requirements.read_text(encoding="utf-8")
    assert not gathered.bindep


def test_awx_page_shows_the_definition_as_it_is():
    page = AWX_PAGE.read_text(encoding="utf-8")
    blocks = []
    for match in FENCED_BLOCK.finditer(page):
        indent = match.group("indent")
        lines = match.group("body").splitlines(keepends=True)
        blocks.append("".join(line[len(indent) :] if line.startswith(indent) else line for line in lines))
    assert DE_DEFINITION.read_text(encoding="utf-8") in blocks, "docs/awx.md does not show decision-environment.yml"
