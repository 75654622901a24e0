# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Build the collection's docsite and check it (`make docsite`; run with .venv/docsite's Python).

1. `antsibull-docs lint-collection-docs --plugin-docs` on the built collection;
2. `antsibull-docs sphinx-init` for gamepanel.panel, as installed in ANSIBLE_COLLECTIONS_PATH;
3. the two steps of the build.sh sphinx-init generates (build.sh itself is not run):
   antsibull-docs writes the reStructuredText, then (between the two) .ci/eda_docs.py renders a
   page for each Event-Driven Ansible event source (extensions/eda/plugins/event_source/*.py,
   which antsibull-docs does not know) from its DOCUMENTATION and EXAMPLES and lists the pages
   in index.rst under "Event sources", then Sphinx writes the HTML with warnings as errors (-W);
4. every module, plugin and role the collection has (ansible-doc --list, so roles added later
   are picked up) has its page, and each role page shows every option of its argument specs;
   so does every event source, with every option (its doc fragments' included); and every guide
   docs/docsite/extra-docs.yml lists (the Markdown in docs/, turned into pages by the build) has its page.

The build runs offline: Sphinx resolves references into Ansible's own documentation through an
inventory written here from ansible-core's configuration definitions (environment variables) and
the few labels antsibull-docs' templates link to, instead of downloading it.
"""

from __future__ import annotations

import argparse
import json
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
# Labels of Ansible's documentation that antsibull-docs' page templates refer to.
ANSIBLE_LABELS = {
    "ansible_configuration_settings": (
        "reference_appendices/config.html#ansible-configuration-settings",
        "Ansible Configuration Settings",
    ),
    "common_return_values": ("reference_appendices/common_return_values.html#common-return-values", "Return Values"),
    "action_plugins": ("plugins/action.html#action-plugins", "Action plugins"),
    "callback_plugins": ("plugins/callback.html#callback-plugins", "Callback plugins"),
    "collections_keyword": (
        "collections_guide/collections_using_playbooks.html#collections-keyword",
        "Simplifying module names with the collections keyword",
    ),
    "list_of_collections": ("collections/index.html#list-of-collections", "Collection Index"),
    "list_of_callback_plugins": (
        "collections/index_callback.html#list-of-callback-plugins",
        "Index of all Callback Plugins",
    ),
}
# Where each plugin type's page is, as antsibull-docs names them with --squash-hierarchy.
PAGE = "{name}_{type}.html"


def run(command: list, **kwargs) -> None:
    print("$ " + " ".join(str(part) for part in command), flush=True)
    subprocess.run([str(part) for part in command], check=True, **kwargs)


def ansible_inventory(path: Path) -> None:
    """A Sphinx inventory (objects.inv format 2) of the parts of Ansible's docs we link to."""
    import ansible  # pylint: disable=import-outside-toplevel

    base = yaml.safe_load((Path(ansible.__file__).parent / "config" / "base.yml").read_text(encoding="utf-8"))
    lines = [f"{label} std:label -1 {uri} {title}" for label, (uri, title) in sorted(ANSIBLE_LABELS.items())]
    envvars = sorted(
        {entry["name"] for setting in base.values() if isinstance(setting, dict) for entry in setting.get("env") or []}
    )
    lines += [f"{name} std:envvar 1 reference_appendices/config.html#envvar-$ -" for name in envvars]
    header = (
        f"# Sphinx inventory version 2\n# Project: Ansible\n# Version: {ansible.__version__}\n"
        "# The remainder of this file is compressed using zlib.\n"
    )
    path.write_bytes(header.encode() + zlib.compress(("\n".join(lines) + "\n").encode()))


def collection_contents(collection_path: Path) -> dict[str, list[str]]:
    """Plugin type -> short names, as ansible-doc lists them (roles included)."""
    contents = {}
    for plugin_type in ("module", "inventory", "lookup", "filter", "test", "callback", "connection", "role"):
        listed = subprocess.run(
            ["ansible-doc", "-t", plugin_type, "--list", "--json", COLLECTION],
            capture_output=True,
            text=True,
            check=True,
        )
        names = sorted(name.rsplit(".", 1)[-1] for name in json.loads(listed.stdout or "{}"))
        if names:
            contents[plugin_type] = names
    roles_dir = collection_path / "roles"
    on_disk = sorted(path.name for path in roles_dir.iterdir() if path.is_dir()) if roles_dir.is_dir() else []
    if on_disk != contents.get("role", []):
        raise SystemExit(f'ansible-doc lists the roles {contents.get("role", [])}, the collection has {on_disk}')
    return contents


def role_options(role_dir: Path) -> set[str]:
    """The page anchors of the role's options: parameter-ENTRYPOINT--OPTION."""
    specs = role_dir / "meta" / "argument_specs.yml"
    if not specs.is_file():
        raise SystemExit(f"role {role_dir.name} has no meta/argument_specs.yml")
    entry_points = yaml.safe_load(specs.read_text(encoding="utf-8"))["argument_specs"]
    return {
        f"parameter-{entry}--{option}" for entry, spec in entry_points.items() for option in (spec.get("options") or {})
    }


def missing_event_source_options(page: Path, collection_path: Path, source: str) -> list[str]:
    """The options of the event source (its fragments' included) whose anchor its page lacks."""
    namespace, name = COLLECTION.split(".")
    path = collection_path / eda_docs.EVENT_SOURCE_DIR / f"{source}.py"
    doc = eda_docs.load(path, collection_path, namespace, name)
    if not doc["options"]:
        return []
    text = page.read_text(encoding="utf-8")
    return [
        f"{page.name}#{option}"
        for option in doc["options"]
        if f'id="{eda_docs.option_id(namespace, name, source, option)}"' not in text
    ]


def check_pages(html: Path, collection_path: Path, contents: dict[str, list[str]]) -> None:
    missing = []
    for plugin_type, names in contents.items():
        for name in names:
            page = html / PAGE.format(name=name, type=plugin_type)
            if not page.is_file():
                missing.append(page.name)
            elif plugin_type == "event_source":
                missing += missing_event_source_options(page, collection_path, name)
            elif plugin_type == "role":
                text = page.read_text(encoding="utf-8")
                missing += [
                    f"{page.name}#{anchor}"
                    for anchor in sorted(role_options(collection_path / "roles" / name))
                    if f'id="{anchor}"' not in text
                ]
    guides = guide_refs(collection_path)
    missing += [f"docsite/{ref}.html" for ref in guides if not (html / "docsite" / f"{ref}.html").is_file()]
    if missing:
        raise SystemExit("the docsite lacks: " + ", ".join(missing))
    summary = ", ".join(f"{len(names)} {plugin_type}" for plugin_type, names in contents.items())
    print(f"docsite: {summary} documented, and {len(guides)} guides ({', '.join(guides)}), in {html}")


def guide_refs(collection_path: Path) -> list[str]:
    """The guides docs/docsite/extra-docs.yml lists (the build wrote each as a page: .ci/guides_to_rst.py)."""
    index = yaml.safe_load((collection_path / "docs" / "docsite" / "extra-docs.yml").read_text(encoding="utf-8"))
    return [ref for section in index["sections"] for ref in section["toctree"]]


def build(site: Path, collection_path: Path) -> None:
    """What sphinx-init's build.sh does, with the event source pages added between its two steps.

    build.sh is not run: antsibull-docs writes the reStructuredText of the modules, plugins and
    roles into rst/, then .ci/eda_docs.py adds a page for each event source (antsibull-docs knows
    none) and lists them in rst/index.rst, then Sphinx builds the HTML with warnings as errors.
    """
    rst = site / "rst"
    rst.mkdir(exist_ok=True)  # sphinx-init writes rst/index.rst; antsibull-docs replaces it
    rst.chmod(0o755)  # antsibull-docs wants that directory only writable by itself
    run(
        [
            "antsibull-docs",
            "--config-file",
            "antsibull-docs.cfg",
            "collection",
            "--cleanup",
            "everything",
            "--use-current",
            "--squash-hierarchy",
            "--dest-dir",
            "rst",
            COLLECTION,
        ],
        cwd=site,
    )
    namespace, name = COLLECTION.split(".")
    pages = eda_docs.write_pages(collection_path, rst, namespace, name)
    eda_docs.add_to_index(rst / "index.rst", pages, namespace, name)
    for source in sorted(pages):
        print(f"event source page: rst/{eda_docs.page_name(source)}.rst", flush=True)
    run(["sphinx-build", "-M", "html", "rst", "build", "-c", ".", "-W", "--keep-going"], cwd=site)


def event_source_contents(collection_path: Path) -> dict[str, list[str]]:
    """The event sources of the collection ({"event_source": names}, or nothing when it has none)."""
    names = [path.stem for path in eda_docs.event_sources(collection_path)]
    return {"event_source": names} if names else {}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--collection-path", required=True, type=Path, help="the built collection (ansible_collections/gamepanel/panel)"
    )
    parser.add_argument("--dest", required=True, type=Path, help="work directory (emptied)")
    options = parser.parse_args()
    if COLLECTION.replace(".", "/") not in str(options.collection_path) or not os.environ.get(
        "ANSIBLE_COLLECTIONS_PATH"
    ):
        raise SystemExit("give the installed collection, and its collections path in ANSIBLE_COLLECTIONS_PATH")

    run(
        ["antsibull-docs", "lint-collection-docs", "--plugin-docs", "--validate-collection-refs", "all", "."],
        cwd=options.collection_path,
    )

    shutil.rmtree(options.dest, ignore_errors=True)
    site = options.dest / "site"
    site.mkdir(parents=True)
    site.chmod(0o700)  # sphinx-init refuses a directory others may write to
    run(
        [
            "antsibull-docs",
            "sphinx-init",
            "--use-current",
            "--squash-hierarchy",
            "--fail-on-error",
            "--dest-dir",
            site,
            "--project",
            COLLECTION,
            "--copyright",
            "gamepanel.panel contributors",
            "--title",
            f"{COLLECTION} documentation",
            COLLECTION,
        ]
    )
    # The generated conf.py looks for inventories beside the site and downloads them otherwise.
    # Only Ansible's documentation is referenced; give it the inventory written here, nothing else.
    inventory = (options.dest / "ansible_devel.inv").resolve()
    ansible_inventory(inventory)
    with (site / "conf.py").open("a", encoding="utf-8") as conf:
        conf.write(
            "\n# make docsite (.ci/build_docsite.py): offline, Ansible's docs through a local inventory only.\n"
            f"intersphinx_mapping = {{'ansible_devel': ({ANSIBLE_DOCS!r}, {str(inventory)!r})}}\n"
        )
    build(site, options.collection_path)
    contents = collection_contents(options.collection_path)
    contents.update(event_source_contents(options.collection_path))
    check_pages(site / "build" / "html", options.collection_path, contents)
    return 0


if __name__ == "__main__":
    sys.exit(main())
