"""The relations to many objects a model has, and the names the reference gives them: one
selection and one naming rule for the lists GraphQL shows (relatedlists.py) and the filters
taking their members (filters.py: `console_ports`, `console_ports__n`, `console_ports__isnull`,
`has_console_ports`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.db.models.fields.reverse_related import ManyToManyRel, ManyToOneRel, OneToOneRel

from .registry import MANY_TO_MANY, Resource, resource_for, words, words_of


def reference_name(rel) -> str:
    """The name the reference's schema gives a relation: the one the members' declaration gives
    its foreign key's list (`Resource.list_names`), else its accessor, but one that runs its
    members' model name together (`consoleports`, `frontporttemplates`: a relation named after
    its members' class) in words (`console_ports`, `front_port_templates`)."""
    members = resource_for(rel.related_model)
    if members is not None and rel.field.name in members.list_names:
        return members.list_names[rel.field.name]
    name = rel.get_accessor_name()
    return f"{words(rel.related_model)}s" if name == f"{rel.related_model._meta.model_name}s" else name


def hidden_name(rel) -> str:
    """The name the reference gives a relation without an accessor here (`related_name="+"`):
    its members' plural name in words (a status's `ip_addresses`, a cable's `front_ports`), or
    for tags, `<model>_set` (a tag's `device_set`)."""
    if rel.many_to_many:
        return f"{rel.related_model._meta.model_name}_set"
    return words_of(rel.related_model._meta.verbose_name_plural)


@dataclass(frozen=True)
class ToMany:
    """A relation to many objects of a registered model, by the reference's `name`, its ORM
    `path` from the owner. `by_member`: filters name its members (by id or natural key, `__n`,
    `__isnull`) beside `has_<name>`; association tables (no custom fields) and relations the ORM
    names other than their accessor (`<model>_set`) take `has_<name>` only."""

    name: str
    path: str
    members: type[models.Model]
    by_member: bool


@cache
def to_many(resource: Resource) -> tuple[ToMany, ...]:
    """This model's many-to-many fields (a device's `software_image_files`) and the foreign keys
    and many-to-many fields of registered models pointing at it (a device's `console_ports`),
    hidden ones (a `+` name) and one-to-ones aside, each by its reference name."""
    found: dict[str, ToMany] = {}
    for spec in resource.fields:
        if spec.kind == MANY_TO_MANY and spec.name != "tags" and resource_for(spec.target) is not None:
            found[spec.name] = ToMany(spec.name, spec.name, spec.target, True)
    for rel in resource.model._meta.get_fields():
        if isinstance(rel, OneToOneRel) or not isinstance(rel, ManyToOneRel | ManyToManyRel) or rel.hidden:
            continue
        members = resource_for(rel.related_model)
        if members is None:
            continue
        name = reference_name(rel)
        by_member = members.has_custom_fields and rel.get_accessor_name() == rel.name
        found.setdefault(name, ToMany(name, rel.name, rel.related_model, by_member))
    return tuple(found.values())


def singular_relations(model: type[models.Model]) -> dict[str, str]:
    """Each many-to-many field of a model (tags and content types aside) also by its members'
    singular name, by id or natural key, and `<singular>_id` by id, for `Resource.relations`: a
    config context's `location` and `location_id` mean what its `locations` does."""
    found = {}
    for f in model._meta.many_to_many:
        if f.name != "tags" and f.related_model is not ContentType:
            single = words(f.related_model)
            found.update({single: f.name, f"{single}_id": f"{f.name}__id"})
    return found
