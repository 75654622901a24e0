# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""PRIVATE: Pure helpers that turn the panel's server list into inventory host names, groups and variables.

They live here, apart from the inventory plugin, so they can be unit tested without Ansible's
inventory machinery and reused by anything else that needs to name servers the way the
inventory does.

Host naming rule (also in docs/inventory.md):

1. The base is the server's ``name`` (or its ``id`` when the user asks for ids). It is
   normalised with Unicode NFKC, then every run of characters that are not letters, digits,
   ``_``, ``-`` or ``.`` becomes one ``_``, and ``_``, ``-``, ``.`` are trimmed from both ends.
   Letters and digits of any script are kept. A base that ends up empty falls back to the
   server's id, sanitised the same way.
2. A base shared by two or more servers, or equal to a reserved name (``all``, ``ungrouped``,
   ``localhost``, ``127.0.0.1``, or one of the group names the inventory creates), is
   suffixed with ``_<sanitised id>`` for every server that has it: no server silently wins
   the plain name.
3. Should a suffixed name still be taken, ``_2``, ``_3``... are appended, visiting servers in
   order of (name, id), so the result never depends on the order the API listed them in.
"""

from __future__ import annotations

import re
import unicodedata

from ansible_collections.gamepanel.panel.plugins.module_utils._api.server_records import SERVER_FIELDS

# Every field of a normalised server record becomes a host variable.
HOST_VARIABLE_FIELDS = SERVER_FIELDS

ALL_SERVERS_GROUP = "gamepanel"
GAME_GROUP_PREFIX = "game_"
STATUS_GROUP_PREFIX = "status_"
# The group of one account's hosts (the source's ``account`` option), and the variable naming it.
ACCOUNT_GROUP_PREFIX = "account_"
ACCOUNT_VARIABLE = "gamepanel_account"

# Names Ansible gives a meaning of its own: a host called "all" or "localhost" would be
# matched by patterns and delegate_to in ways the user does not expect.
ANSIBLE_RESERVED_NAMES = frozenset(("all", "ungrouped", "localhost", "127.0.0.1"))

HOSTNAME_SOURCES = ("name", "id")

# \w is Unicode-aware on str, so letters and digits of every script survive.
_UNSAFE_RUN = re.compile(r"[^\w.-]+")
_EDGE_CHARACTERS = "_.-"
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_ACCOUNT = re.compile(r"[A-Za-z0-9_]{1,40}\Z")


def safe_host_name(text):
    """Return ``text`` reduced to characters that are safe in host names and host patterns.

    Characters with a meaning in host patterns (``: , * ? [ ] ! & ~``), whitespace, quotes and
    template braces all become ``_``, so a name can never be read as a pattern or template.
    """
    if text is None:
        return ""
    text = unicodedata.normalize("NFKC", str(text))
    return _UNSAFE_RUN.sub("_", text).strip(_EDGE_CHARACTERS)


def base_host_name(server, hostname_source="name"):
    """The host name a server would get if no other server competed for it."""
    if hostname_source not in HOSTNAME_SOURCES:
        raise ValueError("hostname_source must be one of %s, not %r." % (", ".join(HOSTNAME_SOURCES), hostname_source))
    base = safe_host_name(server.get(hostname_source))
    if not base and hostname_source != "id":
        base = safe_host_name(server.get("id"))
    return base


def assign_host_names(servers, hostname_source="name", reserved=(), prefix=""):
    """Give every server one distinct, stable host name.

    Returns a list of ``(host_name, server)`` pairs sorted by host name. The result depends
    only on the set of servers, not on their order. Raises ValueError for a server whose
    name and id are both empty after sanitising, since it could not be named stably.
    ``prefix`` (checked with check_hostname_prefix) starts every name, and the reserved names
    are compared with the prefixed ones: those are the names Ansible sees.
    """
    reserved = frozenset(reserved) | ANSIBLE_RESERVED_NAMES
    bases = []
    base_counts = {}
    for server in servers:
        base = base_host_name(server, hostname_source)
        if not base:
            raise ValueError("A server has neither a usable name nor a usable id: %r." % (server.get("id"),))
        base = prefix + base
        bases.append((base, server))
        base_counts[base] = base_counts.get(base, 0) + 1

    taken = set()
    named = []
    contested = []
    for base, server in bases:
        if base_counts[base] == 1 and base not in reserved:
            taken.add(base)
            named.append((base, server))
        else:
            contested.append((base, server))

    # Sorting makes the fallback counters independent of API order.
    contested.sort(key=lambda pair: (pair[0], _text(pair[1].get("id"))))
    taken.update(reserved)
    for base, server in contested:
        candidate = "%s_%s" % (base, safe_host_name(server.get("id")))
        if candidate in taken:
            counter = 2
            while "%s_%d" % (candidate, counter) in taken:
                counter += 1
            candidate = "%s_%d" % (candidate, counter)
        taken.add(candidate)
        named.append((candidate, server))

    named.sort(key=lambda pair: pair[0])
    return named


def check_hostname_prefix(prefix):
    """The prefix as given when every character of it is safe in a host name; ValueError else."""
    prefix = "" if prefix is None else str(prefix)
    if _UNSAFE_RUN.search(prefix):
        raise ValueError(
            "hostname_prefix %r holds characters that are not safe in host names: use letters, digits, "
            "'_', '-' and '.'." % (prefix,)
        )
    return prefix


def check_account(account):
    """The account's short name when it makes a valid group name (``account_<account>``); ValueError else."""
    if account is None or account == "":
        return None
    if not _ACCOUNT.match(str(account)):
        raise ValueError(
            "account %r is not a short name: use 1 to 40 letters, digits or underscores (it names the "
            "group %s<account>)." % (account, ACCOUNT_GROUP_PREFIX)
        )
    return str(account)


def account_group(account):
    """The group of an account's hosts, a child of ``gamepanel``."""
    return ACCOUNT_GROUP_PREFIX + account


def group_names_for(server, sanitize_group_name):
    """Groups a server belongs to: everything in ``gamepanel``, plus one group per game and status.

    ``sanitize_group_name`` is Ansible's group-name rule, passed in by the inventory plugin so
    these names follow whatever rule the running Ansible applies. A missing game or status
    gives no group rather than a misleading ``game_None``.
    """
    groups = [ALL_SERVERS_GROUP]
    for prefix, field in ((GAME_GROUP_PREFIX, "game"), (STATUS_GROUP_PREFIX, "status")):
        value = server.get(field)
        if value is not None and str(value) != "":
            groups.append(sanitize_group_name(prefix + str(value)))
    return groups


def fleet_group_names(servers, sanitize_group_name):
    """Every group name the inventory creates for these servers, in a stable order."""
    names = {ALL_SERVERS_GROUP}
    for server in servers:
        names.update(group_names_for(server, sanitize_group_name))
    return sorted(names)


def check_hostvar_prefix(prefix):
    """Raise ValueError unless every prefixed field name is a valid Ansible variable name."""
    prefix = "" if prefix is None else prefix
    if not _IDENTIFIER.match(prefix + HOST_VARIABLE_FIELDS[0]):
        raise ValueError(
            "hostvar_prefix %r does not make valid variable names: use letters, digits and underscores, "
            "not starting with a digit." % (prefix,)
        )
    return prefix


def host_variables(server, prefix):
    """The server's fields as host variables, each name starting with ``prefix``."""
    return dict((prefix + field, server.get(field)) for field in HOST_VARIABLE_FIELDS)


def _text(value):
    return "" if value is None else str(value)
