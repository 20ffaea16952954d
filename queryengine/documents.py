"""GraphQL documents for REST request shapes.

A REST read is a list or detail of one resource at a depth, with a set of many-to-many fields
and a set of filter names. Each shape maps to one document text (values travel as variables),
so the engine parses, validates and compiles it once.

A nested object at a depth is a named fragment (`Device_at_2`), defined once however many
fields hold one: written inline, the text would grow with every level by the number of related
fields (a depth-6 interface was megabytes), and so would parsing, validating and compiling it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache

from . import legacy, query, twins
from .naturalslug import NAME as NATURAL_SLUG
from .registry import (
    COMPUTED,
    CONTENT_TYPE,
    CONTENT_TYPES,
    FILE,
    FOREIGN_KEY,
    GENERIC,
    INCLUDED,
    MANY_TO_MANY,
    REVERSE,
    SCALAR,
    Resource,
    resource_for,
)
from .selections import OBJECT_INTERFACE, spread_names

REFERENCE = "id object_type url"
GENERIC_MARK = "generic_foreign_key"  # always true: the object is shown through a generic relation


@dataclass(frozen=True)
class LegacyShape:
    """The API 1.x shape of a response (spec §9): nested serializers instead of depth, at one
    1.x version; `brief` shows top-level objects in their nested form too."""

    version: str
    brief: bool = False


# What a write answers from API 2.x on: depth 0 without the counts of related objects, as the
# reference's write serializers do.
WRITTEN = "written"


def selection_of(resource: Resource, shape, many: frozenset[str] = frozenset()) -> str:
    """The top-level fields of a response's shape: a depth (2.x and later), WRITTEN or a
    LegacyShape."""
    if isinstance(shape, LegacyShape):
        return nested_selection(resource) if shape.brief else legacy_selection(resource, shape.version, many)
    if shape == WRITTEN:
        return selection(resource, 0, many, counts=False)
    return selection(resource, shape, many)


def selection(
    resource: Resource, depth: int, many: frozenset[str] = frozenset(), top: bool = True, counts: bool = True
) -> str:
    """The fields of `resource` at `depth` (spec §4.6): related objects are references at 0 and
    nested objects below; nested objects omit many-to-many and derived fields (`counts`: the
    counts of related objects among them). `many` names the optional top-level fields shown:
    many-to-many lists, `include=` values and write-only fields a version shows."""
    parts = ["id", "object_type", "display", "url", *([NATURAL_SLUG] if resource.natural_slug else [])]
    if top:
        parts += [name for name in resource.derived if counts or name not in resource.counts]
    for spec in resource.current_fields:
        if spec.name in resource.write_only and not (top and spec.name in many):
            continue
        if spec.kind == INCLUDED:
            # Loaded values (a cable's connectors) show at the top level only, as the reference's.
            if top and (spec.name in resource.loaded or spec.name in many):
                parts.append(f"{twins.selected(spec)}(depth: {depth})")
        elif spec.kind in (SCALAR, CONTENT_TYPE, COMPUTED, FILE):
            parts.append(twins.selected(spec))
        elif spec.kind == GENERIC:
            union = spec.name in resource.unions
            parts.append(f"{spec.name} {{ {_generic(spec, depth if top else 0, union)} }}")
        elif spec.kind == FOREIGN_KEY:
            target = resource_for(spec.target)
            if target is not None:
                generic = spec.name in resource.nested_as_generic
                parts.append(f"{spec.name} {{ {_related(target, depth, generic)} }}")
        elif top and spec.name in many:
            if spec.kind == CONTENT_TYPES:
                parts.append(twins.selected(spec))
            elif spec.kind in (MANY_TO_MANY, REVERSE) and resource_for(spec.target) is not None:
                parts.append(f"{twins.selected(spec)} {{ {_related(resource_for(spec.target), depth)} }}")
    parts += resource.timestamps
    if resource.shows_notes_url:
        parts.append("notes_url")
    if resource.has_custom_fields:
        parts.append("custom_fields")
    return " ".join(parts)


def _related(target: Resource, depth: int, generic: bool = False) -> str:
    return REFERENCE if depth <= 0 else f"...{fragment(target, depth - 1, generic)}"


# fragment name -> (resource, depth, whether it is shown through a generic relation)
FRAGMENTS: dict[str, tuple[Resource, int, bool]] = {}
# fragment name -> the definition of a response's top-level fields (`top_spread`)
TOP_FRAGMENTS: dict[str, str] = {}


def top_spread(resource: Resource, fields: str) -> str:
    """A response's top-level fields as the spread of a fragment of their own: documents of one
    shape then differ in their first line only (filters), and the engine parses the rest once."""
    name = f"{resource.type_name}_top_{hashlib.sha1(fields.encode()).hexdigest()[:16]}"
    TOP_FRAGMENTS[name] = f"fragment {name} on {resource.type_name} {{ {fields} }}"
    return f"...{name}"


def fragment(resource: Resource, depth: int, generic: bool = False) -> str:
    """The name of the fragment of `resource` nested at `depth` (its fields: `selection`). An
    object nested through a generic relation says so (`generic_foreign_key`), as the reference's."""
    name = f"{resource.type_name}{'_generic' if generic else ''}_at_{depth}"
    FRAGMENTS[name] = (resource, depth, generic)
    return name


@lru_cache(maxsize=4096)
def _definition(name: str) -> tuple[str, frozenset[str]]:
    """A fragment's definition and the fragments it spreads."""
    if name in TOP_FRAGMENTS:
        definition = TOP_FRAGMENTS[name]
    else:
        resource, depth, generic = FRAGMENTS[name]
        fields = selection(resource, depth, top=False) + (f" {GENERIC_MARK}" if generic else "")
        definition = f"fragment {name} on {resource.type_name} {{ {fields} }}"
    return definition, spread_names(definition)


def with_fragments(text: str) -> str:
    """A document's text followed by the definitions of the fragments it spreads, directly or
    through other fragments, each once and on a line of its own (engine: each is parsed once)."""
    pending, seen, definitions = list(spread_names(text)), set(), []
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        definition, spreads = _definition(name)
        definitions.append(definition)
        pending.extend(spreads)
    return "\n".join([text, *sorted(definitions)])


def _generic(spec, depth: int, union: bool = False) -> str:
    """A generic relation: a reference at depth 0, below it the object of whichever type it is
    (at the top level only: one level of every possible type keeps the document small)."""
    targets = spec.target_resources
    if depth <= 0 or not targets:
        # A union's members show their shared fields in a fragment on the interface.
        return f"... on {OBJECT_INTERFACE} {{ {REFERENCE} }}" if union else REFERENCE
    return " ".join(f"... on {t.type_name} {{ ...{fragment(t, depth - 1, True)} }}" for t in targets)


# --- API 1.x ---------------------------------------------------------------------------------

CHOICE = "value: slug label: name"  # a related object 1.x shows as {value, label}


@lru_cache(maxsize=1024)
def legacy_selection(resource: Resource, version: str, many: frozenset[str] = frozenset()) -> str:
    """A top-level object at API 1.x (legacy.top_fields) as a selection."""
    return _render(legacy.top_fields(resource, version, many), frozenset())


@lru_cache(maxsize=1024)
def nested_selection(resource: Resource, within: frozenset = frozenset()) -> str:
    """The 1.x nested form (legacy.nested_fields); a cycle of parents ends in a reference."""
    return _render(legacy.nested_fields(resource), within | {resource})


def _render(shown, within: frozenset) -> str:
    parts = []
    for entry in shown:
        key = entry.key if entry.key == entry.name else f"{entry.key}: {entry.name}"
        if entry.spec is not None and entry.spec.displaced:  # its twin holds what REST shows
            key = twins.selected(entry.spec, entry.key)
        if entry.form == legacy.VALUE:
            parts.append(key if entry.spec is None else twins.selected(entry.spec, entry.key))
        elif entry.form == legacy.INCLUDED:
            parts.append(f"{key}(depth: 0)")
        elif entry.form == legacy.CHOICE:
            parts.append(f"{key} {{ {CHOICE} }}")
        elif entry.form == legacy.GENERIC:
            fragments = " ".join(f"... on {t.type_name} {{ {nested_selection(t)} }}" for t in entry.targets)
            parts.append(f"{key} {{ {fragments or REFERENCE} }}")
        elif entry.targets[0] in within and entry.form == legacy.NESTED:
            parts.append(f"{key} {{ id url display }}")
        else:  # NESTED or LIST
            parts.append(f"{key} {{ {nested_selection(entry.targets[0], within)} }}")
    return " ".join(parts)


def many_to_many_fields(resource: Resource) -> tuple[str, ...]:
    """The lists a response shows on request (`exclude_m2m=false`): written-only ones never."""
    return tuple(
        f.name
        for f in resource.fields
        if (
            f.kind == CONTENT_TYPES
            or f.kind in (MANY_TO_MANY, REVERSE)
            and resource_for(f.target) is not None
        )
        and f.name not in resource.write_only
    )


@lru_cache(maxsize=4096)
def list_document(resource: Resource, depth, many: frozenset[str], filter_names: tuple[str, ...]) -> str:
    """`count` and `results` of one page; filter `i` is passed as variable `$f<i>`."""
    declared = "".join(
        f", $f{i}: {query.argument_type(resource, name)}" for i, name in enumerate(filter_names)
    )
    arguments = "".join(f", {name}: $f{i}" for i, name in enumerate(filter_names))
    filters_only = arguments[2:]
    count_arguments = f"({filters_only})" if filters_only else ""
    return with_fragments(
        f"query ($limit: Int, $offset: Int, $order_by: [String]{declared}) {{ "
        f"count: {resource.list_field}_count{count_arguments} "
        f"results: {resource.list_field}(limit: $limit, offset: $offset, order_by: $order_by{arguments}) "
        f"{{ {top_spread(resource, selection_of(resource, depth, many))} }} }}"
    )


@lru_cache(maxsize=1024)
def detail_document(resource: Resource, depth, many: frozenset[str]) -> str:
    """One object at `depth` (an int) or in a LegacyShape."""
    return with_fragments(
        "query ($id: ID!) "
        f"{{ object: {resource.single_field}(id: $id) "
        f"{{ {top_spread(resource, selection_of(resource, depth, many))} }} }}"
    )


@lru_cache(maxsize=1024)
def write_document(resource: Resource, kind: str, many: frozenset[str], shape=WRITTEN) -> str:
    """The mutation behind a REST write; created and updated objects come back at depth 0 (or
    in a LegacyShape)."""
    field = f"{kind}_{resource.list_field}"
    if kind == "delete":
        return f"mutation ($ids: [{resource.pk_type}!]!) {{ result: {field}(ids: $ids) }}"
    if kind == "update":
        head, arguments = "$data: [GenericScalar]!, $partial: Boolean", "data: $data, partial: $partial"
    else:
        head, arguments = "$data: [GenericScalar]!", "data: $data"
    return with_fragments(
        f"mutation ({head}) {{ result: {field}({arguments}) "
        f"{{ {top_spread(resource, selection_of(resource, shape, many))} }} }}"
    )
