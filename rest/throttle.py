"""Slow down password guessing: after repeated failed sign-ins from one address, or for one user
name, further attempts are refused with 429 and Retry-After until the window has passed.

Counts live in Django's cache, which every server process shares (a file cache beside the
embedded database by default, Redis with CACHE_URL in production).
"""

from __future__ import annotations

import hashlib
import math
import time

from django.conf import settings
from django.core.cache import cache


class Throttled(Exception):
    def __init__(self, retry_after: int):
        super().__init__("Too many failed sign-in attempts.")
        self.retry_after = retry_after
        self.detail = f"Too many failed sign-in attempts; try again in {retry_after} seconds."


def _keys(request, username: str) -> list[str]:
    address = request.META.get("REMOTE_ADDR", "")
    # Hashed: user names may hold characters a cache key cannot.
    user = hashlib.sha256(username.casefold().encode()).hexdigest()[:32]
    return [f"signin-failures:address:{address}", f"signin-failures:user:{user}"]


def check(request, username: str) -> None:
    """Raise Throttled while the address or the user name has used up its failures."""
    now = time.time()
    for key in _keys(request, username):
        count, started = cache.get(key, (0, now))
        if count >= settings.SIGNIN_FAILURES_ALLOWED:
            remaining = started + settings.SIGNIN_FAILURE_WINDOW - now
            if remaining > 0:
                raise Throttled(math.ceil(remaining))


def failed(request, username: str) -> None:
    now = time.time()
    window = settings.SIGNIN_FAILURE_WINDOW
    for key in _keys(request, username):
        count, started = cache.get(key, (0, now))
        if now - started > window:
            count, started = 0, now
        cache.set(key, (count + 1, started), timeout=int(window - (now - started)) + 1)


def succeeded(request, username: str) -> None:
    """A right password clears the user name's count (not the address's: one address may be
    guessing many names)."""
    cache.delete(_keys(request, username)[1])
