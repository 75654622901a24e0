# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: What can go wrong when talking to the panel, and how it is told to the user.

Every failure of the API client is a ``PanelError`` whose message is a complete,
actionable sentence.  The wording lives here, in one place: the client and the retry
policy decide *what* happened and call the builders below to say it.

The specification leaves the error body's shape open, so ``panel_message`` digs the
panel's own sentence out of any JSON shape, plain text, or nothing at all.

No message may ever carry the API token.  The client scrubs every error it raises
(``PanelError.scrub``), which also covers a panel that echoes the token back in an
error body.
"""

from __future__ import annotations

import collections
import json

REDACTED = "<redacted>"

# Missing connection settings, said the same way by the client and the inventory plugin.
NO_TOKEN_MESSAGE = (
    "No API token was given: set the option api_token, the variable gamepanel_api_token (a vault file, "
    "an AWX credential), the GAMEPANEL_API_TOKEN environment variable, or GAMEPANEL_API_TOKEN_FILE to "
    "a file that holds the token. Create a token in the panel under Settings \u2192 API tokens."
)
# The inventory is read before any variable exists, so it names only the sources it can read.
NO_INVENTORY_TOKEN_MESSAGE = (
    "No API token was given to the inventory: set api_token (a vaulted value or a lookup) or "
    "api_token_file in the inventory file, or the GAMEPANEL_API_TOKEN or GAMEPANEL_API_TOKEN_FILE "
    "environment variable. Create a token in the panel under Settings \u2192 API tokens."
)
NO_BASE_URL_MESSAGE = (
    "No base_url was given: set base_url or the GAMEPANEL_BASE_URL environment variable to the API "
    "root including the version segment, for example https://panel.example.com/api/v1."
)

# Keys under which error bodies commonly keep their human sentence, most specific first.
_MESSAGE_KEYS = ("message", "detail", "error_description", "title", "msg", "description", "reason")
# Keys that hold a nested error object, a list of errors, or a plain error string.
_NESTED_KEYS = ("error", "errors", "detail", "details")

# A panel message longer than this is cut: it is quoted inside our own sentence.
_MAX_QUOTED = 200
# A body that is not the panel's JSON is quoted only this far: enough to recognise an HTML
# page or a proxy's error, short enough that a huge body does not flood the output.
MAX_EXCERPT = 60
# Ids and paths echoed in messages are cut to this length (the full id is in the task's arguments).
MAX_ECHOED = 64


class PanelError(Exception):
    """A failure talking to the panel.

    ``message`` is a complete sentence for the user, ``status`` the HTTP status when
    the panel answered, ``server_id`` the server concerned, when there is one.
    ``transient`` is true for a failure that asking again later may cure (the retry
    budget ran out on a 429, a 5xx or a connection failure): a waiter keeps polling
    through it, anything else ends the wait.
    ``retry_in`` is set on a POST handed back to its caller to be sent again later (a refusal,
    or a start whose answer was lost): the seconds to wait first (Retry-After, or the backoff).
    ``retry_after`` is the seconds the panel's Retry-After asked for, when it said (_api/retry.py).
    """

    transient = False
    retry_in = None
    retry_after = None

    def __init__(self, message, status=None, server_id=None):
        super(PanelError, self).__init__(message)
        self.message = message
        self.status = status
        self.server_id = server_id

    def __str__(self):
        return self.message

    def scrub(self, secret):
        """Remove ``secret`` from the message (in place) and return the error itself."""
        for name, value in list(vars(self).items()):  # message, and any text a builder attached
            if isinstance(value, str):
                setattr(self, name, redact(value, secret))
        self.args = tuple(redact(arg, secret) if isinstance(arg, str) else arg for arg in self.args)
        return self


class PanelAuthError(PanelError):
    """HTTP 401: the token is missing, invalid or revoked."""


class PanelForbiddenError(PanelError):
    """HTTP 403: read-only scope, a role below owner/admin, or a plan without API access."""


class PanelPaymentError(PanelError):
    """HTTP 402: the account's plan is unpaid.  Never retried."""


class PanelNotFoundError(PanelError):
    """HTTP 404: unknown server id (or a base_url that does not point at the API)."""


class PanelRateLimitError(PanelError):
    """HTTP 429 still returned when the retry budget (retry_timeout) ran out."""


class PanelApiError(PanelError):
    """Any other HTTP error, or an answer the client cannot make sense of."""


class PanelTransportError(PanelError):
    """No usable answer: connection failure, timeout, TLS failure, or a body that is not JSON."""


class PanelAmbiguousError(PanelError):
    """A POST that may or may not have been accepted: it must not be sent again blindly.

    ``what`` names the request ("POST /servers/mc-01/control") and ``cause`` says why its
    fate is unknown; both are None when the error was built from a message alone.  They
    are kept apart so that a caller composing its own sentence says what happened once.
    """

    def __init__(self, message, status=None, server_id=None, what=None, cause=None):
        super(PanelAmbiguousError, self).__init__(message, status=status, server_id=server_id)
        self.what = what
        self.cause = cause


class PanelRefusedError(PanelApiError):
    """The panel's own refusal of a POST (429, or a 5xx in the panel's own words): nothing was queued.

    ``retry_in`` (seconds) when the caller is to send it again later; None once the retry budget ran out.
    ``refusal`` is the message's first clause (what was refused, how), for a caller's own sentence.
    """

    refusal = None


class PanelVariantError(PanelError):
    """The chosen API variant (live or planned) has no such operation."""


def redact(text, secret):
    """``text`` with every occurrence of ``secret`` replaced by a marker."""
    if not secret or not isinstance(text, str):
        return text
    return text.replace(secret, REDACTED)


def echoed(value, limit=MAX_ECHOED):
    """``value`` as a message may repeat it: cut in the middle beyond ``limit`` characters.

    An id or path can be as long as the user made it; quoting it whole, several times,
    buries the sentence around it.
    """
    text = str(value)
    if len(text) <= limit:
        return text
    keep = max(limit - 24, 8)
    return "%s...[%d characters]" % (text[:keep], len(text))


def excerpt(body, limit=MAX_EXCERPT):
    """The start of a raw body, on one line, at most ``limit`` characters (for answers that are not the panel's JSON)."""
    if isinstance(body, bytes):
        body = body[: limit * 4].decode("utf-8", errors="replace")
    text = " ".join(str(body or "").split())
    return text if len(text) <= limit else text[:limit].rstrip() + "..."


def parse_json_body(body):
    """(True, value) when ``body`` (bytes or text) is a JSON document, else (False, None)."""
    if isinstance(body, bytes):
        body = body.decode("utf-8", errors="replace")
    text = (body or "").strip()
    if not text:
        return False, None
    try:
        return True, json.loads(text)
    except ValueError:
        return False, None


# Statuses only a gateway says ("Bad Gateway", "Gateway Timeout"): the panel behind it may have
# queued the action before the gateway gave up on its answer, whatever the body looks like.
GATEWAY_STATUSES = (502, 504)


def answered_by_the_panel(status, content_type, body):
    """Whether an error answer is the panel's own: the one rule that tells a refusal from a lost answer.

    The specification does not show the error body, so this is the collection's reading
    (docs/api-behaviour.md, "Whose answer is it"): the panel answers its errors with a JSON
    object, labelled JSON (``application/json`` or ``...+json``) or not labelled at all.  An
    HTML or plain-text page, an empty body, or a 502/504 (a gateway's statuses) come from
    something on the way (a proxy, a load balancer) that may have passed the request on
    before it failed: for a POST, the action may be queued.
    """
    if status in GATEWAY_STATUSES:
        return False
    media = (content_type or "").split(";", 1)[0].strip().lower()
    if media and media != "application/json" and not media.endswith("+json"):
        return False
    return looks_like_panel_error(body)


def looks_like_panel_error(body):
    """Whether an error body is a JSON object, as the panel's own errors are.

    An HTML page, plain text or an empty body comes from something else on the way
    (a web server, a proxy, the wrong path): then the status says nothing about the
    server or the token.
    """
    is_json, value = parse_json_body(body)
    return is_json and isinstance(value, dict)


def base_url_advice(base_url_hint=None):
    """The advice sentence when an answer does not look like the panel's API."""
    advice = (
        "Check base_url: it must be the API root including the version segment, "
        "for example https://panel.example.com/api/v1"
    )
    return advice + (" (%s)." % base_url_hint if base_url_hint else ".")


def panel_message(body):
    """The panel's own human message from an error body (bytes, text or parsed JSON).

    Returns None when the body says nothing useful (empty, or JSON without any text).
    """
    if isinstance(body, bytes):
        body = body.decode("utf-8", errors="replace")
    if isinstance(body, str):
        text = body.strip()
        if not text:
            return None
        try:
            parsed = json.loads(text)
        except ValueError:
            return _shorten(" ".join(text.split()))
        return _shorten(_message_from_json(parsed))
    return _shorten(_message_from_json(body))


def _message_from_json(value, depth=0):
    """Find the human sentence in an error document of any shape."""
    if depth > 5 or value is None:
        return None
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, (int, float, bool)):
        return None
    if isinstance(value, list):
        found = [_message_from_json(item, depth + 1) for item in value]
        found = [text for text in found if text]
        return "; ".join(found) or None
    if isinstance(value, dict):
        for key in _MESSAGE_KEYS:
            if isinstance(value.get(key), str) and value[key].strip():
                return value[key].strip()
        for key in _NESTED_KEYS:
            found = _message_from_json(value.get(key), depth + 1)
            if found:
                return found
        code = value.get("code")
        if isinstance(code, str) and code.strip():
            return code.strip()
    return None


def _shorten(text):
    if text is None:
        return None
    if len(text) > _MAX_QUOTED:
        return text[: _MAX_QUOTED - 3].rstrip() + "..."
    return text


def _said(message):
    """': <panel message>' ready to follow a clause, or '' when the panel said nothing."""
    if not message:
        return ""
    return ": " + message.rstrip(". ")


# What one HTTP error answer holds, as error_from_response's wording of each status needs it:
# ``said`` is the panel's own message as a clause (or why the body is not the panel's), ``foreign``
# whether the body is something else's (a proxy, a web server).
ErrorAnswer = collections.namedtuple(
    "ErrorAnswer", "status reason what said foreign server_id retry_note base_url_hint"
)


def error_from_response(status, reason, body, what, server_id=None, retry_note="", base_url_hint=None):
    """The PanelError for an HTTP error answer.

    ``what`` names the request ("GET /servers/mc-01"), ``body`` is the raw body,
    ``retry_note`` says how the retry budget was spent when it ran out,
    ``base_url_hint`` a doubt about base_url the client already has (no version segment).
    Each status has its wording below (_STATUS_WORDING); any other status is _other_status's.
    """
    foreign = bool(body and body.strip()) and not looks_like_panel_error(body)
    if foreign:
        said = ": the answer is not the panel's JSON (it starts %r)" % excerpt(body)
    else:
        said = _said(panel_message(body))
    answer = ErrorAnswer(status, reason, what, said, foreign, server_id, retry_note, base_url_hint)
    if status == 404 and (foreign or base_url_hint or not (body and body.strip())):
        error_class, message = _not_the_api(answer)
    else:
        error_class, message = _STATUS_WORDING.get(status, _other_status)(answer)
    return error_class(message, status=status, server_id=server_id)


def _not_the_api(answer):
    """A 404 that is not the panel's own (or with base_url in doubt): the address, not the id, is the likely mistake."""
    return PanelNotFoundError, "The panel answered HTTP 404 for %s%s. This does not look like the panel's API. %s" % (
        answer.what,
        answer.said,
        base_url_advice(answer.base_url_hint),
    )


# Every place a token reaches a task from, in the order a job tries them (docs/authentication.md, "Where the
# token belongs"): the new token belongs where the rejected one came from, whichever that was.
TOKEN_PLACES = (
    "the task's api_token, the variable gamepanel_api_token, the inventory source's api_token, the environment "
    "variable its api_token_env names or its api_token_file, the GAMEPANEL_API_TOKEN environment variable, or the "
    "file GAMEPANEL_API_TOKEN_FILE names"
)


def _unauthorized(answer):
    return PanelAuthError, (
        "The panel rejected the API token for %s (HTTP 401%s): the token is missing, invalid or revoked. "
        "Create a new token in the panel under Settings → API tokens and put it where this one came from: "
        "%s (tried in that order)." % (answer.what, answer.said, TOKEN_PLACES)
    )


def _forbidden(answer):
    return PanelForbiddenError, (
        "The panel refused %s (HTTP 403%s). Possible causes: the token is read-only (actions need a token "
        "with the control scope, servers:control), the token's user is not an owner or admin of the account, "
        "or the account's plan has no API access (the Starter plan has none; Pro and Team have)."
        % (answer.what, answer.said)
    )


def _unpaid(answer):
    return PanelPaymentError, (
        "The panel refused %s because the account's plan is unpaid (HTTP 402%s). "
        "Settle the plan's billing in the panel; the request was not retried." % (answer.what, answer.said)
    )


def _not_found(answer):
    """The panel's own 404: the server, when the request named one, is not visible to the token's account."""
    if answer.server_id is None:
        return PanelNotFoundError, "The panel answered HTTP 404 for %s%s. %s" % (
            answer.what,
            answer.said,
            base_url_advice(),
        )
    return PanelNotFoundError, (
        "Server '%s' was not found (HTTP 404 for %s%s): no server with this id is visible "
        "to the token's account." % (echoed(answer.server_id), answer.what, answer.said)
    )


def _rate_limited(answer):
    return PanelRateLimitError, (
        "The panel's rate limit is still exceeded (HTTP 429 for %s%s)%s. Set rate_limit to the plan's "
        "limit (Pro 120, Team 600 requests per minute per token), run fewer forks, "
        "or raise retry_timeout." % (answer.what, answer.said, answer.retry_note)
    )


def _other_status(answer):
    """Any other status: its number and reason, and, for a foreign answer, where the mistake likely is."""
    advice = ""
    if answer.foreign and answer.status < 500:
        advice = " " + base_url_advice(answer.base_url_hint)
    elif answer.foreign:
        advice = (
            " This answer does not look like the panel's API: a proxy or web server in between answered, "
            "or base_url points elsewhere."
        )
    reason = (" " + answer.reason) if answer.reason else ""
    return PanelApiError, "The panel answered HTTP %s%s for %s%s%s.%s" % (
        answer.status,
        reason,
        answer.what,
        answer.said,
        answer.retry_note,
        advice,
    )


_STATUS_WORDING = {
    401: _unauthorized,
    402: _unpaid,
    403: _forbidden,
    404: _not_found,
    429: _rate_limited,
}


def http_cause(status, body):
    """'it answered HTTP <status>: <panel message>', the cause phrase of an ambiguous POST."""
    if body and body.strip() and not looks_like_panel_error(body):
        return "it answered HTTP %s, not with the panel's JSON (starting %r)" % (status, excerpt(body))
    return "it answered HTTP %s%s" % (status, _said(panel_message(body)))


def ambiguous_error(what, cause, server_id=None, status=None):
    """The PanelAmbiguousError for a POST whose fate is unknown (``cause`` says why).

    ``cause`` is kept apart (``error.cause``) so that a caller composing its own
    sentence around the event says what happened once, not twice.
    """
    error = PanelAmbiguousError(
        "%s may have been accepted by the panel, whose answer was lost (%s). The action may already be queued, "
        "so it was not sent again; check the server (for example with gamepanel.panel.server_info) "
        "before retrying." % (what, cause),
        status=status,
        server_id=server_id,
        what=what,
        cause=cause,
    )
    return error


def refused_error(what, status, body, server_id=None, retry_in=None, retry_note=""):
    """The PanelRefusedError for a POST the panel refused in its own words (a 5xx, or 429).

    ``retry_in``: the caller sends it again that many seconds later (the message says so);
    None: the retry budget ran out (``retry_note`` says how it was spent).
    """
    message = panel_message(body)
    said = " (%s)" % message.rstrip(". ") if message else ""
    if retry_in is not None:
        then = "it is sent again in %.1f s" % retry_in
    else:
        then = (
            "it was refused every time%s. Run the task again once the panel takes actions again, or raise "
            % (retry_note)
            + "retry_timeout"
        )
    refusal = "The panel refused %s with HTTP %s%s: nothing was queued" % (what, status, said)
    error = PanelRefusedError("%s; %s." % (refusal, then), status=status, server_id=server_id)
    error.retry_in, error.refusal = retry_in, refusal
    return error


def transport_error(what, cause, retry_note="", server_id=None):
    """The PanelTransportError for a request that got no usable answer."""
    return PanelTransportError(
        "%s failed without an answer from the panel: %s%s." % (what, cause, retry_note), server_id=server_id
    )


def transient(error):
    """Mark ``error`` as one a later attempt may cure (see PanelError.transient); returns it."""
    error.transient = True
    return error
