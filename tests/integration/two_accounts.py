# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""An inventory directory of two accounts on two panels, for the tests of several accounts.

Both panels are the emulator with its default fixture, so they list the same server ids and
names. Account ``eu`` is the ``emulator`` fixture read with the token ``owner-control``, account
``us`` the ``second_emulator`` fixture read with ``admin-control``; each token is in its own
environment variable (the sources' ``api_token_env``) and no GAMEPANEL_API_TOKEN is set, so a
request can only carry a token the inventory gave its account.
"""

from __future__ import annotations

from pathlib import Path

TOKENS = {
    "eu": ("GAMEPANEL_EU_TOKEN", "gp-test-owner-control", "owner-control"),
    "us": ("GAMEPANEL_US_TOKEN", "gp-test-admin-control", "admin-control"),
}


def source(account, panel, **options):
    """The text of one account's source file."""
    lines = [
        "plugin: gamepanel.panel.servers",
        "account: %s" % account,
        "hostname_prefix: %s_" % account,
        "base_url: %s" % panel.live_url,
        "api_token_env: %s" % TOKENS[account][0],
    ]
    lines += ["%s: %s" % (name, value) for name, value in options.items()]
    return "\n".join(lines) + "\n"


def inventory_directory(workdir: Path, eu_panel, us_panel, **texts) -> Path:
    """``workdir``/inventory with eu.gamepanel.yml and us.gamepanel.yml (``texts`` replace a file's text by account)."""
    directory = workdir / "inventory"
    directory.mkdir(exist_ok=True)
    for account, panel in (("eu", eu_panel), ("us", us_panel)):
        text = texts.get(account) or source(account, panel)
        (directory / ("%s.gamepanel.yml" % account)).write_text(text, encoding="utf-8")
    return directory


def token_environment():
    """Each account's token in its own variable, and no GAMEPANEL_API_TOKEN."""
    env = dict((variable, value) for variable, value, _label in TOKENS.values())
    env["GAMEPANEL_API_TOKEN"] = None
    return env


def token_labels(panel):
    """The names of the tokens the panel saw requests with (counters()["requests"] is keyed by them)."""
    return set(panel.control.counters()["requests"])


def own_token_only(eu_panel, us_panel):
    """True when each panel saw requests with its own account's token only."""
    return token_labels(eu_panel) == {TOKENS["eu"][2]} and token_labels(us_panel) == {TOKENS["us"][2]}
