# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Who is calling and what they may do (specification sections 1, 5 and 7)."""

from __future__ import annotations

from .counters import MISSING_TOKEN, UNKNOWN_TOKEN
from .errors import ApiError
from .model import CONTROL_ROLES, Account, Token

CHALLENGE = 'Bearer realm="gamepanel"'


def bearer_value(header: str | None) -> str | None:
    if not header:
        return None
    scheme, _separator, value = header.partition(" ")
    value = value.strip()
    if scheme.lower() != "bearer" or not value:
        return None
    return value


def identify(tokens_by_value: dict[str, Token], header: str | None) -> tuple[Token | None, str]:
    """The token a request presents, and the label its requests are counted under."""
    value = bearer_value(header)
    if value is None:
        return None, MISSING_TOKEN
    token = tokens_by_value.get(value)
    if token is None:
        return None, UNKNOWN_TOKEN
    return token, token.name


def require_api_access(token: Token | None, label: str, accounts: dict[str, Account]) -> Account:
    """401, then 403 for the Starter plan, then 402 for an unpaid plan; else the caller's account."""
    if token is None:
        if label == MISSING_TOKEN:
            raise ApiError(
                401,
                "missing_token",
                "The request needs an 'Authorization: Bearer <API token>' header.",
                {"WWW-Authenticate": CHALLENGE},
            )
        raise ApiError(
            401,
            "invalid_token",
            "The API token is not valid.",
            {"WWW-Authenticate": CHALLENGE + ', error="invalid_token"'},
        )
    if token.revoked:
        # Checked on every request, so a revocation takes effect on the very next one.
        raise ApiError(
            401,
            "token_revoked",
            f"The API token '{token.name}' has been revoked; create a new one under Settings, API tokens.",
            {"WWW-Authenticate": CHALLENGE + ', error="invalid_token"'},
        )
    account = accounts[token.account]
    if account.plan == "starter":
        raise ApiError(
            403, "plan_no_api_access", "The Starter plan has no API access; upgrade to the Pro or Team plan."
        )
    if not account.paid:
        raise ApiError(402, "payment_required", f"The {account.plan} plan of account '{account.name}' is unpaid.")
    return account


def require_control(token: Token, account: Account) -> None:
    """Control actions need the servers:control scope and an owner or admin role (section 5, item 5)."""
    if token.scope != "control":
        raise ApiError(
            403,
            "insufficient_scope",
            f"The API token '{token.name}' is read-only; this action needs the servers:control scope.",
        )
    role = account.users.get(token.user)
    if role not in CONTROL_ROLES:
        raise ApiError(
            403,
            "insufficient_role",
            f"User '{token.user}' has the role '{role}'; control actions need the owner or admin role.",
        )
