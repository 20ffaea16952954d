"""Computed fields (`include=computed_fields`): each field's template rendered over every object
of its type, the field's fallback value where rendering fails."""

from __future__ import annotations

from django.contrib.contenttypes.models import ContentType

from queryengine.definitions import cached, watch
from queryengine.errors import ValidationFailed
from queryengine.registry import Included, Resource

from .models import ComputedField
from .templatedata import Scope
from .templating import TemplateFailed, TemplateLimit, budget, render


def value(field: ComputedField, view) -> str:
    try:
        return render(field.template, {"obj": view})
    except TemplateLimit as exc:  # a bound is no template error to hide behind the fallback
        raise ValidationFailed({"computed_fields": [f"{field.key}: {exc}"]}) from None
    except TemplateFailed:
        return field.fallback_value


def load(resource: Resource, ids: list[str], base: str, depth: int, viewer=None) -> dict:
    """Each object's computed fields, rendered for the reader: what the templates follow of
    other objects is read with the reader's permissions, and the page's renderings share one
    budget."""
    kind = ContentType.objects.get_for_model(resource.model)
    fields = cached(
        ("computed_fields", kind.pk),
        lambda: list(ComputedField.objects.filter(content_type=kind).order_by("weight", "key")),
    )
    if not fields:
        return {}
    scope = Scope(viewer.user if viewer is not None else None)
    views = scope.views(resource, list(resource.model._default_manager.filter(pk__in=ids)))
    with budget():
        return {str(view._instance.pk): {f.key: value(f, view) for f in fields} for view in views}


INCLUDED = Included(applies=lambda resource: resource.has_custom_fields, load=load)


def connect() -> None:
    watch(ComputedField)
