# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Check that the user documentation states what the code does (names, defaults, return keys).

Usage: python .ci/docs_truth.py [REPO_ROOT]          (the Makefile's docs-check step runs it)

The documentation read: README.md, docs/*.md and roles/*/README.md. The code read (never imported):
the modules' and plugins' DOCUMENTATION and RETURN (with the collection's doc fragments), every
role's meta/argument_specs.yml, defaults/main.yml and vars/main.yml, the event source's
DOCUMENTATION, the rulebook's ``{{ keep_online_x | default(...) }}`` variables, the AWX credential
type (extensions/awx/credential_type.yml), the ready playbooks' ``target``/``batch`` defaults,
the keys of ``gamepanel_outcome`` (plugins/plugin_utils/job_planning.py), meta/runtime.yml and the
Makefile's lists of virtual environments and steps.

What is checked, by an explicit convention (docs/testing.md, "The docs test"):

1. Tables. A Markdown table whose first header cell is ``option``, ``variable``, ``key``,
   ``field``, ``step`` or ``virtual environment`` must be preceded by a marker line
   ``<!-- docs-truth: SOURCE [all] -->`` naming what it documents (or ``<!-- docs-truth: skip -->``).
   Each row's first cell holds one or more backticked names; every name must exist in SOURCE.
   A ``default`` column must agree with the code's default, an ``environment`` column with the
   option's environment variables. With ``all``, every name of SOURCE must have a row.
2. Prefixed names. Every name starting with a role or rulebook variable prefix
   (``rolling_restart_``, ``maintenance_``, ``ensure_online_``, ``fleet_report_``, ``keep_online_``,
   ``internal_fleet_job_``) in inline code or a code block must exist; written as ``\\`name\\` (LITERAL)``
   (a number, true, false, null, none, [] or a backticked value), LITERAL must be its default.
   Every ``gamepanel_*`` variable and ``GAMEPANEL_*`` environment variable named must occur in the code.
3. YAML examples. In ```` ```yaml ```` blocks: the arguments of a gamepanel.panel module task, an
   inventory configuration (``plugin: gamepanel.panel.servers``), a ``gamepanel.panel.fleet_events``
   source and the variables given to a gamepanel.panel role must be options of that module, plugin,
   source or role; a credential type's fields and injectors must be the shipped one's.
4. Statements: the shape of ``gamepanel_outcome`` written as ``{a, b, c}``; "N ready playbooks";
   ansible-core versions older than meta/runtime.yml's floor; links to files that do not exist
   or to example.invalid; commit hashes (project history does not belong in user docs); a path
   folder of the checkout in inline code (``tests/unit/``, ``docs/examples``) that does not exist;
   "Python X.Y or later" in a paragraph about the emulator when tests/emulator/pyproject.toml's
   requires-python says another version.
5. Messages. A table whose first header cell is ``message`` (marker ``<!-- docs-truth: messages -->``)
   quotes what the collection prints: each backticked quote, cut at ``...`` (the parts filled in at
   run time), must be found piece by piece in the strings of the code (plugins/, roles/, playbooks/):
   each piece whole in one string, since a message is built from a few of them.
6. The index. Every docs/*.md page is linked from docs/index.md and from README.md, and every one
   but the developer pages (DEVELOPER_PAGES) is a guide of docs/docsite/extra-docs.yml.
7. The changelog fragments (what the release notes will say): a name says what the fragment
   holds, so it does not start with an issue number; before the first release
   (changelogs/changelog.yaml has no release) no fragment announces breaking_changes, since
   nothing released can break.
"""

from __future__ import annotations

import ast
import glob
import os
import re
import sys

import yaml

# The reader of a Python file's documentation strings is the docsite's (.ci/eda_docs.py, beside this file).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eda_docs import string_constants  # noqa: E402  pylint: disable=wrong-import-position

MISSING = object()
PREFIXES = (
    "rolling_restart_",
    "maintenance_",
    "ensure_online_",
    "fleet_report_",
    "keep_online_",
    "internal_fleet_job_",
)
PREFIXED = re.compile(r"\b(?:%s)[a-z0-9_]*[a-z0-9]\b" % "|".join(p[:-1] for p in PREFIXES))
GP_VAR = re.compile(r"(?<![\w.-])gamepanel_[a-z0-9_]*[a-z0-9](?![\w-])")
GP_ENV = re.compile(r"\bGAMEPANEL_[A-Z0-9_]*[A-Z0-9]\b")
MARKER = re.compile(r"^\s*<!--\s*docs-truth:\s*(.*?)\s*-->\s*$")
CHECKED_HEADERS = (
    "option",
    "options",
    "variable",
    "variables",
    "key",
    "field",
    "step",
    "virtual environment",
    "message",
)
# A folder of the checkout written in inline code: a top-level folder, a slash, more folders and
# no file name (no dot in the last part); no placeholder (<role>, NAME, *), no spaces. Folders made
# by the build or a run are not checked.
CHECKOUT_FOLDER = re.compile(r"^\.?[a-z][a-z0-9_-]*/(?:[A-Za-z0-9_-]+/)*[A-Za-z0-9_-]*$")
GENERATED_FOLDERS = ("build", ".tmp", ".venv", ".ath")
# Pages for the people who work on the collection: linked from the index, not shipped in the docsite.
DEVELOPER_PAGES = ("index.md", "development.md", "testing.md")
# "Python 3.10 or later" in a paragraph about the emulator: the version it says the emulator needs.
PYTHON_FLOOR = re.compile(r"\bPython (3\.\d+)(?:\+| or later| or newer)")
LITERAL = re.compile(r"`([^`]*)`|(-?\d+(?:\.\d+)?|true|false|null|none|\[\])(?=[\s,;:)])", re.IGNORECASE)
NUMBER_WORDS = {
    w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())
}
# Options every inventory plugin gets from ansible.builtin.constructed and inventory_cache.
BUILTIN_INVENTORY_OPTIONS = {
    "compose": {},
    "groups": {},
    "keyed_groups": {},
    "strict": {},
    "leading_separator": {},
    "use_extra_vars": {},
    "cache": {},
    "cache_plugin": {},
    "cache_timeout": {},
    "cache_connection": {},
    "cache_prefix": {},
}
# Keys of a role entry or import_role/include_role task that are not role variables.
MODULE_PREFIX = "gamepanel.panel."


class Truth:
    """What the code says: sources of names (options, variables, keys) with their specs."""

    def __init__(self):
        self.root = None  # the checkout read
        self.sources = {}  # "module:server_control" -> {name: spec dict}
        self.known = set()  # every prefixed role/rulebook variable and plugin name
        self.gp_names = set()  # gamepanel_* names occurring in the code
        self.env_names = set()  # GAMEPANEL_* names occurring in the code
        self.outcome_keys = []
        self.playbooks = []
        self.ansible_floor = None
        self.credential_type = {}
        self.messages = []  # every string of the code a message may come from
        self.emulator_python = None  # "3.10": the floor of tests/emulator/pyproject.toml's requires-python
        self.problems = []  # the code disagreeing with itself


def _fragments(root):
    """{fragment name: options} of plugins/doc_fragments: 'gamepanel.panel.panel', '....panel.plugin'."""
    fragments = {}
    for path in sorted(glob.glob(os.path.join(root, "plugins", "doc_fragments", "*.py"))):
        base = os.path.basename(path)[:-3]
        for attr, text in string_constants(path).items():
            doc = yaml.safe_load(text) or {}
            if not attr.isupper() or not isinstance(doc, dict):
                continue
            name = MODULE_PREFIX + base + ("" if attr == "DOCUMENTATION" else "." + attr.lower())
            fragments[name] = doc.get("options") or {}
    return fragments


def _spec(option):
    """The parts of an option's documentation the docs state."""
    option = option or {}
    env = [entry.get("name") for entry in option.get("env") or [] if isinstance(entry, dict)]
    return {
        "default": option.get("default", MISSING),
        "required": bool(option.get("required")),
        "env": env,
        "type": option.get("type"),
    }


def _plugin_options(doc, fragments):
    """A DOCUMENTATION's options merged with its collection fragments (as ansible-doc merges them)."""
    options = {}
    for name in doc.get("extends_documentation_fragment") or []:
        if name in fragments:
            for option, value in fragments[name].items():
                merged = dict(options.get(option) or {})
                merged.update(value or {})
                options[option] = merged
        elif name in ("ansible.builtin.constructed", "ansible.builtin.inventory_cache"):
            for option, value in BUILTIN_INVENTORY_OPTIONS.items():
                options.setdefault(option, value)
    for option, value in (doc.get("options") or {}).items():
        merged = dict(options.get(option) or {})
        merged.update(value or {})
        options[option] = merged
    return {name: _spec(value) for name, value in options.items()}


def _return_keys(returns, prefix=""):
    """Every return key, nested ones dotted (``ansible_facts.gamepanel_ledger``)."""
    keys = {}
    for name, value in (returns or {}).items():
        keys[prefix + name] = {"default": MISSING, "required": False, "env": [], "top": not prefix}
        if isinstance(value, dict) and value.get("contains"):
            keys.update(_return_keys(value["contains"], prefix + name + "."))
    return keys


def _outcome_keys(path):
    """The keys of the dict literals that build ``gamepanel_outcome`` (they hold result, reason and elapsed)."""
    keys = []
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            names = [k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
            if {"result", "reason", "elapsed"} <= set(names):
                for name in names:
                    if name not in keys:
                        keys.append(name)
    return keys


def _read_yaml(path):
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def _makefile_list(text, name):
    match = re.search(r"^%s\s*:=\s*(.*)$" % re.escape(name), text, re.MULTILINE)
    return match.group(1).split() if match else []


def _yaml_files(root, *folders):
    """(path, name without .yml, text) of each .yml file in the folder, in name order."""
    for path in sorted(glob.glob(os.path.join(root, *folders, "*.yml"))):
        with open(path, encoding="utf-8") as handle:
            yield path, os.path.basename(path)[:-4], handle.read()


def load_truth(root):
    """Read the code of the checkout at ``root``."""
    truth = Truth()
    truth.root = root
    fragments = _fragments(root)
    connection = {"extends_documentation_fragment": [MODULE_PREFIX + "panel", MODULE_PREFIX + "panel.plugin"]}
    truth.sources["connection"] = _plugin_options(connection, fragments)

    for kind, directory in (("module", "modules"), ("inventory", "inventory")):
        for path in sorted(glob.glob(os.path.join(root, "plugins", directory, "*.py"))):
            name = os.path.basename(path)[:-3]
            if name.startswith("_"):
                continue
            texts = string_constants(path)
            doc = yaml.safe_load(texts.get("DOCUMENTATION") or "") or {}
            truth.sources["%s:%s" % (kind, name)] = _plugin_options(doc, fragments)
            if "RETURN" in texts:
                truth.sources["return:%s" % name] = _return_keys(yaml.safe_load(texts["RETURN"]) or {})
            truth.known.add(name)

    for path in sorted(glob.glob(os.path.join(root, "extensions", "eda", "plugins", "event_source", "*.py"))):
        name = os.path.basename(path)[:-3]
        doc = yaml.safe_load(string_constants(path).get("DOCUMENTATION") or "") or {}
        truth.sources["eda:%s" % name] = _plugin_options(doc, fragments)
        description = " ".join(doc.get("description") or [])
        fields = dict.fromkeys(re.findall(r"C\(([a-z_]+)\)", description))
        truth.sources["event:%s" % name] = {field: _spec({}) for field in fields}

    for role_dir in sorted(glob.glob(os.path.join(root, "roles", "*"))):
        role = os.path.basename(role_dir)
        truth.known.add(role)
        options = {}
        specs_path = os.path.join(role_dir, "meta", "argument_specs.yml")
        if os.path.isfile(specs_path):
            main = ((_read_yaml(specs_path) or {}).get("argument_specs") or {}).get("main") or {}
            options = {name: _spec(value) for name, value in (main.get("options") or {}).items()}
        defaults_path = os.path.join(role_dir, "defaults", "main.yml")
        defaults = (_read_yaml(defaults_path) or {}) if os.path.isfile(defaults_path) else {}
        for name, value in defaults.items():
            spec = options.setdefault(name, _spec({}))
            if spec["default"] is MISSING:
                spec["default"] = value
            elif not _same(spec["default"], value):
                truth.problems.append(
                    "roles/%s: %s defaults to %r in meta/argument_specs.yml but %r in defaults/main.yml"
                    % (role, name, spec["default"], value)
                )
        vars_path = os.path.join(role_dir, "vars", "main.yml")
        for name in ((_read_yaml(vars_path) or {}) if os.path.isfile(vars_path) else {}).keys():
            options.setdefault(name, _spec({}))
        truth.sources["role:%s" % role] = options
        truth.known.update(options)

    for path, name, text in _yaml_files(root, "extensions", "eda", "rulebooks"):
        truth.known.add(name)
        variables = {}
        for variable, default in re.findall(r"\{\{\s*([a-z_][a-z0-9_]*)\s*\|\s*default\((.*?)\)\s*\}\}", text):
            spec = variables.setdefault(variable, _spec({}))
            value = yaml.safe_load(default)
            if spec["default"] is not MISSING and not _same(spec["default"], value):
                truth.problems.append("%s: %s has the defaults %r and %r" % (path, variable, spec["default"], value))
            spec["default"] = value
        truth.sources["rulebook:%s" % name] = variables
        truth.known.update(variables)

    for path, name, text in _yaml_files(root, "playbooks"):
        truth.playbooks.append(name)
        variables = {}
        for variable, default in re.findall(r"\b(target|batch)\s*\|\s*default\(([^()]*)\)", text):
            variables.setdefault(variable, _spec({"default": yaml.safe_load(default)}))
        truth.sources["playbook:%s" % name] = variables

    credential_path = os.path.join(root, "extensions", "awx", "credential_type.yml")
    if os.path.isfile(credential_path):
        credential = _read_yaml(credential_path) or {}
        truth.credential_type = credential
        fields = ((credential.get("inputs") or {}).get("fields")) or []
        required = set(((credential.get("inputs") or {}).get("required")) or [])
        truth.sources["credential-type"] = {
            field["id"]: _spec({"required": field["id"] in required}) for field in fields if "id" in field
        }

    job_planning = os.path.join(root, "plugins", "plugin_utils", "job_planning.py")
    if os.path.isfile(job_planning):
        truth.outcome_keys = _outcome_keys(job_planning)

    runtime = os.path.join(root, "meta", "runtime.yml")
    if os.path.isfile(runtime):
        match = re.search(r"(\d+)\.(\d+)", str((_read_yaml(runtime) or {}).get("requires_ansible", "")))
        if match:
            truth.ansible_floor = (int(match.group(1)), int(match.group(2)))

    makefile = os.path.join(root, "Makefile")
    if os.path.isfile(makefile):
        with open(makefile, encoding="utf-8") as handle:
            text = handle.read()
        truth.sources["venvs"] = {".venv/" + name: _spec({}) for name in _makefile_list(text, "VENV_NAMES")}
        steps = _makefile_list(text, "SETUP_STEPS") + _makefile_list(text, "CHECK_STEPS")
        truth.sources["make:test"] = {name: _spec({}) for name in steps}
        truth.sources["make:release-check"] = {name: _spec({}) for name in _makefile_list(text, "RELEASE_STEPS")}

    truth.messages = _message_strings(root)
    emulator_project = os.path.join(root, "tests", "emulator", "pyproject.toml")
    if os.path.isfile(emulator_project):
        with open(emulator_project, encoding="utf-8") as handle:
            match = re.search(r"^requires-python\s*=\s*\"\s*>=\s*(3\.\d+)", handle.read(), re.MULTILINE)
        truth.emulator_python = match.group(1) if match else None

    # Host variables of the inventory: the prefix and the server fields.
    servers_py = os.path.join(root, "plugins", "module_utils", "api", "server_records.py")
    if os.path.isfile(servers_py):
        with open(servers_py, encoding="utf-8") as handle:
            match = re.search(r"^SERVER_FIELDS\s*=\s*(\(.*?\))", handle.read(), re.MULTILINE | re.DOTALL)
        if match:
            fields = ast.literal_eval(match.group(1))
            truth.sources["hostvars"] = {"gamepanel_" + field: _spec({}) for field in fields}
            truth.gp_names.update(truth.sources["hostvars"])

    for directory in ("plugins", "roles", "playbooks", "extensions", "meta", "tests", ".ci"):
        for dirpath, _dirnames, filenames in os.walk(os.path.join(root, directory)):
            for filename in filenames:
                if filename.endswith((".py", ".yml", ".yaml", ".j2", ".toml", ".cfg", ".sh")):
                    with open(os.path.join(dirpath, filename), encoding="utf-8", errors="replace") as handle:
                        text = handle.read()
                    if directory != ".ci":
                        truth.gp_names.update(GP_VAR.findall(text))
                    truth.env_names.update(GP_ENV.findall(text))
    for filename in ("Makefile", "galaxy.yml"):
        path = os.path.join(root, filename)
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as handle:
                truth.env_names.update(GP_ENV.findall(handle.read()))
    return truth


def _message_strings(root):
    """Every string literal of plugins/ and extensions/ (implicit concatenation joined), and the
    text of the roles' and playbooks' YAML with its folded lines joined: where a message may come from."""
    strings = []
    for directory in ("plugins", "extensions"):
        for path in sorted(glob.glob(os.path.join(root, directory, "**", "*.py"), recursive=True)):
            with open(path, encoding="utf-8") as handle:
                tree = ast.parse(handle.read(), path)
            strings += [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)]
    for pattern in ("roles/*/tasks/*.yml", "playbooks/*.yml"):
        for path in sorted(glob.glob(os.path.join(root, pattern))):
            with open(path, encoding="utf-8") as handle:
                strings.append(" ".join(handle.read().split()))
    return [text for text in strings if isinstance(text, str)]


def _same(documented, actual):
    """Whether a default as the docs state it is the code's."""
    if actual is MISSING:
        actual = None
    if documented is MISSING:
        documented = None
    if isinstance(documented, bool) or isinstance(actual, bool):
        return documented is actual
    if isinstance(documented, (int, float)) and isinstance(actual, (int, float)):
        return float(documented) == float(actual)
    if isinstance(actual, str) and not isinstance(documented, str) and documented is not None:
        return str(documented) == actual
    return documented == actual


def _parse_default(cell):
    """(value, how) of a default cell: how is 'value', 'required', 'any' (not stated) or 'unreadable'."""
    text = cell.strip()
    if not text:
        return None, "any"
    if text.lower().startswith("(required)"):
        return None, "required"
    match = re.match(r"`([^`]*)`", text)
    if match:
        try:
            return yaml.safe_load(match.group(1)), "value"
        except yaml.YAMLError:
            return match.group(1), "value"
    word = re.split(r"[\s(,;]", text, maxsplit=1)[0].lower()
    if word in ("none", "null", "-", "—"):
        return None, "value"
    if word == "all":
        return "all", "all"
    try:
        return yaml.safe_load(word), "value" if re.match(r"^(-?\d+(\.\d+)?|true|false)$", word) else "unreadable"
    except yaml.YAMLError:
        return text, "unreadable"


def _cells(line):
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|"):
        line = line[:-1]
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", line)]


class Doc:
    """One Markdown file: its lines, with fenced code blocks told apart."""

    def __init__(self, path, rel):
        self.path = path
        self.rel = rel
        with open(path, encoding="utf-8") as handle:
            self.lines = handle.read().splitlines()
        self.in_code = []
        self.blocks = []  # (language, first line number, text)
        fence = None
        start = 0
        language = ""
        for number, line in enumerate(self.lines):
            stripped = line.strip()
            if fence is None and stripped.startswith("```"):
                fence, language, start = "```", stripped[3:].strip().lower(), number
                self.in_code.append(True)
            elif fence is not None and stripped.startswith("```"):
                self.blocks.append((language, start + 1, "\n".join(self.lines[start + 1 : number])))
                fence = None
                self.in_code.append(True)
            else:
                self.in_code.append(fence is not None)


def _where(doc, number):
    return "%s:%d" % (doc.rel, number + 1)


def check_tables(doc, truth, problems):
    """Rule 1: marked tables."""
    number = 0
    lines = doc.lines
    while number < len(lines) - 1:
        line = lines[number]
        if (
            doc.in_code[number]
            or not line.lstrip().startswith("|")
            or not re.match(r"^\s*\|?\s*:?-{3,}", lines[number + 1])
        ):
            number += 1
            continue
        header = [cell.lower() for cell in _cells(line)]
        end = number + 2
        while end < len(lines) and lines[end].lstrip().startswith("|"):
            end += 1
        marker = None
        back = number - 1
        while back >= 0 and not lines[back].strip():
            back -= 1
        if back >= 0:
            match = MARKER.match(lines[back])
            if match:
                marker = match.group(1).split()
        if header and header[0] in CHECKED_HEADERS or marker:
            if not marker:
                problems.append(
                    "%s: a table of %ss has no <!-- docs-truth: SOURCE --> marker line above it"
                    % (_where(doc, number), header[0])
                )
            elif marker[0] == "messages":
                _check_messages(doc, number, lines[number + 2 : end], truth, problems)
            elif marker[0] != "skip":
                _check_table(doc, number, header, lines[number + 2 : end], marker, truth, problems)
        number = end


def _check_table(doc, number, header, rows, marker, truth, problems):
    source_name, flags = marker[0], set(marker[1:])
    source = truth.sources.get(source_name)
    if source is None:
        problems.append("%s: docs-truth marker names an unknown source %r" % (_where(doc, number), source_name))
        return
    default_col = header.index("default") if "default" in header else None
    env_col = header.index("environment") if "environment" in header else None
    seen = set()
    for offset, row in enumerate(rows):
        where = _where(doc, number + 2 + offset)
        cells = _cells(row)
        names = re.findall(r"`([^`]+)`", cells[0])
        if not names:
            problems.append("%s: the row's first cell names nothing in backticks: %r" % (where, cells[0]))
            continue
        for name in names:
            seen.add(name)
            spec = source.get(name)
            if spec is None:
                problems.append("%s: `%s` is not in %s" % (where, name, source_name))
                continue
            if default_col is not None and default_col < len(cells) and len(names) == 1:
                _check_default(where, name, cells[default_col], spec, problems)
            if env_col is not None and env_col < len(cells):
                documented = re.findall(r"`([^`]+)`", cells[env_col])
                if documented and len(names) == 1 and sorted(documented) != sorted(spec["env"]):
                    problems.append(
                        "%s: `%s` reads the environment variables %s, the docs say %s"
                        % (where, name, spec["env"] or "none", documented)
                    )
    if "all" in flags:
        wanted = [name for name, spec in source.items() if spec.get("top", True)]
        missing = [name for name in wanted if name not in seen]
        if missing:
            problems.append(
                "%s: the table of %s leaves out %s" % (_where(doc, number), source_name, ", ".join(missing))
            )


def _check_messages(doc, number, rows, truth, problems):
    """Rule 5: each quoted message is in the code: each of its pieces between ``...`` whole in one string."""
    for offset, row in enumerate(rows):
        where = _where(doc, number + 2 + offset)
        quotes = re.findall(r"`([^`]+)`", _cells(row)[0])
        if not quotes:
            problems.append("%s: the row's first cell quotes no message in backticks" % where)
        for quote in quotes:
            # the punctuation right after a filled-in part may belong to the next string of the code
            pieces = [piece.strip().lstrip(";:,.) ") for piece in quote.split("...")]
            pieces = [piece for piece in pieces if piece]
            missing = [piece for piece in pieces if not any(piece in text for text in truth.messages)]
            if missing:
                problems.append("%s: the message %r is not in the code (%r)" % (where, quote, missing[0]))


def _check_default(where, name, cell, spec, problems):
    value, how = _parse_default(cell)
    if how == "any":
        return
    if how == "unreadable":
        problems.append("%s: cannot read the default of `%s` from %r (write it in backticks)" % (where, name, cell))
    elif how == "required":
        if spec["default"] is not MISSING:
            problems.append("%s: `%s` is documented as required but defaults to %r" % (where, name, spec["default"]))
    elif how == "all":
        if spec["default"] not in (MISSING, None, []):
            problems.append("%s: `%s` is documented as 'all' but defaults to %r" % (where, name, spec["default"]))
    elif not _same(value, spec["default"]):
        shown = "no default" if spec["default"] is MISSING else repr(spec["default"])
        problems.append("%s: `%s` defaults to %s in the code, the docs say %r" % (where, name, shown, value))


def _prefixed_defaults(truth):
    defaults = {}
    for source_name, source in truth.sources.items():
        if source_name.startswith(("role:", "rulebook:")):
            for name, spec in source.items():
                defaults.setdefault(name, spec)
    return defaults


def check_names(doc, truth, problems):
    """Rule 2: prefixed names, gamepanel_* and GAMEPANEL_* names, and prose defaults."""
    specs = _prefixed_defaults(truth)
    # Names an example registers or sets in its own ``vars`` are the example's own.
    registered = set()
    for _language, _first, text in doc.blocks:
        registered.update(re.findall(r"\bregister:\s*([a-z0-9_]+)", text))
        try:
            documents = list(yaml.safe_load_all(text))
        except yaml.YAMLError:
            continue
        for node in (item for document in documents for item in _walk(document)):
            if isinstance(node, dict) and isinstance(node.get("vars"), dict):
                registered.update(name for name in node["vars"] if str(name).startswith("gamepanel_"))
    for number, line in enumerate(doc.lines):
        if MARKER.match(line):
            continue
        spans = [line] if doc.in_code[number] else re.findall(r"`([^`]*)`", line)
        for span in spans:
            for name in PREFIXED.findall(span):
                if name not in truth.known:
                    problems.append("%s: `%s` is named but the code has no such variable" % (_where(doc, number), name))
            for name in GP_VAR.findall(span):
                if name not in truth.gp_names and name not in registered:
                    problems.append(
                        "%s: `%s` is named but the code never sets or reads it" % (_where(doc, number), name)
                    )
        for name in GP_ENV.findall(line):
            if name not in truth.env_names:
                problems.append(
                    "%s: the environment variable %s is named but the code never reads it" % (_where(doc, number), name)
                )
        if doc.in_code[number]:
            continue
        for match in re.finditer(r"`([a-z0-9_]+)`\s*\(", line):
            name = match.group(1)
            if name not in specs or not name.startswith(PREFIXES):
                continue
            literal = LITERAL.match(line, match.end())
            if not literal:
                continue
            text = literal.group(1) if literal.group(1) is not None else literal.group(2)
            try:
                value = yaml.safe_load(text)
            except yaml.YAMLError:
                value = text
            if text.lower() == "none":
                value = None
            if not _same(value, specs[name]["default"]):
                shown = "no default" if specs[name]["default"] is MISSING else repr(specs[name]["default"])
                problems.append(
                    "%s: `%s` defaults to %s in the code, the docs say %r" % (_where(doc, number), name, shown, value)
                )


ROLE_KEYWORDS = {"role", "name", "vars", "run_once", "when", "tags", "become", "delegate_to", "tasks_from", "apply"}


def _walk(node):
    yield node
    if isinstance(node, dict):
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


def check_yaml_examples(doc, truth, problems):
    """Rule 3: YAML examples."""
    for language, first, text in doc.blocks:
        if language not in ("yaml", "yml"):
            continue
        try:
            documents = list(yaml.safe_load_all(text))
        except yaml.YAMLError:
            continue
        where = _where(doc, first)
        for node in (item for document in documents for item in _walk(document)):
            if not isinstance(node, dict):
                continue
            for key, value in node.items():
                if not isinstance(key, str) or not isinstance(value, dict):
                    continue
                short = key[len(MODULE_PREFIX) :] if key.startswith(MODULE_PREFIX) else None
                if short and "module:%s" % short in truth.sources:
                    _known_keys(where, "module:%s" % short, value, truth, problems)
                elif short and "eda:%s" % short in truth.sources:
                    _known_keys(where, "eda:%s" % short, value, truth, problems)
            if node.get("plugin") == MODULE_PREFIX + "servers":
                _known_keys(where, "inventory:servers", node, truth, problems)
            role = node.get("role") or (
                node.get("ansible.builtin.import_role") or node.get("ansible.builtin.include_role") or {}
            )
            role = role.get("name") if isinstance(role, dict) else role
            if isinstance(role, str) and role.startswith(MODULE_PREFIX):
                source = "role:%s" % role[len(MODULE_PREFIX) :]
                given = {k: v for k, v in node.items() if k not in ROLE_KEYWORDS and "." not in k}
                given.update(node.get("vars") or {})
                if source not in truth.sources:
                    problems.append("%s: the example uses the role %s, which does not exist" % (where, role))
                else:
                    _known_keys(where, source, given, truth, problems)
            if isinstance(node.get("inputs"), dict) and isinstance(node.get("injectors"), dict):
                _check_credential_type(where, node, truth, problems)


def _known_keys(where, source_name, given, truth, problems):
    source = truth.sources[source_name]
    for key in given:
        if key not in source:
            problems.append("%s: the example gives `%s`, which is not an option of %s" % (where, key, source_name))


def _check_credential_type(where, node, truth, problems):
    shipped = truth.credential_type
    fields = [field.get("id") for field in ((node.get("inputs") or {}).get("fields") or []) if isinstance(field, dict)]
    shipped_fields = [field.get("id") for field in ((shipped.get("inputs") or {}).get("fields") or [])]
    if fields != shipped_fields:
        problems.append(
            "%s: the credential type shown has the fields %s, extensions/awx/credential_type.yml has %s"
            % (where, fields, shipped_fields)
        )
    if node.get("injectors") != shipped.get("injectors"):
        problems.append(
            "%s: the credential type shown injects other variables than extensions/awx/credential_type.yml" % where
        )


def check_statements(doc, truth, problems):
    """Rule 4: outcome shape, playbook count, ansible-core versions, links, commit hashes."""
    text = "\n".join(line if not code else "" for line, code in zip(doc.lines, doc.in_code))
    flat = text.replace("\n", " ")  # same offsets as text, so a match gives its line

    def line_of(match):
        return text[: match.start()].count("\n")

    for match in re.finditer(r"gamepanel_outcome`?[^{}`]{0,40}?[(`]*\{([^{}]*)\}", flat):
        keys = [part.split(":")[0].strip() for part in match.group(1).split(",")]
        if truth.outcome_keys and keys != truth.outcome_keys:
            problems.append(
                "%s: gamepanel_outcome is {%s} in the code, the docs say {%s}"
                % (_where(doc, line_of(match)), ", ".join(truth.outcome_keys), ", ".join(keys))
            )
    for match in re.finditer(r"\b(\w+)\s+ready\s+playbooks\b", flat, re.IGNORECASE):
        word = match.group(1).lower()
        count = NUMBER_WORDS.get(word, int(word) if word.isdigit() else None)
        if count is not None and count != len(truth.playbooks):
            problems.append(
                "%s: says %s ready playbooks; playbooks/ has %d"
                % (_where(doc, line_of(match)), match.group(1), len(truth.playbooks))
            )
    for paragraph in re.finditer(r"(?:[^\n]+\n?)+", text):
        if not truth.emulator_python or not re.search(r"\bemulator\b", paragraph.group(0), re.IGNORECASE):
            continue
        for match in PYTHON_FLOOR.finditer(paragraph.group(0).replace("\n", " ")):
            if match.group(1) != truth.emulator_python:
                problems.append(
                    "%s: says the emulator needs Python %s; tests/emulator/pyproject.toml requires Python %s"
                    % (_where(doc, text[: paragraph.start()].count("\n")), match.group(1), truth.emulator_python)
                )
    for match in re.finditer(r"ansible-core\s+(\d+)\.(\d+)", flat):
        version = (int(match.group(1)), int(match.group(2)))
        if truth.ansible_floor and version < truth.ansible_floor:
            problems.append(
                "%s: names ansible-core %d.%d, older than the supported %d.%d (meta/runtime.yml)"
                % ((_where(doc, line_of(match)),) + version + truth.ansible_floor)
            )
    for number, line in enumerate(doc.lines):
        if doc.in_code[number]:
            continue
        if "example.invalid" in line:
            problems.append("%s: a link to example.invalid" % _where(doc, number))
        for target in re.findall(r"\]\(([^)\s]+)\)", line):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            path = os.path.normpath(os.path.join(os.path.dirname(doc.path), target.split("#")[0]))
            if not os.path.exists(path):
                problems.append("%s: the link %s leads to no file" % (_where(doc, number), target))
        for span in re.findall(r"`([^`\s]+)`", line):
            top = span.split("/", 1)[0]
            if (
                CHECKOUT_FOLDER.match(span)
                and top not in GENERATED_FOLDERS
                and os.path.isdir(os.path.join(truth.root, top))
                and not os.path.exists(os.path.join(truth.root, span))
            ):
                problems.append("%s: names `%s`, which the checkout does not have" % (_where(doc, number), span))
        for word in re.findall(r"(?<![\w/.-])[0-9a-f]{7,40}(?![\w/.-])", line):
            if re.search(r"[a-f]", word) and re.search(r"[0-9]", word):
                problems.append(
                    "%s: %s looks like a commit hash (project history is not for user docs)"
                    % (_where(doc, number), word)
                )


def doc_files(root):
    """The user documentation: README.md, docs/*.md, roles/*/README.md."""
    paths = [os.path.join(root, "README.md")]
    paths += sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    paths += sorted(glob.glob(os.path.join(root, "roles", "*", "README.md")))
    return [path for path in paths if os.path.isfile(path)]


def check_index(root, problems):
    """Rule 6: every docs/*.md page reachable from docs/index.md and README.md, and in the docsite."""
    pages = [os.path.basename(path) for path in sorted(glob.glob(os.path.join(root, "docs", "*.md")))]
    index = os.path.join(root, "docs", "index.md")
    if os.path.isfile(index):
        for listing, prefix in ((index, ""), (os.path.join(root, "README.md"), "docs/")):
            with open(listing, encoding="utf-8") as handle:
                targets = {target.split("#")[0] for target in re.findall(r"\]\(([^)\s]+)\)", handle.read())}
            for page in pages:
                if page != "index.md" and prefix + page not in targets:
                    problems.append("%s: does not link docs/%s" % (os.path.relpath(listing, root), page))
    extra_docs = os.path.join(root, "docs", "docsite", "extra-docs.yml")
    if os.path.isfile(extra_docs):
        sections = (_read_yaml(extra_docs) or {}).get("sections") or []
        listed = {ref for section in sections for ref in section.get("toctree") or []}
        for page in pages:
            if page not in DEVELOPER_PAGES and page[:-3].replace("-", "_") not in listed:
                problems.append("docs/docsite/extra-docs.yml: does not list docs/%s (the docsite leaves it out)" % page)


def check_fragments(root, problems):
    """Rule 7: fragment names without issue numbers; no breaking_changes before the first release."""
    changelog = os.path.join(root, "changelogs", "changelog.yaml")
    released = bool(((_read_yaml(changelog) or {}).get("releases")) if os.path.isfile(changelog) else True)
    for path in sorted(glob.glob(os.path.join(root, "changelogs", "fragments", "*.y*ml"))):
        name = os.path.relpath(path, root)
        if re.match(r"^\d+[-_]", os.path.basename(path)):
            problems.append("%s: the name starts with an issue number; name it after what it holds" % name)
        if not released and "breaking_changes" in (_read_yaml(path) or {}):
            problems.append("%s: breaking_changes before the first release, against nothing released" % name)


def check(root):
    """Every problem found in the checkout at ``root``."""
    truth = load_truth(root)
    problems = list(truth.problems)
    check_index(root, problems)
    check_fragments(root, problems)
    for path in doc_files(root):
        doc = Doc(path, os.path.relpath(path, root))
        check_tables(doc, truth, problems)
        check_names(doc, truth, problems)
        check_yaml_examples(doc, truth, problems)
        check_statements(doc, truth, problems)
    return problems


def main(argv=None):
    """Print every problem; exit 1 when there is one."""
    argv = sys.argv[1:] if argv is None else argv
    root = argv[0] if argv else os.getcwd()
    problems = check(root)
    for problem in problems:
        print("FAIL %s" % problem)
    count = len(doc_files(root))
    print("docs-truth: %d files read, %d problem(s)" % (count, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
