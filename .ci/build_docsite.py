# What no stock tool does: the docsite with the event source pages antsibull-docs lacks, built offline.
# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""`make docsite` (.venv/docsite's Python): `antsibull-docs sphinx-init`, then the two steps of its build.sh
with eda_docs.py's event source pages added between them, Sphinx with -W and offline (Ansible's docs through
an inventory written here from ansible-core's configuration); each event source page must show every option.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import zlib
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import eda_docs  # noqa: E402  pylint: disable=wrong-import-position

COLLECTION = "gamepanel.panel"
ANSIBLE_DOCS = "https://docs.ansible.com/projects/ansible/devel/"
# Labels of Ansible's documentation that antsibull-docs' page templates refer to: its page, title (anchor: the label).
ANSIBLE_LABELS = {
    "ansible_configuration_settings": ("reference_appendices/config.html", "Ansible Configuration Settings"),
    "common_return_values": ("reference_appendices/common_return_values.html", "Return Values"),
    "action_plugins": ("plugins/action.html", "Action plugins"),
    "callback_plugins": ("plugins/callback.html", "Callback plugins"),
    "collections_keyword": (
        "collections_guide/collections_using_playbooks.html",
        "Simplifying module names with the collections keyword",
    ),
    "list_of_collections": ("collections/index.html", "Collection Index"),
    "list_of_callback_plugins": ("collections/index_callback.html", "Index of all Callback Plugins"),
}


def run(command: list, **kwargs) -> None:
    print("$ " + " ".join(str(part) for part in command), flush=True)
    subprocess.run([str(part) for part in command], check=True, **kwargs)


def ansible_inventory(path: Path) -> None:
    """A Sphinx inventory (objects.inv format 2) of the parts of Ansible's docs we link to."""
    import ansible  # pylint: disable=import-outside-toplevel

    base = yaml.safe_load((Path(ansible.__file__).parent / "config" / "base.yml").read_text(encoding="utf-8"))
    labels = sorted(ANSIBLE_LABELS.items())
    lines = [f"{label} std:label -1 {page}#{label.replace('_', '-')} {title}" for label, (page, title) in labels]
    envvars = {
        entry["name"] for setting in base.values() if isinstance(setting, dict) for entry in setting.get("env") or []
    }
    lines += [f"{name} std:envvar 1 reference_appendices/config.html#envvar-$ -" for name in sorted(envvars)]
    header = f"# Sphinx inventory version 2\n# Project: Ansible\n# Version: {ansible.__version__}\n"
    header += "# The remainder of this file is compressed using zlib.\n"
    path.write_bytes(header.encode() + zlib.compress(("\n".join(lines) + "\n").encode()))


def build(site: Path, collection_path: Path) -> list[str]:
    """What sphinx-init's build.sh does, the event source pages added between its two steps; what they lack."""
    rst = site / "rst"
    rst.mkdir(exist_ok=True)  # sphinx-init writes rst/index.rst; antsibull-docs replaces it
    rst.chmod(0o755)  # antsibull-docs wants that directory only writable by itself
    collection = "antsibull-docs --config-file antsibull-docs.cfg collection --cleanup everything --use-current"
    run(collection.split() + ["--squash-hierarchy", "--dest-dir", "rst", COLLECTION], cwd=site)
    namespace, name = COLLECTION.split(".")
    pages = eda_docs.write_pages(collection_path, rst, namespace, name)
    eda_docs.add_to_index(rst / "index.rst", pages, namespace, name)
    run(["sphinx-build", "-M", "html", "rst", "build", "-c", ".", "-W", "--keep-going"], cwd=site)
    missing = []
    for source, doc in sorted(pages.items()):
        page = site / "build" / "html" / f"{eda_docs.page_name(source)}.html"
        text = page.read_text(encoding="utf-8") if page.is_file() else ""
        ids = [eda_docs.option_id(namespace, name, source, option) for option in doc["options"]]
        missing += [f"{page.name}#{option}" for option, id_ in zip(doc["options"], ids) if f'id="{id_}"' not in text]
    return missing


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--collection-path", required=True, type=Path, help="the installed ansible_collections/gamepanel/panel"
    )
    parser.add_argument("--dest", required=True, type=Path, help="work directory (emptied)")
    options = parser.parse_args()
    if "gamepanel/panel" not in str(options.collection_path) or not os.environ.get("ANSIBLE_COLLECTIONS_PATH"):
        raise SystemExit("give the installed collection, and its collections path in ANSIBLE_COLLECTIONS_PATH")

    shutil.rmtree(options.dest, ignore_errors=True)
    site = options.dest / "site"
    site.mkdir(parents=True)
    site.chmod(0o700)  # sphinx-init refuses a directory others may write to
    init = "antsibull-docs sphinx-init --use-current --squash-hierarchy --fail-on-error --dest-dir"
    title = ["--copyright", "gamepanel.panel contributors", "--title", f"{COLLECTION} documentation"]
    run(init.split() + [site, "--project", COLLECTION, *title, COLLECTION])
    # The generated conf.py looks for inventories beside the site and downloads them otherwise.
    # Only Ansible's documentation is referenced; give it the inventory written here, nothing else.
    inventory = (options.dest / "ansible_devel.inv").resolve()
    ansible_inventory(inventory)
    with (site / "conf.py").open("a", encoding="utf-8") as conf:
        conf.write(
            "\n# make docsite (.ci/build_docsite.py): offline, Ansible's docs through a local inventory only.\n"
            f"intersphinx_mapping = {{'ansible_devel': ({ANSIBLE_DOCS!r}, {str(inventory)!r})}}\n"
        )
    missing = build(site, options.collection_path)
    if missing:
        raise SystemExit("the docsite lacks: " + ", ".join(missing))
    print(f"docsite: {site / 'build' / 'html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
