# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The layers contracts of pyproject.toml ([tool.importlinter]) hold, and break on an import against them.

`make lint` runs import-linter (.venv/lint) on the installed collection; these tests run the same
command on a copy of plugins/ with one import planted against the layers, and check that it is
refused and named. docs/development.md ("The map") describes the layers.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]
LINT_IMPORTS = REPO_ROOT / ".venv" / "lint" / "bin" / "lint-imports"
PACKAGE = "ansible_collections.gamepanel.panel.plugins"


def copy_of_plugins(tmp_path):
    """A collections root holding a copy of this checkout's plugins/; returns (root, plugins directory)."""
    plugins = tmp_path / "ansible_collections" / "gamepanel" / "panel" / "plugins"
    shutil.copytree(REPO_ROOT / "plugins", plugins, ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path, plugins


def lint_imports(root):
    assert LINT_IMPORTS.is_file(), "%s is missing: make .venv/lint/.installed builds it" % LINT_IMPORTS
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--config", str(REPO_ROOT / "pyproject.toml")],
        cwd=root,
        env=dict(os.environ, PYTHONPATH=str(root)),
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )


def plant(plugins, path, line):
    """Add ``line`` (an import) after the ``from __future__`` line of plugins/``path``."""
    target = plugins / path
    text = target.read_text(encoding="utf-8")
    future = "from __future__ import annotations\n"
    assert future in text, path
    target.write_text(text.replace(future, future + line + "\n", 1), encoding="utf-8")


def test_the_tree_keeps_its_layers(tmp_path):
    root = copy_of_plugins(tmp_path)[0]
    result = lint_imports(root)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 2 kept, 0 broken." in result.stdout


# (the importing module, the module it must not import), both under plugins/
AGAINST_THE_LAYERS = [
    ("module_utils._api.client", "module_utils._engine.many_servers"),  # the API client reaching up into the engine
    ("module_utils._state.ledger", "module_utils._engine.one_server"),  # the state on disk reaching up into the engine
    ("module_utils._rules.decision", "module_utils._state.ledger"),  # the pure rules doing I/O
    ("module_utils._rules.open_entries", "module_utils._api.client"),  # the pure rules talking to the panel
    ("module_utils._entry.connection", "plugin_utils.job_connection"),  # module_utils travels: no controller-only code
]


@pytest.mark.parametrize("importer, imported", AGAINST_THE_LAYERS)
def test_an_import_against_the_layers_breaks_the_contract(tmp_path, importer, imported):
    root, plugins = copy_of_plugins(tmp_path)
    plant(plugins, importer.replace(".", "/") + ".py", "import %s.%s" % (PACKAGE, imported))
    result = lint_imports(root)
    output = " ".join(result.stdout.split())  # import-linter wraps long lines
    assert result.returncode == 1, result.stdout + result.stderr
    assert "1 broken" in output and "%s.%s -> %s.%s" % (PACKAGE, importer, PACKAGE, imported) in output, result.stdout


def test_a_package_outside_the_layers_breaks_the_contract(tmp_path):
    root, plugins = copy_of_plugins(tmp_path)
    (plugins / "module_utils" / "misc").mkdir()
    (plugins / "module_utils" / "misc" / "__init__.py").write_text("")
    result = lint_imports(root)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "%s.module_utils.misc" % PACKAGE in " ".join(result.stdout.split())
