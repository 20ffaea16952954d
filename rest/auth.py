"""Authentication (spec §5): `Authorization: Token <40 hex>` for API clients; for a browser signed
in at /login/, its session, with Django's CSRF check on unsafe methods (token clients need none)."""

from __future__ import annotations

import hmac

from django.contrib.auth.models import AnonymousUser
from django.db import models
from django.middleware.csrf import CsrfViewMiddleware

from inventory.users.models import Token, User
from inventory.users.sealing import seal
from queryengine import jsonsql
from queryengine.definitions import cached
from queryengine.prepared import PreparedQuery

from . import throttle


class AuthenticationFailed(Exception):
    def __init__(self, detail: str):
        super().__init__(detail)
        self.detail = detail


SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})


def authenticate(request, session: bool = False) -> tuple[object, Token | None]:
    """The caller and their token; bad tokens raise. Without an Authorization header the caller is
    anonymous, or with `session` the signed-in user of the request's session cookie."""
    header = request.META.get("HTTP_AUTHORIZATION", "").split()
    if not header:
        return (session_user(request) if session else None) or AnonymousUser(), None
    if header[0].lower() != "token":
        return AnonymousUser(), None
    throttle.refused_here(request)  # an address this process knows to be throttled tries no key
    if len(header) == 1:
        raise failed(request, f"Invalid token header. No credentials provided. {EXPECTED_HEADER}")
    if len(header) > 2:
        raise failed(
            request, f"Invalid token header. Token string should not contain spaces. {EXPECTED_HEADER}"
        )
    key = header[1]
    # A key this process does not hold is looked up only while the address may still fail.
    token = token_for(key, before_lookup=lambda: throttle.check_tokens(request)) if len(key) == 40 else None
    # Compare in constant time so the answer's timing tells nothing about the stored key.
    if token is None or not hmac.compare_digest(token.key.encode(), key.encode()):
        raise failed(request, "Invalid token")
    if token.is_expired:
        raise failed(request, "Token expired")
    if not token.user.is_active:
        raise failed(request, "User inactive or deleted.")
    return token.user, token


EXPECTED_HEADER = 'Send the header "Authorization: Token <40-character key>".'
NOT_PROVIDED = "Authentication credentials were not provided."


def no_credentials(request) -> str:
    """Why a request counts as anonymous, and, when it sent another kind of Authorization
    header (`Bearer ...`, a bare key), the form this API expects."""
    scheme = request.META.get("HTTP_AUTHORIZATION", "").split()[:1]
    if not scheme or scheme[0].lower() == "basic":
        return NOT_PROVIDED
    return f"{NOT_PROVIDED} {EXPECTED_HEADER}"


def failed(request, detail: str) -> AuthenticationFailed:
    """A failed token lookup, counted against the address (Throttled once it has none left)."""
    throttle.token_failed(request)
    return AuthenticationFailed(detail)


def session_user(request):
    """The user signed in through the session, if any. A browser sends the cookie on any request,
    including one another site makes it send, so unsafe methods must prove with the CSRF token
    that they come from a page of this service."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated or not user.is_active:
        return None
    if request.method not in SAFE_METHODS:
        reason = _CsrfCheck(lambda request: None).check(request)
        if reason:
            raise AuthenticationFailed(f"CSRF Failed: {reason}")
    return user


class _CsrfCheck(CsrfViewMiddleware):
    """Django's own CSRF check (token, cookie, Origin and Referer), answering the reason instead of
    a response."""

    def _reject(self, request, reason):
        return reason

    def check(self, request) -> str | None:
        self.process_request(request)
        return self.process_view(request, None, (), {})


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


# Keys this process found, with their rows, until any token or user changes anywhere
# (queryengine.definitions; inventory.users watches both). Unknown keys are never kept, and the
# number kept is bounded.
KEPT_TOKENS = 1000


def token_for(key: str, before_lookup=None) -> Token | None:
    """The token of a key; `before_lookup` runs before the database is asked (a key this process
    holds is not)."""
    known = cached("tokens", dict)
    row = known.get(key)
    if row is None:
        if before_lookup is not None:
            before_lookup()
        rows = _by_key.rows(key)
        if not rows:
            return None
        row = rows[0]
        if len(known) >= KEPT_TOKENS:
            known.clear()
        known[key] = row
    # Built afresh for each request: a user object caches its permissions as it is asked.
    alias, split = Token._default_manager.db, len(_TOKEN_FIELDS)
    token = Token.from_db(alias, _TOKEN_FIELDS, row[:split])
    token.user = User.from_db(alias, _USER_FIELDS, row[split:])
    return token
