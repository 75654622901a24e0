# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Render the documentation of every module, plugin and role with ansible-doc; fail on any problem.

Usage: python .ci/docs_check.py REPO_ROOT
Run with the Python of a test virtual environment; ANSIBLE_COLLECTIONS_PATH must hold the
installed collection. Each plugin file under plugins/modules and plugins/inventory is rendered
as JSON (which must hold DOCUMENTATION, EXAMPLES and, for modules, RETURN) and as text; so are
filter plugins, and every role with meta/argument_specs.yml (which must document the main entry point).
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import subprocess
import sys

PLUGIN_TYPES = {"modules": "module", "inventory": "inventory", "filter": "filter"}
COLLECTION = "gamepanel.panel"
# Newer ansible-core's `ansible-doc -t role` warns about its own internal collection having no
# version (not about ours); that line alone is not a problem of this collection.
INTERNAL_COLLECTION_NOTE = "/ansible/_internal/ansible_collections/"


def plugins(root: str):
    """(type, fqcn) of every plugin file in the checkout."""
    for directory, plugin_type in PLUGIN_TYPES.items():
        path = os.path.join(root, "plugins", directory)
        if not os.path.isdir(path):
            continue
        for name in sorted(os.listdir(path)):
            if name.endswith(".py") and not name.startswith("_"):
                yield plugin_type, f"{COLLECTION}.{name[:-3]}"
    roles = os.path.join(root, "roles")
    if os.path.isdir(roles):
        for name in sorted(os.listdir(roles)):
            if os.path.isfile(os.path.join(roles, name, "meta", "argument_specs.yml")):
                yield "role", f"{COLLECTION}.{name}"


def run(command: list[str]) -> subprocess.CompletedProcess:
    """Run ansible-doc, capturing output."""
    return subprocess.run(command, capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL)


def check(plugin_type: str, fqcn: str) -> list[str]:
    """Problems found with one plugin's documentation."""
    ansible_doc = os.path.join(os.path.dirname(sys.executable), "ansible-doc")
    problems = []

    rendered = run([ansible_doc, "-t", plugin_type, "--json", fqcn])
    if rendered.returncode != 0:
        problems.append(f"ansible-doc --json exited {rendered.returncode}: {rendered.stderr.strip()}")
    else:
        try:
            document = json.loads(rendered.stdout).get(fqcn) or {}
        except ValueError:
            document = {}
            problems.append("ansible-doc --json printed no JSON")
        if plugin_type == "role":
            if not (document.get("entry_points") or {}).get("main", {}).get("options"):
                problems.append("no main entry point with options in meta/argument_specs.yml")
        elif not document.get("doc"):
            problems.append("no DOCUMENTATION found")
        if plugin_type != "role" and not document.get("examples"):
            problems.append("no EXAMPLES found")
        if plugin_type == "module" and not document.get("return"):
            problems.append("no RETURN found")
    for text in (rendered.stderr,):
        for line in text.splitlines():
            if INTERNAL_COLLECTION_NOTE in line:
                continue
            if "[WARNING]" in line or "[ERROR]" in line or "ERROR!" in line:
                problems.append(line.strip())

    text = run([ansible_doc, "-t", plugin_type, fqcn])
    if text.returncode != 0 or not text.stdout.strip():
        problems.append(f"ansible-doc (text) exited {text.returncode}: {text.stderr.strip()}")
    return problems


def main() -> int:
    """Check every plugin; print a line per plugin."""
    root = sys.argv[1] if len(sys.argv) > 1 else os.getcwd()
    found = list(plugins(root))
    if not found:
        print("docs-check: no modules or plugins found under plugins/")
        return 1
    failed = 0
    # ansible-doc spends most of its time starting up: run a few at once.
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        outcomes = list(pool.map(lambda item: check(*item), found))
    for (plugin_type, fqcn), problems in zip(found, outcomes):
        if problems:
            failed += 1
            print(f"FAIL {plugin_type} {fqcn}")
            for problem in problems:
                print(f"     {problem}")
        else:
            print(f"ok   {plugin_type} {fqcn}")
    print(f"docs-check: {len(found) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
