# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The docs test (.ci/docs_truth.py, run by `make docs-check`).

Each test builds a small checkout in a temporary directory (a module, the inventory plugin, a
role, the event source, the rulebook, the credential type, two playbooks, a Makefile) and
documentation that drifted from it in one way, and checks that the docs test names the drift.
The kinds of drift are the ones issue 37 found in the real documentation.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

import ci_scripts

docs_truth = ci_scripts.load("docs_truth")

CODE = {
    "plugins/doc_fragments/panel.py": '''
        class ModuleDocFragment(object):
            DOCUMENTATION = r"""
        options:
          api_token:
            type: str
          base_url:
            type: str
          allow_insecure_http:
            type: bool
            default: false
        """
            PLUGIN = r"""
        options:
          base_url:
            env:
              - name: GAMEPANEL_BASE_URL
          api_token:
            env:
              - name: GAMEPANEL_API_TOKEN
        """
        ''',
    "plugins/modules/server_control.py": '''
        DOCUMENTATION = r"""
        module: server_control
        extends_documentation_fragment:
          - gamepanel.panel.panel
        options:
          id:
            type: str
          state:
            type: str
            default: started
        """
        RETURN = r"""
        changed:
          type: bool
        servers:
          type: list
        ansible_facts:
          type: dict
          contains:
            gamepanel_ledger:
              type: list
        """
        ''',
    "plugins/inventory/servers.py": '''
        DOCUMENTATION = r"""
        name: servers
        extends_documentation_fragment:
          - gamepanel.panel.panel
          - gamepanel.panel.panel.plugin
          - ansible.builtin.constructed
        options:
          plugin:
            required: true
          hostvar_prefix:
            default: gamepanel_
        """
        ''',
    "plugins/module_utils/api/server_records.py": 'SERVER_FIELDS = ("id", "name")\n',
    "plugins/plugin_utils/job_planning.py": """
        def outcome(result, reason):
            return {"result": result, "reason": reason, "elapsed": 0.0, "pending": None}
        """,
    "roles/rolling_restart/meta/argument_specs.yml": """
        argument_specs:
          main:
            options:
              rolling_restart_min_uptime:
                type: int
                default: 600
              rolling_restart_max_players:
                type: int
        """,
    "roles/rolling_restart/defaults/main.yml": """
        rolling_restart_min_uptime: 600
        rolling_restart_max_players: null
        """,
    "roles/rolling_restart/tasks/main.yml": """
        - name: Record
          ansible.builtin.set_fact:
            gamepanel_outcome: {}
        """,
    "extensions/eda/plugins/event_source/fleet_events.py": '''
        DOCUMENTATION = r"""
        name: fleet_events
        description:
          - Each event holds C(kind) and C(id).
        extends_documentation_fragment:
          - gamepanel.panel.panel
        options:
          interval:
            type: float
            default: 30
        """
        ''',
    "extensions/eda/rulebooks/keep_online.yml": """
        - name: Keep the game servers online
          sources:
            - gamepanel.panel.fleet_events:
                interval: "{{ keep_online_interval | default(30) }}"
        """,
    "extensions/awx/credential_type.yml": """
        name: Gamepanel API token
        inputs:
          fields:
            - id: token
              type: string
              secret: true
            - id: base_url
              type: string
          required: [token, base_url]
        injectors:
          env:
            GAMEPANEL_API_TOKEN: "{{ token }}"
            GAMEPANEL_BASE_URL: "{{ base_url }}"
        """,
    "playbooks/restart_fleet.yml": """
        - name: Restart
          hosts: "{{ target | default('gamepanel') }}"
          serial: "{{ batch | default(5) }}"
        """,
    "playbooks/status.yml": """
        - name: Status
          hosts: "{{ target | default('gamepanel') }}"
        """,
    "meta/runtime.yml": 'requires_ansible: ">=2.19.0"\n',
    "Makefile": """
        VENV_NAMES := test lint
        SETUP_STEPS := venvs
        CHECK_STEPS := docs-check units
        RELEASE_STEPS := docsite
        """,
    "README.md": "# A collection\n",
}


def write(root: Path, files: dict) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


@pytest.fixture
def checkout(tmp_path):
    write(tmp_path, CODE)
    return tmp_path


def problems_with(checkout: Path, doc: str, name: str = "docs/guide.md") -> list[str]:
    write(checkout, {name: doc})
    return docs_truth.check(str(checkout))


def only(problems: list[str], *fragments: str) -> None:
    """Exactly one problem per fragment, each holding it."""
    assert len(problems) == len(fragments), problems
    for problem, fragment in zip(problems, fragments):
        assert fragment in problem, problems


def test_docs_that_match_the_code_pass(checkout):
    doc = """
        # Guide

        <!-- docs-truth: inventory:servers -->
        | option | environment | default | meaning |
        |---|---|---|---|
        | `api_token` | `GAMEPANEL_API_TOKEN` | (required) | the token |
        | `allow_insecure_http` | | `false` | plain http |
        | `hostvar_prefix` | | `gamepanel_` | prefix; the roles need it |
        | `compose` | | | Ansible's own |

        <!-- docs-truth: return:server_control all -->
        | key | meaning |
        |---|---|
        | `changed` | queued |
        | `servers` | one line per id |
        | `ansible_facts`, `ansible_facts.gamepanel_ledger` | the ledger |

        `rolling_restart_min_uptime` (600 s) and `rolling_restart_max_players` (null: no gate),
        `keep_online_interval` (30). Every host gets `gamepanel_outcome` (`{result, reason, elapsed, pending}`)
        and the host variables `gamepanel_id`, `gamepanel_name`. Two ready playbooks.
        Tested on ansible-core 2.19 and [the README](../README.md).

        ```yaml
        - hosts: game_rust
          roles:
            - role: gamepanel.panel.rolling_restart
              rolling_restart_min_uptime: 0
          tasks:
            - gamepanel.panel.server_control:
                id: mc-01
                state: restarted
        ```
        """
    assert problems_with(checkout, doc) == []


def test_a_credential_type_field_the_shipped_type_does_not_have(checkout):
    doc = """
        <!-- docs-truth: credential-type all -->
        | field | meaning |
        |---|---|
        | `api_token` | the token |
        | `base_url` | the address |

        ```yaml
        inputs:
          fields:
            - id: api_token
              type: string
        injectors:
          env:
            GAMEPANEL_API_TOKEN: "{{ api_token }}"
        ```
        """
    only(
        problems_with(checkout, doc),
        "`api_token` is not in credential-type",
        "the table of credential-type leaves out token",
        "the credential type shown has the fields ['api_token']",
        "injects other variables",
    )


@pytest.mark.parametrize(
    "text",
    [
        "Every host gets the fact `gamepanel_outcome` (`{result: restarted|failed, reason, elapsed}`).",
        "Every host gets the fact `gamepanel_outcome` (`{result,\nreason, elapsed}`) for later plays.",
    ],
)
def test_the_outcome_shape_without_pending(checkout, text):
    only(problems_with(checkout, text), "gamepanel_outcome is {result, reason, elapsed, pending} in the code")


def test_a_connection_table_that_leaves_an_option_out(checkout):
    doc = """
        <!-- docs-truth: inventory:servers -->
        | option | environment | default | meaning |
        |---|---|---|---|
        | `api_token` | `GAMEPANEL_API_TOKEN` | (required) | the token |
        | `base_url` | `GAMEPANEL_BASE_URL` | (required) | the address |

        <!-- docs-truth: connection all -->
        | option | meaning |
        |---|---|
        | `api_token` | the token |
        | `base_url` | the address |
        """
    only(problems_with(checkout, doc), "the table of connection leaves out allow_insecure_http")


def test_a_return_table_that_leaves_keys_out_or_names_one_that_is_not_returned(checkout):
    doc = """
        <!-- docs-truth: return:server_control all -->
        | key | meaning |
        |---|---|
        | `changed` | queued |
        | `ledger` | the ledger |
        """
    only(
        problems_with(checkout, doc),
        "`ledger` is not in return:server_control",
        "leaves out servers, ansible_facts",
    )


def test_a_default_that_is_not_the_code_s(checkout):
    doc = """
        <!-- docs-truth: role:rolling_restart -->
        | variable | default | meaning |
        |---|---|---|
        | `rolling_restart_min_uptime` | `300` | seconds |
        | `rolling_restart_max_players` | `0` | players |

        Variables: `rolling_restart_min_uptime` (900), `rolling_restart_max_players` (`0`), `keep_online_interval` (60).
        """
    only(
        problems_with(checkout, doc),
        "`rolling_restart_min_uptime` defaults to 600 in the code, the docs say 300",
        "`rolling_restart_max_players` defaults to None in the code, the docs say 0",
        "`rolling_restart_min_uptime` defaults to 600 in the code, the docs say 900",
        "`rolling_restart_max_players` defaults to None in the code, the docs say 0",
        "`keep_online_interval` defaults to 30 in the code, the docs say 60",
    )


def test_a_default_cell_that_cannot_be_read(checkout):
    doc = """
        <!-- docs-truth: role:rolling_restart -->
        | variable | default | meaning |
        |---|---|---|
        | `rolling_restart_max_players` | no gate | players |
        """
    only(problems_with(checkout, doc), "cannot read the default of `rolling_restart_max_players`")


def test_an_environment_variable_the_option_does_not_read(checkout):
    doc = """
        <!-- docs-truth: inventory:servers -->
        | option | environment | meaning |
        |---|---|---|
        | `base_url` | `GAMEPANEL_API_URL` | the address |
        """
    problems = problems_with(checkout, doc)
    only(
        problems,
        "`base_url` reads the environment variables ['GAMEPANEL_BASE_URL'], the docs say ['GAMEPANEL_API_URL']",
        "the environment variable GAMEPANEL_API_URL is named but the code never reads it",
    )


def test_names_the_code_does_not_have(checkout):
    doc = """
        Set `rolling_restart_batch` or `gamepanel_token`.

        ```
        ansible-playbook gamepanel.panel.restart_fleet -e maintenance_window=x
        ```
        """
    only(
        problems_with(checkout, doc),
        "`rolling_restart_batch` is named but the code has no such variable",
        "`gamepanel_token` is named but the code never sets or reads it",
        "`maintenance_window` is named but the code has no such variable",
    )


def test_yaml_examples_with_options_that_do_not_exist(checkout):
    doc = """
        ```yaml
        - hosts: all
          roles:
            - role: gamepanel.panel.rolling_restart
              vars:
                keep_online_interval: 5
          tasks:
            - gamepanel.panel.server_control:
                id: mc-01
                timeout: 5
        ```

        ```yaml
        plugin: gamepanel.panel.servers
        hostname: id
        ```
        """
    only(
        problems_with(checkout, doc),
        "`keep_online_interval`, which is not an option of role:rolling_restart",
        "`timeout`, which is not an option of module:server_control",
        "`hostname`, which is not an option of inventory:servers",
    )


def test_an_unmarked_table_and_an_unknown_source(checkout):
    doc = """
        | option | meaning |
        |---|---|
        | `state` | what to do |

        <!-- docs-truth: module:server_info -->
        | option | meaning |
        |---|---|
        | `state` | what to do |

        <!-- docs-truth: skip (an example, not the code) -->
        | option | meaning |
        |---|---|
        | `anything` | goes |
        """
    only(
        problems_with(checkout, doc),
        "a table of options has no <!-- docs-truth: SOURCE --> marker",
        "names an unknown source 'module:server_info'",
    )


def test_the_count_of_ready_playbooks_and_old_ansible_core(checkout):
    doc = "Four ready playbooks run the roles. Before ansible-core 2.17 the plugin did otherwise.\n"
    only(
        problems_with(checkout, doc),
        "says Four ready playbooks; playbooks/ has 2",
        "names ansible-core 2.17, older than the supported 2.19",
    )


def test_makefile_lists_venvs_and_steps(checkout):
    doc = """
        <!-- docs-truth: venvs all -->
        | virtual environment | used by |
        |---|---|
        | `.venv/test` | tests |

        <!-- docs-truth: make:test all -->
        | step | what it does |
        |---|---|
        | `venvs` | creates them |
        | `units` | unit tests |
        | `sanity` | ansible-test |
        """
    only(
        problems_with(checkout, doc),
        "the table of venvs leaves out .venv/lint",
        "`sanity` is not in make:test",
        "the table of make:test leaves out docs-check",
    )


def test_links_and_history(checkout):
    doc = """
        Issues at [the tracker](https://example.invalid/x/issues); see [roles](roles.md).
        Measured on 636ab69 before the fix landed.
        """
    only(
        problems_with(checkout, doc),
        "a link to example.invalid",
        "the link roles.md leads to no file",
        "636ab69 looks like a commit hash",
    )


def test_role_readmes_are_read(checkout):
    problems = problems_with(checkout, "`rolling_restart_min_uptime` (60)\n", "roles/rolling_restart/README.md")
    only(problems, "roles/rolling_restart/README.md:1: `rolling_restart_min_uptime` defaults to 600")


def test_the_code_disagreeing_with_itself(checkout):
    write(checkout, {"roles/rolling_restart/defaults/main.yml": "rolling_restart_min_uptime: 60\n"})
    only(docs_truth.check(str(checkout)), "defaults to 600 in meta/argument_specs.yml but 60 in defaults/main.yml")


def test_main_prints_each_problem_and_exits_1(checkout, capsys):
    write(checkout, {"docs/guide.md": "`fleet_report_colour`\n"})
    assert docs_truth.main([str(checkout)]) == 1
    output = capsys.readouterr().out
    assert "FAIL docs/guide.md:1: `fleet_report_colour` is named" in output
    assert "1 problem(s)" in output
    write(checkout, {"docs/guide.md": "nothing to check\n"})
    assert docs_truth.main([str(checkout)]) == 0


def test_a_folder_the_checkout_does_not_have(checkout):
    doc = """
        The modules are in `plugins/modules/`, the filters in `plugins/filter/`; each one's tests in
        `plugins/modules/tests`. The build goes to `build/collections`; a role's `meta/main.yml`.
        """
    only(
        problems_with(checkout, doc),
        "names `plugins/filter/`, which the checkout does not have",
        "names `plugins/modules/tests`, which the checkout does not have",
    )


def test_an_emulator_python_the_pyproject_does_not_require(checkout):
    write(checkout, {"tests/emulator/pyproject.toml": '[project]\nname = "emulator"\nrequires-python = ">=3.10"\n'})
    doc = """
        The emulator needs
        Python 3.11 or later. Its package runs on Python 3.10 or newer, and the emulator as well: Python 3.10 or later.
        """
    only(
        problems_with(checkout, doc),
        "says the emulator needs Python 3.11; tests/emulator/pyproject.toml requires Python 3.10",
    )


def test_a_message_the_code_does_not_print(checkout):
    write(
        checkout,
        {
            "plugins/module_utils/errors.py": """
                FORBIDDEN = (
                    "The panel refused %s (HTTP 403%s). Possible causes: "
                    "the token is read-only."
                )
                OFF = "exactly once across runs is off: %s; %s"
                ADVICE = "a re-run may queue it again"
                """,
            "playbooks/status.yml": """
                - name: Status
                  hosts: "{{ target | default('gamepanel') }}"
                  tasks:
                    - ansible.builtin.fail:
                        msg: >-
                          No inventory was
                          given.
                """,
        },
    )
    doc = """
        <!-- docs-truth: messages -->
        | message | what to do |
        |---|---|
        | `The panel refused ... (HTTP 403...). Possible causes: the token is read-only.` | a control token |
        | `exactly once across runs is off: ...; a re-run may queue it again` | a writable directory |
        | `No inventory was given.` | -i |
        | `The panel refused ... (HTTP 403...). Likely causes:` | reworded |
        | no quote | |

        | message | meaning |
        |---|---|
        | `anything` | unmarked |
        """
    only(
        problems_with(checkout, doc),
        "the message 'The panel refused ... (HTTP 403...). Likely causes:' is not in the code ('Likely causes:')",
        "the row's first cell quotes no message",
        "a table of messages has no <!-- docs-truth: SOURCE --> marker",
    )


def test_a_page_missing_from_the_index_the_readme_or_the_docsite(checkout):
    write(
        checkout,
        {
            "docs/index.md": "| page | for |\n|---|---|\n| [guide.md](guide.md#top) | a guide |\n"
            "| [testing.md](testing.md) | make test |\n",
            "docs/testing.md": "# make test\n",
            "docs/docsite/extra-docs.yml": "sections:\n  - title: Guides\n    toctree:\n      - guide\n",
            "README.md": "# A collection\n\n- [docs/index.md](docs/index.md)\n- [docs/guide.md](docs/guide.md)\n"
            "- [docs/testing.md](docs/testing.md)\n",
        },
    )
    assert problems_with(checkout, "# Guide\n") == []
    write(checkout, {"docs/new-page.md": "# New\n"})
    only(
        docs_truth.check(str(checkout)),
        "docs/index.md: does not link docs/new-page.md",
        "README.md: does not link docs/new-page.md",
        "docs/docsite/extra-docs.yml: does not list docs/new-page.md",
    )


def test_a_fragment_named_after_an_issue_or_breaking_before_the_first_release(checkout):
    write(
        checkout,
        {
            "changelogs/changelog.yaml": "ancestor: null\nreleases: {}\n",
            "changelogs/fragments/14-structure.yml": "minor_changes:\n  - one doc fragment\n",
            "changelogs/fragments/batch-defaults.yml": "breaking_changes:\n  - batch is 100%\n",
            "changelogs/fragments/report-playbook.yml": "minor_changes:\n  - the report\n",
        },
    )
    only(
        problems_with(checkout, "# Guide\n"),
        "changelogs/fragments/14-structure.yml: the name starts with an issue number",
        "changelogs/fragments/batch-defaults.yml: breaking_changes before the first release",
    )
    write(checkout, {"changelogs/changelog.yaml": "releases:\n  1.0.0:\n    changes: {}\n"})
    only(problems_with(checkout, "# Guide\n"), "changelogs/fragments/14-structure.yml: the name starts")
