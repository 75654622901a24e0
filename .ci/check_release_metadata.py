# What no stock tool does: refuses a placeholder address (example.com, *.invalid...) in galaxy.yml.
# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""galaxy.yml's repository, documentation, homepage and issues: each a real https address, or left out.

python .ci/check_release_metadata.py ROOT      (make release-metadata) exit 1 on a placeholder
python .ci/check_release_metadata.py --importer-copy TARBALL COPY
    galaxy-importer requires a repository: while galaxy.yml has none, make galaxy-importer checks
    COPY, TARBALL whose MANIFEST.json says the repository is not published (no address).
"""

from __future__ import annotations

import io
import json
import os
import sys
import tarfile
from urllib.parse import urlsplit

import yaml

ADDRESS_KEYS = ("repository", "documentation", "homepage", "issues")
# Names reserved for examples and tests (RFC 2606, RFC 6761): nobody can publish there.
PLACEHOLDER_DOMAINS = ("example.com", "example.net", "example.org", "example", "invalid", "test", "localhost")
NOT_PUBLISHED = "not published yet: galaxy.yml names no repository"


def problems(galaxy):
    """What is wrong with the addresses of ``galaxy`` (galaxy.yml's content): one line each."""
    found = []
    for key in ADDRESS_KEYS:
        value = galaxy.get(key)
        if value is None:
            continue
        parts = urlsplit(str(value))
        host = (parts.hostname or "").rstrip(".")  # urlsplit gives it in lower case
        if parts.scheme != "https" or not host:
            found.append("galaxy.yml: %s is %r, not an https address" % (key, value))
        elif any(host == domain or host.endswith("." + domain) for domain in PLACEHOLDER_DOMAINS):
            found.append(
                "galaxy.yml: %s is %s, a placeholder (%s is reserved for examples): give the real address, "
                "or leave %s out until there is one" % (key, value, parts.hostname, key)
            )
    return found


def missing(galaxy):
    return [key for key in ADDRESS_KEYS if not galaxy.get(key)]


def importer_copy(tarball, copy):
    """Write ``copy``: ``tarball`` whose MANIFEST.json names no address but says the repository is not published."""
    with tarfile.open(tarball, "r:gz") as source, tarfile.open(copy, "w:gz") as target:
        for member in source.getmembers():
            data = source.extractfile(member) if member.isfile() else None
            if member.name == "MANIFEST.json":
                manifest = json.load(data)
                manifest["collection_info"]["repository"] = NOT_PUBLISHED
                raw = json.dumps(manifest, indent=4).encode("utf-8")
                member.size = len(raw)
                data = io.BytesIO(raw)
            target.addfile(member, data)


def main(argv):
    if argv[:1] == ["--importer-copy"] and len(argv) == 3:
        importer_copy(argv[1], argv[2])
        return 0
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    with open(os.path.join(argv[0], "galaxy.yml"), encoding="utf-8") as handle:
        galaxy = yaml.safe_load(handle) or {}
    found = problems(galaxy)
    print("\n".join("FAILED: " + line for line in found) or "release-metadata: no placeholder address in galaxy.yml")
    left_out = missing(galaxy)
    if left_out:
        print(
            "release-metadata: galaxy.yml gives no %s (no address yet). Galaxy and Automation Hub import a "
            "collection only with a repository: add it to galaxy.yml once the repository is published."
            % ", ".join(left_out)
        )
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
