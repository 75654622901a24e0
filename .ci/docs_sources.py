# What no stock tool does: holds against the code what restates it where no doc fragment reaches.
# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The docs check of `make docs-check` beside antsibull-docs lint-collection-docs, which reads only
DOCUMENTATION and meta/argument_specs.yml:

1. defaults/main.yml of each role gives every option the default meta/argument_specs.yml documents;
2. a ready playbook's header comment (playbooks/*.yml), and a rulebook's, lists each variable its
   code reads with ``| default(X)`` with that default, names ``ansible-doc -t role`` for each role it
   applies, and every role variable it names exists in that role's argument specs, with its default;
3. the roles' argument specs and the playbook headers say where a job's token comes from in the one
   sentence of plugins/doc_fragments/panel.py's JOB_TOKEN (markup aside), and in no other;
4. a guide's example (a fenced block right after ``<!-- example: docs/examples/FILE -->``) is the
   file as it is (ansible-lint lints the files, tests/integration runs them), and a guide quotes
   every docs/examples/*.yml;
5. no guide restates options in a table with a ``default`` column: the reference holds them.
Usage: python .ci/docs_sources.py [REPO_ROOT]
"""

from __future__ import annotations

import itertools
import re
import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from eda_docs import DocFragments  # noqa: E402  pylint: disable=wrong-import-position

MISSING = type("Missing", (), {"__repr__": lambda self: "nothing"})()  # an option without a default
MARKUP = re.compile(r"\b[BCEIMOV]\(([^()]*)\)")
EXAMPLE = re.compile(r"^<!-- example: (\S+) -->\n```[a-z]*\n(.*?)^```", re.M | re.S)
PLAY_DEFAULT = re.compile(r"(?<![\w.])([a-z_][a-z0-9_]*)\s*\|\s*default\(([^()]*)\)")
TOKEN_NAMES = re.compile(r"GAMEPANEL_API_TOKEN\b|gamepanel_api_token")


def plain(text: str) -> str:
    """Text without Ansible markup and with single spaces."""
    return " ".join(MARKUP.sub(r"\1", text).split())


def job_token(root: Path) -> str:
    """The canonical sentence: the note of the doc fragment gamepanel.panel.panel.job_token."""
    fragment = DocFragments(root, "gamepanel", "panel").get("gamepanel.panel.panel").JOB_TOKEN
    return plain(yaml.safe_load(fragment)["notes"][0])


def same(documented, value) -> bool:
    """A default as a sentence or a spec writes it (`none`, `100%`, `0`) against the code's value."""
    if isinstance(documented, str) and documented.lower() == "none":
        documented = None
    value = None if value is MISSING else value
    return documented == value or str(documented) == str(value)


def role_specs(root: Path) -> dict[str, dict]:
    """{role: {option: default or MISSING}} of each role's main entry point."""
    specs = {}
    for path in sorted(root.glob("roles/*/meta/argument_specs.yml")):
        main = yaml.safe_load(path.read_text(encoding="utf-8"))["argument_specs"]["main"]
        specs[path.parents[1].name] = {
            "options": {name: option.get("default", MISSING) for name, option in (main.get("options") or {}).items()},
            "description": plain(" ".join(main.get("description") or [])),
        }
    return specs


def check_role_defaults(root: Path, specs: dict, problems: list) -> None:
    """A role with defaults/main.yml (an internal role's tasks may default a variable themselves)."""
    for role, spec in specs.items():
        path = root / "roles" / role / "defaults" / "main.yml"
        if not path.is_file():
            continue
        defaults = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for name, default in spec["options"].items():
            given = defaults.get(name, MISSING)
            if not (given is default or given == default or (default is MISSING and given is None)):
                problems.append(
                    f"roles/{role}: {name} defaults to {default!r} in the spec, {given!r} in defaults/main.yml"
                )
        for name in set(defaults) - set(spec["options"]):
            problems.append(f"roles/{role}/defaults/main.yml: {name} is no option of the role's argument specs")


def header(text: str) -> str:
    """A playbook's header comment (the comment lines after the first line), as one line."""
    lines = itertools.takewhile(lambda line: line.startswith("#"), text.splitlines()[1:])
    return " ".join(" ".join(line[1:] for line in lines).split())


def sentences(text: str) -> list[str]:
    return [part.strip() for part in re.split(r"(?<=[.!?])\s+(?=[A-Z])", text) if part.strip()]


def check_token_wording(where: str, text: str, token: str, problems: list) -> None:
    """The canonical sentence is there, and no other sentence names where the token comes from."""
    if token not in text:
        problems.append(f"{where}: does not say where the token comes from in the words of JOB_TOKEN: {token!r}")
    for sentence in sentences(text.replace(token, "")):
        if TOKEN_NAMES.search(sentence) and "token" in sentence.lower():
            problems.append(f"{where}: says where the token comes from in other words than JOB_TOKEN: {sentence!r}")


def check_playbook(root: Path, path: Path, specs: dict, token: str, problems: list) -> None:
    """A ready playbook's, or a rulebook's, header comment against its code."""
    text = path.read_text(encoding="utf-8")
    comment = header(text)
    where = str(path.relative_to(root))
    code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    for name, default in dict(PLAY_DEFAULT.findall(code)).items():
        if name.startswith("gamepanel_") or any(name.startswith(role + "_") for role in specs):
            continue
        value = yaml.safe_load(default)
        shown = value if isinstance(value, str) else default.strip()
        # `name (default X...)` in a playbook's header, `name (X...)` in the rulebook's list
        said = [m.group(1) for m in re.finditer(rf"\b{name} \(([^()]*)\)", comment)]
        if not said:
            problems.append(f"{where}: the header does not list the variable {name} (default {shown})")
        elif not any(re.match(rf"(.*\bdefault:? )?{re.escape(shown)}(?![\w%.])", part) for part in said):
            problems.append(f"{where}: the header gives {name} another default than the code's {shown}")
    roles = sorted(set(re.findall(r"role: gamepanel\.panel\.([a-z_]+)", code)))
    for role in roles:
        if f"ansible-doc -t role gamepanel.panel.{role}" not in comment:
            problems.append(f"{where}: the header does not point to `ansible-doc -t role gamepanel.panel.{role}`")
    for role, spec in specs.items():
        for name in sorted(set(re.findall(rf"\b{role}_[a-z0-9_]*[a-z0-9]", comment))):
            if name not in spec["options"]:
                problems.append(f"{where}: the header names {name}, which the {role} role's argument specs lack")
                continue
            said = re.search(rf"\b{name} \(([^()]*)\)", comment)
            documented = said and re.search(r"\bdefault:? ([^\s,;:)]+)|(\S+) by default", said.group(1))
            if documented and not same(documented.group(1) or documented.group(2), spec["options"][name]):
                problems.append(
                    f"{where}: the header gives {name} the default {documented.group(0)!r}, the spec another"
                )
    if path.parent.name == "playbooks" and (roles or "gamepanel.panel.server_" in code):
        check_token_wording(where, comment, token, problems)


def check_examples(root: Path, problems: list) -> None:
    guides = [root / "README.md", *sorted(root.glob("docs/*.md")), *sorted(root.glob("roles/*/README.md"))]
    quoted = set()
    for guide in guides:
        text, where = guide.read_text(encoding="utf-8"), guide.relative_to(root)
        for target, block in EXAMPLE.findall(text):
            quoted.add(target)
            if not (root / target).is_file():
                problems.append(f"{where}: quotes {target}, which does not exist")
            elif (root / target).read_text(encoding="utf-8") != block:
                problems.append(f"{where}: the example under its marker is not {target} as it is")
        for table in re.findall(r"^\|(.*)\|\n\|[-| :]+\|$", text, re.M):
            if "default" in [cell.strip().lower() for cell in table.split("|")]:
                problems.append(f"{where}: a table with a default column ({table.strip()!r}): link the reference")
    for path in sorted(root.glob("docs/examples/*.yml")):
        if str(path.relative_to(root)) not in quoted:
            problems.append(
                f"{path.relative_to(root)}: no guide quotes it (<!-- example: {path.relative_to(root)} -->)"
            )


def check(root: Path) -> list[str]:
    problems: list[str] = []
    specs = role_specs(root)
    token = job_token(root)
    check_role_defaults(root, specs, problems)
    for role, spec in specs.items():
        if not role.startswith("internal_"):
            check_token_wording(f"roles/{role}/meta/argument_specs.yml", spec["description"], token, problems)
    for path in sorted(root.glob("playbooks/*.yml")) + sorted(root.glob("extensions/eda/rulebooks/*.yml")):
        check_playbook(root, path, specs, token, problems)
    check_examples(root, problems)
    return problems


def main(argv: list[str]) -> int:
    problems = check(Path(argv[1] if len(argv) > 1 else ".").resolve())
    for problem in problems:
        print(f"FAIL {problem}")
    print(f"docs-sources: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
