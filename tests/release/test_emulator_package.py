# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The emulator as a tool for users' CI: a wheel built from tests/emulator/pyproject.toml,
installed into a fresh virtual environment, started with ``python -m gamepanel_emulator``,
and the complete example of docs/emulator.md run against it.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tomllib
import urllib.request
import zipfile
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
EMULATOR_DIR = REPO_ROOT / "tests" / "emulator"
EXAMPLE_DIR = REPO_ROOT / "docs" / "examples" / "emulator-ci"
DOCS_PAGE = REPO_ROOT / "docs" / "emulator.md"
PIP_TIMEOUT = 300


def run(command: list, **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run([str(part) for part in command], capture_output=True, text=True, check=False, **kwargs)
    assert result.returncode == 0, f"{command} exited {result.returncode}\n{result.stdout}\n{result.stderr}"
    return result


def pinned(requirements: Path) -> dict[str, str]:
    pins = {}
    for line in requirements.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            name, version = line.split("==")
            pins[name.lower()] = version
    return pins


def test_wheel_dependencies_are_the_tested_pins():
    with (EMULATOR_DIR / "pyproject.toml").open("rb") as stream:
        project = tomllib.load(stream)["project"]
    declared = dict(dependency.lower().split("==") for dependency in project["dependencies"])
    assert declared == pinned(REPO_ROOT / "requirements" / "emulator.txt")


@pytest.fixture(scope="module")
def wheel(tool, tmp_path_factory) -> Path:
    """`python -m build --wheel` on a copy of tests/emulator (the build writes next to its sources)."""
    root = tmp_path_factory.mktemp("emulator-wheel")
    source = root / "source"
    shutil.copytree(EMULATOR_DIR, source, ignore=shutil.ignore_patterns("__pycache__", "tests"))
    run([tool("builder", "python"), "-m", "build", "--wheel", "--outdir", root / "dist", source], timeout=PIP_TIMEOUT)
    wheels = list((root / "dist").glob("gamepanel_emulator-*.whl"))
    assert len(wheels) == 1
    return wheels[0]


@pytest.fixture(scope="module")
def emulator_python(wheel, tmp_path_factory) -> Path:
    """A fresh virtual environment with only the wheel and its dependencies."""
    venv = tmp_path_factory.mktemp("emulator-venv") / "venv"
    run([sys.executable, "-m", "venv", venv])
    run(
        [
            venv / "bin" / "python",
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--progress-bar",
            "off",
            wheel,
        ],
        timeout=PIP_TIMEOUT,
    )
    return venv / "bin" / "python"


def test_wheel_holds_the_package_and_its_fixture_only(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    packaged = {name.split("/", 1)[0] for name in names}
    assert packaged == {"gamepanel_emulator", wheel.name.split("-")[0] + "-" + wheel.name.split("-")[1] + ".dist-info"}
    assert "gamepanel_emulator/__main__.py" in names
    assert "gamepanel_emulator/fixtures/default.yaml" in names
    assert not [name for name in names if "/tests/" in name]


def test_python_m_serves_the_api(emulator_python, tmp_path):
    """Outside the checkout, the installed package starts, answers the API, and stops on SIGTERM."""
    process = subprocess.Popen(
        [str(emulator_python), "-m", "gamepanel_emulator", "--port", "0"],  # pylint: disable=consider-using-with
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        text=True,
    )
    try:
        announcement = json.loads(process.stdout.readline())
        assert announcement["pid"] == process.pid
        request = urllib.request.Request(
            announcement["live"] + "/servers/mc-02", headers={"Authorization": "Bearer gp-test-owner-control"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:  # nosec: loopback only
            assert json.load(response)["name"] == "Creative"
        with urllib.request.urlopen(announcement["control"] + "/counters", timeout=10) as response:
            assert json.load(response)["requests_total"] == 1
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0
        process.stdout.close()
        process.stderr.close()


def test_installed_harness_starts_the_installed_emulator(emulator_python, tmp_path):
    probe = (
        "from gamepanel_emulator.harness import EmulatorProcess\n"
        "with EmulatorProcess() as emulator:\n"
        '    emulator.control.set_server("mc-01", status="offline")\n'
        '    print(emulator.control.server("mc-01")["status"])\n'
    )
    result = run([emulator_python, "-I", "-c", probe], cwd=tmp_path, timeout=60)
    assert result.stdout.split() == ["offline"]


def test_docs_page_shows_the_example_files_as_they_are():
    page = DOCS_PAGE.read_text(encoding="utf-8")
    for path in sorted(EXAMPLE_DIR.iterdir()):
        assert path.read_text(encoding="utf-8") in page, f"docs/emulator.md does not show {path.name} as it is"


def test_docs_example_ci_job_runs(emulator_python, collections_path, tmp_path):
    """The example's script, as the CI job runs it: emulator from the wheel, the built collection."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("ANSIBLE_", "GAMEPANEL_"))}
    env.update(
        {
            "EMULATOR_PYTHON": str(emulator_python),
            "ANSIBLE_COLLECTIONS_PATH": str(collections_path),
            "ANSIBLE_HOME": str(tmp_path / "ansible-home"),
            "ANSIBLE_NOCOLOR": "1",
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        }
    )
    result = run(["bash", EXAMPLE_DIR / "test-with-emulator.sh"], env=env, cwd=tmp_path, timeout=300)
    assert "OK: the playbook restarted mc-02 once" in result.stdout


def test_installed_collection_carries_the_buildable_emulator(collections_path):
    """docs/emulator.md has users pip-install the emulator from the installed collection."""
    shipped = collections_path / "ansible_collections" / "gamepanel" / "panel" / "tests" / "emulator"
    for name in ("pyproject.toml", "__main__.py", "harness.py", "README.md", "fixtures/default.yaml"):
        assert (shipped / name).is_file(), f"the collection does not ship tests/emulator/{name}"
    assert (shipped / "pyproject.toml").read_bytes() == (EMULATOR_DIR / "pyproject.toml").read_bytes()
