# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The docs check of what no stock tool reads (.ci/docs_sources.py, run by `make docs-check`).

Each test starts from a small checkout that passes, breaks one thing, and expects exactly the problem
that names it; the real checkout passes too.
"""

from __future__ import annotations

import shutil

import pytest

import ci_scripts

docs_sources = ci_scripts.load("docs_sources")
REPO_ROOT = ci_scripts.REPO_ROOT

TOKEN_MARKED = "The token comes from C(GAMEPANEL_API_TOKEN) alone."
TOKEN_PLAIN = "The token comes from GAMEPANEL_API_TOKEN alone."
FRAGMENT = f'''class ModuleDocFragment(object):
    DOCUMENTATION = r"""
options: {{}}
"""
    JOB_TOKEN = r"""
notes:
  - {TOKEN_MARKED}
"""
'''
SPECS = f"""argument_specs:
  main:
    description:
      - Restarts servers.
      - {TOKEN_MARKED}
    options:
      demo_wait: {{type: int, default: 300}}
      demo_window: {{type: dict}}
"""
PLAYBOOK = f"""---
# Restart the fleet, demo_wait (default 300) seconds each.
#
# Variables: target (host pattern, default gamepanel: every server), and those of the
# gamepanel.panel.demo role (ansible-doc -t role gamepanel.panel.demo).
# {TOKEN_PLAIN}
- name: Restart
  hosts: "{{{{ target | default('gamepanel') }}}}"
  roles:
    - role: gamepanel.panel.demo
"""
EXAMPLE = "---\n- name: Example\n  hosts: all\n  tasks: []\n"
GUIDE = "# Guide\n\n<!-- example: docs/examples/demo.yml -->\n```yaml\n" + EXAMPLE + "```\n"


@pytest.fixture
def checkout(tmp_path):
    files = {
        "plugins/doc_fragments/panel.py": FRAGMENT,
        "roles/demo/meta/argument_specs.yml": SPECS,
        "roles/demo/defaults/main.yml": "demo_wait: 300\ndemo_window: null\n",
        "playbooks/restart.yml": PLAYBOOK,
        "docs/examples/demo.yml": EXAMPLE,
        "docs/guide.md": GUIDE,
        "README.md": "# Readme\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert docs_sources.check(tmp_path) == []
    return tmp_path


def edit(checkout, name, old, new):
    path = checkout / name
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def only(checkout, *expected):
    problems = docs_sources.check(checkout)
    assert len(problems) == len(expected), problems
    for problem, words in zip(problems, expected):
        assert words in problem, problems


def test_the_checkout_passes():
    assert docs_sources.check(REPO_ROOT) == []


def test_role_default_other_than_the_spec(checkout):
    edit(checkout, "roles/demo/defaults/main.yml", "demo_wait: 300", "demo_wait: 60")
    only(checkout, "demo_wait defaults to 300 in the spec, 60 in defaults/main.yml")


def test_role_default_of_no_option(checkout):
    edit(checkout, "roles/demo/defaults/main.yml", "demo_window: null", "demo_window: null\ndemo_gone: 1")
    only(checkout, "demo_gone is no option of the role's argument specs")


def test_playbook_header_default_other_than_the_code(checkout):
    edit(checkout, "playbooks/restart.yml", "default gamepanel:", "default all:")
    only(checkout, "gives target another default than the code's gamepanel")


def test_rulebook_header_default_other_than_the_code(checkout):
    rulebook = checkout / "extensions/eda/rulebooks/keep.yml"
    rulebook.parent.mkdir(parents=True)
    rulebook.write_text(
        "---\n# Variables: keep_interval (30)\n- name: Keep\n  interval: '{{ keep_interval | default(30) }}'\n"
    )
    assert docs_sources.check(checkout) == []
    edit(checkout, "extensions/eda/rulebooks/keep.yml", "default(30)", "default(20)")
    only(
        checkout, "extensions/eda/rulebooks/keep.yml: the header gives keep_interval another default than the code's 20"
    )


def test_playbook_variable_missing_from_the_header(checkout):
    edit(checkout, "playbooks/restart.yml", "  roles:", "  serial: \"{{ batch | default('100%') }}\"\n  roles:")
    only(checkout, "does not list the variable batch (default 100%)")


def test_playbook_header_role_variable_default_other_than_the_spec(checkout):
    edit(checkout, "playbooks/restart.yml", "demo_wait (default 300)", "demo_wait (default 600)")
    only(checkout, "gives demo_wait the default 'default 600'")


def test_playbook_header_names_a_variable_the_role_lacks(checkout):
    edit(checkout, "playbooks/restart.yml", "demo_wait (default 300)", "demo_waiting (default 300)")
    only(checkout, "names demo_waiting, which the demo role's argument specs lack")


def test_playbook_header_without_the_ansible_doc_pointer(checkout):
    edit(checkout, "playbooks/restart.yml", "(ansible-doc -t role gamepanel.panel.demo)", "")
    only(checkout, "does not point to `ansible-doc -t role gamepanel.panel.demo`")


def test_token_wording_of_a_role_other_than_the_fragment(checkout):
    edit(checkout, "roles/demo/meta/argument_specs.yml", "alone.", "or the variable C(gamepanel_api_token).")
    only(checkout, "does not say where the token comes from", "in other words than JOB_TOKEN")


def test_token_wording_of_a_playbook_header_other_than_the_fragment(checkout):
    edit(checkout, "playbooks/restart.yml", TOKEN_PLAIN, "The token: GAMEPANEL_API_TOKEN.")
    only(checkout, "does not say where the token comes from", "in other words than JOB_TOKEN")


def test_the_fragment_is_the_one_place_of_the_wording(checkout):
    # the wording changed in the fragment only: every copy is named
    edit(checkout, "plugins/doc_fragments/panel.py", "alone.", "or nowhere.")
    problems = docs_sources.check(checkout)
    assert [p for p in problems if "does not say" in p] == [
        "roles/demo/meta/argument_specs.yml: does not say where the token comes from in the words of JOB_TOKEN: "
        "'The token comes from GAMEPANEL_API_TOKEN or nowhere.'",
        "playbooks/restart.yml: does not say where the token comes from in the words of JOB_TOKEN: "
        "'The token comes from GAMEPANEL_API_TOKEN or nowhere.'",
    ]


def test_example_block_other_than_its_file(checkout):
    edit(checkout, "docs/guide.md", "hosts: all", "hosts: web")
    only(checkout, "docs/guide.md: the example under its marker is not docs/examples/demo.yml as it is")


def test_example_file_no_guide_quotes(checkout):
    shutil.copy(checkout / "docs/examples/demo.yml", checkout / "docs/examples/other.yml")
    only(checkout, "docs/examples/other.yml: no guide quotes it")


def test_example_marker_naming_no_file(checkout):
    edit(checkout, "docs/guide.md", "docs/examples/demo.yml", "docs/examples/gone.yml")
    only(checkout, "quotes docs/examples/gone.yml, which does not exist", "docs/examples/demo.yml: no guide quotes it")


def test_option_table_with_a_default_column(checkout):
    edit(checkout, "README.md", "# Readme\n", "# Readme\n\n| option | default |\n|---|---|\n| `x` | 1 |\n")
    only(checkout, "README.md: a table with a default column")


def test_main_exit_code(checkout, capsys):
    assert docs_sources.main(["docs_sources.py", str(checkout)]) == 0
    edit(checkout, "roles/demo/defaults/main.yml", "demo_wait: 300", "demo_wait: 60")
    assert docs_sources.main(["docs_sources.py", str(checkout)]) == 1
    assert "FAIL roles/demo: demo_wait" in capsys.readouterr().out
