# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fail when the built collection archive holds a file that is not meant to ship.

galaxy.yml's build_ignore lists what to leave out; anything it forgets (a tracked tool
cache, a stray dot-directory) would otherwise reach every user silently.  So the archive is
checked against what we mean to ship: these top-level entries, and nothing generated below them.
Usage: check_archive.py ARCHIVE.tar.gz
"""

from __future__ import annotations

import re
import sys
import tarfile

# What a user of the collection gets, and why:
SHIPPED = {
    "MANIFEST.json",
    "FILES.json",  # written by ansible-galaxy
    "README.md",
    "LICENSES",
    "changelogs",
    "docs",  # what Galaxy shows and the licence terms
    "meta",
    "plugins",
    "roles",
    "playbooks",
    "extensions",  # the collection itself
    "requirements.txt",
    "execution-environment.yml",  # what an execution environment installs
    "decision-environment.yml",  # what a decision environment (EDA controller) installs
    "tests",  # the panel emulator and the tests that prove the collection, for users who run them
    "demo",  # `make demo`'s script, runnable from the installed collection
    ".ansible-lint",  # galaxy-importer lints the archive with the project's own rules
}
GENERATED = re.compile(
    r"(^|/)(__pycache__|\.pytest_cache|\.mypy_cache|\.venv[^/]*|\.ath|\.tmp|build|output)(/|$)|\.py[co]$"
)


def unexpected(names):
    """The archive's names that are not meant to ship, sorted."""
    found = set()
    for name in names:
        name = name.rstrip("/")
        if not name or name == ".":
            continue
        top = name.split("/", 1)[0]
        if top not in SHIPPED or GENERATED.search(name):
            found.add(name)
    return sorted(found)


def main(argv):
    if len(argv) != 2:
        print("usage: check_archive.py ARCHIVE.tar.gz", file=sys.stderr)
        return 2
    with tarfile.open(argv[1]) as archive:
        names = archive.getnames()
    stray = unexpected(names)
    if stray:
        print(
            "FAILED: %s holds files that are not meant to ship (fix galaxy.yml build_ignore or untrack them):"
            % argv[1],
            file=sys.stderr,
        )
        for name in stray:
            print("  " + name, file=sys.stderr)
        return 1
    print("archive check: %d entries, all meant to ship" % len(names))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
