# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The map in docs/development.md ("What each package holds") names every file of module_utils and plugin_utils, and no other."""

from __future__ import annotations

import re
from pathlib import Path

import tomllib

REPO_ROOT = Path(__file__).resolve().parents[3]
PLUGINS = REPO_ROOT / "plugins"


def map_section():
    text = (REPO_ROOT / "docs" / "development.md").read_text(encoding="utf-8")
    return text.split("### What each package holds", 1)[1].split("\n### ", 1)[0]


def named_in_map():
    """Every file a row of the map names, relative to plugins/ (a row may name several plugin_utils files)."""
    named = set()
    for row in map_section().splitlines():
        cell = row.split("|")[1] if row.startswith("| `") else ""
        for name in re.findall(r"`([\w/]+\.py)`", cell):
            if name.startswith("plugin_utils/"):
                named.add(name)
            elif "/" in name:
                named.add("module_utils/" + name)
            else:
                named.add("plugin_utils/" + name)
    return named


def in_tree():
    return {
        str(path.relative_to(PLUGINS))
        for directory in ("module_utils", "plugin_utils")
        for path in (PLUGINS / directory).rglob("*.py")
        if path.name != "__init__.py"
    }


def test_the_map_names_every_file_of_the_tree_and_no_other():
    assert named_in_map() == in_tree()


def test_the_map_shows_the_layers_of_the_contract_in_its_order():
    contracts = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    layers = next(c for c in contracts["contracts"] if c["id"] == "module-utils-layers")["layers"]
    packages = [name for layer in layers for name in layer.split(" | ")]
    headings = re.findall(r"^\| \*\*(\w+)/\*\* \|", map_section(), flags=re.M)
    assert headings == packages + ["plugin_utils"]
    packages_in_tree = [path.name for path in (PLUGINS / "module_utils").iterdir() if (path / "__init__.py").is_file()]
    assert sorted(packages_in_tree) == sorted(packages)
