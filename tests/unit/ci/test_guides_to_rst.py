# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The guides' docsite pages (.ci/guides_to_rst.py, run by the collection build).

pandoc itself lives in .venv/guides only (the collection build runs it there); `make docsite`
builds the site from the converted guides with Sphinx -W. These tests pin what is done to the
Markdown around pandoc: links, fences, vault blocks, the placeholders and their roles, and the
list of guides.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import ci_scripts

REPO_ROOT = Path(__file__).resolve().parents[3]


guides = ci_scripts.load("guides_to_rst")
LABEL = "ansible_collections.gamepanel.panel.docsite."


def test_every_listed_guide_has_its_markdown_and_the_developer_pages_stay_out():
    refs = guides.guide_refs(REPO_ROOT)
    assert refs and len(refs) == len(set(refs))
    assert all(guides.source_of(REPO_ROOT, ref).is_file() for ref in refs)
    assert "api_behaviour" in refs and not {"development", "testing"} & set(refs)


def test_a_link_to_another_guide_becomes_a_reference_to_its_page():
    markdown, roles = guides.relink(
        "See [server_control.md](server_control.md#polling) and [the `awx` page](awx.md).",
        {"server_control", "awx"},
        REPO_ROOT / "docs",
    )
    placeholders = sorted(roles)
    assert markdown == "See %s and %s." % tuple(placeholders)
    assert roles[placeholders[0]] == ":ref:`server_control.md <%sserver_control>`" % LABEL
    assert roles[placeholders[1]] == ":ref:`the awx page <%sawx>`" % LABEL
    assert guides.restore("(%s)" % placeholders[0], roles) == "(:ref:`server_control.md <%sserver_control>`)" % LABEL


@pytest.mark.parametrize(
    "link, expected",
    [
        ("[the emulator](../tests/emulator/README.md)", "the emulator"),  # does not ship: text only
        ("[testing.md](testing.md)", "testing.md"),  # a guide not listed: text only
        ("[Galaxy](https://galaxy.ansible.com/)", "[Galaxy](https://galaxy.ansible.com/)"),
        ("![the report](fleet-report.png)", ""),
    ],
)
def test_other_links(link, expected):
    markdown, roles = guides.relink(link, {"inventory"}, REPO_ROOT / "docs")
    assert (markdown, roles) == (expected, {})


def test_a_fence_without_a_language_is_text_and_a_vault_yaml_block_too():
    markdown = "```\nplain\n```\n\n```yaml\nkey: 1\n```\n\n```yaml\napi_token: !vault |\n  $ANSIBLE_VAULT\n```\n"
    fenced = guides.label_plain_fences(markdown)
    assert fenced.startswith("```text\nplain\n```\n") and "```yaml\nkey: 1\n```" in fenced
    unvaulted = guides.VAULT_YAML.sub(lambda match: "```text\n" + match.group(1) + "```", fenced)
    assert "```yaml\nkey: 1\n```" in unvaulted and "```text\napi_token: !vault |" in unvaulted
