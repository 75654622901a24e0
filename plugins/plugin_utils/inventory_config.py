# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""PRIVATE: What the event source learns from the gamepanel inventory file ansible-rulebook was started with.

``ansible-rulebook -r gamepanel.panel.keep_online -i fleet.gamepanel.yml`` hands the inventory to
the playbooks it runs, never to its event sources. The user writes the connection (``base_url``,
``rate_limit``, ...) and the host naming once, in that file; so that the source
``gamepanel.panel.fleet_events`` watches the same panel, paced the same way, and names hosts the
same way, it finds the file itself (its ``inventory`` option, else the ``-i``/``--inventory``
argument of the process it runs in) and reads the file's plain values.

It does not render templates nor decrypt vault values (it has neither the variables nor the
vault secret the inventory plugin has): such an option is left out and reported by name, so
the source falls back to its environment variable. Values are never logged, only option names.
"""

from __future__ import annotations

import os

import yaml

from ansible_collections.gamepanel.panel.plugins.module_utils._api.token_file import TOKEN_FILE_OPTION
from ansible_collections.gamepanel.panel.plugins.plugin_utils.job_connection import CONNECTION_KEYS, TOKEN_ENV_KEY

PLUGIN_NAMES = ("gamepanel.panel.servers", "servers")
# How a file of the gamepanel.panel.servers inventory is named (the plugin accepts no other).
CONFIG_SUFFIXES = ("gamepanel.yml", "gamepanel.yaml")

# The inventory options the source uses: the shared connection options (and the token file, and the
# name of the variable holding the account's token), and what decides the inventory's host names and which
# servers it holds.
CONNECTION_OPTIONS = ("api_token", TOKEN_FILE_OPTION) + CONNECTION_KEYS + (TOKEN_ENV_KEY,)
NAMING_OPTIONS = ("hostname_source", "hostname_prefix", "account", "games", "statuses", "name_patterns")
USED_OPTIONS = CONNECTION_OPTIONS + NAMING_OPTIONS


class _Unreadable(object):
    """A value the source cannot use as written: vault-encrypted, or tagged in a way only Ansible reads."""

    def __repr__(self):
        return "<unreadable>"


UNREADABLE = _Unreadable()


class _ConfigLoader(yaml.SafeLoader):  # pylint: disable=too-many-ancestors
    """YAML with Ansible's tags: ``!unsafe`` is plain text, any other tag (``!vault``) a value the source cannot read."""


def _unsafe_text(loader, node):
    return loader.construct_scalar(node)


def _unreadable(loader, tag_suffix, node):  # pylint: disable=unused-argument
    return UNREADABLE


_ConfigLoader.add_constructor("!unsafe", _unsafe_text)
_ConfigLoader.add_multi_constructor("!", _unreadable)


class InventoryConfig(object):
    """The options of one inventory file: ``options`` (usable values), ``skipped`` (names left out, and why)."""

    def __init__(self, path, options, skipped):
        self.path = path
        self.options = options
        self.skipped = skipped

    def get(self, name, default=None):
        return self.options.get(name, default)


def inventory_from_argv(argv):
    """The value of ``-i``/``--inventory`` in a command line (ansible-rulebook's), or None."""
    argv = list(argv or ())
    for index, word in enumerate(argv):
        if word in ("-i", "--inventory"):
            return argv[index + 1] if index + 1 < len(argv) else None
        if word.startswith("--inventory="):
            return word.split("=", 1)[1]
        if word.startswith("-i") and not word.startswith("--") and len(word) > 2:
            return word[2:]
    return None


def _is_config(path):
    if not path.endswith(CONFIG_SUFFIXES):
        return False
    try:
        with open(path, "rb") as handle:
            head = handle.read(65536).decode("utf-8", "replace")
    except OSError:
        return False
    return any(name in head for name in PLUGIN_NAMES)


def find_config(path):
    """The gamepanel inventory file at ``path`` (a file, or a directory holding exactly one): (file, None) or (None, why)."""
    if not path:
        return None, None
    if os.path.isfile(path):
        if _is_config(path):
            return path, None
        return None, "%s is not a gamepanel.panel.servers inventory file (a *.gamepanel.yml file)" % path
    if os.path.isdir(path):
        found = sorted(os.path.join(path, name) for name in os.listdir(path) if _is_config(os.path.join(path, name)))
        if len(found) == 1:
            return found[0], None
        if not found:
            return None, "the inventory directory %s holds no gamepanel.panel.servers file" % path
        return None, "the inventory directory %s holds several gamepanel.panel.servers files (%s): name one" % (
            path,
            ", ".join(os.path.basename(item) for item in found),
        )
    return None, "the inventory %s does not exist" % path


def _is_template(value):
    return isinstance(value, str) and ("{{" in value or "{%" in value)


def read_config(path):
    """The options of the inventory file ``path`` the source can use (an InventoryConfig); OSError, ValueError."""
    with open(path, "rb") as handle:
        try:
            document = yaml.load(handle, Loader=_ConfigLoader)  # nosec B506: a SafeLoader subclass
        except yaml.YAMLError as error:
            raise ValueError("%s is not YAML: %s" % (path, getattr(error, "problem", None) or "syntax error")) from None
    if not isinstance(document, dict) or document.get("plugin") not in PLUGIN_NAMES:
        raise ValueError(
            "%s is not a gamepanel.panel.servers inventory file (no 'plugin: gamepanel.panel.servers')" % path
        )
    options = {}
    skipped = {}
    for name in USED_OPTIONS:
        if name not in document or document[name] is None:
            continue
        value = document[name]
        if value is UNREADABLE:
            skipped[name] = "encrypted or tagged"
        elif _is_template(value) or (isinstance(value, list) and any(_is_template(item) for item in value)):
            skipped[name] = "a template"
        else:
            options[name] = value
    return InventoryConfig(path, options, skipped)


def locate(explicit, argv):
    """The InventoryConfig the source uses and why it found none: (config or None, message or None).

    ``explicit`` (the source's ``inventory`` option) wins over the process's ``-i``; with neither,
    (None, None): the source then uses its arguments and the environment only.
    """
    wanted = explicit or inventory_from_argv(argv)
    path, why = find_config(wanted)
    if path is None:
        return None, why
    try:
        return read_config(path), None
    except (OSError, ValueError) as error:
        return None, str(error)
