# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""PRIVATE: What keeps the accounts of several gamepanel inventory sources apart in one inventory.

An inventory directory may hold one ``gamepanel.panel.servers`` source per panel account. Server
ids and names are each panel's own and repeat across accounts, so two sources that shared a host
name, or that handed their hosts one connection, could send an action meant for one account's
server to another account's server of the same id. Each source therefore registers what it is
about to add (its account, its connection, the server behind each host name) with the inventory
it fills, before it adds anything; a clash with a source read earlier stops this source with a
message naming both files and the option that fixes it. Nothing is merged, and no source wins.

The register lives beside the inventory (a weak map keyed by the InventoryData object), so a
refreshed inventory (``meta: refresh_inventory`` builds a new one) starts empty. The token is
kept only as a one-way digest, to tell two tokens apart.
"""

from __future__ import annotations

import weakref

from ansible_collections.gamepanel.panel.plugins.module_utils._api.token_file import token_digest

_SOURCES = weakref.WeakKeyDictionary()  # InventoryData -> {path: Source}


class SourceClash(ValueError):
    """Two sources cannot share the inventory as configured; the message names both and the fix."""


class Source(object):
    """One source as it would fill the inventory.

    ``connection``: the settings it hands on to its hosts (never the token); ``token``: the
    token it read with (only its digest is kept); ``hosts``: ``{host name: (base_url, api_variant,
    server id)}``.
    """

    def __init__(self, path, account, connection, token, hosts):
        self.path = path
        self.account = account
        self.connection = dict(connection)
        self.token_digest = token_digest(token or "")
        self.hosts = dict(hosts)

    def same_connection(self, other):
        return self.connection == other.connection and self.token_digest == other.token_digest

    def describe_server(self, host_name):
        base_url, _variant, server_id = self.hosts[host_name]
        return "server %s of %s%s" % (server_id, base_url, self._account_words())

    def _account_words(self):
        return " (account %s)" % self.account if self.account else ""


def register(inventory, source):
    """Record ``source`` in ``inventory``'s register; SourceClash (nothing recorded) when it clashes with another."""
    known = _SOURCES.setdefault(inventory, {})
    for other in known.values():
        if other.path != source.path:
            _check_connections(source, other)
            _check_host_names(source, other)
    known[source.path] = source  # a source read again (auto plugin, then this one) replaces itself


def _check_connections(source, other):
    if source.same_connection(other):
        return
    if source.account is None or other.account is None:
        raise SourceClash(
            "the sources %s and %s use different connections (panel, settings or token), and %s names no account: "
            "its hosts would be acted on with the other's connection. Give each source its own 'account' option."
            % (other.path, source.path, source.path if source.account is None else other.path)
        )
    if source.account == other.account:
        raise SourceClash(
            "the sources %s and %s both name the account %r but use different connections (panel, settings or "
            "token). Give each source its own 'account' option." % (other.path, source.path, source.account)
        )


def _check_host_names(source, other):
    for host_name in sorted(set(source.hosts) & set(other.hosts)):
        if source.hosts[host_name] != other.hosts[host_name] or source.account != other.account:
            raise SourceClash(
                "the sources %s and %s would both give the host name %r to different servers (%s; %s): a job could act "
                "on the wrong one. Set 'hostname_prefix' (or 'account') on one of them so the names differ."
                % (
                    other.path,
                    source.path,
                    host_name,
                    other.describe_server(host_name),
                    source.describe_server(host_name),
                )
            )
