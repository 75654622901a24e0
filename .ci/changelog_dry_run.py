# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""`antsibull-changelog release` for the next version, on a throwaway copy (`make changelog-dry-run`).

Run with .venv/changelog's Python: that environment has ansible-core too, which
antsibull-changelog needs to find the collection's plugins and roles. The checkout is copied (tracked and untracked,
not ignored files) under a temporary ansible_collections/gamepanel/panel and released there;
then this checks that:

* the version released is galaxy.yml's and has not been released before;
* every module, plugin and role that no earlier release lists is announced as new in this
  one, which holds only when its version_added is this version;
* the fragments were consumed and CHANGELOG.md has a section for the version;
* the checkout itself is unchanged.

The release notes it would publish are printed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

PLUGIN_DIRS = ("modules", "inventory", "lookup", "filter", "test", "callback", "connection", "action")


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def copy_checkout(root: Path, dest: Path) -> None:
    files = git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    for name in filter(None, files):
        source = root / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)


def load_yaml(path: Path) -> dict:
    with path.open(encoding="utf-8") as stream:
        return yaml.safe_load(stream) or {}


def content(collection: Path) -> dict[str, set[str]]:
    """What the collection holds, in the changelog's own terms: modules, plugins by type, roles."""
    found: dict[str, set[str]] = {}
    for directory in PLUGIN_DIRS:
        names = {path.stem for path in (collection / "plugins" / directory).glob("*.py") if path.stem != "__init__"}
        if directory == "action":
            continue  # action plugins ride along with their modules
        key = "modules" if directory == "modules" else f"plugins/{directory}"
        if names:
            found[key] = names
    roles = (
        {path.name for path in (collection / "roles").iterdir() if path.is_dir()}
        if (collection / "roles").is_dir()
        else set()
    )
    if roles:
        found["objects/role"] = roles
    return found


def announced(release: dict) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    if release.get("modules"):
        found["modules"] = {entry["name"] for entry in release["modules"]}
    for plugin_type, entries in (release.get("plugins") or {}).items():
        found[f"plugins/{plugin_type}"] = {entry["name"] for entry in entries}
    for object_type, entries in (release.get("objects") or {}).items():
        found[f"objects/{object_type}"] = {entry["name"] for entry in entries}
    return found


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("root", type=Path, help="the checkout")
    root = parser.parse_args().root.resolve()
    status_before = git(root, "status", "--porcelain", "--untracked-files=all")
    version = str(load_yaml(root / "galaxy.yml")["version"])
    before = load_yaml(root / "changelogs" / "changelog.yaml")
    released_before = before.get("releases") or {}
    if version in released_before:
        print(f"FAILED: galaxy.yml says {version}, which changelogs/changelog.yaml already released; bump the version")
        return 1

    problems = []
    with tempfile.TemporaryDirectory(prefix="changelog-dry-run-") as temp:
        collection = Path(temp) / "ansible_collections" / "gamepanel" / "panel"
        copy_checkout(root, collection)
        fragments = sorted(path.name for path in (collection / "changelogs" / "fragments").glob("*.y*ml"))
        print(
            f'--> antsibull-changelog release {version} on a copy; fragments: {", ".join(fragments) or "none"}',
            flush=True,
        )
        tools = Path(sys.executable).parent  # antsibull-changelog, and the ansible-doc it runs
        env = dict(os.environ, PATH=f"{tools}{os.pathsep}{os.environ.get('PATH', '')}")
        subprocess.run(
            [str(tools / "antsibull-changelog"), "release", "--version", version], cwd=collection, env=env, check=True
        )

        after = load_yaml(collection / "changelogs" / "changelog.yaml")
        release = after["releases"].get(version)
        if release is None:
            problems.append(f"changelog.yaml has no release {version}")
            release = {}
        earlier = {}
        for old in released_before.values():
            for key, names in announced(old).items():
                earlier.setdefault(key, set()).update(names)
        new_here = announced(release)
        for key, names in content(collection).items():
            unannounced = names - earlier.get(key, set()) - new_here.get(key, set())
            problems += [
                f'{key.split("/")[-1]} {name}: in no release; its version_added must be {version}'
                for name in sorted(unannounced)
            ]
        if sorted(release.get("fragments") or []) != fragments:
            problems.append(f'fragments released {release.get("fragments")}, expected {fragments}')
        left = [path.name for path in (collection / "changelogs" / "fragments").glob("*.y*ml")]
        if left:
            problems.append(f"fragments left behind: {left}")
        notes = (collection / "CHANGELOG.md").read_text(encoding="utf-8")
        if f"v{version}".replace(".", "\\.") not in notes:
            problems.append(f"CHANGELOG.md has no section for v{version}")
        print(notes)

    if git(root, "status", "--porcelain", "--untracked-files=all") != status_before:
        problems.append("the dry run changed the checkout")
    for problem in problems:
        print(f"FAILED: {problem}")
    if not problems:
        print(
            f"changelog dry run: release {version} announces {sum(len(v) for v in new_here.values())} new "
            f"modules, plugins and roles from {len(fragments)} fragments; the checkout is unchanged"
        )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
