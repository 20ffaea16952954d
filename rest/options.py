"""OPTIONS (spec §2.8): what an endpoint renders and parses, and which fields a caller who may
write can send, with their types and choices (pynautobot's `choices()` reads this)."""

from __future__ import annotations

from django.db import models

from queryengine.errors import PermissionDenied
from queryengine.mutations import require_write
from queryengine.registry import (
    COMPUTED,
    CONTENT_TYPES,
    CREATED_DATE,
    DERIVED,
    FOREIGN_KEY,
    GENERIC,
    INCLUDED,
    MANY_TO_MANY,
    REVERSE,
    SCALAR,
    Resource,
)
from queryengine.writes import writable_fields

from .fieldkinds import options_type, value_limits

RENDERS = ["application/json", "text/html"]
PARSES = ["application/json"]


def _label(text: str) -> str:
    text = str(text)
    return text[:1].upper() + text[1:]


def _read_only(name: str, kind: str = "field", **extra) -> dict:
    return {
        "type": kind,
        "required": False,
        "read_only": True,
        "label": _label(name.replace("_", " ")),
        **extra,
    }


def field_metadata(model_field: models.Field, kind: str, required: bool, read_only: bool) -> dict:
    meta = {
        "type": "field",
        "required": required,
        "read_only": read_only,
        "label": _label(model_field.verbose_name),
    }
    if kind == SCALAR:
        meta["type"] = options_type(model_field)
        if model_field.choices:
            meta["type"] = "field"
            meta["choices"] = [{"value": v, "display": str(d)} for v, d in model_field.flatchoices]
    if model_field.help_text:
        meta["help_text"] = str(model_field.help_text)
    if getattr(model_field, "max_length", None) and meta["type"] in ("string", "email", "url"):
        meta["max_length"] = model_field.max_length
    for bound, limit in value_limits(model_field):
        meta[f"{bound}_value"] = limit
    if isinstance(model_field, models.DecimalField):
        meta.update(max_digits=model_field.max_digits, decimal_places=model_field.decimal_places)
    return meta


def describe_fields(resource: Resource, old: bool = False) -> dict:
    """The fields a write takes and shows (`old`: at API 1.x, by their 1.x names, slugs too)."""
    if old:
        legacy = resource.legacy
        fields = describe_fields(resource, old=None)
        fields.pop("object_type")
        shown = {
            name: meta for name, meta in fields.items() if name not in legacy.hidden and name != CREATED_DATE
        }
        return {legacy.name_of(name): meta for name, meta in shown.items()}
    writable = {f.name: f for f in writable_fields(resource, legacy=old is None)}
    fields = {
        "id": {"type": "string", "required": False, "read_only": False, "label": "Id"},
        "object_type": _read_only("object_type", "string"),
        "display": _read_only("display", help_text="Human friendly display value"),
        "url": _read_only("url"),
    }
    for name in resource.derived:
        fields[name] = _read_only(name, "integer" if name in resource.counts else "field")
    for spec in resource.fields if old is None else resource.current_fields:
        if spec.kind == DERIVED and spec.derived.writes is not None:
            fields[spec.name] = field_metadata(
                resource.model._meta.get_field(spec.derived.writes), FOREIGN_KEY, False, False
            )
        elif spec.kind == COMPUTED:
            entry = writable.get(spec.name)
            fields[spec.name] = {
                "type": {"string": "string", "integer": "integer"}.get(spec.computed.output, "field"),
                "required": bool(entry and entry.required),
                "read_only": entry is None,
                "label": _label(spec.name.replace("_", " ")),
            }
        elif spec.kind == INCLUDED and spec.name in resource.loaded:
            fields[spec.name] = _read_only(spec.name)  # written too, but the reference says read-only
        elif (
            spec.kind in (GENERIC, REVERSE) or spec.model_field is not None and not spec.model_field.concrete
        ):
            fields[spec.name] = _read_only(spec.name)
        elif spec.kind in (SCALAR, FOREIGN_KEY, MANY_TO_MANY, CONTENT_TYPES) or spec.model_field is not None:
            entry = writable.get(spec.name)
            fields[spec.name] = field_metadata(
                spec.model_field, spec.kind, bool(entry and entry.required), entry is None
            )
    for name in resource.timestamps:
        fields[name] = _read_only(name, "datetime")
    if resource.has_notes:
        fields["notes_url"] = _read_only("notes_url")
    if resource.has_custom_fields:
        fields["custom_fields"] = {
            "type": "field",
            "required": False,
            "read_only": False,
            "label": "Custom fields",
        }
    return fields


def describe(resource: Resource, context, detail: bool, old: bool = False) -> dict:
    body = {
        "name": resource.verbose_name if detail else _label(resource.model._meta.verbose_name_plural),
        "description": "",
        "renders": RENDERS,
        "parses": PARSES,
    }
    actions = {}
    creates = () if detail or not resource.creatable else (("POST", "create"),)
    for method, action in creates + (("PUT", "update"),):
        if not resource.writable:
            break
        try:
            require_write(context, resource, action)
        except PermissionDenied:
            continue
        actions[method] = describe_fields(resource, old)
    if actions:
        body["actions"] = actions
    return body
