"""Token authentication (spec §5): `Authorization: Token <40 hex>`."""

from __future__ import annotations

import hmac

from django.contrib.auth.models import AnonymousUser
from django.db import models

from inventory.users.models import Token, User
from inventory.users.sealing import seal
from queryengine import jsonsql
from queryengine.compiler import PreparedQuery


class AuthenticationFailed(Exception):
    def __init__(self, detail: str):
        super().__init__(detail)
        self.detail = detail


def authenticate(request) -> tuple[object, Token | None]:
    """The caller and their token; anonymous when no token was sent; bad tokens raise."""
    header = request.META.get("HTTP_AUTHORIZATION", "").split()
    if not header or header[0].lower() != "token":
        return AnonymousUser(), None
    if len(header) == 1:
        raise AuthenticationFailed("Invalid token header. No credentials provided.")
    if len(header) > 2:
        raise AuthenticationFailed("Invalid token header. Token string should not contain spaces.")
    key = header[1]
    token = token_for(key) if len(key) == 40 else None
    # Compare in constant time so the answer's timing tells nothing about the stored key.
    if token is None or not hmac.compare_digest(token.key.encode(), key.encode()):
        raise AuthenticationFailed("Invalid token")
    if token.is_expired:
        raise AuthenticationFailed("Token expired")
    if not token.user.is_active:
        raise AuthenticationFailed("User inactive or deleted.")
    return token.user, token


# Every request looks its token up: the query is compiled once, and the token and its user are
# built straight from the row. JSON columns stay deferred (read in binary format, they would
# arrive decoded).
_TOKEN_FIELDS = [f.attname for f in Token._meta.concrete_fields]
_USER_FIELDS = [f.attname for f in User._meta.concrete_fields if not isinstance(f, models.JSONField)]
_by_key = PreparedQuery(
    Token,
    lambda: (
        Token.objects.filter(key=jsonsql.slot(Token._meta.get_field("key")))
        .order_by()
        .values_list(*_TOKEN_FIELDS, *(f"user__{name}" for name in _USER_FIELDS))
    ),
    parameter=lambda connection, key: seal(key),  # keys are stored sealed, deterministically
)


def token_for(key: str) -> Token | None:
    rows = _by_key.rows(key)
    if not rows:
        return None
    alias, split = Token._default_manager.db, len(_TOKEN_FIELDS)
    token = Token.from_db(alias, _TOKEN_FIELDS, rows[0][:split])
    token.user = User.from_db(alias, _USER_FIELDS, rows[0][split:])
    return token
