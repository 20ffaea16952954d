"""Definitions that every write reads and that rarely change (custom fields, relationships,
computed fields, webhooks, job hooks): each server process keeps what it loaded until any
process changes one of them.

What a process loaded is kept beside a token that lives in the shared cache (`CACHE_URL`: the
file cache of the machine's server processes, or Redis) and is read once per request. Saving or
deleting an object of a watched model (`watch`) replaces the token at once and again once the
change commits, so a process that reloaded in between, before the change was visible to it,
loads again. Inside the transaction that changes a definition nothing is kept: what it reads
may yet be rolled back. Without a usable shared cache, definitions are read every time.
"""

from __future__ import annotations

import functools
import os
import threading
import time
import uuid
from collections.abc import Callable
from contextvars import ContextVar

from django.core.cache import DEFAULT_CACHE_ALIAS, cache, caches
from django.core.cache.backends.filebased import FileBasedCache
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.db.models import signals

KEY = "netinventory:definitions-token"
_kept: dict = {}  # name -> (token, value)
# The token a request read, so it reads it once ([None]: not yet; no list: outside a request).
_request_token: ContextVar[list | None] = ContextVar("definitions_token", default=None)


class _Changing(threading.local):
    transaction = None  # the outermost atomic block of this thread that changed a definition


_changing = _Changing()


def cached(name, load: Callable):
    """`load()`, or what it returned for `name` since the last change to any definition."""
    if _changing_now():
        return load()
    token = _token()
    kept = _kept.get(name)
    if kept is not None and token is not None and kept[0] == token:
        return kept[1]
    value = load()
    if token is not None:
        _kept[name] = (token, value)
    return value


def watch(*models, transactional: bool = True) -> None:
    """Any save or delete of these models' objects, or change of their many-to-many values,
    changes the definitions. With `transactional`, nothing is kept inside the transaction that
    made the change; without, the token is only renewed, at once and on commit (for what is
    never read inside a transaction that changes it: the tokens a request authenticates with)."""
    receiver = changed if transactional else renewed
    for model in models:
        uid = f"definitions.{model._meta.label_lower}"
        signals.post_save.connect(receiver, sender=model, dispatch_uid=f"{uid}.saved")
        signals.post_delete.connect(receiver, sender=model, dispatch_uid=f"{uid}.deleted")
        for field in model._meta.many_to_many:
            through = field.remote_field.through
            signals.m2m_changed.connect(receiver, sender=through, dispatch_uid=f"{uid}.{field.name}")


def forget(**_) -> None:
    """Every process loads the definitions again: the database changed under them without
    signals (a migration or flush; rows restored in bulk)."""
    _kept.clear()
    _new_token()


# A migration may add or change definitions; `flush` empties their tables.
signals.post_migrate.connect(forget, dispatch_uid="definitions.migrated")


def changed(using: str = DEFAULT_DB_ALIAS, **_) -> None:
    renewed(using)
    connection = connections[using]
    if connection.in_atomic_block and connection.atomic_blocks:
        _changing.transaction = connection.atomic_blocks[0]


def renewed(using: str = DEFAULT_DB_ALIAS, **_) -> None:
    _kept.clear()
    _new_token()
    if connections[using].in_atomic_block:
        transaction.on_commit(_new_token, using=using)


def _changing_now() -> bool:
    if _changing.transaction is None:
        return False
    connection = connections[DEFAULT_DB_ALIAS]
    if connection.in_atomic_block and connection.atomic_blocks[:1] == [_changing.transaction]:
        return True
    _changing.transaction = None  # that transaction is over: committed (and announced) or gone
    return False


def _token() -> str | None:
    memo = _request_token.get()
    if memo is not None and memo[0] is not None:
        return memo[0]
    try:
        token = _shared_token()
        if token is None:
            cache.add(KEY, uuid.uuid4().hex, None)
            token = cache.get(KEY)
    except Exception:  # the shared cache is unreachable: read definitions from the database
        return None
    if memo is not None:
        memo[0] = token
    return token


_file_seen: tuple = (None, None)  # (the token file's identity, the token it held)
SETTLED_NS = 1_000_000_000


@functools.cache
def _token_file(shared: FileBasedCache) -> str:
    return shared._key_to_file(KEY)


def _shared_token() -> str | None:
    """The shared token. In the machine's file cache it is read again only once its file has
    changed (a stat, not an open, a read and an unpickling on every request): a token is
    written whole to a new file that replaces the old one, so a file of the same inode, time
    and size holds the token read from it before. File times are coarse (a clock tick) and a
    freed inode is reused, so a file written within the last second is read all the same."""
    global _file_seen
    shared = caches[DEFAULT_CACHE_ALIAS]
    if not isinstance(shared, FileBasedCache):
        return shared.get(KEY)
    try:
        stat = os.stat(_token_file(shared))
    except FileNotFoundError:
        return None
    seen = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
    if _file_seen[0] == seen and time.time_ns() - stat.st_mtime_ns > SETTLED_NS:
        return _file_seen[1]
    token = shared.get(KEY)  # read after the stat: never older than the file it was taken of
    _file_seen = (seen, token)
    return token


def _new_token() -> None:
    token = uuid.uuid4().hex
    try:
        cache.set(KEY, token, None)
    except Exception:
        token = None
    memo = _request_token.get()
    if memo is not None:
        memo[0] = token


class RequestMiddleware:
    """The shared token is read at most once per request."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        reset = _request_token.set([None])
        try:
            return self.get_response(request)
        finally:
            _request_token.reset(reset)
