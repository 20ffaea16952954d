"""How a write names a related object: by primary key, natural key or attributes, among the
objects the writer may view.

An object the writer may not view is answered exactly as an absent one, however it is named.
Attributes name fields the API shows, through forward relations only: a lookup (`name__regex`),
a hidden field (a user's password) or a reverse relation is refused as an unknown attribute, and
every related object a path crosses must be one the writer may view too, so no answer tells
anything about an object the writer cannot read."""

from __future__ import annotations

import uuid
from functools import cache

from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import FieldDoesNotExist, FieldError, ValidationError
from django.db import models

from .permissions import restricted, visible_rows
from .registry import Resource, resource_for

NAMES_LISTED = 30  # a related object not found lists the valid names when there are no more


def pk_named(model: type[models.Model], value):
    """The primary key a bare value names: a UUID, or an integer (or its digits) for Django's
    integer-keyed models (groups); None when it names none (a natural key, say)."""
    if isinstance(model._meta.pk, models.IntegerField):
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        return int(value) if isinstance(value, str) and value.isascii() and value.isdigit() else None
    if isinstance(value, uuid.UUID):
        return value
    try:
        return uuid.UUID(value) if isinstance(value, str) else None
    except ValueError:
        return None


def flatten(attrs: dict, prefix: str = "") -> dict:
    flat = {}
    for key, value in attrs.items():
        if isinstance(value, dict):
            flat.update(flatten(value, f"{prefix}{key}__"))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


REFERENCE_KEYS = frozenset({"id", "object_type", "url"})  # a related object as depth 0 shows it


def attributes_of(model: type[models.Model], value) -> dict:
    """The attributes a written value names an object by ({"pk": ...} for an id, also for a
    reference as reads show it), or ValueError."""
    if isinstance(value, dict) and "id" in value and value.keys() <= REFERENCE_KEYS:
        value = value["id"]
    if isinstance(value, dict):
        attrs = flatten(value)
        if "id" in attrs:
            attrs["pk"] = attrs.pop("id")
        return attrs
    if (pk := pk_named(model, value)) is not None:
        return {"pk": pk}
    if isinstance(value, str):
        target = resource_for(model)
        return {(target.natural_key if target else None) or "name": value}
    raise ValueError(f"Related objects must be given by UUID, natural key or attributes, not {value!r}.")


def attrs_text(attrs: dict) -> str:
    """The attributes as a client writes them (`name=Active`), not as a Python dict."""
    return ", ".join(f"{'id' if key == 'pk' else key}={value}" for key, value in attrs.items())


def _shown_field(model: type[models.Model], name: str) -> models.Field | None:
    """The model field `name` when the API shows it (or the primary key), else None."""
    if name == "pk":
        return model._meta.pk
    try:
        found = model._meta.get_field(name)
    except FieldDoesNotExist:
        return None
    if name.startswith("_") or not (found.concrete or (found.many_to_many and not found.auto_created)):
        return None
    resource = resource_for(model)
    return None if resource is not None and name in resource.hidden else found


def attribute_path(model: type[models.Model], path: str) -> tuple[tuple, models.Field]:
    """The relations a path crosses, as (path prefix, related model, many-valued), and the field
    it ends on; ValueError when a part is not a field the API shows."""
    found = _walk(model, path)
    if isinstance(found, str):
        raise ValueError(found)
    return found


@cache
def _walk(model: type[models.Model], path: str) -> tuple[tuple, models.Field] | str:
    """attribute_path's answer, or its error message (worked out once per model and path)."""
    crossed = []
    current = model
    parts = path.split("__")
    for index, part in enumerate(parts):
        found = _shown_field(current, part)
        last = index == len(parts) - 1
        if found is None or (not last and not found.is_relation):
            return f'"{path}" is not an attribute of {model._meta.verbose_name}.'
        if found.is_relation:
            crossed.append(("__".join(parts[: index + 1]), found.related_model, found.many_to_many))
            current = found.related_model
    return tuple(crossed), found


def plain_path(model: type[models.Model], path: str) -> models.Field | None:
    """The plain field a path of single-valued relations ends on (`location_type__name`), or
    None for any other path (a lookup by many-valued relation or related object is made per item)."""
    try:
        crossed, found = attribute_path(model, path)
    except ValueError:
        return None
    if found.is_relation or any(many for _, _, many in crossed):
        return None
    return found


def visible_crossings(model: type[models.Model], attrs: dict, user) -> dict:
    """Conditions keeping each related object the attributes pass through (or compare, by a
    related object's id) to those `user` may view; ValueError for an attribute not shown. They
    belong in the same `filter()` as the attributes: a many-valued relation's conditions then
    speak of one related row."""
    conditions: dict = {}
    for path, given in attrs.items():
        crossed, found = attribute_path(model, path)
        for prefix, related, _many in crossed:
            if prefix == path and given is None:
                continue  # "no related object": nothing to see
            resource = resource_for(related)
            if resource is None or f"{prefix}__in" in conditions:
                continue
            rows = visible_rows(resource, user)
            if rows is None:
                conditions[f"{prefix}__in"] = []
            elif rows or resource.scope is not None:
                conditions[f"{prefix}__in"] = restricted(resource, user).values("pk")
    return conditions


def nameable(model: type[models.Model], owner: Resource, field: str, user):
    """The objects a write of `owner`'s `field` may name: those `user` may view, and only the
    statuses, roles and tags whose content types include the owner's model."""
    queryset = model._default_manager.all()
    target = resource_for(model)
    if target is None:
        return queryset
    if target.scoped_by_content_types and field not in owner.unscoped:
        queryset = queryset.filter(content_types=ContentType.objects.get_for_model(owner.model))
    return restricted(target, user, queryset)


def not_found(model: type[models.Model], owner: Resource, field: str, attrs: dict, user) -> ValueError:
    """The reference's message, with the names that would do for statuses, roles and the like
    (few, limited to the owner's model and to what the writer may view)."""
    message = f"Related object not found using the provided attributes: {attrs_text(attrs)}."
    target = resource_for(model)
    if target is not None and target.scoped_by_content_types and field not in owner.unscoped:
        names = nameable(model, owner, field, user).order_by("name").values_list("name", flat=True)
        names = list(names[: NAMES_LISTED + 1])
        if names and len(names) <= NAMES_LISTED:
            message += f" Valid for {owner.verbose_name.lower()}: {', '.join(names)}."
    return ValueError(message)


def one_of(found: list, model: type[models.Model], owner: Resource, field: str, attrs: dict, user):
    """The one object found, or the reference's error for none or several."""
    if not found:
        raise not_found(model, owner, field, attrs, user)
    if len(found) > 1:
        raise ValueError(f"Multiple objects match the provided attributes: {attrs_text(attrs)}.")
    return found[0]


def resolve_related(model: type[models.Model], owner: Resource, value, user, field: str = "") -> models.Model:
    """One object `user` may view, named by id, natural key or attributes; anything else
    (absent, hidden, several) is a ValueError."""
    attrs = attributes_of(model, value)
    conditions = {**attrs, **visible_crossings(model, attrs, user)}
    try:
        found = list(nameable(model, owner, field, user).filter(**conditions)[:2])
    except (FieldError, ValidationError, ValueError, TypeError) as exc:
        message = "; ".join(exc.messages) if isinstance(exc, ValidationError) else str(exc)
        raise ValueError(message) from None
    return one_of(found, model, owner, field, attrs, user)
