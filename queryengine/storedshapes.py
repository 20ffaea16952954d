"""The shape a change record keeps of an object (`object_data_v2`): the object as the API shows
it at depth 1 with its many-to-many lists and URLs relative to the host, as the reference
stores it.

It is read through the compiled plan of that shape, by id, for a whole write at once: no
GraphQL document is run for it, no page of ids or count is read. A write whose own answer is
that shape (the same plan) hands its read-back over instead (rootplans.RootPlan): the texts are
built once, with the base URL's mark left in, and the mark is replaced for each use."""

from __future__ import annotations

import logging

import orjson
from django.db import DatabaseError

from . import changes, documents
from .jsonsql import BASE_MARK
from .permissions import Everyone
from .registry import Resource, resource_for

# Where the URLs a record keeps start: relative to the host.
STORED_BASE = "/api/"
MARK = BASE_MARK.encode()
# The mark as JSON escapes it: in a value a text holds, or a URL rendered in Python and encoded.
ESCAPED_MARK = b"\\u0001"
STORED = STORED_BASE.encode()
log = logging.getLogger(__name__)
holding = changes.holding  # around a write whose records wait for its read-back


def stored_plan(resource: Resource):
    """The compiled plan of the results of a depth-1 list with every many-to-many list: the
    prepared documents' cache keeps it (and drops it when custom fields change)."""
    from .engine import prepare  # the engine compiles with the schema every resource is in

    many = frozenset(documents.many_to_many_fields(resource))
    prepared = prepare(documents.list_document(resource, 1, many, ("id",)))
    if prepared.plan is None:
        return None
    return next((root.objects for root in prepared.plan.roots if root.kind == "list"), None)


def marked(plan, ids: set[str], viewer, empty: frozenset = frozenset()) -> dict[str, bytes]:
    """{id: JSON text} of the objects, their URLs' base left as the mark (`with_base`)."""
    return plan.load(set(ids), BASE_MARK, viewer, narrow=False, empty=empty)


def with_base(text: bytes, base: str) -> bytes:
    return text.replace(MARK, base.encode())


def shapes(text: bytes) -> dict:
    """A marked text as the record keeps it."""
    return orjson.loads(text.replace(MARK, STORED))


def read(resource: Resource, ids: set[str], empty: frozenset = frozenset()) -> dict[str, dict]:
    """{id: shape} of objects of one resource (those a write knows have no members of a
    many-to-many list, `empty`, read without it); one read for them all."""
    from .schema import RequestContext

    plan = stored_plan(resource)
    if plan is None or not ids:
        return {}
    viewer = RequestContext(user=Everyone(), base_url=STORED_BASE).viewer()
    viewer.prime(plan.inside)
    return {pk: shapes(text) for pk, text in marked(plan, ids, viewer, empty).items()}


def recorded_with_read_back(plan, held: list, writer, written: list, created: bool, viewer, context):
    """Hand the write's held change records over with the shapes they keep, where the recorder
    keeps them. When the write answers in that very shape (the same plan, a caller who may see
    every object in it), the read-back is built once with the base URL left as its mark and
    serves both: its texts are returned ({id: text}); otherwise the shapes are read for all the
    write's objects of each model at once, and None is returned."""
    if not held or not changes.shapes_wanted():
        changes.release(held)
        return None
    resource, answer = writer.resource, None
    ids = {str(obj.pk) for obj in written}
    empty = writer.known_empty(plan.many_lists, written, created)
    if plan is stored_plan(resource) and all(viewer.subset(r) is None for r in plan.inside):
        texts = marked(plan, ids, viewer, empty)
        if not any(ESCAPED_MARK in text for text in texts.values()):
            answer = {pk: with_base(text, context.base_url) for pk, text in texts.items()}
            by_id = {pk: shapes(text) for pk, text in texts.items()}
            attach(held, resource.model, by_id)
    by_model: dict = {}
    for records, _, _ in held:
        for change in records:
            if change.action != changes.DELETE and change.shape is None:
                by_model.setdefault(type(change.instance), []).append(change)
    for model, waiting in by_model.items():
        target = resource_for(model)
        target_plan = None if target is None else stored_plan(target)
        if target_plan is None:
            continue
        objects = [change.instance for change in waiting]
        known = writer.known_empty(target_plan.many_lists, objects, created) if target is resource else ()
        try:
            found = read(target, {str(c.pk) for c in waiting}, frozenset(known))
        except DatabaseError:
            raise  # the write's own deferred statement failed here: the write fails with it
        except Exception as exc:  # never fails the write: the recorder reads them, or keeps none
            log.warning("no API shape for %s changes: %s", target.object_type, exc)
            continue
        attach(held, model, found)
    changes.release(held)
    return answer


def attach(held: list, model, shapes: dict) -> None:
    for records, _, _ in held:
        for change in records:
            if type(change.instance) is model and change.shape is None:
                change.shape = shapes.get(str(change.pk))
