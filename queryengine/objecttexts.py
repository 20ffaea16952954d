"""JSON texts of objects outside a document: related objects that values of several types hold
(relationship peers, cable terminations, 1.x nested forms), and display labels."""

from __future__ import annotations

from functools import lru_cache

import orjson
from graphql import parse

from .compiler import ObjectPlan
from .registry import Resource
from .rules import fragments_of
from .scalars import dumps
from .selections import COMPILING
from .sharedplans import SharedPlans


@lru_cache(maxsize=512)
def _selection_plan(resource: Resource, fields: str) -> ObjectPlan:
    from .documents import with_fragments

    document = parse(with_fragments(f"{{ x {{ {fields} }} }}"))
    fragments = fragments_of(document)
    compiling = COMPILING.set((fragments, SharedPlans(fragments)))
    try:
        return ObjectPlan(resource, document.definitions[0].selection_set.selections[0].selection_set)
    finally:
        COMPILING.reset(compiling)


def object_texts(
    resource: Resource, depth: int | None, ids, base: str, viewer=None, generic: bool = False
) -> dict[str, bytes]:
    """{id: JSON text} of objects shown nested at `depth` (spec §4.6: what a related object
    shows; None: the API 1.x nested form), for values that hold objects of several types, such
    as relationship peers; one `viewer` may not see shows as its reference or null (as a
    foreign key's would). `generic`: shown as a generic relation's object (a cable's ends)."""
    from .documents import GENERIC_MARK, nested_selection, selection

    wanted = {str(pk) for pk in ids}
    fields = nested_selection(resource) if depth is None else selection(resource, depth, top=False)
    if generic and depth is not None:
        fields += f" {GENERIC_MARK}"
    texts = _selection_plan(resource, fields).load(set(wanted), base, viewer)
    if viewer is not None and viewer.subset(resource) is not None:
        for pk in wanted - texts.keys():
            shown = {"id": pk, "object_type": resource.object_type, "url": f"{base}{resource.route}/{pk}/"}
            texts[pk] = dumps(shown) if viewer.references else b"null"
    return texts


def display_labels(resource: Resource, ids) -> dict[str, str]:
    """{id: display} of objects of one resource (those that exist)."""
    texts = _selection_plan(resource, "display").load({str(pk) for pk in ids}, "")
    return {pk: orjson.loads(text)["display"] for pk, text in texts.items()}
