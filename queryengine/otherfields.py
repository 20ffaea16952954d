"""The fields an object type shows beside its declared ones and its lists, and how a compiled
plan reads each: a generic relation by type (`cable_peer_interface`), a one-to-one from the
other side (`cable_termination`), the natural-sort key `_name`, model fields under the
reference's names (Resource.graphql_names: an endpoint's `path`) and the lists type extensions
declare (ExtensionList: an object's `dynamic_groups`).

The schema (schema.py) shows them and the plans (compiler.py) read them from the same tables
here, built once per resource: a document selecting them runs compiled, answering what the
generic executor answers.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from django.apps import apps
from django.db.models import F, JSONField
from django.db.models.fields.reverse_related import OneToOneRel

from . import jsonsql
from .registry import (
    TYPE_EXTENSIONS,
    Derived,
    ExtensionList,
    Resource,
    resource_by_object_type,
    resource_for,
)

NATURAL_SORT_KEY = "_name"


@cache
def by_type(resource: Resource) -> dict[str, tuple[str, str]]:
    """{`<prefix>_<type>`: (generic relation, object type)} of the generic relations shown by
    type (Resource.generic_by_type): a cable end's `cable_peer_interface`, ..."""
    found: dict[str, tuple[str, str]] = {}
    for name, (prefix, object_types) in resource.generic_by_type.items():
        for object_type in object_types:
            target = resource_by_object_type(object_type)
            if target is not None:
                found.setdefault(f"{prefix}_{target.single_field}", (name, object_type))
    return found


@cache
def reverse_ones(resource: Resource) -> dict[str, OneToOneRel]:
    """{accessor: relation} of the one-to-one fields of registered models pointing at this one
    (an interface's `cable_termination`, a device's `vc_master_for`): the object or null."""
    return {
        rel.get_accessor_name(): rel
        for rel in resource.model._meta.get_fields()
        if isinstance(rel, OneToOneRel) and not rel.hidden and resource_for(rel.related_model) is not None
    }


def has_natural_sort_key(resource: Resource) -> bool:
    return any(f.name == NATURAL_SORT_KEY for f in resource.model._meta.concrete_fields)


def extension_fields(resource: Resource, types) -> dict:
    """{name: graphene field} the type extensions add to the resource's type (the first
    extension naming a field gives it)."""
    found: dict = {}
    for extension in TYPE_EXTENSIONS:
        for name, value in extension(resource, types).items():
            found.setdefault(name, value.field(types) if isinstance(value, ExtensionList) else value)
    return found


@cache
def extension_lists(resource: Resource) -> dict[str, ExtensionList]:
    """The lists type extensions declare for the compiled plans (ExtensionList)."""
    found: dict[str, ExtensionList] = {}
    for extension in TYPE_EXTENSIONS:
        for name, value in extension(resource, {}).items():
            if isinstance(value, ExtensionList):
                found.setdefault(name, value)
    return found


# -- compiling: each takes the plan (compiler.ObjectPlan), the text written and the field's node --


def compiler_for(resource: Resource, name: str) -> Callable | None:
    """How a plan reads the field `name` when no declaration shows it (None: none here)."""
    if name in by_type(resource):
        return _by_type
    if name in reverse_ones(resource):
        return _reverse_one
    if name == NATURAL_SORT_KEY and has_natural_sort_key(resource):
        return _natural_sort_key
    if name in extension_lists(resource):
        return _extension_list
    if name in resource.graphql_names:
        return _graphql_name
    return None


def _by_type(plan, text, node) -> None:
    """The generic relation's object, read by its type's plan, where it is of that type; null
    otherwise (and when gone or not readable)."""
    relation, object_type = by_type(plan.resource)[node.name.value]
    type_field, id_field = next(s for s in plan.resource.fields if s.name == relation).columns
    target = resource_by_object_type(object_type)
    target_plan = type(plan).of(target, node.selection_set)
    plan.inside |= {target, *target_plan.inside}
    app, model = plan.col(f"{type_field}__app_label"), plan.col(f"{type_field}__model")
    slot = f"generic{len(plan.generics)}"
    pk = plan.col(f"_{slot}", jsonsql.IdText(F(id_field)))
    # (plans by type, the label's columns, the id's column, hidden texts: null, not dangling)
    plan.generics[slot] = (
        {object_type: target_plan},
        plan.columns.index(f"{type_field}__app_label"),
        plan.columns.index(f"{type_field}__model"),
        plan.columns.index(f"_{slot}"),
        {object_type: None},
        False,
    )
    label = f"(None if {app} is None else {app} + '.' + {model})"
    text.py(f"(P[{slot!r}].get(({label}, {pk})) or b'null')")


def _reverse_one(plan, text, node) -> None:
    """The object holding the one-to-one, by a join on it (it holds at most one); read by its
    plan, so one the reader may not view is null, as the generic executor shows it."""
    rel = reverse_ones(plan.resource)[node.name.value]
    target = resource_for(rel.related_model)
    id_text = jsonsql.IdText(F(f"{rel.field.related_query_name()}__pk"))
    plan.related(text, target, node, id_text, reference=False)


def _graphql_name(plan, text, node) -> None:
    """A model field shown under the reference's name (Resource.graphql_names): a foreign key's
    object read as any foreign key's, or the column's value; or a derived relation's object."""
    source = plan.resource.graphql_names[node.name.value]
    if isinstance(source, Derived):
        return plan.derived(text, node.name.value, source, node)
    field = plan.resource.model._meta.get_field(source)
    target = resource_for(field.related_model) if field.is_relation else None
    if target is not None:
        return plan.related(text, target, node, jsonsql.IdText(F(field.attname)))
    if isinstance(field, JSONField):
        return plan.json_column(text, field.attname)
    return plan.scalar(text, field)


def _natural_sort_key(plan, text, node) -> None:
    plan.scalar(text, plan.resource.model._meta.get_field(NATURAL_SORT_KEY))


def _extension_list(plan, text, node) -> None:
    """A type extension's list: its members found for the whole page by the declaration's
    `members`, read by the members' plan (one query for their texts)."""
    declared = extension_lists(plan.resource)[node.name.value]
    target = resource_for(apps.get_model(declared.target))
    members_plan = type(plan).of(target, node.selection_set)
    plan.inside |= {target, *members_plan.inside}
    model = plan.resource.model

    def load(ids, base, viewer):
        found = declared.members(model, list(ids), viewer)
        wanted = {member for members in found.values() for member in members}
        if not wanted:
            return {}
        texts = members_plan.load(wanted, base, viewer)
        return {
            owner: b"[" + b",".join(texts[m] for m in members if m in texts) + b"]"
            for owner, members in found.items()
        }

    slot = f"list{len(plan.lists)}"
    plan.lists[slot] = load
    text.py(f"P[{slot!r}].get(r[0], b'[]')")
