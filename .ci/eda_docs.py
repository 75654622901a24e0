# What no stock tool does: docsite pages for Event-Driven Ansible event sources (antsibull-docs knows none).
# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""For each extensions/eda/plugins/event_source/*.py of a collection (used by build_docsite.py): its
documentation as ansible-doc reads a plugin's (ansible's get_docstring, with the collection's doc
fragments), its markup as reStructuredText (antsibull-docs-parser), one page: synopsis, parameters,
notes, examples. ``add_to_index`` lists the pages in index.rst, so Sphinx -W sees no orphan page.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

from ansible.utils.plugin_docs import get_docstring
from antsibull_docs_parser.parser import Context, parse
from antsibull_docs_parser.rst import AntsibullRSTFormatter, rst_escape
from antsibull_docs_parser.rst import to_rst as _to_rst

EVENT_SOURCE_DIR = Path("extensions") / "eda" / "plugins" / "event_source"
INDEX_SECTION = "Event sources"
TYPE_NAMES = {"str": "string", "bool": "boolean", "int": "integer", "dict": "dictionary"}


class DocError(ValueError):
    """An event source's documentation cannot be rendered."""


class DocFragments:  # pylint: disable=too-few-public-methods
    """The fragment loader get_docstring asks: NS.NAME.FILE is plugins/doc_fragments/FILE.py of the collection."""

    def __init__(self, collection_path: Path, namespace: str, name: str):
        self.directory, self.prefix = Path(collection_path) / "plugins" / "doc_fragments", f"{namespace}.{name}."

    def get(self, reference: str):
        file = reference[len(self.prefix) :] if reference.startswith(self.prefix) else "."
        path = self.directory / f"{file}.py"
        if "." in file or not path.is_file():
            return None  # get_docstring then tries NS.NAME.FILE with the variable after the last dot
        spec = importlib.util.spec_from_file_location(f"doc_fragment_{file}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.ModuleDocFragment.ansible_name = reference
        return module.ModuleDocFragment


def event_sources(collection_path: Path) -> list[Path]:
    """The event source files of the collection, sorted."""
    directory = Path(collection_path) / EVENT_SOURCE_DIR
    return sorted(path for path in directory.glob("*.py") if not path.name.startswith("_"))


def load(path: Path, collection_path: Path, namespace: str, name: str) -> dict:
    """The source's documentation, fragments merged, plus ``examples`` (the EXAMPLES text)."""
    try:
        doc, examples, _returns, _metadata = get_docstring(
            str(Path(path).resolve()),
            DocFragments(collection_path, namespace, name),
            collection_name=f"{namespace}.{name}",
        )
    except Exception as error:  # ansible's errors name the file and the unknown fragment
        raise DocError(f"{path}: {error}") from error
    if not doc:
        raise DocError(f"{path} has no DOCUMENTATION string")
    if doc.get("name", path.stem) != path.stem:
        raise DocError(f"{path}: DOCUMENTATION names {doc.get('name')!r}, the file is {path.stem!r}")
    return {**doc, "name": path.stem, "options": doc.get("options") or {}, "examples": examples or ""}


class Formatter(AntsibullRSTFormatter):
    """The roles of antsibull-docs' pages; E() as antsibull-docs writes a variable it does not document."""

    def format_env_variable(self, part) -> str:
        return "\\ :ansenvvar:`%s`\\ " % rst_escape(part.name, escape_ending_whitespace=True, must_not_be_empty=True)


def to_rst(text) -> str:
    """One paragraph of Ansible markup as reStructuredText (no plugin type "event_source" for O() to link to)."""
    try:
        return _to_rst(parse(str(text), Context(), errors="exception"), Formatter())
    except ValueError as error:
        raise DocError(str(error)) from error


def page_name(source: str) -> str:
    """The page's document name (rst/NAME.rst, build/html/NAME.html)."""
    return source + "_event_source"


def option_label(namespace: str, name: str, source: str, option: str = "") -> str:
    """The Sphinx label of the page (of an option's anchor on it, given the option)."""
    label = f"ansible_collections.{namespace}.{name}.{page_name(source)}"
    return f"{label}__parameter-{option}" if option else label


def option_id(namespace: str, name: str, source: str, option: str) -> str:
    """The HTML id docutils gives ``option_label`` (lower case, runs of other characters as one hyphen)."""
    return re.sub(r"[^a-z0-9]+", "-", option_label(namespace, name, source, option).lower()).strip("-")


def _paragraphs(value) -> list[str]:
    return [] if value is None else [value] if isinstance(value, str) else [str(item) for item in value]


def _literal(text: str) -> str:
    return ":literal:`%s`" % str(text).replace("\\", "\\\\").replace("`", "\\`")


def _value(value) -> str:
    """A default or choice as YAML and JSON write it: true, 30, "name", ["a", "b"]."""
    return _literal(json.dumps(value, default=str))


def _option_rows(doc: dict, namespace: str, name: str) -> list[str]:
    lines = [".. list-table::", "   :header-rows: 1", "   :widths: 30 70", "", "   * - Parameter", "     - Comments"]
    for option, spec in doc["options"].items():
        kind = TYPE_NAMES.get(spec.get("type", "str"), spec.get("type"))
        if spec.get("elements"):
            kind += " / elements=" + TYPE_NAMES.get(spec["elements"], spec["elements"])
        kind += " / required" if spec.get("required") else ""
        left = [f".. _{option_label(namespace, name, doc['name'], option)}:", to_rst(f"B({option})"), _literal(kind)]
        left += [f"*added in {spec['version_added']}*"] if spec.get("version_added") else []
        right = [to_rst(paragraph) for paragraph in _paragraphs(spec.get("description"))]
        if spec.get("choices") is not None:
            default = [" (default)" if choice == spec.get("default", ()) else "" for choice in spec["choices"]]
            right.append("Choices:\n\n" + "\n".join(f"- {_value(c)}{d}" for c, d in zip(spec["choices"], default)))
        elif spec.get("default") is not None:
            right.append(f"Default: {_value(spec['default'])}")
        right += [f"Environment variable: {_literal(entry['name'])}" for entry in spec.get("env") or []]
        right += [f"INI entry: {_literal('[%(section)s] %(key)s' % entry)}" for entry in spec.get("ini") or []]
        right += [f"Variable: {_literal(entry['name'])}" for entry in spec.get("vars") or []]
        for mark, cell in (("   * - ", left), ("     - ", right)):
            cell = "\n\n".join(cell).split("\n")
            lines += ([""] if mark.startswith("   *") else []) + [mark + cell[0]]
            lines += [f"       {line}".rstrip() for line in cell[1:]]
    return lines


def _section(title: str, lines: list[str], char: str = "-") -> list[str]:
    return [title, char * len(title), "", *lines] if lines else []


def render(doc: dict, namespace: str, name: str, source_path: str = "") -> str:
    """The RST page of one event source, from ``load``'s result."""
    full_name = f"{namespace}.{name}.{doc['name']}"

    def bullets(key):
        return [line for item in _paragraphs(doc.get(key)) for line in (f"- {to_rst(item)}", "")]

    lines = [f".. Generated by .ci/eda_docs.py from {source_path}; edit that file.", ""] if source_path else []
    lines += [f".. _{option_label(namespace, name, doc['name'])}:", ""]
    lines += [f"{full_name} event source", "=" * len(full_name + " event source"), ""]
    if doc.get("short_description"):
        lines += [to_rst(doc["short_description"]), ""]
    if doc.get("version_added"):
        lines += [f"Added in {namespace}.{name} {doc['version_added']}.", ""]
    lines += [f"An event source of ansible-rulebook (Event-Driven Ansible): {_literal(full_name)} in a rulebook's"]
    lines += ["``sources``.", "", ".. contents::", "   :local:", "   :depth: 1", ""]
    lines += _section("Synopsis", bullets("description")) + _section("Requirements", bullets("requirements"))
    table = _option_rows(doc, namespace, name) if doc["options"] else ["This event source has no parameters."]
    lines += _section("Parameters", table + [""])
    lines += _section("Notes", bullets("notes"))
    example = ["    " + line if line else "" for line in doc["examples"].strip("\n").splitlines()]
    lines += _section("Examples", [".. code-block:: yaml", "", *example, ""] if example else [])
    lines += _section("Authors", [line for item in _paragraphs(doc.get("author")) for line in (f"- {item}", "")])
    return "\n".join(lines).rstrip("\n") + "\n"


def write_pages(collection_path: Path, rst_dir: Path, namespace: str, name: str) -> dict[str, dict]:
    """Write the page of every event source of the collection into rst_dir; source name -> its documentation."""
    written = {}
    for path in event_sources(collection_path):
        doc = load(path, collection_path, namespace, name)
        page = render(doc, namespace, name, path.relative_to(collection_path).as_posix())
        (Path(rst_dir) / f"{page_name(doc['name'])}.rst").write_text(page, encoding="utf-8")
        written[doc["name"]] = doc
    return written


def add_to_index(index: Path, docs: dict[str, dict], namespace: str, name: str) -> None:
    """Add an "Event sources" section to antsibull-docs' index.rst: a line per page and their toctree."""
    if not docs:
        return
    text = Path(index).read_text(encoding="utf-8")
    # The level of antsibull-docs' own top sections ("Plugin Index", "Role Index").
    underline = re.search(r"\n(?:Plugin Index|Role Index)\n([=\-~^+#*\"'])\1+\n", text)
    if underline is None or f"\n{INDEX_SECTION}\n" in text:
        raise DocError(f"{index}: no Plugin Index or Role Index section, or already one named {INDEX_SECTION!r}")
    lines = [f"These are the event sources (ansible-rulebook) in the {namespace}.{name} collection:", ""]
    for source, doc in sorted(docs.items()):
        summary = f" -- {to_rst(doc['short_description'])}" if doc.get("short_description") else ""
        lines.append(f"* :ref:`{source} event source <{option_label(namespace, name, source)}>`{summary}")
    lines += ["", ".. toctree::", "    :maxdepth: 1", "    :hidden:", ""]
    lines += [f"    {page_name(source)}" for source in sorted(docs)]
    section = ["", f".. _event_sources_in_{namespace}.{name}:", "", *_section(INDEX_SECTION, lines, underline.group(1))]
    Path(index).write_text(text.rstrip("\n") + "\n" + "\n".join(section) + "\n", encoding="utf-8")
