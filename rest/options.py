"""OPTIONS (spec §2.8): what an endpoint renders and parses, and which fields a caller who may
write can send, with their types and choices (pynautobot's `choices()` reads this)."""

from __future__ import annotations

from django.apps import apps
from django.db import models

from queryengine.errors import PermissionDenied
from queryengine.mutations import require_write
from queryengine.registry import (
    COMPUTED,
    CONTENT_TYPE,
    CONTENT_TYPES,
    CREATED_DATE,
    DERIVED,
    FILE,
    FOREIGN_KEY,
    GENERIC,
    INCLUDED,
    MANY_TO_MANY,
    REVERSE,
    SCALAR,
    Resource,
    resources,
)
from queryengine.writes import writable_fields

from .fieldkinds import options_type, value_limits

RENDERS = ["application/json", "text/html"]
PARSES = ["application/json"]
FORM = "multipart/form-data"  # what writes of stored files (an image's) are sent as, too


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
    """A model field as the reference's serializers describe it: help text always; a writable
    field's length, range and digits, unless it takes choices (or, for a few, as the reference
    shows them, `described_limits` is off); choices shown as bare values are of type "choice"."""
    meta = {
        "type": "field",
        "required": required,
        "read_only": read_only,
        "label": _label(model_field.verbose_name),
    }
    if kind in (SCALAR, FILE):
        meta["type"] = options_type(model_field)
        if model_field.choices:
            meta["type"] = "choice" if getattr(model_field, "shown_as_value", False) else "field"
            meta["choices"] = [{"value": v, "display": str(d)} for v, d in model_field.flatchoices]
    if model_field.help_text:
        meta["help_text"] = str(model_field.help_text)
    if read_only or model_field.choices or not getattr(model_field, "described_limits", True):
        return meta
    if (
        isinstance(model_field, models.CharField | models.TextField | models.FileField)
        and model_field.max_length
    ):
        meta["max_length"] = model_field.max_length
    for bound, limit in value_limits(model_field):
        meta[f"{bound}_value"] = limit
    if isinstance(model_field, models.DecimalField):
        meta.update(max_digits=model_field.max_digits, decimal_places=model_field.decimal_places)
    return meta


def type_choices(resource: Resource, name: str) -> list[dict]:
    """The object types a content type field takes, by label: those of the generic relation it
    belongs to when that names them (a cable's ends), else every registered model's."""
    targets = next(
        (
            tuple(r.object_type for r in spec.target_resources)
            for spec in resource.fields
            if spec.kind == GENERIC and spec.columns[0] == name and spec.targets
        ),
        tuple(r.object_type for r in resources()),
    )
    choices = [{"value": label, "display": type_display(label)} for label in set(targets)]
    return sorted(choices, key=lambda choice: choice["display"])


def type_display(label: str) -> str:
    """ "DCIM | console port", as the reference names a content type."""
    app_label, model_name = label.split(".")
    config = apps.get_app_config(app_label)
    return f"{config.verbose_name} | {config.get_model(model_name)._meta.verbose_name}"


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
    if resource.natural_slug and old is False:  # API 2.x on (None: the 1.x description being made)
        fields["natural_slug"] = _read_only("natural_slug")
    included = {}  # after the custom fields, as the reference lists them
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
                **({"help_text": spec.computed.help_text} if spec.computed.help_text else {}),
                **(spec.computed.options or {}),
            }
        elif spec.kind == INCLUDED and spec.name in resource.loaded:
            fields[spec.name] = _read_only(spec.name)  # written too, but the reference says read-only
        elif spec.kind == INCLUDED and not spec.legacy:  # include= values: written when they take writes
            included[spec.name] = {**_read_only(spec.name), "read_only": spec.included.write is None}
        elif (
            spec.kind in (GENERIC, REVERSE) or spec.model_field is not None and not spec.model_field.concrete
        ):
            fields[spec.name] = _read_only(spec.name)
        elif spec.kind in (SCALAR, FOREIGN_KEY, MANY_TO_MANY, CONTENT_TYPES) or spec.model_field is not None:
            entry = writable.get(spec.name)
            fields[spec.name] = field_metadata(
                spec.model_field, spec.kind, bool(entry and entry.required), entry is None
            )
            if spec.kind == CONTENT_TYPE and entry is not None:
                fields[spec.name]["choices"] = type_choices(resource, spec.name)
    for name in resource.timestamps:
        fields[name] = _read_only(name, "datetime")
    if resource.shows_notes_url:
        fields["notes_url"] = _read_only("notes_url")
    if resource.has_custom_fields:
        fields["custom_fields"] = {
            "type": "field",
            "required": False,
            "read_only": False,
            "label": "Custom fields",
        }
    return {**fields, **included}


def parses(resource: Resource) -> list[str]:
    """The media types writes of the resource take: JSON, and a multipart form where objects hold
    stored files (views.write_body parses each)."""
    return [*PARSES, FORM] if resource.file_fields else PARSES


def describe(resource: Resource, context, detail: bool, old: bool = False) -> dict:
    body = {
        "name": resource.verbose_name if detail else _label(resource.model._meta.verbose_name_plural),
        "description": "",
        "renders": RENDERS,
        "parses": parses(resource),
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
