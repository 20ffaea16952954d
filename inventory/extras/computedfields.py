"""Computed fields (`include=computed_fields`): each field's template rendered over every object
of its type, the field's fallback value where rendering fails."""

from __future__ import annotations

from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import FieldDoesNotExist
from jinja2 import nodes

from queryengine.definitions import cached, watch
from queryengine.registry import Included, Resource

from .models import ComputedField
from .templating import ENVIRONMENT, TemplateFailed, render


def _chains(source: str) -> list[list[str]]:
    """Attribute chains a template reads from `obj` (`obj.location.parent.name`)."""
    try:
        tree = ENVIRONMENT.parse(source)
    except Exception:
        return []
    chains = []
    for node in tree.find_all(nodes.Getattr):
        names = []
        while isinstance(node, nodes.Getattr):
            names.append(node.attr)
            node = node.node
        if isinstance(node, nodes.Name) and node.name == "obj":
            chains.append(names[::-1])
    return chains


def related_paths(model, templates) -> set[str]:
    """The foreign keys the templates follow, to join them in the page's one query rather
    than load each related object on its own."""
    paths = set()
    for source in templates:
        for chain in _chains(source):
            current, path = model, []
            for name in chain:
                try:
                    field = current._meta.get_field(name)
                except FieldDoesNotExist:
                    break
                if not (field.many_to_one or field.one_to_one) or field.related_model is None:
                    break
                path.append(name)
                current = field.related_model
                paths.add("__".join(path))
    return paths


def value(field: ComputedField, obj) -> str:
    try:
        return render(field.template, {"obj": obj})
    except TemplateFailed:
        return field.fallback_value


def load(resource: Resource, ids: list[str], base: str, depth: int, viewer=None) -> dict:
    kind = ContentType.objects.get_for_model(resource.model)
    fields = cached(
        ("computed_fields", kind.pk),
        lambda: list(ComputedField.objects.filter(content_type=kind).order_by("weight", "key")),
    )
    if not fields:
        return {}
    joined = related_paths(resource.model, [f.template for f in fields])
    objects = resource.model._default_manager.filter(pk__in=ids).select_related(*joined)
    return {str(obj.pk): {f.key: value(f, obj) for f in fields} for obj in objects}


INCLUDED = Included(applies=lambda resource: resource.has_custom_fields, load=load)


def connect() -> None:
    watch(ComputedField)
