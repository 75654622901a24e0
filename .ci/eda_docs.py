# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Render the collection's Event-Driven Ansible event sources as docsite pages (used by build_docsite.py).

antsibull-docs knows modules, plugins and roles, not ansible-rulebook event sources. This module
reads each ``extensions/eda/plugins/event_source/*.py`` of a collection (its DOCUMENTATION and
EXAMPLES strings, parsed with ``ast``: the source is never imported), resolves the doc fragments its
``extends_documentation_fragment`` names from the collection's ``plugins/doc_fragments/`` (the
fragment's options first, then the source's own: an option the source documents itself overrides
the fragment's keys, as ansible-doc merges them), and writes one reStructuredText page per source:
title ``NAMESPACE.NAME.SOURCE event source``, synopsis, parameters (type, default, choices,
environment variables and ini entries), notes, examples. Ansible markup (``C(x)``, ``O(x)``,
``V(x)``, ``E(x)``, ``I(x)``, ``B(x)``, ``U(url)``, ``L(text,url)``, ...) becomes RST literals,
emphasis or links.

``add_to_index`` lists the pages under an "Event sources" section of antsibull-docs' index.rst, so
Sphinx (``-W``) sees no orphan page. ``option_id`` is the HTML id of an option's anchor, which
build_docsite.py's page check looks for.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import yaml

EVENT_SOURCE_DIR = Path("extensions") / "eda" / "plugins" / "event_source"
PAGE_SUFFIX = "_event_source"
INDEX_SECTION = "Event sources"
TYPE_NAMES = {
    "str": "string",
    "bool": "boolean",
    "int": "integer",
    "float": "float",
    "list": "list",
    "dict": "dictionary",
    "path": "path",
    "raw": "raw",
}


class DocError(ValueError):
    """An event source's documentation cannot be rendered."""


# ---------------------------------------------------------------------------
# Reading the documentation


def string_constants(path) -> dict[str, str]:
    """Module-level (or class-level, one level down) NAME = "string" assignments of a Python file (a path or str)."""
    path = Path(path)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = {}
    bodies = [tree.body] + [node.body for node in tree.body if isinstance(node, ast.ClassDef)]
    for body in bodies:
        for node in body:
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
            ):
                found[node.targets[0].id] = node.value.value
    return found


def event_sources(collection_path: Path) -> list[Path]:
    """The event source files of the collection, sorted."""
    directory = Path(collection_path) / EVENT_SOURCE_DIR
    if not directory.is_dir():
        return []
    return sorted(path for path in directory.glob("*.py") if not path.name.startswith("_"))


def _fragment(collection_path: Path, namespace: str, name: str, reference: str) -> dict:
    """The YAML of one doc fragment of this collection: NS.COLL.FILE (DOCUMENTATION) or NS.COLL.FILE.VAR."""
    prefix = f"{namespace}.{name}."
    if not reference.startswith(prefix):
        raise DocError(f"doc fragment {reference}: only fragments of {namespace}.{name} are resolved")
    parts = reference[len(prefix) :].split(".")
    if len(parts) not in (1, 2) or not all(parts):
        raise DocError(f"doc fragment {reference}: expected {prefix}FILE or {prefix}FILE.VARIABLE")
    path = Path(collection_path) / "plugins" / "doc_fragments" / f"{parts[0]}.py"
    if not path.is_file():
        raise DocError(f"doc fragment {reference}: {path} does not exist")
    variable = parts[1].upper() if len(parts) == 2 else "DOCUMENTATION"
    text = string_constants(path).get(variable)
    if text is None:
        raise DocError(f"doc fragment {reference}: {path} has no {variable}")
    return yaml.safe_load(text) or {}


def _merge_list(first: list, second: list) -> list:
    merged = []
    for item in list(first) + list(second):
        if item not in merged:
            merged.append(item)
    return merged


def load(path: Path, collection_path: Path, namespace: str, name: str) -> dict:
    """The source's documentation with its fragments resolved, plus ``examples`` (the EXAMPLES text)."""
    constants = string_constants(path)
    if "DOCUMENTATION" not in constants:
        raise DocError(f"{path} has no DOCUMENTATION string")
    own = yaml.safe_load(constants["DOCUMENTATION"]) or {}
    if own.get("name", path.stem) != path.stem:
        raise DocError(f"{path}: DOCUMENTATION names {own.get('name')!r}, the file is {path.stem!r}")
    fragments = own.get("extends_documentation_fragment") or []
    if isinstance(fragments, str):
        fragments = [fragments]

    options: dict[str, dict] = {}
    doc = {key: value for key, value in own.items() if key not in ("options", "extends_documentation_fragment")}
    for reference in fragments:
        fragment = _fragment(collection_path, namespace, name, reference)
        for option, spec in (fragment.get("options") or {}).items():
            options[option] = {**options.get(option, {}), **(spec or {})}
        for key in ("notes", "requirements", "seealso"):
            if fragment.get(key):
                doc[key] = _merge_list(fragment[key], doc.get(key) or [])
    for option, spec in (own.get("options") or {}).items():
        options[option] = {**options.get(option, {}), **(spec or {})}
    doc["options"] = options
    doc["name"] = path.stem
    doc["examples"] = constants.get("EXAMPLES", "")
    return doc


# ---------------------------------------------------------------------------
# Ansible markup to reStructuredText

_MARKUP = re.compile(r"\b(?:(?P<command>RV|[CIBUMOVEPL])\(|(?P<rule>HORIZONTALLINE)\b)")
_ESCAPED_ARGUMENTS = ("O", "V", "E", "RV")
_PLAIN_SPECIAL = re.compile(r"([\\*`_|])")


def _escape_plain(text: str) -> str:
    return _PLAIN_SPECIAL.sub(r"\\\1", text)


def _escape_role(text: str) -> str:
    return text.replace("\\", "\\\\").replace("`", "\\`")


def _literal(text: str) -> str:
    if not text:
        return ""
    return f":literal:`{_escape_role(text)}`"


def _link(text: str, url: str) -> str:
    label = text.replace("\\", "\\\\").replace("`", "\\`").replace("<", "\\<")
    return f"`{label} <{url}>`__"


def _argument(text: str, start: int, escaped: bool) -> tuple[str, int]:
    """The argument of a markup command starting at ``start``, and the index after its ``)``."""
    if not escaped:
        end = text.find(")", start)
        if end < 0:
            raise DocError(f"unterminated markup in {text!r}")
        return text[start:end], end + 1
    value = []
    index = start
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text):
            value.append(text[index + 1])
            index += 2
            continue
        if char == ")":
            return "".join(value), index + 1
        value.append(char)
        index += 1
    raise DocError(f"unterminated markup in {text!r}")


def _render_command(command: str, argument: str) -> str:
    if command in ("C", "V", "E", "RV", "M", "P"):
        if command == "P":
            argument = argument.split("#", 1)[0]
        return _literal(argument)
    if command == "O":
        # O(fqcn#type:option=value) refers to another plugin's option: show the option (and value).
        if "#" in argument and ":" in argument.split("=", 1)[0]:
            argument = argument.split(":", 1)[1]
        return _literal(argument)
    if command == "I":
        return f"*{_escape_plain(argument)}*" if argument else ""
    if command == "B":
        return f"**{_escape_plain(argument)}**" if argument else ""
    if command == "U":
        return _link(argument, argument)
    if command == "L":
        if "," not in argument:
            raise DocError(f"L() needs a text and a URL: L({argument})")
        label, url = argument.split(",", 1)
        return _link(label.strip(), url.strip())
    raise DocError(f"unknown markup {command}()")  # pragma: no cover - the pattern names every command


def to_rst(text) -> str:
    """One paragraph of Ansible markup as reStructuredText."""
    text = str(text)
    parts: list[tuple[bool, str]] = []  # (is_markup, rst)
    position = 0
    while True:
        match = _MARKUP.search(text, position)
        if match is None:
            break
        parts.append((False, _escape_plain(text[position : match.start()])))
        if match.group("rule"):
            parts.append((False, ""))
            position = match.end()
            continue
        command = match.group("command")
        argument, position = _argument(text, match.end(), command in _ESCAPED_ARGUMENTS)
        parts.append((True, _render_command(command, argument)))
    parts.append((False, _escape_plain(text[position:])))

    out = []
    for index, (markup, rst) in enumerate(parts):
        if markup and rst:
            before = "".join(piece for _markup, piece in parts[:index])
            after = "".join(piece for _markup, piece in parts[index + 1 :])
            # Inline markup must stand between whitespace or punctuation: an escaped space joins it to
            # the word beside it and renders as nothing.
            if before and not before[-1].isspace():
                rst = "\\ " + rst
            if after and not after[0].isspace():
                rst = rst + "\\ "
        out.append(rst)
    return "".join(out)


# ---------------------------------------------------------------------------
# The page


def fqcn(namespace: str, name: str, source: str) -> str:
    return f"{namespace}.{name}.{source}"


def page_name(source: str) -> str:
    """The page's document name (rst/NAME.rst, build/html/NAME.html)."""
    return source + PAGE_SUFFIX


def page_label(namespace: str, name: str, source: str) -> str:
    """The Sphinx label of the page (its title)."""
    return f"ansible_collections.{fqcn(namespace, name, source)}{PAGE_SUFFIX}"


def option_label(namespace: str, name: str, source: str, option: str) -> str:
    """The Sphinx label of an option's anchor on the page."""
    return f"{page_label(namespace, name, source)}__parameter-{option}"


def option_id(namespace: str, name: str, source: str, option: str) -> str:
    """The HTML id docutils gives ``option_label`` (lower case, runs of other characters as one hyphen)."""
    return re.sub(r"[^a-z0-9]+", "-", option_label(namespace, name, source, option).lower()).strip("-")


def _paragraphs(value) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(item) for item in value]


def _default(value) -> str:
    """A default or choice as YAML/JSON writes it (true, 30, "name", [a, b] as ["a", "b"])."""
    return json.dumps(value, default=str)


def _indent(lines: list[str], prefix: str) -> list[str]:
    return [prefix + line if line else "" for line in lines]


def _option_rows(doc: dict, namespace: str, name: str) -> list[str]:
    lines = [
        ".. list-table::",
        "   :header-rows: 1",
        "   :widths: 30 70",
        "",
        "   * - Parameter",
        "     - Comments",
    ]
    for option, spec in doc["options"].items():
        kind = spec.get("type", "str")
        type_text = TYPE_NAMES.get(kind, kind)
        if kind == "list" and spec.get("elements"):
            type_text += " / elements=" + TYPE_NAMES.get(spec["elements"], spec["elements"])
        if spec.get("required"):
            type_text += " / required"
        left = [
            f".. _{option_label(namespace, name, doc['name'], option)}:",
            "",
            f"**{_escape_plain(option)}**",
            "",
            _literal(type_text),
        ]
        if spec.get("version_added"):
            left += ["", f"*added in {_escape_plain(str(spec['version_added']))}*"]
        right = []
        for paragraph in _paragraphs(spec.get("description")):
            right += [to_rst(paragraph), ""]
        if spec.get("choices") is not None:
            right += ["Choices:", ""]
            for choice in spec["choices"]:
                marker = " (default)" if "default" in spec and choice == spec["default"] else ""
                right.append(f"- {_literal(_default(choice))}{marker}")
            right.append("")
        elif "default" in spec and spec["default"] is not None:
            right += [f"Default: {_literal(_default(spec['default']))}", ""]
        for entry in spec.get("env") or []:
            right += [f"Environment variable: {_literal(entry['name'])}", ""]
        for entry in spec.get("ini") or []:
            section, key = entry.get("section"), entry.get("key")
            right += [f"INI entry: {_literal(f'[{section}] {key}')}", ""]
        for entry in spec.get("vars") or []:
            right += [f"Variable: {_literal(entry['name'])}", ""]
        while right and not right[-1]:
            right.pop()
        lines.append("")
        lines.append("   * - " + left[0])
        lines += _indent(left[1:], "       ")
        lines.append("     - " + (right[0] if right else ""))
        lines += _indent(right[1:], "       ")
    return lines


def _heading(text: str, char: str) -> list[str]:
    return [text, char * len(text), ""]


def render(doc: dict, namespace: str, name: str, source_path: str = "") -> str:
    """The RST page of one event source, from ``load``'s result."""
    source = doc["name"]
    full_name = fqcn(namespace, name, source)
    lines = []
    if source_path:
        lines += [f".. Generated by .ci/eda_docs.py from {source_path}; edit that file, not this page.", ""]
    lines += [f".. _{page_label(namespace, name, source)}:", ""]
    lines += _heading(f"{full_name} event source", "=")
    if doc.get("short_description"):
        lines += [to_rst(doc["short_description"]), ""]
    if doc.get("version_added"):
        lines += [f"Added in {_escape_plain(namespace + '.' + name)} {_escape_plain(str(doc['version_added']))}.", ""]
    lines += [
        f"An event source of ansible-rulebook (Event-Driven Ansible). Use it in a rulebook's ``sources`` as"
        f" :literal:`{full_name}`.",
        "",
        ".. contents::",
        "   :local:",
        "   :depth: 1",
        "",
    ]
    lines += _heading("Synopsis", "-")
    for paragraph in _paragraphs(doc.get("description")):
        lines += [f"- {to_rst(paragraph)}", ""]
    if doc.get("requirements"):
        lines += _heading("Requirements", "-")
        for requirement in _paragraphs(doc["requirements"]):
            lines += [f"- {to_rst(requirement)}", ""]
    lines += _heading("Parameters", "-")
    if doc["options"]:
        lines += _option_rows(doc, namespace, name) + [""]
    else:
        lines += ["This event source has no parameters.", ""]
    if doc.get("notes"):
        lines += _heading("Notes", "-")
        for note in _paragraphs(doc["notes"]):
            lines += [f"- {to_rst(note)}", ""]
    if doc.get("examples", "").strip():
        lines += _heading("Examples", "-")
        lines += [".. code-block:: yaml", ""]
        lines += _indent(doc["examples"].strip("\n").splitlines(), "    ")
        lines.append("")
    if doc.get("author"):
        lines += _heading("Authors", "-")
        for author in _paragraphs(doc["author"]):
            lines += [f"- {_escape_plain(author)}", ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def write_pages(collection_path: Path, rst_dir: Path, namespace: str, name: str) -> dict[str, dict]:
    """Write the page of every event source of the collection into rst_dir; source name -> its documentation."""
    written = {}
    for path in event_sources(collection_path):
        doc = load(path, collection_path, namespace, name)
        relative = path.relative_to(collection_path).as_posix()
        (Path(rst_dir) / f"{page_name(doc['name'])}.rst").write_text(
            render(doc, namespace, name, relative), encoding="utf-8"
        )
        written[doc["name"]] = doc
    return written


def add_to_index(index: Path, docs: dict[str, dict], namespace: str, name: str) -> None:
    """Add an "Event sources" section to antsibull-docs' index.rst: a line per page and their toctree."""
    if not docs:
        return
    text = Path(index).read_text(encoding="utf-8")
    if f"\n{INDEX_SECTION}\n" in text:
        raise DocError(f"{index} already has a section {INDEX_SECTION!r}")
    # The level of antsibull-docs' own top sections ("Plugin Index", "Role Index").
    underline = re.search(r"\n(?:Plugin Index|Role Index)\n([=\-~^+#*\"'])\1+\n", text)
    if underline is None:
        raise DocError(f"{index} has no Plugin Index or Role Index section: where does {INDEX_SECTION!r} go?")
    section = ["", f".. _event_sources_in_{namespace}.{name}:", "", *_heading(INDEX_SECTION, underline.group(1))]
    section += [f"These are the event sources (ansible-rulebook) in the {namespace}.{name} collection:", ""]
    for source in sorted(docs):
        label = page_label(namespace, name, source)
        summary = to_rst(docs[source].get("short_description") or "")
        section.append(f"* :ref:`{source} event source <{label}>`" + (f" -- {summary}" if summary else ""))
    section += ["", ".. toctree::", "    :maxdepth: 1", "    :hidden:", ""]
    section += [f"    {page_name(source)}" for source in sorted(docs)]
    Path(index).write_text(text.rstrip("\n") + "\n" + "\n".join(section) + "\n", encoding="utf-8")
