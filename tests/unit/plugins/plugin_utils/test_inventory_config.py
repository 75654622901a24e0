# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the event source reads from the inventory file ansible-rulebook was started with."""

from __future__ import annotations

import pytest

from ansible_collections.gamepanel.panel.plugins.plugin_utils import inventory_config


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["ansible-rulebook", "-r", "x", "-i", "fleet.gamepanel.yml", "-v"], "fleet.gamepanel.yml"),
        (["ansible-rulebook", "--inventory", "inv/"], "inv/"),
        (["ansible-rulebook", "--inventory=a.gamepanel.yml"], "a.gamepanel.yml"),
        (["ansible-rulebook", "-ia.gamepanel.yml"], "a.gamepanel.yml"),
        (["ansible-rulebook", "-r", "x", "-v"], None),
        (["ansible-rulebook", "-i"], None),
    ],
)
def test_the_inventory_argument_of_the_command_line(argv, expected):
    assert inventory_config.inventory_from_argv(argv) == expected


def test_plain_values_are_used_templates_and_vault_values_are_named_not_read(tmp_path):
    path = tmp_path / "fleet.gamepanel.yml"
    path.write_text(
        "plugin: gamepanel.panel.servers\n"
        "base_url: !unsafe 'https://panel.example/api/v1'\n"
        "rate_limit: 600\n"
        "games: [rust, '{{ game }}']\n"
        "api_token: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  6231\n"
        "compose: {x: 1}\n",
        encoding="utf-8",
    )
    config = inventory_config.read_config(str(path))
    assert config.options == {"base_url": "https://panel.example/api/v1", "rate_limit": 600}
    assert config.skipped == {"api_token": "encrypted or tagged", "games": "a template"}


def test_a_directory_holding_one_gamepanel_file_gives_it_and_several_give_none(tmp_path):
    (tmp_path / "hosts.ini").write_text("[web]\nweb1\n", encoding="utf-8")
    (tmp_path / "eu.gamepanel.yml").write_text("plugin: gamepanel.panel.servers\n", encoding="utf-8")
    assert inventory_config.find_config(str(tmp_path)) == (str(tmp_path / "eu.gamepanel.yml"), None)
    (tmp_path / "us.gamepanel.yaml").write_text("plugin: gamepanel.panel.servers\n", encoding="utf-8")
    path, why = inventory_config.find_config(str(tmp_path))
    assert path is None and "several" in why and "eu.gamepanel.yml, us.gamepanel.yaml" in why


def test_no_inventory_is_no_error_and_a_file_that_is_not_yaml_is_said_so(tmp_path):
    assert inventory_config.locate(None, ["ansible-rulebook", "-r", "x"]) == (None, None)
    broken = tmp_path / "fleet.gamepanel.yml"
    broken.write_text("plugin: gamepanel.panel.servers\nbase_url: [\n", encoding="utf-8")
    config, why = inventory_config.locate(str(broken), [])
    assert config is None and "is not YAML" in why
