# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""_api/server_records.py: normalize_server, filter_servers, select_servers."""

from __future__ import annotations

import pytest

from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import PanelVariantError
from ansible_collections.gamepanel.panel.plugins.module_utils._api.server_records import (
    SERVER_FIELDS,
    filter_servers,
    normalize_server,
    select_servers,
)

from panel_fakes import FakeClient as SharedFakeClient

FLEET = [
    {"id": "mc-01", "name": "Survival", "game": "minecraft", "status": "online"},
    {"id": "mc-02", "name": "Creative", "game": "minecraft", "status": "online"},
    {"id": "mc-03", "name": "Modded", "game": "minecraft", "status": "offline"},
    {"id": "rust-01", "name": "Rust Main", "game": "rust", "status": "online"},
    {"id": "rust-02", "name": "Rust Test", "game": "rust", "status": "offline"},
    {"id": "eu-01", "name": "Survival [EU]", "game": "minecraft", "status": "Starting"},
    {"id": "x-01", "name": None, "game": None, "status": None},
]


def ids(servers):
    return [server["id"] for server in servers]


# -- normalize_server ---------------------------------------------------------------------------


def test_normalize_keeps_exactly_the_server_fields():
    raw = {
        "id": "mc-01",
        "name": "Survival",
        "game": "minecraft",
        "status": "online",
        "players": {"current": 3, "max": 20, "list": ["steve"]},
        "cpu": 1.5,
        "memory_mb": 512,
        "uptime_seconds": 60,
        "secret_field": "x",
        "details": {"clash": True},
    }
    server = normalize_server(raw)
    assert tuple(server) == SERVER_FIELDS
    assert server["players"] == {"current": 3, "max": 20}
    assert "details" not in server


def test_normalize_missing_fields_are_none():
    assert normalize_server({}) == dict((field, None) for field in SERVER_FIELDS)


@pytest.mark.parametrize(
    "players, expected",
    [
        ({"current": 1}, {"current": 1, "max": None}),
        ({}, {"current": None, "max": None}),
        (4, {"current": 4, "max": None}),
        (None, None),
        ("many", None),
        (True, None),
    ],
)
def test_normalize_players(players, expected):
    assert normalize_server({"id": "a", "players": players})["players"] == expected


def test_normalize_ids_become_strings_and_statuses_stay_raw():
    server = normalize_server({"id": 12, "status": "UPDATING (3/7)"})
    assert server["id"] == "12"
    assert server["status"] == "UPDATING (3/7)"


@pytest.mark.parametrize("raw", ["mc-01", 3, None, ["id"]])
def test_normalize_refuses_non_objects(raw):
    with pytest.raises(ValueError, match="not a JSON object"):
        normalize_server(raw)


# -- filter_servers -----------------------------------------------------------------------------


def test_no_filter_keeps_everything_in_order():
    assert ids(filter_servers(FLEET)) == ids(FLEET)
    assert ids(filter_servers(FLEET, names=[], games=[], statuses=[])) == ids(FLEET)


@pytest.mark.parametrize(
    "names, expected",
    [
        (["Survival"], ["mc-01"]),
        (["Survival*"], ["mc-01", "eu-01"]),
        (["Survival [EU]"], ["eu-01"]),  # an exact name matches itself despite the brackets
        (["Rust ?ain"], ["rust-01"]),
        (["rust*"], []),  # case-sensitive
        (["Creative", "Modded"], ["mc-02", "mc-03"]),
        ("Creative", ["mc-02"]),  # a plain string is one pattern
    ],
)
def test_filter_by_name(names, expected):
    assert ids(filter_servers(FLEET, names=names)) == expected


def test_filter_by_game_and_status_combine_with_and():
    assert ids(filter_servers(FLEET, games=["minecraft"], statuses=["online"])) == ["mc-01", "mc-02"]
    assert ids(filter_servers(FLEET, games=["rust", "ark"])) == ["rust-01", "rust-02"]
    assert ids(filter_servers(FLEET, statuses=["Starting"])) == ["eu-01"]
    assert ids(filter_servers(FLEET, statuses=["starting"])) == []
    assert ids(filter_servers(FLEET, names=["*"], games=["rust"], statuses=["offline"])) == ["rust-02"]


# -- select_servers -----------------------------------------------------------------------------


def FakeClient(**options):  # pylint: disable=invalid-name
    """The shared fake client serving FLEET, each server with one player of two."""
    return SharedFakeClient(
        *[normalize_server(dict(server, players={"current": 1, "max": 2})) for server in FLEET], **options
    )


def test_select_by_id():
    client = FakeClient()
    assert ids(select_servers(client, server_id="mc-01")) == ["mc-01"]
    assert client.calls == [("get", "mc-01")]


def test_select_filtered_with_details_never_overwrites_players():
    client = FakeClient()
    servers = select_servers(client, games=["rust"], include=["players", "metrics"])
    assert ids(servers) == ["rust-01", "rust-02"]
    for server in servers:
        assert server["players"] == {"current": 1, "max": 2}
        assert server["details"] == {
            "players": {"kind": "players", "of": server["id"]},
            "metrics": {"kind": "metrics", "of": server["id"]},
        }
    assert client.calls == [
        ("list",),
        ("players", "rust-01"),
        ("metrics", "rust-01"),
        ("players", "rust-02"),
        ("metrics", "rust-02"),
    ]


def test_select_without_include_has_no_details():
    assert all("details" not in server for server in select_servers(FakeClient()))


def test_select_checks_the_variant_before_any_request():
    client = FakeClient(subresources=("players",))
    with pytest.raises(PanelVariantError):
        select_servers(client, include=["players", "console"])
    assert client.calls == []
