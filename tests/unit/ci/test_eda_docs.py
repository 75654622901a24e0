# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The docsite's event source pages (.ci/eda_docs.py, used by .ci/build_docsite.py in `make docsite`).

The renderer is CI tooling, not part of the collection: like .ci/, this folder does not ship
(galaxy.yml's build_ignore). `make docsite` builds the pages with Sphinx -W and checks every
option's anchor; these tests pin what the page says: fleet_events' own options and the doc
fragment's (merged by ansible's get_docstring), their types, defaults and choices, and Ansible
markup turned into RST (by antsibull-docs-parser, pinned in the test venvs for these tests).
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

import ci_scripts

REPO_ROOT = Path(__file__).resolve().parents[3]
SOURCE = REPO_ROOT / "extensions" / "eda" / "plugins" / "event_source" / "fleet_events.py"


eda_docs = ci_scripts.load("eda_docs")


@pytest.fixture(scope="module")
def fleet_events():
    doc = eda_docs.load(SOURCE, REPO_ROOT, "gamepanel", "panel")
    return doc, eda_docs.render(doc, "gamepanel", "panel", "extensions/eda/plugins/event_source/fleet_events.py")


def option_cell(page: str, option: str) -> str:
    """The table row of one option: from its anchor to the next option's (or the table's end)."""
    label = eda_docs.option_label("gamepanel", "panel", "fleet_events", option)
    start = page.index(f".. _{label}:")
    following = page.find("   * - .. _", start + 1)
    end = following if following > 0 else page.index("\nNotes\n", start)
    return page[start:end]


def test_the_collection_has_fleet_events_as_its_event_source():
    assert eda_docs.event_sources(REPO_ROOT) == [SOURCE]


def test_the_source_own_options_come_first_then_the_fragments_as_ansible_doc_merges_them(fleet_events):
    doc = fleet_events[0]
    options = list(doc["options"])
    own = ["interval", "stopped_statuses", "crash_limit", "crash_window", "retry_after", "leave_alone", "found_stopped"]
    own += ["budget_share", "inventory", "hostname_source"]
    assert options[: len(own)] == own
    fragment = ["api_token", "base_url", "api_variant", "validate_certs", "request_timeout", "rate_limit"]
    assert options[len(own) : len(own) + len(fragment)] == fragment
    assert "allow_insecure_http" in options and "retry_timeout" in options
    # What the fragment adds besides options: the requirement of requests, its note.
    assert any("requests" in requirement for requirement in doc["requirements"])
    assert any("GAMEPANEL_STATE_DIR" in note for note in doc["notes"])


def test_page_has_title_synopsis_and_every_option_anchor(fleet_events):
    doc, page = fleet_events
    assert "\ngamepanel.panel.fleet_events event source\n=========================================\n" in page
    assert "Events for every change of a game server of the panel" in page
    for option in doc["options"]:
        assert f".. _{eda_docs.option_label('gamepanel', 'panel', 'fleet_events', option)}:" in page
        assert f":strong:`{option.replace('_', chr(92) + '_')}`" in page
    for heading in ("Synopsis", "Requirements", "Parameters", "Notes", "Examples"):
        assert f"\n{heading}\n{'-' * len(heading)}\n" in page


def test_fragment_option_shows_its_environment_variable_and_choices(fleet_events):
    page = fleet_events[1]
    token = option_cell(page, "api_token")
    assert ":ansenvvar:`GAMEPANEL\\_API\\_TOKEN`" in token
    assert ":literal:`string`" in token
    variant = option_cell(page, "api_variant")
    assert '- :literal:`"live"` (default)' in variant
    assert '- :literal:`"planned"`' in variant
    assert "Default: :literal:`true`" in option_cell(page, "validate_certs")


def test_own_options_show_type_and_default(fleet_events):
    page = fleet_events[1]
    assert ":literal:`float`" in option_cell(page, "interval")
    assert "Default: :literal:`30`" in option_cell(page, "interval")
    stopped = option_cell(page, "stopped_statuses")
    assert ":literal:`list / elements=string`" in stopped
    assert 'Default: :literal:`["offline", "stopped"]`' in stopped
    # no default of its own: the inventory file's hostname_source, else name (the description says so)
    hostname = option_cell(page, "hostname_source")
    assert '- :literal:`"name"`\n' in hostname and '- :literal:`"id"`' in hostname and "(default)" not in hostname
    assert "Default: :literal:`0.25`" in option_cell(page, "budget_share")


def test_markup_is_converted_not_left_raw(fleet_events):
    page = fleet_events[1]
    prose = page.split("\nExamples\n", 1)[0]
    assert not re.search(r"\b(?:RV|[CIBUMOVEPL])\(", prose), "Ansible markup left in the page"
    assert "every :ansopt:`interval` seconds (\\ :literal:`GET /servers`\\ , one request a page)" in prose
    assert "under :strong:`Settings → API tokens`." in prose
    assert "(\\ :ansval:`status\\_changed`\\ , :ansval:`restarted`\\ ," in prose


def test_examples_are_a_yaml_code_block_of_the_examples_string(fleet_events):
    doc, page = fleet_events
    block = page.split(".. code-block:: yaml\n\n", 1)[1].split("\n\n", 1)[0]
    assert textwrap.dedent(block).strip() == doc["examples"].strip().split("\n\n", 1)[0]
    assert "    - gamepanel.panel.fleet_events:\n" in page


@pytest.mark.parametrize(
    "text, rst",
    [
        ("plain a_b *c*", "plain a\\_b \\*c\\*"),
        ("C(x) and C(y)s", ":literal:`x` and :literal:`y`\\ s"),
        # antsibull-docs' roles (sphinx_antsibull_ext); an environment variable without a reference
        ("V(a\\)b) E(ENV) RV(r)", ":ansval:`a)b` :ansenvvar:`ENV` :ansretval:`r`"),
        # sphinx_antsibull_ext knows no plugin type event_source: an option of the page links nowhere
        (
            "O(name=value), O(ns.coll.mod#module:opt)",
            ":ansopt:`name=value`\\ , :ansopt:`ns.coll.mod#module:opt`",
        ),
        ("I(it) B(bold)", ":emphasis:`it` :strong:`bold`"),
        ("L(the docs, https://x.example/d).", "`the docs <https://x.example/d>`__."),
        ("M(ns.coll.mod)", ":ref:`ns.coll.mod <ansible_collections.ns.coll.mod_module>`"),
    ],
)
def test_to_rst(text, rst):
    assert eda_docs.to_rst(text) == rst


def test_unterminated_markup_fails():
    with pytest.raises(eda_docs.DocError, match="closing"):
        eda_docs.to_rst("C(x")


def test_fragment_variables_merge_env_and_ini_and_the_source_overrides(tmp_path):
    """A fragment with a second variable (like panel.PLUGIN) adds env and ini; the source's own keys win."""
    (tmp_path / "plugins" / "doc_fragments").mkdir(parents=True)
    (tmp_path / "plugins" / "doc_fragments" / "conn.py").write_text(
        'class ModuleDocFragment(object):\n    DOCUMENTATION = r"""\noptions:\n  token:\n    description: The '
        'token, C(secret).\n    type: str\n  port:\n    description: Port.\n    type: int\n    default: 80\n"""\n'
        '    PLUGIN = r"""\noptions:\n  token:\n    env:\n      - name: MY_TOKEN\n    ini:\n      - section: my\n'
        '        key: token\n"""\n',
        encoding="utf-8",
    )
    source_dir = tmp_path / "extensions" / "eda" / "plugins" / "event_source"
    source_dir.mkdir(parents=True)
    (source_dir / "watch.py").write_text(
        'DOCUMENTATION = r"""\nname: watch\nshort_description: Watch I(it)\ndescription: Watches.\n'
        "extends_documentation_fragment:\n  - ns.coll.conn\n  - ns.coll.conn.plugin\noptions:\n  port:\n"
        '    default: 8080\n  own:\n    description: Own.\n    type: bool\n    required: true\n"""\n'
        'EXAMPLES = r"""\n- name: x\n"""\n',
        encoding="utf-8",
    )
    rst = tmp_path / "rst"
    rst.mkdir()
    docs = eda_docs.write_pages(tmp_path, rst, "ns", "coll")
    assert list(docs) == ["watch"]
    options = docs["watch"]["options"]
    assert list(options) == ["port", "own", "token"]
    assert options["port"] == {"description": "Port.", "type": "int", "default": 8080}
    page = (rst / "watch_event_source.rst").read_text(encoding="utf-8")
    assert "\nns.coll.watch event source\n" in page
    assert "Environment variable: :literal:`MY_TOKEN`" in page
    assert "INI entry: :literal:`[my] token`" in page
    assert "Default: :literal:`8080`" in page
    assert ":literal:`boolean / required`" in page

    index = rst / "index.rst"
    index.write_text("Title\n=====\n\nRole Index\n----------\n\n* a role\n", encoding="utf-8")
    eda_docs.add_to_index(index, docs, "ns", "coll")
    text = index.read_text(encoding="utf-8")
    assert "\nEvent sources\n-------------\n" in text
    assert (
        "* :ref:`watch event source <ansible_collections.ns.coll.watch_event_source>` -- Watch :emphasis:`it`" in text
    )
    assert text.rstrip().endswith("    watch_event_source")


@pytest.mark.parametrize("fragment", ["a.b.c", "ns.coll.missing", "ns.coll.conn.nothing"])
def test_fragments_not_in_the_collection_are_refused(tmp_path, fragment):
    (tmp_path / "plugins" / "doc_fragments").mkdir(parents=True)
    (tmp_path / "plugins" / "doc_fragments" / "conn.py").write_text(
        'class ModuleDocFragment:\n    DOCUMENTATION = "options: {}"\n', encoding="utf-8"
    )
    source = tmp_path / "other.py"
    source.write_text(f'DOCUMENTATION = """\nname: other\nextends_documentation_fragment: [{fragment}]\n"""\n')
    with pytest.raises(eda_docs.DocError, match=f"unknown doc_fragment.*{fragment}"):
        eda_docs.load(source, tmp_path, "ns", "coll")


def test_a_documentation_naming_another_source_is_refused(tmp_path):
    source = tmp_path / "watch.py"
    source.write_text('DOCUMENTATION = """\nname: other\n"""\n')
    with pytest.raises(eda_docs.DocError, match="names 'other', the file is 'watch'"):
        eda_docs.load(source, tmp_path, "ns", "coll")


def test_option_id_is_the_html_id_docutils_gives_the_label():
    assert (
        eda_docs.option_id("gamepanel", "panel", "fleet_events", "api_token")
        == "ansible-collections-gamepanel-panel-fleet-events-event-source-parameter-api-token"
    )
