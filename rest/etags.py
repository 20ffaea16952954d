"""Entity tags: lost-update protection for automation that reads, edits and writes back one object.

An object's tag is a digest of its stored row (every concrete column, `last_updated` included),
so it is the same whatever depth, version or format the object was read in, and changes with
any write to it. `If-Match` on PUT/PATCH/DELETE is checked under a lock held until the write
commits, so two clients holding the same tag cannot both write; `If-None-Match` on a detail GET
answers 304 without reading the object.
"""

from __future__ import annotations

import hashlib
from contextlib import contextmanager
from functools import cache

import orjson
from django.db import connection, transaction
from django.db.models import F

from queryengine.jsonsql import IdIn
from queryengine.prepared import PreparedQuery, stored_columns
from queryengine.registry import Resource

STALE = "The object has changed since it was read (its ETag no longer matches); nothing was changed."


@cache
def _stored_row(model) -> PreparedQuery:
    """An object's stored row by id, compiled once per model (every detail read asks for it).
    Read in text format, so the values are those values_list gives."""
    return PreparedQuery(
        model,
        lambda: model._default_manager.filter(IdIn(F("pk"))).order_by().values_list(*stored_columns(model)),
        binary=False,
    )


def current_tag(resource: Resource, pk, lock: bool = False, context=None) -> str | None:
    """The object's tag in quotes, as sent in ETag, or None if no such object exists; from the
    row as this request's write stored it, when `context` holds it."""
    row = context.stored_rows.get((resource.model, str(pk))) if context is not None else None
    if row is None and lock:
        rows = resource.model._default_manager.filter(pk=pk)
        if connection.features.has_select_for_update:
            rows = rows.select_for_update()
        row = rows.values_list(*stored_columns(resource.model)).first()
    elif row is None:
        row = next(iter(_stored_row(resource.model).rows([str(pk)])), None)
    if row is None:
        return None
    digest = hashlib.blake2b(orjson.dumps(row, default=str, option=orjson.OPT_SORT_KEYS), digest_size=16)
    return f'"{digest.hexdigest()}"'


def _listed(header: str) -> list[str]:
    """The tags of an If-Match / If-None-Match header; weak tags compare by their value."""
    return [tag.strip().removeprefix("W/") for tag in header.split(",") if tag.strip()]


def not_modified(request, tag: str | None) -> bool:
    header = request.META.get("HTTP_IF_NONE_MATCH")
    if not header or tag is None:
        return False
    listed = _listed(header)
    return "*" in listed or tag in listed


@contextmanager
def matching(request, resource: Resource, pk):
    """Run a write only if the client's If-Match (when sent) names the object's current tag.

    Yields None when the header is absent (the write runs as it always did); otherwise the write
    runs in one transaction with the row locked, so nothing can change it between check and write.
    """
    header = request.META.get("HTTP_IF_MATCH")
    if not header:
        yield
        return
    with transaction.atomic():
        tag = current_tag(resource, pk, lock=True)
        listed = _listed(header)
        if tag is None or ("*" not in listed and tag not in listed):
            raise PreconditionFailed(tag)
        yield


class PreconditionFailed(Exception):
    def __init__(self, tag: str | None):
        super().__init__(STALE)
        self.tag = tag
