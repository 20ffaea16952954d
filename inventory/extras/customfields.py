"""Custom fields: their values' validation, their `cf_` filters and keeping every object's data
in step with the definitions (so reads stay a plain JSON column)."""

from __future__ import annotations

import datetime
import re

from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db.models import Q

from queryengine.definitions import cached, watch
from queryengine.filters import (
    BOOLEAN_LOOKUPS,
    NUMERIC_LOOKUPS,
    STRING_LOOKUPS,
    FilterError,
    parse_bool,
    parse_date_value,
    parse_int,
    parse_regex,
)
from queryengine.registry import CustomFieldSupport, resource_by_object_type, support_custom_fields

from .filtering import filtered
from .models import CustomField, CustomFieldChoice

TEXT_TYPES = ("text", "url", "markdown", "select")


def choices_of(field: CustomField) -> list[str]:
    return [choice.value for choice in field.custom_field_choices.all()]


def validate_value(field: CustomField, value, choices=None) -> None:
    """Raises ValidationError (the reference's messages) unless `value` suits the field."""
    kind = field.type
    if kind in ("text", "url", "markdown"):
        if not isinstance(value, str):
            raise ValidationError("Value must be a string")
        if kind == "url":
            try:
                URLValidator()(value)
            except ValidationError:
                raise ValidationError("Enter a valid URL.") from None
        if field.validation_minimum is not None and len(value) < field.validation_minimum:
            raise ValidationError(f"Value must be at least {field.validation_minimum} characters in length")
        if field.validation_maximum is not None and len(value) > field.validation_maximum:
            raise ValidationError(f"Value must not exceed {field.validation_maximum} characters in length")
        if field.validation_regex and not re.search(field.validation_regex, value):
            raise ValidationError(f"Value must match regex '{field.validation_regex}'")
    elif kind == "integer":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValidationError("Value must be an integer.")
        if field.validation_minimum is not None and value < field.validation_minimum:
            raise ValidationError(f"Value must be at least {field.validation_minimum}")
        if field.validation_maximum is not None and value > field.validation_maximum:
            raise ValidationError(f"Value must not exceed {field.validation_maximum}")
    elif kind == "boolean":
        if not isinstance(value, bool):
            raise ValidationError("Value must be true or false.")
    elif kind == "date":
        try:
            datetime.date.fromisoformat(value)
        except (TypeError, ValueError):
            raise ValidationError("Date values must be in the format YYYY-MM-DD.") from None
    elif kind in ("select", "multi-select"):
        allowed = choices_of(field) if choices is None else choices
        values = value if kind == "multi-select" and isinstance(value, list) else [value]
        if kind == "multi-select" and not isinstance(value, list):
            raise ValidationError("Value must be a list.")
        for item in values:
            if item not in allowed:
                raise ValidationError(f"Invalid choice ({item}). Available choices are: {', '.join(allowed)}")


def definitions(model) -> list[tuple[CustomField, list[str]]]:
    """The model's custom fields with their choices (kept between writes: queryengine.definitions)."""

    def load():
        kind = ContentType.objects.get_for_model(model)
        fields = CustomField.objects.filter(content_types=kind).prefetch_related("custom_field_choices")
        return [(field, choices_of(field)) for field in fields]

    return cached(("custom_fields", model._meta.label_lower), load)


def clean(defined, current: dict, given: dict) -> dict:
    """The object's data: every defined key, given values validated, the rest kept or defaulted."""
    data, errors = {}, []
    for field, choices in defined:
        key = field.key
        if key in given:
            value = given[key]
            if value is not None and value != "":
                try:
                    validate_value(field, value, choices)
                except ValidationError as exc:
                    errors.append(f"Invalid value for custom field '{key}': {exc.messages[0]}")
        else:
            value = current.get(key, field.default)
        if field.required and value in (None, ""):
            errors.append(f"Missing required custom field '{key}'.")
        data[key] = value
    if errors:
        raise ValidationError(errors)
    return data


def _family(field: CustomField) -> tuple[dict, object]:
    if field.type == "integer":
        return NUMERIC_LOOKUPS, parse_int
    if field.type == "date":
        return NUMERIC_LOOKUPS, lambda v: parse_date_value(v).isoformat()
    if field.type == "boolean":
        return BOOLEAN_LOOKUPS, parse_bool
    if field.type in TEXT_TYPES:
        return STRING_LOOKUPS, None
    if field.type == "multi-select":
        return {"": ("contains", False), "n": ("contains", True)}, None
    return {}, None


def q(model, parameters: dict) -> Q:
    """`cf_<key>[__<lookup>]` filters (values ORed, parameters ANDed) over the object data."""
    fields = {field.key: field for field, _ in definitions(model)}
    match, errors = Q(), {}
    for parameter, values in parameters.items():
        key, _, suffix = parameter.removeprefix("cf_").partition("__")
        field = fields.get(key)
        lookups, parse = (
            _family(field) if field is not None and field.filter_logic != "disabled" else ({}, None)
        )
        if suffix not in lookups:
            errors[parameter] = ["Unknown filter field"]
            continue
        lookup, negate = lookups[suffix]
        if lookup == "exact" and field.type in TEXT_TYPES and field.filter_logic == "loose" and not suffix:
            lookup = "icontains"  # loose: a text field's plain filter matches part of the value
        parse = parse_regex if lookup in ("regex", "iregex") else parse
        path = f"_custom_field_data__{key}"
        try:
            parsed = [parse(v) if parse else v for v in (values if isinstance(values, list) else [values])]
        except ValueError as exc:
            errors[parameter] = [str(exc)]
            continue
        if lookup == "contains":  # one choice among a multi-select's values, on every database
            terms = [Q(**{f"{path}__icontains": f'"{v}"'}) for v in parsed]
        elif lookup in ("lt", "lte", "gt", "gte"):
            # SQLite compares a JSON null (read as the text 'null') above every number.
            terms = [Q(**{f"{path}__{lookup}": v}) & ~Q(**{path: None}) for v in parsed]
        else:
            terms = [Q(**{f"{path}__{lookup}": v}) for v in parsed]
        term = Q()
        for t in terms:
            term |= t
        match &= ~term if negate else term
    if errors:
        raise FilterError(errors)
    return match


# What GraphQL shows of a field's values, by its type (the rest: strings).
VALUE_KINDS = {"integer": "integer", "boolean": "boolean", "json": "object", "multi-select": "strings"}


def described() -> dict:
    """Every custom field as the schema shows it: {object type: ((key, value kind, filter
    parameters), ...)} (kept between changes: queryengine.definitions)."""

    def load():
        found: dict = {}
        for field in CustomField.objects.prefetch_related("content_types").order_by("key"):
            lookups = _family(field)[0] if field.filter_logic != "disabled" else {}
            parameters = tuple(f"cf_{field.key}{f'__{suffix}' if suffix else ''}" for suffix in lookups)
            for kind in field.content_types.all():
                found.setdefault(f"{kind.app_label}.{kind.model}", []).append(
                    (field.key, VALUE_KINDS.get(field.type, "string"), parameters)
                )
        return {object_type: tuple(fields) for object_type, fields in found.items()}

    return cached(("custom_fields_described",), load)


support_custom_fields(CustomFieldSupport(definitions=definitions, clean=clean, q=q, described=described))


def rewrite_data(model, change) -> None:
    """Apply `change(data, pk) -> new data or None (unchanged)` to every object of a model."""
    manager = model._default_manager
    updates = []
    for pk, data in manager.values_list("pk", "_custom_field_data").iterator(chunk_size=2000):
        new = change(dict(data or {}), pk)
        if new is not None:
            updates.append(model(pk=pk, _custom_field_data=new))
    manager.bulk_update(updates, ["_custom_field_data"], batch_size=1000)


def add_key(model, key: str, default, scope: dict | None = None) -> None:
    """The key joins every object's data with the default; objects outside the field's scope
    get null instead."""
    inside = None
    if scope and default is not None:
        resource = resource_by_object_type(model._meta.label_lower)
        found = (
            filtered(resource, model._default_manager.all(), scope)
            if resource
            else model._default_manager.none()
        )
        inside = set(found.values_list("pk", flat=True))
    rewrite_data(
        model,
        lambda data, pk: (
            None if key in data else {**data, key: default if inside is None or pk in inside else None}
        ),
    )


def drop_key(model, key: str) -> None:
    rewrite_data(model, lambda data, pk: {k: v for k, v in data.items() if k != key} if key in data else None)


def rename_key(model, old: str, new: str) -> None:
    rewrite_data(
        model,
        lambda data, pk: {(new if k == old else k): v for k, v in data.items()} if old in data else None,
    )


def models_of(field: CustomField) -> list:
    return [ct.model_class() for ct in field.content_types.all() if ct.model_class() is not None]


def remember_key(sender, instance: CustomField, **kwargs) -> None:
    before = CustomField.objects.filter(pk=instance.pk).values_list("key", flat=True).first()
    instance._key_before = before


def follow_definition(sender, instance: CustomField, created: bool, **kwargs) -> None:
    """A renamed key is renamed in every object's data (types added later fill in on their own)."""
    before = getattr(instance, "_key_before", None)
    if before and before != instance.key:
        for model in models_of(instance):
            rename_key(model, before, instance.key)


def follow_content_types(sender, instance, action: str, pk_set, **kwargs) -> None:
    if not isinstance(instance, CustomField):
        return
    if action == "pre_clear":
        instance._models_before = models_of(instance)
    elif action in ("post_add", "post_remove"):
        for ct in ContentType.objects.filter(pk__in=pk_set or ()):
            model = ct.model_class()
            if model is not None:
                (
                    add_key(model, instance.key, instance.default, instance.scope_filter)
                    if action == "post_add"
                    else drop_key(model, instance.key)
                )
    elif action == "post_clear":
        for model in getattr(instance, "_models_before", []):
            drop_key(model, instance.key)


def forget_definition(sender, instance: CustomField, **kwargs) -> None:
    """A deleted field's values leave every object's data."""
    for model in models_of(instance):
        drop_key(model, instance.key)


def connect() -> None:
    from django.db.models.signals import m2m_changed, post_save, pre_delete, pre_save

    pre_save.connect(remember_key, sender=CustomField, dispatch_uid="cf-remember-key")
    post_save.connect(follow_definition, sender=CustomField, dispatch_uid="cf-follow-definition")
    m2m_changed.connect(
        follow_content_types, sender=CustomField.content_types.through, dispatch_uid="cf-follow-types"
    )
    pre_delete.connect(forget_definition, sender=CustomField, dispatch_uid="cf-forget")
    watch(CustomField, CustomFieldChoice)
