"""Slow down guessing: after repeated failed sign-ins from one address, or for one user name, or
repeated failed token lookups from one address, further attempts are refused with 429 and
Retry-After until the window has passed.

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
    def __init__(self, retry_after: int, attempts: str = "sign-in"):
        super().__init__(f"Too many failed {attempts} attempts.")
        self.retry_after = retry_after
        self.detail = f"Too many failed {attempts} attempts; try again in {retry_after} seconds."


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


# Failed token lookups (unknown, malformed, expired keys) count per source address. Only failures
# and lookups of keys a process does not hold yet ask the shared cache (rest/auth.py): a request
# whose token the process already knows pays no round trip. Once an address has used up its
# allowance it is refused until its window ends, whatever key it sends: a guess must never learn
# whether it was right.
TOKEN_ATTEMPTS = "authentication"
# Addresses this process found throttled, with the start of their window: refused at once.
_refused_here: dict[str, float] = {}
REFUSED_KEPT = 10_000


def _token_keys(request) -> tuple[str, str, str]:
    address = request.META.get("REMOTE_ADDR", "")
    return address, f"token-failures:{address}:count", f"token-failures:{address}:start"


def refused_here(request) -> None:
    """Raise Throttled if this process knows the address is throttled (no cache round trip)."""
    if not _refused_here:
        return
    address = request.META.get("REMOTE_ADDR", "")
    started = _refused_here.get(address)
    if started is None:
        return
    remaining = started + settings.TOKEN_FAILURE_WINDOW - time.time()
    if remaining > 0:
        raise Throttled(math.ceil(remaining), TOKEN_ATTEMPTS)
    _refused_here.pop(address, None)


def check_tokens(request) -> None:
    """Raise Throttled while the address has used up its failed token lookups."""
    address, count_key, start_key = _token_keys(request)
    found = cache.get_many([count_key, start_key])
    if found.get(count_key, 0) >= settings.TOKEN_FAILURES_ALLOWED:
        _throttle(address, found.get(start_key))


def token_failed(request) -> None:
    """Count a failed token lookup; raise Throttled when the address had no failure left (the
    one that uses up the allowance is still answered as itself, as a sign-in's is)."""
    address, count_key, start_key = _token_keys(request)
    window = settings.TOKEN_FAILURE_WINDOW
    # Counted with add and incr: concurrent failures each count (incr is atomic on Redis).
    if cache.add(start_key, time.time(), timeout=window + 1):  # the first failure of a window
        cache.set(count_key, 1, timeout=window + 1)
        count = 1
    else:
        try:
            count = cache.incr(count_key)
        except ValueError:  # the window ended between the two calls
            cache.set(count_key, 1, timeout=window + 1)
            count = 1
    if count > settings.TOKEN_FAILURES_ALLOWED:
        _throttle(address, cache.get(start_key))
    elif count == settings.TOKEN_FAILURES_ALLOWED:
        _remember(address, cache.get(start_key))


def _remember(address: str, started: float | None) -> float | None:
    """The end of the address's window, kept in this process; None once it has passed."""
    until = None if started is None else started + settings.TOKEN_FAILURE_WINDOW
    if until is None or until <= time.time():
        return None
    if len(_refused_here) >= REFUSED_KEPT:
        _refused_here.clear()
    _refused_here[address] = started
    return until


def _throttle(address: str, started: float | None) -> None:
    until = _remember(address, started)
    if until is not None:
        raise Throttled(math.ceil(until - time.time()), TOKEN_ATTEMPTS)


def forget_refused() -> None:
    """Forget the addresses this process refuses (the shared counts stay)."""
    _refused_here.clear()
