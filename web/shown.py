"""What the object pages show of a model, derived from its registry declaration: human labels,
the columns of its list, the fields of its page and form, the relations pointing at it, and the
HTML of one value (written directly: a 1000-row table built by the template engine would cost
more than the API call behind it)."""

from __future__ import annotations

from functools import cache, lru_cache
from html import escape

import orjson
from django.utils.text import capfirst

from queryengine import twins
from queryengine.query import filters_of, sortable_fields
from queryengine.registry import (
    COMPUTED,
    CONTENT_TYPE,
    FILE,
    FOREIGN_KEY,
    GENERIC,
    INCLUDED,
    SCALAR,
    Resource,
    resource_by_object_type,
    resource_for,
    resources,
)

from .api import api_path

# Fields worth a column in any list they appear in, after those the model's display is built of.
USUAL_COLUMNS = (
    "status", "type", "role", "device", "virtual_machine", "location", "rack", "device_type",
    "manufacturer", "platform", "parent", "namespace", "vrf", "vid", "tenant", "provider",
    "circuit_type", "cluster", "content_type", "description",
)  # fmt: skip
MAX_COLUMNS = 7
EMPTY = '<span class="muted">—</span>'
LIST_ITEMS_SHOWN = 10  # of a list value in one cell


@cache
def served() -> dict[str, Resource]:
    """Resources by route: those of today's API (not 1.x's views of locations as sites)."""
    return {r.route: r for r in resources() if r.versions is None and r.routed}


def label(resource: Resource) -> str:
    return str(capfirst(resource.model._meta.verbose_name))


def plural(resource: Resource) -> str:
    return str(capfirst(resource.model._meta.verbose_name_plural))


def list_url(resource: Resource) -> str:
    return f"/{resource.route}/"


def object_url(resource: Resource, pk) -> str:
    return f"/{resource.route}/{pk}/"


def field_label(name: str) -> str:
    return (
        capfirst(name.replace("_", " ")).replace(" ip", " IP").replace("Ip ", "IP ").replace("Vlan", "VLAN")
    )


def _shown(spec) -> bool:
    if spec.kind == SCALAR:
        internal = getattr(spec.model_field, "get_internal_type", lambda: "")()
        return internal not in ("JSONField", "TextField", "BinaryField")
    return spec.kind in (COMPUTED, FOREIGN_KEY, CONTENT_TYPE, FILE) and (
        spec.kind != FOREIGN_KEY or resource_for(spec.target) is not None
    )


@lru_cache(maxsize=1024)  # bounded: saved views name columns of their own
def list_columns(resource: Resource, named: tuple[str, ...] = ()) -> tuple:
    """The fields a list shows: those `named` that it can show (a saved view's columns), else
    those its objects' display is built of, then the usual ones."""
    specs = {s.name: s for s in resource.current_fields if s.name not in resource.write_only and _shown(s)}
    chosen = tuple(dict.fromkeys(specs[name] for name in named if name in specs))
    if chosen:
        return chosen[:MAX_COLUMNS]
    chosen = []
    for column in resource.display.columns:
        first = column.split("__")[0]
        spec = specs.get(first) or next(
            (s for s in specs.values() if s.kind == COMPUTED and first in s.computed.columns), None
        )
        if spec is not None and spec not in chosen:
            chosen.append(spec)
    chosen += [specs[name] for name in USUAL_COLUMNS if name in specs and specs[name] not in chosen]
    return tuple(chosen[:MAX_COLUMNS])


def selection(spec) -> str:
    """The GraphQL selection of one column: related objects by id and label."""
    if spec.kind == FOREIGN_KEY:
        return f"{spec.name} {{ id display object_type }}"
    return twins.selected(spec)


def sortable(resource: Resource, spec) -> bool:
    return spec.name in sortable_fields(resource)


@cache
def filter_fields(resource: Resource) -> tuple:
    """The filters a list offers as inputs: its columns' exact-match filters, and tags."""
    known = filters_of(resource)
    names = [s.name for s in list_columns(resource) if s.name in known and known[s.name].lookup == "exact"]
    names += [n for n in ("tag",) if n in known]
    specs = {s.name: s for s in resource.current_fields}
    return tuple((name, specs.get(name)) for name in names)


@cache
def detail_fields(resource: Resource) -> tuple:
    """The fields an object's page lists (values read a page at a time have sections of their own)."""
    return tuple(
        s
        for s in resource.current_fields
        if s.kind != INCLUDED and s.name not in resource.write_only and s.name != "_custom_field_data"
    )


@cache
def reverse_relations(resource: Resource) -> tuple:
    """(other resource, filter name, field name) of every foreign key elsewhere pointing at this
    model, with the filter that takes its id: a device's interfaces are
    `/dcim/interfaces/?device_id=<id>`."""
    found = []
    for other in served().values():
        known = filters_of(other)
        for spec in other.current_fields:
            if spec.kind != FOREIGN_KEY or spec.target is not resource.model:
                continue
            by_id = known.get(f"{spec.name}_id")
            if by_id is not None and by_id.kind in ("value", "custom"):  # ids, or ids and names
                found.append((other, by_id.name, spec.name))
            elif getattr(known.get(spec.name), "kind", "") == "related":
                found.append((other, spec.name, spec.name))
    return tuple(found)


# Generic relations with sections of their own on an object's page.
OWN_SECTIONS = ("extras/notes", "extras/object-changes")


@cache
def generic_relations() -> tuple:
    """(other resource, type filter, id filter, name) of every generic relation elsewhere, such
    as a cable's `termination_a` (`?termination_a_type=dcim.interface&termination_a_id=<id>`) or
    a contact association's `associated_object`: any model's objects may be on its far end."""
    found = []
    for other in served().values():
        if other.route in OWN_SECTIONS:
            continue
        known = filters_of(other)
        for spec in other.current_fields:
            name = spec.name
            if spec.kind == CONTENT_TYPE and name.endswith("_type"):
                name = name.removesuffix("_type")
            elif spec.kind != GENERIC:
                continue
            if f"{name}_type" in known and f"{name}_id" in known:
                found.append((other, f"{name}_type", f"{name}_id", name))
    return tuple(found)


@cache
def attached_files(resource: Resource) -> tuple:
    """(other resource, type filter, id filter) of the resources holding stored files that may
    belong to this one's objects (a device's image attachments: `content_type`, `object_id`)."""
    found = []
    for other in served().values():
        if not other.file_fields:
            continue
        for spec in other.current_fields:
            if spec.kind == GENERIC and resource in spec.target_resources:
                found.append((other, *spec.columns))
    return tuple(found)


def image(url: str, text: str, href: str | None = None) -> str:
    """A stored image, shown small, linked to `href` (the image itself by default)."""
    return (
        f'<a href="{escape(href or url)}"><img class="thumb" src="{escape(url)}" alt="{escape(text)}"'
        f' loading="lazy"></a>'
    )


def link(value: dict, text: str | None = None) -> str:
    """A related object as a link to its page, labelled by its display."""
    shown = escape(str(text if text is not None else value.get("display") or value.get("id")))
    href = api_path(value.get("url"))
    if href is None:
        target = resource_by_object_type(value.get("object_type") or "")
        href = object_url(target, value["id"]) if target is not None and value.get("id") else None
    return f'<a href="{escape(href)}">{shown}</a>' if href else shown


def cell(value) -> str:
    """The HTML of one value as the API shows it."""
    if value is None or value == "" or value == []:
        return EMPTY
    if isinstance(value, bool):
        return "Yes" if value else "No"
    if isinstance(value, dict):
        if "id" in value and ("display" in value or "object_type" in value):
            return link(value)
        if "label" in value and "value" in value:
            return escape(str(value["label"]))
        return f"<code>{escape(orjson.dumps(value).decode())}</code>"
    if isinstance(value, list):
        shown = ", ".join(cell(v) for v in value[:LIST_ITEMS_SHOWN])
        return shown + (f" … ({len(value)})" if len(value) > LIST_ITEMS_SHOWN else "")
    return escape(str(value))


def object_type_label(object_type: str) -> str:
    """`ipam.prefix` -> `Prefix`."""
    found = resource_by_object_type(object_type or "")
    return label(found) if found is not None else object_type
