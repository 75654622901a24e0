# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""galaxy.yml is the version's source: .ci/build_collection.sh refuses to build when the API client's copy differs."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
CLIENT = Path("plugins/module_utils/_api/client.py")


def build_with(tmp_path, galaxy_version, code_version):
    """Run the build script in a tree holding only galaxy.yml and the client, up to where it needs a real checkout."""
    (tmp_path / ".ci").mkdir()
    shutil.copy(REPO_ROOT / ".ci" / "build_collection.sh", tmp_path / ".ci")
    (tmp_path / "galaxy.yml").write_text("namespace: gamepanel\nname: panel\nversion: %s\n" % galaxy_version)
    (tmp_path / CLIENT).parent.mkdir(parents=True)
    (tmp_path / CLIENT).write_text('COLLECTION_VERSION = "%s"\n' % code_version)
    return subprocess.run(
        ["bash", ".ci/build_collection.sh", "build", str(tmp_path / "no-ansible"), str(tmp_path / "no-guides")],
        cwd=tmp_path,
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_checkout_agrees():
    galaxy = (REPO_ROOT / "galaxy.yml").read_text(encoding="utf-8")
    version = [line.split(":", 1)[1].strip() for line in galaxy.splitlines() if line.startswith("version:")][0]
    assert 'COLLECTION_VERSION = "%s"\n' % version in (REPO_ROOT / CLIENT).read_text(encoding="utf-8")


def test_a_client_version_other_than_galaxy_yml_stops_the_build(tmp_path):
    result = build_with(tmp_path, "0.2.0", "0.1.0")
    assert result.returncode == 1
    assert "galaxy.yml says version 0.2.0" in result.stderr and 'COLLECTION_VERSION = "0.1.0"' in result.stderr
    assert not (tmp_path / "build").exists(), "the build started before the check"


def test_agreeing_versions_pass_the_check(tmp_path):
    result = build_with(tmp_path, "0.2.0", "0.2.0")
    assert "galaxy.yml says version" not in result.stderr
    assert (tmp_path / "build").exists(), "the build did not get past the version check"
