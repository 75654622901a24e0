# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""_api/errors.py: the panel's message from any body, the status mapping, redaction."""

from __future__ import annotations

import json

import pytest

from ansible_collections.gamepanel.panel.plugins.module_utils._api import errors


@pytest.mark.parametrize(
    "body, expected",
    [
        (b"", None),
        ("   \n", None),
        ("null", None),
        ("{}", None),
        ("[]", None),
        ('"just a string"', "just a string"),
        ('{"message": "m"}', "m"),
        ('{"error": "e"}', "e"),
        ('{"error": {"code": "c", "message": "nested message"}}', "nested message"),
        ('{"error": {"code": "only_code"}}', "only_code"),
        ('{"error": "invalid_token", "error_description": "expired"}', "expired"),
        ('{"detail": "d"}', "d"),
        ('{"detail": [{"loc": ["body"], "msg": "field required"}]}', "field required"),
        ('{"errors": [{"message": "a"}, {"message": "b"}]}', "a; b"),
        ('{"errors": ["x", "y"]}', "x; y"),
        ('{"title": "Forbidden", "status": 403}', "Forbidden"),
        ('{"status": 500}', None),
        ("<html>\n <h1>502 Bad Gateway</h1>\n</html>", "<html> <h1>502 Bad Gateway</h1> </html>"),
        ("plain words", "plain words"),
        ("\xff\xfe binary-ish".encode("latin-1"), "\ufffd\ufffd binary-ish"),
    ],
)
def test_panel_message(body, expected):
    assert errors.panel_message(body) == expected


def test_panel_message_from_parsed_json_and_long_text():
    assert errors.panel_message({"error": {"message": "parsed"}}) == "parsed"
    long_text = "x" * 1000
    shortened = errors.panel_message(long_text)
    assert len(shortened) <= 300 and shortened.endswith("...")


def test_deeply_nested_bodies_do_not_recurse_forever():
    body = {"error": None}
    for unused in range(100):
        body = {"error": body}
    assert errors.panel_message(json.dumps(body)) is None


@pytest.mark.parametrize(
    "status, cls",
    [
        (401, errors.PanelAuthError),
        (403, errors.PanelForbiddenError),
        (402, errors.PanelPaymentError),
        (404, errors.PanelNotFoundError),
        (429, errors.PanelRateLimitError),
        (400, errors.PanelApiError),
        (500, errors.PanelApiError),
    ],
)
def test_status_mapping(status, cls):
    error = errors.error_from_response(status, "Reason", b'{"message": "said"}', "GET /servers", server_id="s1")
    assert error.__class__ is cls
    assert isinstance(error, errors.PanelError)
    assert error.status == status
    assert error.server_id == "s1"
    assert "said" in str(error)
    assert str(error).endswith(".")


def test_other_status_message_format():
    error = errors.error_from_response(418, "I'm a Teapot", b"", "POST /servers/x/control (start)")
    assert str(error) == "The panel answered HTTP 418 I'm a Teapot for POST /servers/x/control (start)."


def test_scrub_and_redact():
    error = errors.PanelAuthError("token abc123 was refused", status=401)
    assert error.scrub("abc123") is error
    assert str(error) == "token <redacted> was refused"
    assert error.args == ("token <redacted> was refused",)
    assert "abc123" not in repr(error)
    assert errors.redact("no secret here", "") == "no secret here"
    assert errors.redact(None, "abc") is None


def test_ambiguous_and_transport_messages():
    ambiguous = errors.ambiguous_error(
        "POST /servers/a/control (restart)", "it answered HTTP 502", server_id="a", status=502
    )
    assert isinstance(ambiguous, errors.PanelAmbiguousError)
    assert "may already be queued" in str(ambiguous) and "not sent again" in str(ambiguous)
    transport = errors.transport_error("GET /servers", "could not connect", retry_note=" (gave up)")
    assert str(transport) == "GET /servers failed without an answer from the panel: could not connect (gave up)."
