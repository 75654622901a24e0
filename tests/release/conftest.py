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
import subprocess
from pathlib import Path
from typing import NamedTuple

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]


def run_command(command: list, **kwargs) -> subprocess.CompletedProcess:
    """subprocess.run that fails the test, with the command's output, when the command fails."""
    result = subprocess.run([str(part) for part in command], capture_output=True, text=True, check=False, **kwargs)
    assert result.returncode == 0, f"{command} exited {result.returncode}\n{result.stdout}\n{result.stderr}"
    return result


def requirement_names(requirements: Path) -> set[str]:
    """The lower-case project names a pip requirements file asks for."""
    names = set()
    for line in requirements.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            for separator in "<>=!~;[ ":
                line = line.split(separator, 1)[0]
            names.add(line.lower())
    return names


class Introspection(NamedTuple):
    """What a build context's introspection step gathers from the installed collections."""

    requirements: Path  # the pip requirements file it wrote
    names: set[str]  # the projects that file asks for
    bindep: str  # the system packages it asks for ("" for none)


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


@pytest.fixture(scope="session")
def run():
    """run(command, **kwargs): run a command; the test fails, with its output, when the command fails."""
    return run_command


@pytest.fixture(scope="session")
def builder_context(tool, tmp_path_factory):
    """builder_context(definition): the build context `ansible-builder create` makes of an ansible-builder
    definition of the repository (made once per definition and session), with its Containerfile."""
    contexts: dict[Path, Path] = {}

    def create(definition: Path) -> Path:
        if definition not in contexts:
            directory = tmp_path_factory.mktemp(definition.stem) / "context"
            run_command(
                [
                    tool("builder", "ansible-builder"),
                    "create",
                    "--file",
                    definition,
                    "--context",
                    directory,
                    "--output-filename",
                    "Containerfile",
                ],
                cwd=REPO_ROOT,
            )
            contexts[definition] = directory
        return contexts[definition]

    return create


@pytest.fixture(scope="session")
def introspect(tool, collections_path):
    """introspect(context, work_dir): the context's introspection script over the built collection, as the
    image build's builder stage runs it over the collections its galaxy stage installed."""

    def gather(context: Path, work_dir: Path) -> Introspection:
        requirements = work_dir / "requirements.txt"
        bindep = work_dir / "bindep.txt"
        run_command(
            [
                tool("builder", "python"),
                context / "_build" / "scripts" / "introspect.py",
                "introspect",
                "--sanitize",
                "--write-pip",
                requirements,
                "--write-bindep",
                bindep,
                collections_path,
            ]
        )
        bindep_text = bindep.read_text(encoding="utf-8").strip() if bindep.exists() else ""
        return Introspection(requirements, requirement_names(requirements), bindep_text)

    return gather
