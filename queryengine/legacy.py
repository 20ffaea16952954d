"""The API 1.x forms of a resource (spec §9): which values a 1.x object shows, under which
names, and how each is shown. Documents (`documents.legacy_selection`) and the 1.x OpenAPI
schemas are both written from these lists, so the two cannot disagree.

A top-level 1.x object shows every field by its 1.x name (`registry.Legacy.renamed`), fields
1.x alone has (slugs, a device's site), related objects in their nested form or as {value,
label}, many-to-many lists of nested forms and `created` as a date; the nested form (related
objects, and any object with `brief`) shows id, url, display and the resource's brief fields.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .registry import (
    COMPUTED,
    CONTENT_TYPE,
    CONTENT_TYPES,
    CREATED_DATE,
    DERIVED,
    FILE,
    FOREIGN_KEY,
    MANY_TO_MANY,
    REVERSE,
    SCALAR,
    FieldSpec,
    Resource,
    resource_for,
    version_key,
)
from .registry import GENERIC as GENERIC_KIND
from .registry import INCLUDED as INCLUDED_KIND

# How a value is shown: as it is, as {value, label}, as a nested object, a list of nested
# objects, an object of one of several types, or an `include=` value.
VALUE, CHOICE, NESTED, LIST, GENERIC, INCLUDED = "value", "choice", "nested", "list", "generic", "included"


@dataclass(frozen=True)
class Shown:
    key: str  # the 1.x name
    name: str  # the schema's field it reads
    form: str
    spec: FieldSpec | None = None  # None: id, url, display, counts, timestamps, ...
    targets: tuple[Resource, ...] = ()


REFERENCE = (Shown("id", "id", VALUE), Shown("url", "url", VALUE), Shown("display", "display", VALUE))


def shown_at(legacy, name: str, version: str) -> bool:
    """Whether a 1.x version shows a field (`Legacy.since`: an interface's status from 1.3)."""
    since = legacy.since.get(name)
    return since is None or version_key(version) >= version_key(since)


@lru_cache(maxsize=1024)
def top_fields(resource: Resource, version: str, many: frozenset[str] = frozenset()) -> tuple[Shown, ...]:
    """What a top-level object shows at a 1.x version; `many`: the optional lists and
    `include=` values asked for."""
    legacy = resource.legacy
    shown = [*REFERENCE, *(Shown(legacy.name_of(n), n, VALUE) for n in resource.derived)]
    for spec in resource.fields:
        name = spec.name
        if name in legacy.hidden or name == CREATED_DATE or not shown_at(legacy, name, version):
            continue
        key = legacy.name_of(name)
        if spec.kind == INCLUDED_KIND:
            if name in resource.loaded or name in many or spec.legacy:
                shown.append(Shown(key, name, INCLUDED, spec))
        elif spec.kind in (SCALAR, CONTENT_TYPE, COMPUTED, FILE):
            shown.append(Shown(key, name, VALUE, spec))
        elif spec.kind == GENERIC_KIND:
            targets = tuple(spec.target_resources)
            shown.append(Shown(key, name, GENERIC, spec, targets))
        elif spec.kind in (FOREIGN_KEY, DERIVED):
            related = _related(resource, spec, key)
            if related is not None:
                shown.append(related)
        elif name in many and spec.kind == CONTENT_TYPES:
            shown.append(Shown(key, name, VALUE, spec))
        elif name in many and spec.kind in (MANY_TO_MANY, REVERSE) and resource_for(spec.target) is not None:
            shown.append(Shown(key, name, LIST, spec, (resource_for(spec.target),)))
    for name in resource.timestamps:
        dated = name == "created" and legacy.created_is_date
        shown.append(Shown(name, CREATED_DATE if dated else name, VALUE))
    if resource.has_notes and resource.notes_url:
        shown.append(Shown("notes_url", "notes_url", VALUE))
    if resource.has_custom_fields:
        shown.append(Shown("custom_fields", "custom_fields", VALUE))
    return tuple(shown)


@lru_cache(maxsize=1024)
def nested_fields(resource: Resource) -> tuple[Shown, ...]:
    """The 1.x nested form: id, url, display and the brief fields `Legacy.nested` names (or the
    natural key and the slug), parent objects nested in turn (a device type's manufacturer)."""
    legacy = resource.legacy
    fields = {spec.name: spec for spec in resource.fields}
    shown = list(REFERENCE)
    for entry in legacy.nested if legacy.nested is not None else _default_nested(resource):
        key, _, alias = (part.strip() for part in entry.partition(":"))
        name = alias or legacy.renamed.get(key, key)
        spec = fields.get(name)
        related = _related(resource, spec, key) if spec is not None else None
        shown.append(related or Shown(key, name, VALUE, spec))
    return tuple(shown)


def _related(owner: Resource, spec: FieldSpec, key: str) -> Shown | None:
    if spec.kind not in (FOREIGN_KEY, DERIVED):
        return None
    target = resource_for(spec.target)
    if target is None:
        return None
    choice = target.legacy.as_choice or spec.name in owner.legacy.choices
    return Shown(key, spec.name, CHOICE if choice else NESTED, spec, (target,))


def _default_nested(resource: Resource) -> tuple[str, ...]:
    names = {spec.name for spec in resource.fields if spec.kind == SCALAR}
    key = resource.natural_key if resource.natural_key in names else "name" if "name" in names else None
    return tuple(n for n in (key, "slug") if n in names)
