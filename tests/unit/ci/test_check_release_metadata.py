# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""make release-metadata (.ci/check_release_metadata.py): galaxy.yml's addresses are real, or left out."""

from __future__ import annotations

import io
import json
import tarfile

import pytest
import yaml

from ci_scripts import REPO_ROOT, load

metadata = load("check_release_metadata")


@pytest.mark.parametrize(
    "address",
    [
        "https://example.invalid/gamepanel/panel",
        "https://example.com/gamepanel/panel",
        "https://docs.example.org/panel",
        "https://panel.test/issues",
        "https://localhost/panel",
        "https://git.example/panel",
    ],
)
def test_a_placeholder_address_is_refused_and_named(address):
    found = metadata.problems({"repository": "https://github.com/gamepanel/panel", "issues": address})
    assert len(found) == 1 and "issues" in found[0] and "placeholder" in found[0], found


def test_an_address_that_is_not_https_is_refused():
    assert metadata.problems({"homepage": "http://gamepanel.net/panel"}) == [
        "galaxy.yml: homepage is 'http://gamepanel.net/panel', not an https address"
    ]


def test_real_addresses_and_left_out_ones_pass():
    assert metadata.problems({"repository": "https://github.com/gamepanel/panel", "homepage": None}) == []
    assert metadata.problems({}) == []
    assert metadata.missing({"repository": "https://github.com/gamepanel/panel"}) == [
        "documentation",
        "homepage",
        "issues",
    ]


def test_the_command_fails_on_a_placeholder_and_passes_the_checkout(tmp_path, capsys):
    (tmp_path / "galaxy.yml").write_text("name: panel\nrepository: https://example.invalid/gamepanel/panel\n")
    assert metadata.main([str(tmp_path)]) == 1
    assert "FAILED: galaxy.yml: repository is https://example.invalid/gamepanel/panel" in capsys.readouterr().out
    # the checkout's own galaxy.yml: what make release-check runs on
    assert metadata.main([str(REPO_ROOT)]) == 0, capsys.readouterr().out
    assert not metadata.problems(yaml.safe_load((REPO_ROOT / "galaxy.yml").read_text()))


def test_the_importer_copy_says_the_repository_is_not_published_and_keeps_every_other_file(tmp_path):
    tarball, copy = tmp_path / "c.tar.gz", tmp_path / "copy.tar.gz"
    manifest = {"collection_info": {"name": "panel", "repository": None}, "format": 1}
    with tarfile.open(tarball, "w:gz") as archive:
        for name, data in (("MANIFEST.json", json.dumps(manifest).encode()), ("README.md", b"# panel\n")):
            member = tarfile.TarInfo(name)
            member.size = len(data)
            archive.addfile(member, io.BytesIO(data))
    metadata.importer_copy(str(tarball), str(copy))
    with tarfile.open(copy, "r:gz") as archive:
        assert archive.getnames() == ["MANIFEST.json", "README.md"]
        written = json.load(archive.extractfile("MANIFEST.json"))
        assert archive.extractfile("README.md").read() == b"# panel\n"
    assert written["collection_info"] == {"name": "panel", "repository": metadata.NOT_PUBLISHED}
    assert "://" not in metadata.NOT_PUBLISHED  # no address, not even a made-up one
