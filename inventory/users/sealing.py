"""Token keys are stored sealed, so a copy of the database alone lets nobody sign in.

Sealing is AES-GCM with a nonce derived from the key itself (HMAC), which makes it
deterministic: equal keys seal to equal text, so the unique index and `key=` lookups work
unchanged, while the stored text is useless without the server's secret. The secret is
TOKEN_SEALING_KEY, or derived from SECRET_KEY when that is not set; changing it makes every
stored token unreadable (their owners provision new ones).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from functools import cache

from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from django.conf import settings
from django.db import models

PREFIX = "sealed:"


@cache
def _secret(material: str) -> bytes:
    return hashlib.sha256(f"netinventory-token-sealing:{material}".encode()).digest()


def _key() -> bytes:
    return _secret(getattr(settings, "TOKEN_SEALING_KEY", "") or settings.SECRET_KEY)


def seal(plain: str) -> str:
    secret = _key()
    data = plain.encode()
    nonce = hmac.new(secret, data, hashlib.sha256).digest()[:12]
    return PREFIX + base64.urlsafe_b64encode(nonce + AESGCM(secret).encrypt(nonce, data, b"token")).decode()


def unseal(stored: str) -> str:
    if not stored.startswith(PREFIX):
        return stored
    raw = base64.urlsafe_b64decode(stored[len(PREFIX) :])
    return AESGCM(_key()).decrypt(raw[:12], raw[12:], b"token").decode()


class SealedKeyField(models.CharField):
    """A CharField whose value is sealed in the database and plain everywhere else."""

    # Sealed text can be compared for equality, not searched: why its other lookups are refused.
    exact_lookups_only = (
        "A token's key is stored sealed: it is matched whole (key=, key__n=), never by part or "
        "pattern, which would let anyone reading a token find its key a character at a time."
    )

    def from_db_value(self, value, expression, connection):
        return None if value is None else unseal(value)

    def get_prep_value(self, value):
        value = super().get_prep_value(value)
        return None if value is None or value.startswith(PREFIX) else seal(value)
