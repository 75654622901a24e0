# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: Server records as the collection hands them out, and how they are selected.

Shared by server_info, server_control and the inventory plugin, so a server looks
the same everywhere.  The specification leaves much open: any field may be missing
(it becomes None), status values other than "online" exist and are kept exactly as
the panel sends them, and ``players`` may come as an object or as a bare count.
"""

from __future__ import annotations

import fnmatch

from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import echoed

# The Server fields of the specification, in the order they are returned.
SERVER_FIELDS = ("id", "name", "game", "status", "players", "cpu", "memory_mb", "uptime_seconds")

SUBRESOURCES = ("players", "metrics", "console", "resources")

# A name that matches nothing lists at most this many candidates in the error.
MAX_LISTED_CANDIDATES = 20


def normalize_server(raw):
    """A server dict with exactly SERVER_FIELDS, from whatever the panel sent.

    ``id`` is always a string (ids are opaque; a panel sending numbers still gets
    the same id back in paths).  ``players`` is ``{"current": ..., "max": ...}`` or None.
    Raises ValueError when ``raw`` is not a JSON object.
    """
    if not isinstance(raw, dict):
        raise ValueError("a server entry is a %s, not a JSON object" % type(raw).__name__)
    server = dict((field, raw.get(field)) for field in SERVER_FIELDS)
    if server["id"] is not None and not isinstance(server["id"], str):
        server["id"] = str(server["id"])
    server["players"] = _normalize_players(raw.get("players"))
    return server


def _normalize_players(value):
    if isinstance(value, dict):
        return {"current": value.get("current"), "max": value.get("max")}
    if isinstance(value, int) and not isinstance(value, bool):
        return {"current": value, "max": None}
    return None


def _as_list(value):
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    return list(value)


def name_matches(name, patterns):
    """True when ``name`` equals one of ``patterns`` or matches it as a case-sensitive fnmatch pattern.

    Equality comes first so that a name such as "Survival [EU]" matches itself,
    although ``[EU]`` means a character class to fnmatch.
    """
    if not isinstance(name, str):
        return False
    return any(name == pattern or fnmatch.fnmatchcase(name, pattern) for pattern in patterns)


def filter_servers(servers, names=None, games=None, statuses=None):
    """The servers that pass every given filter, in their original order.

    Each filter is a list (a single string is accepted too); a server passes a filter
    when it matches any of its values.  ``names`` are fnmatch patterns, ``games`` and
    ``statuses`` are compared exactly.  A filter that is None or empty is ignored.
    """
    names, games, statuses = _as_list(names), _as_list(games), _as_list(statuses)
    selected = []
    for server in servers:
        if names and not name_matches(server.get("name"), names):
            continue
        if games and server.get("game") not in games:
            continue
        if statuses and server.get("status") not in statuses:
            continue
        selected.append(server)
    return selected


def select_servers(client, server_id=None, names=None, games=None, statuses=None, include=None):
    """Read servers through ``client`` (a PanelClient): one by id, or the filtered list.

    With ``include`` (sub-resource kinds), each selected server gets a ``details``
    dict holding, per kind, the body the panel returned for that sub-resource; the
    Server field ``players`` is left untouched.
    """
    include = _as_list(include) or []
    for kind in include:  # fail before any request when the variant lacks a kind
        client.check_subresource(kind)
    if server_id is not None:
        servers = [client.get_server(server_id)]
    else:
        servers = filter_servers(client.list_servers(), names=names, games=games, statuses=statuses)
    if include:
        for server in servers:
            server["details"] = dict((kind, client.get_subresource(server["id"], kind)) for kind in include)
    return servers


def describe(server):
    """``name (id)``: how servers are named in every message (a very long name or id is cut)."""
    return "%s (%s)" % (echoed(server.get("name")), echoed(server.get("id")))


def find_server_by_name(servers, name):
    """The one server whose name is exactly ``name``; ValueError listing the candidates otherwise."""
    matches = [server for server in servers if server.get("name") == name]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise ValueError(
            "%d servers are named %r: %s. Select one by id."
            % (len(matches), echoed(name), ", ".join(describe(server) for server in matches))
        )
    if not servers:
        raise ValueError("No server is named %r: this token sees no servers at all." % echoed(name))
    folded = name.lower()

    def resembles(server):
        other = server.get("name")
        return isinstance(other, str) and bool(other) and (folded in other.lower() or other.lower() in folded)

    similar = [server for server in servers if resembles(server)]
    candidates = similar or servers
    listed = ", ".join(describe(server) for server in candidates[:MAX_LISTED_CANDIDATES])
    more = len(candidates) - MAX_LISTED_CANDIDATES
    if more > 0:
        listed += " and %d more" % more
    heading = "Similar names" if similar else "Servers this token sees"
    raise ValueError("No server is named exactly %r. %s: %s." % (echoed(name), heading, listed))
