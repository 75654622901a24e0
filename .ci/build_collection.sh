#!/usr/bin/env bash
# What no stock tool does: builds the collection from a clean copy with the guides' docsite pages in it.
# (ansible-galaxy builds from the checkout itself, and the docsite wants reStructuredText where the guides
# are Markdown.) The Makefile's `collection` step:
# 1. a clean copy of the checkout (tracked and untracked-not-ignored files) under
#    BUILD/ansible_collections/gamepanel/panel, where ansible-test needs it (not a symlink), with a
#    throwaway git repository (in the outer one, where build/ is ignored, ansible-test would see no file);
# 2. the guides' docsite pages written into it (.ci/guides_to_rst.py, with GUIDES_BIN_DIR's pandoc);
# 3. its tarball (galaxy.yml's manifest says what ships), installed into BUILD/collections.
# ansible-test's output in the old copy (its delegation venv lives there) is kept.
# Usage (from the checkout): .ci/build_collection.sh BUILD ANSIBLE_BIN_DIR GUIDES_BIN_DIR
set -euo pipefail
build=$1
bin=$2
guides_bin=$3
coll_root=$build/ansible_collections
coll=$coll_root/gamepanel/panel
version=$(sed -n 's/^version:[[:space:]]*//p' galaxy.yml)
tarball=$build/gamepanel-panel-$version.tar.gz

# galaxy.yml is the version's source. A module runs where neither galaxy.yml nor MANIFEST.json
# travels (AnsiballZ ships only Python), so the User-Agent's copy lives in the API client: the
# build refuses to go on when the two differ.
client=plugins/module_utils/_api/client.py
code_version=$(sed -n 's/^COLLECTION_VERSION = "\(.*\)"$/\1/p' "$client")
if [ "$code_version" != "$version" ]; then
    echo "FAILED: galaxy.yml says version $version, $client says COLLECTION_VERSION = \"$code_version\": set it to $version" >&2
    exit 1
fi

rm -rf "$build/.ansible-test-output"
if [ -d "$coll/tests/output" ]; then mv "$coll/tests/output" "$build/.ansible-test-output"; fi
rm -rf "$coll_root" "$build/collections" "$build"/gamepanel-panel-*.tar.gz
mkdir -p "$coll"
git ls-files -z --cached --others --exclude-standard \
    | tar --null --files-from=- --ignore-failed-read -cf - 2>/dev/null | tar -xf - -C "$coll"
(cd "$coll" && git init -q .)
if [ -d "$build/.ansible-test-output" ]; then
    mkdir -p "$coll/tests" && mv "$build/.ansible-test-output" "$coll/tests/output"
fi
"$guides_bin/python" .ci/guides_to_rst.py "$coll"
"$bin/ansible-galaxy" collection build "$coll" --output-path "$build" --force
"$bin/ansible-galaxy" collection install "$tarball" -p "$build/collections" --force --offline \
    | grep -v "is not part of the configured Ansible collections paths" || true
test -f "$build/collections/ansible_collections/gamepanel/panel/MANIFEST.json"
