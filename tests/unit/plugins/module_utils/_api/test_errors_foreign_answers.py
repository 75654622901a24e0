# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Answers that are not the panel's API blame base_url, not the server id, and are quoted short."""

from __future__ import annotations

import json

import pytest

from ansible_collections.gamepanel.panel.plugins.module_utils._api import errors
from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import (
    PanelApiError,
    PanelError,
    PanelNotFoundError,
    PanelTransportError,
)

HTML_404 = "<!DOCTYPE html><html><head><title>404 Not Found</title></head><body>" + "x" * 5000 + "</body></html>"


def longest_quote(message, body):
    """The longest run of the body's characters that the message repeats."""
    flat = " ".join(body.split())
    best = 0
    for size in (40, 61, 80, 200, 301):
        if size > len(flat):
            break
        if any(flat[start : start + size] in message for start in range(0, max(1, len(flat) - size), 7)):
            best = size
    return best


@pytest.mark.parametrize("body", [HTML_404, "Not Found", ""])
def test_a_404_that_is_not_the_panels_json_says_check_base_url_not_unknown_server(panel, body):
    panel.reply(status=404, body=body, headers={"Content-Type": "text/html"})
    with pytest.raises(PanelNotFoundError) as caught:
        panel.client().get_server("mc-01")
    message = str(caught.value)
    assert "Check base_url" in message and "does not look like the panel's API" in message
    assert "no server with this id" not in message
    assert len(message) < 400
    assert longest_quote(message, body) <= errors.MAX_EXCERPT + 1


def test_a_404_under_a_base_url_without_version_segment_blames_base_url(panel):
    panel.reply(status=404, json={"error": {"code": "not_found", "message": "Nothing here"}})
    with pytest.raises(PanelNotFoundError) as caught:
        panel.client(base_url="https://panel.example.test").get_server("mc-01")
    message = str(caught.value)
    assert "Check base_url" in message and "no version segment" in message
    assert "no server with this id" not in message


def test_the_panels_own_404_for_a_server_still_names_the_server(panel):
    panel.reply(status=404, json={"error": {"code": "server_not_found", "message": "No server with id 'zz'."}})
    with pytest.raises(PanelNotFoundError) as caught:
        panel.client().get_server("zz")
    assert "Server 'zz' was not found" in str(caught.value)
    assert "Check base_url" not in str(caught.value)


@pytest.mark.parametrize("status", [400, 403, 500])
def test_other_statuses_with_a_foreign_body_quote_only_an_excerpt(panel, status):
    body = "<html><body><h1>Gateway says no</h1>" + "y" * 10000 + "</body></html>"
    panel.reply(status=status, body=body)
    with pytest.raises(PanelError) as caught:
        panel.client(retry_timeout=0).list_servers()
    message = str(caught.value)
    assert len(message) < 600
    assert "not the panel's JSON" in message
    assert longest_quote(message, body) <= errors.MAX_EXCERPT + 1


@pytest.mark.parametrize(
    "body",
    [
        HTML_404.encode(),
        b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40,
        b"{not json",
        b"[1, 2",
    ],
)
def test_a_success_that_is_not_json_blames_base_url_with_a_short_excerpt(panel, body):
    panel.reply(body=body, headers={"Content-Type": "text/html"})
    with pytest.raises(PanelTransportError) as caught:
        panel.client().list_servers()
    message = str(caught.value)
    assert "Check base_url" in message and len(message) < 500


@pytest.mark.parametrize("body", [{"ok": True}, {"servers": "none"}, 42, "a string", None])
def test_json_of_the_wrong_shape_for_a_list_says_so(panel, body):
    panel.reply(body=json.dumps(body))
    with pytest.raises(PanelApiError) as caught:
        panel.client().list_servers()
    assert "does not look like the panel's API" in str(caught.value)


@pytest.mark.parametrize("body", [{"ok": True, "version": "2.1"}, [], [{"id": "mc-01"}], 7])
def test_json_of_the_wrong_shape_for_a_server_says_so(panel, body):
    panel.reply(body=json.dumps(body))
    with pytest.raises(PanelApiError) as caught:
        panel.client().get_server("mc-01")
    assert "does not look like the panel's API" in str(caught.value)


def test_a_huge_json_error_message_is_cut(panel):
    panel.reply(status=409, json={"error": {"message": "z" * 100000}})
    with pytest.raises(PanelApiError) as caught:
        panel.client().list_servers()
    assert len(str(caught.value)) < 400


def test_excerpt_and_echoed_helpers():
    assert errors.excerpt(b"  <html>\n\n <body>  ") == "<html> <body>"
    assert len(errors.excerpt("a" * 1000)) == errors.MAX_EXCERPT + 3
    assert errors.echoed("short") == "short"
    cut = errors.echoed("i" * 5000)
    assert len(cut) <= errors.MAX_ECHOED and "5000 characters" in cut
