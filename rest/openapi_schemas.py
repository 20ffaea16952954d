"""OpenAPI schemas of the objects a resource reads and writes, from its registry fields."""

from __future__ import annotations

from django.db import models

from queryengine import legacy
from queryengine.documents import many_to_many_fields
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
    resource_for,
)
from queryengine.writes import writable_fields

from . import versioning
from .fieldkinds import json_schema, value_limits

REF = "#/components/schemas/"
NULL = {"enum": [None]}  # OpenAPI 3.0 has no null type: a composed schema admits null through this


def ref(name: str) -> dict:
    return {"$ref": f"{REF}{name}"}


def nullable(schema: dict) -> dict:
    if "type" in schema:
        return {**schema, "nullable": True}
    if not schema:  # any JSON value, null included
        return schema
    if "anyOf" in schema:
        return {**schema, "anyOf": [*schema["anyOf"], NULL]}
    return {"anyOf": [schema, NULL]}


def schema_name(resource: Resource) -> str:
    return resource.model.__name__


# ---------------------------------------------------------------------------- object schemas


def scalar_schema(model_field: models.Field) -> dict:
    schema = json_schema(model_field)
    if isinstance(model_field, models.CharField) and model_field.max_length:
        schema["maxLength"] = model_field.max_length
    for bound, limit in value_limits(model_field):
        if isinstance(limit, int | float):  # a callable or Decimal limit has no JSON form here
            schema[{"min": "minimum", "max": "maximum"}[bound]] = limit
    if model_field.choices:
        values = [value for value, _ in model_field.flatchoices]
        if model_field.blank and isinstance(model_field, models.CharField) and "" not in values:
            values.append("")  # left unset: stored, and shown as a bare value, empty
        schema = {"type": "integer" if all(isinstance(v, int) for v in values) else "string", "enum": values}
    if model_field.help_text:
        schema["description"] = str(model_field.help_text)
    return schema


def choice_read_schema(spec) -> dict:
    """A choice field reads as {value, label} (null when empty) and is written by value."""
    value = scalar_schema(spec.model_field)
    value.pop("description", None)
    return nullable(
        {
            "type": "object",
            "properties": {
                "value": value,
                "label": {"type": "string", "enum": sorted(set(spec.choices.values()))},
            },
            "required": ["value", "label"],
        }
    )


def reference_schema(target: Resource) -> dict:
    return ref("IntegerObjectReference" if target.integer_pk else "ObjectReference")


def related_read_schema(target: Resource, nested: bool) -> dict:
    """A related object: a reference at depth 0, the object itself from depth 1 (a reference
    still when the caller may not view it)."""
    return (
        {"anyOf": [reference_schema(target), ref(f"{schema_name(target)}Nested")]}
        if nested
        else reference_schema(target)
    )


def included_schema(spec) -> dict:
    if spec.included.schema is not None:
        return spec.included.schema
    return {"type": "object", "additionalProperties": True, "description": f"Shown with include={spec.name}"}


def generic_read_schema(spec, top: bool) -> dict:
    targets = spec.target_resources if top else []
    if not targets:
        return nullable(ref("ObjectReference"))
    return nullable({"anyOf": [ref("ObjectReference"), *(ref(f"{schema_name(t)}Nested") for t in targets)]})


def key_schema(resource: Resource) -> dict:
    """A UUID, or an integer for Django's own models (content types)."""
    return {"type": "integer"} if resource.integer_pk else {"type": "string", "format": "uuid"}


def read_schema(resource: Resource, top: bool, version: str = versioning.DEFAULT) -> dict:
    """What a GET shows of an object (`top`) or of one nested in another (no lists, no counts),
    at an API version from 2.0 on (its versioned fields: Resource.versioned)."""
    properties = {
        "id": {**key_schema(resource), "readOnly": True},
        "object_type": {"type": "string", "readOnly": True, "example": resource.object_type},
        "display": {"type": "string", "readOnly": True, "description": "Human friendly display value"},
        "url": {"type": "string", "format": "uri", "readOnly": True},
    }
    if resource.natural_slug:
        properties["natural_slug"] = {"type": "string", "readOnly": True}
    required = list(properties)
    if top:
        for name in resource.derived:
            properties[name] = {"type": "integer", "readOnly": True}
            required.append(name)
    optional_lists = set(many_to_many_fields(resource))
    shown = versioning.versioned_fields(version, resource, frozenset()) if top else frozenset()
    for spec in resource.current_fields:
        if spec.name in resource.versioned and not versioning.shows(version, resource.versioned[spec.name]):
            continue
        shown_as = resource.single_of.get(spec.name, spec.name)  # 2.0's one location of a list
        hidden = spec.name in resource.write_only and shown_as not in shown
        schema = None if hidden else field_read_schema(resource, spec, top)
        if schema is None:
            continue
        properties[spec.name] = schema
        if spec.kind != INCLUDED and spec.name not in optional_lists:
            required.append(spec.name)
    for name in resource.timestamps:
        properties[name] = nullable({"type": "string", "format": "date-time", "readOnly": True})
        required.append(name)
    if resource.shows_notes_url:
        properties["notes_url"] = {"type": "string", "format": "uri", "readOnly": True}
        if resource.notes_url_null:
            properties["notes_url"] = nullable(properties["notes_url"])
        required.append("notes_url")
    if resource.has_custom_fields:
        properties["custom_fields"] = {"type": "object", "additionalProperties": True}
        required.append("custom_fields")
    return {"type": "object", "properties": properties, "required": required}


UPLOADED = "The file itself, sent in a multipart/form-data body; reads show the URL it is served at."
SHOWN_ONCE = "Shown only in the answer to the request that created the object; null in every other answer."
WRITTEN_ONCE = "Left out, null or empty: generated when the object is created, kept when it is changed."


def field_read_schema(resource: Resource, spec, top: bool) -> dict | None:
    nested = resource_for(spec.target) if spec.target is not None else None
    if spec.kind == SCALAR:
        if spec.choices is not None:
            return choice_read_schema(spec)
        schema = scalar_schema(spec.model_field)
        if spec.name in resource.shown_once:
            return nullable({**schema, "description": SHOWN_ONCE})
        return nullable(schema) if spec.model_field.null else schema
    if spec.kind == FILE:  # the URL the file is served at
        schema = {"type": "string", "format": "uri"}
        return nullable(schema) if spec.model_field.null else schema
    if spec.kind == COMPUTED:
        output = {"string": {"type": "string"}, "integer": {"type": "integer"}, "object": {}}
        return nullable(spec.computed.read_schema or output[spec.computed.output])
    if spec.kind == CONTENT_TYPE:
        schema = {"type": "string", "description": "<app_label>.<model>", "example": "dcim.device"}
        return nullable(schema) if spec.nullable else schema
    if spec.kind == GENERIC:
        return generic_read_schema(spec, top)
    if spec.kind == FOREIGN_KEY:
        if nested is None:
            return None
        schema = related_read_schema(nested, nested=True)
        return nullable(schema) if spec.nullable else schema
    if not top:
        return None
    if spec.kind == CONTENT_TYPES:
        return {"type": "array", "items": {"type": "string", "example": "dcim.device"}}
    if spec.kind in (MANY_TO_MANY, REVERSE) and nested is not None:
        return {"type": "array", "items": related_read_schema(nested, nested=True)}
    if spec.kind == INCLUDED:
        return included_schema(spec)
    return None


RELATED_WRITE = {
    "anyOf": [
        {"type": "string", "format": "uuid", "description": "the object's id"},
        {"type": "string", "description": "the object's natural key (a name)"},
        {
            "type": "object",
            "additionalProperties": True,
            "description": "attributes matching exactly one object",
        },
    ]
}


def related_write_schema(model_field) -> dict:
    """An object named by id (a number for Django's groups), natural key or attributes."""
    target = resource_for(model_field.related_model) if model_field is not None else None
    if target is None or not target.integer_pk:
        return RELATED_WRITE
    return {"anyOf": [{"type": "integer", "description": "the object's id"}, *RELATED_WRITE["anyOf"][1:]]}


def bulk_delete_schema(resource: Resource) -> dict:
    if not resource.integer_pk:
        return ref("BulkDelete")
    item = {"type": "object", "properties": {"id": key_schema(resource)}, "required": ["id"]}
    return {"type": "array", "items": item}


def write_schema(resource: Resource, partial: bool, old: bool = False) -> dict:
    """What a POST or PUT (`partial` False: required fields required) or a PATCH accepts; `old`:
    at API 1.x, with 1.x names and the fields 1.x alone has."""
    properties = {"id": key_schema(resource)}
    required = []
    legacy = resource.legacy
    for field in writable_fields(resource, legacy=old):
        if field.kind == COMPUTED:
            computed = next(s for s in resource.fields if s.name == field.name).computed
            schema = computed.write_schema or {"type": "string"}
        elif field.kind in (FOREIGN_KEY,):
            schema = related_write_schema(field.model_field)
        elif field.kind == MANY_TO_MANY:
            schema = {"type": "array", "items": related_write_schema(field.model_field)}
        elif field.kind == CONTENT_TYPE:
            schema = {"type": "string", "description": "<app_label>.<model>", "example": "dcim.device"}
        elif field.kind == CONTENT_TYPES:
            schema = {"type": "array", "items": {"type": "string", "example": "dcim.device"}}
        elif field.kind == FILE:
            schema = {"type": "string", "format": "binary", "description": UPLOADED}
        else:
            schema = scalar_schema(field.model_field)
        if field.model_field is not None and field.model_field.null:
            schema = nullable(schema)
        elif field.name in resource.shown_once:  # null (as reads show it) keeps or generates it
            schema = nullable({**schema, "description": WRITTEN_ONCE})
        name = legacy.name_of(field.name) if old else field.name
        if old and field.name in legacy.hidden:
            continue
        properties[name] = schema
        if field.required and not partial and field.name not in (legacy.defaults if old else ()):
            required.append(name)
    for spec in resource.fields if old else ():  # a device's site, written to its location
        if spec.kind == DERIVED and spec.derived.writes is not None:
            properties[legacy.name_of(spec.name)] = nullable(RELATED_WRITE)
    for name, included in resource.included.items():
        if included.write is not None:
            properties[name] = {"type": "object", "additionalProperties": True}
    if resource.has_custom_fields:
        properties["custom_fields"] = {"type": "object", "additionalProperties": True}
    schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


# What went wrong, by field (messages, or a related object's own errors) or as one `detail`.
ERROR_OBJECT = {
    "type": "object",
    "additionalProperties": {"anyOf": [{"type": "string"}, {"type": "array"}, {"type": "object"}]},
}


def legacy_read_schema(resource: Resource, version: str, nested: bool) -> dict:
    """A 1.x object (`nested`: its nested form, which `brief` shows too), from the same lists of
    shown values the 1.x documents are written from."""
    many = frozenset(many_to_many_fields(resource)) | frozenset(resource.included)
    shown = legacy.nested_fields(resource) if nested else legacy.top_fields(resource, version, many)
    properties, required = {}, []
    for entry in shown:
        properties[entry.key] = legacy_value_schema(resource, entry)
        optional = (
            entry.form in (legacy.LIST, legacy.INCLUDED)
            or entry.spec is not None
            and (entry.spec.kind == CONTENT_TYPES)
        )
        if not optional:
            required.append(entry.key)
    return {"type": "object", "properties": properties, "required": required}


CHOICE_SCHEMA = nullable(
    {
        "type": "object",
        "properties": {"value": {"type": "string"}, "label": {"type": "string"}},
        "required": ["value", "label"],
    }
)
SHOWN_VALUES = {
    "url": {"type": "string", "format": "uri", "readOnly": True},
    "notes_url": {"type": "string", "format": "uri", "readOnly": True},
    "display": {"type": "string", "readOnly": True, "description": "Human friendly display value"},
    CREATED_DATE: nullable({"type": "string", "format": "date", "readOnly": True}),
    "created": nullable({"type": "string", "format": "date-time", "readOnly": True}),
    "last_updated": nullable({"type": "string", "format": "date-time", "readOnly": True}),
    "custom_fields": {"type": "object", "additionalProperties": True},
}


def legacy_value_schema(resource: Resource, entry) -> dict:
    if entry.form == legacy.CHOICE:
        return CHOICE_SCHEMA
    if entry.form in (legacy.NESTED, legacy.LIST):
        item = ref(f"{schema_name(entry.targets[0])}Nested")
        return {"type": "array", "items": item} if entry.form == legacy.LIST else nullable(item)
    if entry.form == legacy.GENERIC:
        kinds = [ref(f"{schema_name(t)}Nested") for t in entry.targets] or [ref("ObjectReference")]
        return nullable({"anyOf": kinds})
    if entry.form == legacy.INCLUDED and entry.spec.legacy:  # any value (an id, a type, an object)
        return {}
    if entry.form == legacy.INCLUDED:
        return included_schema(entry.spec)
    if entry.name == "id":
        return {**key_schema(resource), "readOnly": True}
    if entry.name in SHOWN_VALUES:
        return SHOWN_VALUES[entry.name]
    if entry.spec is None:  # a count or a tree depth
        return {"type": "integer", "readOnly": True}
    return field_read_schema(resource, entry.spec, top=True) or {}


def component_schemas(resource_list: list[Resource], version: str = versioning.DEFAULT) -> dict:
    """The schemas of a version's document (at 1.x: the 1.x shapes)."""
    schemas = {
        "ObjectReference": {
            "type": "object",
            "description": "A related object at depth 0",
            "properties": {
                "id": {"type": "string", "format": "uuid"},
                "object_type": {"type": "string", "example": "dcim.location"},
                "url": {"type": "string", "format": "uri"},
            },
            "required": ["id", "object_type", "url"],
        },
        "IntegerObjectReference": {
            "type": "object",
            "description": "A related object at depth 0 keyed by a number (Django's groups)",
            "properties": {
                "id": {"type": "integer"},
                "object_type": {"type": "string", "example": "auth.group"},
                "url": {"type": "string", "format": "uri"},
            },
            "required": ["id", "object_type", "url"],
        },
        "Error": {
            "description": "{detail: message} or {field: [messages]}; a bulk write's: a list of those "
            "in the order of its items, or an object of them by the failing item's id",
            "anyOf": [ERROR_OBJECT, {"type": "array", "items": ERROR_OBJECT}],
        },
        "BulkDelete": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "string", "format": "uuid"}},
                "required": ["id"],
            },
        },
    }
    old = versioning.legacy(version)
    for resource in resource_list:
        name = schema_name(resource)
        if old:
            schemas[name] = legacy_read_schema(resource, version, nested=False)
            schemas[f"{name}Nested"] = legacy_read_schema(resource, version, nested=True)
        else:
            schemas[name] = read_schema(resource, top=True, version=version)
            schemas[f"{name}Nested"] = read_schema(resource, top=False)
        schemas[f"{name}Request"] = write_schema(resource, partial=False, old=old)
        schemas[f"Patched{name}Request"] = write_schema(resource, partial=True, old=old)
        schemas[f"Bulk{name}Request"] = {
            "allOf": [ref(f"Patched{name}Request"), {"type": "object", "required": ["id"]}]
        }
        schemas[f"Paginated{name}List"] = paginated(ref(name))
    return schemas


def paginated(item: dict) -> dict:
    return {
        "type": "object",
        "properties": {
            "count": {"type": "integer", "example": 123},
            "next": {"type": "string", "format": "uri", "nullable": True},
            "previous": {"type": "string", "format": "uri", "nullable": True},
            "results": {"type": "array", "items": item},
        },
        "required": ["count", "next", "previous", "results"],
    }
