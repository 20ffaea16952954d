"""Token authentication (spec §5): `Authorization: Token <40 hex>`."""

from __future__ import annotations

import hmac

from django.contrib.auth.models import AnonymousUser

from inventory.users.models import Token


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
    token = Token.objects.select_related("user").filter(key=key).first() if len(key) == 40 else None
    # Compare in constant time so the answer's timing tells nothing about the stored key.
    if token is None or not hmac.compare_digest(token.key.encode(), key.encode()):
        raise AuthenticationFailed("Invalid token")
    if token.is_expired:
        raise AuthenticationFailed("Token expired")
    if not token.user.is_active:
        raise AuthenticationFailed("User inactive or deleted.")
    return token.user, token
