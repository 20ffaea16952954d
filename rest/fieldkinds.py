"""How the API describes a model field's values, in one table for its two descriptions: the JSON
schema in the OpenAPI document and the type name OPTIONS gives (the names Django REST
framework's metadata uses, which pynautobot and the reference server's clients read). Kept
together so that a field class added for one is added for the other."""

from __future__ import annotations

from django.core import validators
from django.db import models
from django.db.backends.base.operations import BaseDatabaseOperations

# model field class -> (OPTIONS type, JSON schema); the first match wins, so subclasses come first
FIELD_KINDS: list[tuple[type[models.Field], str, dict]] = [
    (models.BooleanField, "boolean", {"type": "boolean"}),
    (models.UUIDField, "string", {"type": "string", "format": "uuid"}),
    (models.DateTimeField, "datetime", {"type": "string", "format": "date-time"}),
    (models.DateField, "date", {"type": "string", "format": "date"}),
    (models.DecimalField, "decimal", {"type": "number"}),
    (models.FloatField, "float", {"type": "number"}),
    (models.BigIntegerField, "integer", {"type": "integer", "format": "int64"}),
    (models.IntegerField, "integer", {"type": "integer"}),
    (models.JSONField, "field", {}),  # any JSON value
    (models.URLField, "url", {"type": "string", "format": "uri"}),
    (models.EmailField, "email", {"type": "string", "format": "email"}),
    (models.CharField, "string", {"type": "string"}),
    (models.TextField, "string", {"type": "string"}),
    # A stored file reads as the URL it is served at (written as an upload: openapi_schemas).
    (models.FileField, "file upload", {"type": "string", "format": "uri"}),
]
# Other fields (network addresses and the like) are text in JSON; OPTIONS names them "field".
OTHER = ("field", {"type": "string"})


def _kind(model_field: models.Field) -> tuple[str, dict]:
    return next(((name, schema) for cls, name, schema in FIELD_KINDS if isinstance(model_field, cls)), OTHER)


def options_type(model_field: models.Field) -> str:
    """The type OPTIONS names; a field may name its own (an image's "image upload")."""
    return getattr(model_field, "options_type", None) or _kind(model_field)[0]


def json_schema(model_field: models.Field) -> dict:
    """A fresh copy: callers add bounds, enums and descriptions to it. A text format (email,
    URI) is left out where the field may be blank: "" is a valid value but not a valid email."""
    if getattr(model_field, "shown_as_text", False):  # a decimal shown as a string
        return {"type": "string", "format": "decimal"}
    schema = dict(_kind(model_field)[1])
    if schema.get("format") in TEXT_FORMATS and model_field.blank:
        del schema["format"]
    return schema


TEXT_FORMATS = {"email", "uri"}


LIMITS = {validators.MinValueValidator: "min", validators.MaxValueValidator: "max"}


def value_limits(model_field: models.Field) -> list[tuple[str, object]]:
    """("min" or "max", limit) of each bound the field's validators set, in their order (a
    description lists them as the field declares them)."""
    return [
        (bound, validator.limit_value)
        for validator in _validators(model_field)
        for cls, bound in LIMITS.items()
        if isinstance(validator, cls)
    ]


def _validators(model_field: models.Field) -> list:
    """The field's validators, an integer's range that of the production database whichever one
    runs: Django takes the range from the connection, and SQLite's 64-bit ranges would make the
    description (and its committed copy) change with the database. PostgreSQL's ranges are
    Django's standard ones, which the reference server shows."""
    if not isinstance(model_field, models.IntegerField):
        return model_field.validators
    found = [*model_field.default_validators, *model_field._validators]
    standard = BaseDatabaseOperations.integer_field_ranges.get(model_field.get_internal_type(), (None, None))
    # As Django adds them: after the declared ones, unless a declared bound is as tight.
    for (cls, tighter), limit in zip(LIMIT_CHECKS, standard, strict=True):
        if limit is not None and not any(
            isinstance(v, cls) and tighter(_value(v.limit_value), limit) for v in found
        ):
            found.append(cls(limit))
    return found


LIMIT_CHECKS = (
    (validators.MinValueValidator, lambda declared, limit: declared >= limit),
    (validators.MaxValueValidator, lambda declared, limit: declared <= limit),
)


def _value(limit):
    return limit() if callable(limit) else limit
