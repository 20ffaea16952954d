"""Object metadata: values checked against their type, fields scoped without overlap, labels,
and metadata following their objects' deletion."""

from __future__ import annotations

import datetime
import json
from functools import reduce

from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db.models import Q, TextField
from django.db.models.functions import Cast

from queryengine.registry import INCLUDED, CustomFilter, on_delete, resource_by_object_type

from .contacts import WHO_FIELDS, object_labels
from .deletions import forget_with_objects
from .models import ObjectMetadata, contact_label

DATETIME_FORMATS = ["YYYY-MM-DDTHH:MM:SS", "YYYY-MM-DDTHH:MM:SS(+,-)zzzz", "YYYY-MM-DDTHH:MM:SS(+,-)zz:zz"]


def _fail(message: str):
    raise ValidationError({"value": [message]})


def clean_value(kind, value):
    """The value as stored for a metadata type (`kind`), or a ValidationError on `value`."""
    data_type = kind.data_type
    if value is None:
        _fail(f"value is a required field that cannot be empty for metadata type {data_type}.")
    if data_type in ("text", "url", "markdown"):
        if not isinstance(value, str):
            _fail("Value must be a string")
        if data_type == "url":
            try:
                URLValidator()(value)
            except ValidationError:
                _fail("Enter a valid URL.")
    elif data_type == "integer":
        if isinstance(value, bool) or not isinstance(value, int):
            _fail("Value must be an integer.")
    elif data_type == "float":
        if isinstance(value, bool) or not isinstance(value, int | float):
            _fail("Value must be a float.")
    elif data_type == "boolean":
        if not isinstance(value, bool):
            _fail("Value must be true or false.")
    elif data_type == "date":
        try:
            datetime.datetime.strptime(value, "%Y-%m-%d")
        except (TypeError, ValueError):
            _fail("Date values must be in the format YYYY-MM-DD.")
    elif data_type == "datetime":
        value = _clean_datetime(value)
    elif data_type in ("select", "multi-select"):
        allowed = list(kind.choices.values_list("value", flat=True))
        if data_type == "select":
            if not isinstance(value, str) or value not in allowed:
                _fail(f"Invalid choice ({value}). Available choices are: {', '.join(allowed)}")
        else:
            if isinstance(value, str):
                value = value.split(",")
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                _fail("Value must be a list of choices.")
            if not set(value) <= set(allowed):
                _fail(f"Invalid choice(s) ({', '.join(value)}). Available choices are: {', '.join(allowed)}")
    return value  # json: anything


def _clean_datetime(value):
    """An ISO date and time to the second; without a time zone it is taken as UTC."""
    message = f"Datetime values must be in the following formats {DATETIME_FORMATS}"
    if not isinstance(value, str):
        _fail(message)
    for pattern, suffix in (("%Y-%m-%dT%H:%M:%S%z", ""), ("%Y-%m-%dT%H:%M:%S", "+0000")):
        try:
            datetime.datetime.strptime(value, pattern)
        except ValueError:
            continue
        return value + suffix
    _fail(message)


def field_names(content_type: ContentType) -> set[str]:
    """The fields an object of this type shows (what metadata may be scoped to)."""
    resource = resource_by_object_type(f"{content_type.app_label}.{content_type.model}")
    if resource is None:
        return set()
    return {"id", *resource.timestamps, *(spec.name for spec in resource.fields if spec.kind != INCLUDED)}


def check_scoped_fields(metadata: ObjectMetadata) -> None:
    """Scoped fields name fields of the object; no two metadata of one type cover the same field
    of one object (no scoped field at all covers every field)."""
    scoped = metadata.scoped_fields
    if not isinstance(scoped, list) or not all(isinstance(name, str) for name in scoped):
        raise ValidationError({"scoped_fields": ["Must be a list of field names."]})
    kind = metadata.assigned_object_type
    known = field_names(kind)
    unknown = sorted(set(scoped) - known)
    if unknown:
        raise ValidationError(
            {"scoped_fields": [f"{', '.join(unknown)}: no such field on {kind.app_label}.{kind.model}."]}
        )
    others = (
        ObjectMetadata.objects.filter(
            metadata_type=metadata.metadata_type_id,
            assigned_object_type=metadata.assigned_object_type_id,
            assigned_object_id=metadata.assigned_object_id,
        )
        .exclude(pk=metadata.pk)
        .values_list("scoped_fields", flat=True)
    )
    overlap: set[str] = set()
    for theirs in others:
        if not scoped or not theirs:
            raise ValidationError(
                {
                    "scoped_fields": [
                        f"There are other Object Metadata instances of metadata type {metadata.metadata_type} "
                        f"scoping {'all the fields' if not theirs else 'fields'} of this object: "
                        "metadata scoping all fields cannot share the object with others of its type."
                    ]
                }
            )
        overlap |= set(scoped) & set(theirs)
    if overlap:
        raise ValidationError(
            {
                "scoped_fields": [
                    f"There are other Object Metadata instances of metadata type {metadata.metadata_type} "
                    f"scoping the same fields {sorted(overlap)} of this object."
                ]
            }
        )


def metadata_labels(ids) -> dict[str, str]:
    """'<type> - <object> - <value, contact or team>' for a page of object metadata."""
    rows = list(
        ObjectMetadata.objects.filter(pk__in=list(ids)).values_list(
            "pk",
            "metadata_type__name",
            "assigned_object_type",
            "assigned_object_id",
            "value",
            *WHO_FIELDS,
        )
    )
    objects = object_labels((row[2], row[3]) for row in rows)
    result = {}
    for pk, kind, type_id, object_id, value, *who in rows:
        shown = (
            contact_label(*who[:3])
            if who[0] is not None
            else contact_label(*who[3:])
            if who[3] is not None
            else value
        )
        result[str(pk)] = f"{kind} - {objects.get((type_id, object_id), object_id)} - {shown}"
    return result


forget_deleted = forget_with_objects(ObjectMetadata, ("assigned_object_type", "assigned_object_id"))


# -- filters ----------------------------------------------------------------------------------


def _value_text(value) -> str:
    return "" if value is None else json.dumps(value)


def _with_value_text():
    return ObjectMetadata.objects.annotate(value_text=Cast("value", TextField()))


def _value_q(parsed) -> Q:
    wanted = [v.strip() for v in parsed if v.strip()]
    if not wanted:  # an empty value filters nothing, as the reference's
        return Q()
    matching = reduce(lambda a, b: a | b, (Q(value_text__icontains=v) for v in wanted))
    return Q(pk__in=_with_value_text().filter(matching).values("pk"))


def _value_oracle(obj, parsed) -> bool:
    wanted = [v.strip().lower() for v in parsed if v.strip()]
    return not wanted or any(v in _value_text(obj.value).lower() for v in wanted)


def _value_samples(objects) -> list:
    texts = sorted(o.value for o in objects if isinstance(o.value, str) and len(o.value) > 2)
    return [texts[0][1:-1].upper(), ""] if texts else []


# `value=<text>`: the metadata whose value holds the text (any case), as the reference's.
VALUE_FILTER = CustomFilter(_value_q, oracle=_value_oracle, samples=_value_samples)
SEARCHED = ("metadata_type__name", "contact__name", "team__name", "value")


def search_q(text: str) -> Q:
    """Free-text search: the value, the metadata type's name, its contact's or team's name."""
    by_value = Q(pk__in=_with_value_text().filter(value_text__icontains=text).values("pk"))
    named = (Q(**{f"{f}__icontains": text}) for f in SEARCHED if f != "value")
    return reduce(lambda a, b: a | b, named, by_value)


def connect() -> None:
    on_delete(forget_deleted)
