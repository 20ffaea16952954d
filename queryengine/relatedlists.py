"""Lists of related objects in GraphQL: a model's many-to-many fields, its declared reverse lists
and every relation another registered model holds to it (the objects whose foreign key or
many-to-many field points here: a device's `interfaces`, an interface's `ip_addresses`), under
the relation's accessor name, as the reference's schema names them.

Every such list takes the members' list filters, `limit` and `offset` (per owner). The rows a
list shows are worked out here for both executors: the compiled plans read them for a whole
page at once (listplans.py), the generic executor for one owner; both narrow by what the viewer
may see and by the filters inside the SQL, so they always agree.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cache

from django.apps import apps
from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.db.models import F, Window
from django.db.models.fields.reverse_related import ManyToManyRel, ManyToOneRel, OneToOneRel
from django.db.models.functions import RowNumber
from graphql import GraphQLError

from . import query
from .filters import apply_filters
from .registry import CONTENT_TYPES, MANY_TO_MANY, REVERSE, TYPE_EXTENSIONS, Resource, resource_for, resources
from .relationnames import hidden_name, reference_name

PAGING = ("limit", "offset")
# Fields every object type has whatever its model (schema.py): no relation takes their names.
OWN = frozenset({"id", "object_type", "display", "url", "notes_url", "custom_fields", "tree_depth"})


@dataclass(frozen=True, eq=False)
class Relation:
    """A list of related objects: rows of `through` pair an owner (its id in the column `owner`)
    with a member, named by the foreign key `member` of `through` (None: `through` is the
    members' own model, whose foreign key `owner` points at the owner)."""

    name: str
    target: type[models.Model]
    through: type[models.Model]
    owner: str
    member: str | None
    # A generic relation's: (its content type field, the owners' model); the owner column holds
    # ids of objects of any type.
    owner_type: tuple[str, type[models.Model]] | None = None

    @property
    def member_id(self) -> str:
        return "pk" if self.member is None else f"{self.member}_id"

    @property
    def present(self) -> dict:
        # A through table may hold rows for other relations (an address on a VM interface).
        if self.owner_type is not None:
            type_field, model = self.owner_type
            return {f"{type_field}_id": ContentType.objects.get_for_model(model).pk}
        return {} if self.member is None else {f"{self.member}__isnull": False}

    def order(self) -> tuple[str, ...]:
        """The members' own order, as a path from `through`."""
        order = query.default_order(self.target)
        if self.member is None:
            return tuple(order)
        return tuple(
            f"-{self.member}__{o[1:]}" if o.startswith("-") else f"{self.member}__{o}" for o in order
        )


def forward(field: models.ManyToManyField, name: str) -> Relation:
    """A many-to-many field of the owner's model."""
    return Relation(
        name,
        field.related_model,
        field.remote_field.through,
        f"{field.m2m_field_name()}_id",
        field.m2m_reverse_field_name(),
    )


def backward(name: str, target: type[models.Model], field) -> Relation:
    """The members' foreign key (`field`, of `target`) or many-to-many field pointing at the owner."""
    if field.many_to_many:
        through = field.remote_field.through
        return Relation(name, target, through, f"{field.m2m_reverse_field_name()}_id", field.m2m_field_name())
    return Relation(name, target, target, field.attname, None)


def of_spec(spec) -> Relation | None:
    """The relation behind a list field of a resource's declaration (content types included)."""
    if spec.kind in (MANY_TO_MANY, CONTENT_TYPES):
        return forward(spec.model_field, spec.name)
    if spec.kind == REVERSE:
        return backward(spec.name, spec.target, spec.model_field)
    return None


@cache
def relations_of(resource: Resource) -> dict[str, Relation]:
    """The lists GraphQL shows beside the declared fields: every foreign key and many-to-many
    field of a registered model pointing at this one, by its reference name (hidden ones, with a
    `+` name, left out), unless a declared field already shows it or has its name; a relation
    whose accessor differs from that name answers to its accessor too (`former_names`)."""
    taken = {spec.name for spec in resource.fields if not spec.displaced}
    taken |= set(resource.counts) | set(resource.timestamps) | OWN
    taken |= {name for extension in TYPE_EXTENSIONS for name in extension(resource, {})}
    declared = {spec.model_field for spec in resource.fields if spec.kind == REVERSE}
    found: dict[str, Relation] = {}
    hidden: dict[str, list] = {}
    for rel in resource.model._meta.get_fields(include_hidden=True):
        if not isinstance(rel, ManyToOneRel | ManyToManyRel) or isinstance(rel, OneToOneRel):
            continue
        if resource_for(rel.related_model) is None or rel.field in declared:
            continue
        if rel.hidden:
            hidden.setdefault(hidden_name(rel), []).append(rel)
            continue
        for name in dict.fromkeys((reference_name(rel), rel.get_accessor_name())):
            if name not in taken and name not in found:
                found[name] = backward(name, rel.related_model, rel.field)
    for name, rels in hidden.items():  # a name two relations would take is left out
        if len(rels) == 1 and name not in taken and name not in found:
            found[name] = backward(name, rels[0].related_model, rels[0].field)
    for name, source in resource.lists.items():
        app_label, model_name, path = source.split(".")
        target = apps.get_model(app_label, model_name)
        if resource_for(target) is not None and name not in taken:
            field = None if "__" in path else target._meta.get_field(path)
            owner = field.attname if field is not None and field.concrete else path
            found[name] = Relation(name, target, target, owner, None)
    if not resource.integer_pk and resource.versions is None:
        for other in resources():
            for name, generic in other.generic_lists.items():
                if name not in taken and name not in found and generic.applies(resource):
                    owner_type = (generic.type_field, resource.model)
                    found[name] = Relation(name, other.model, other.model, generic.id_field, None, owner_type)
    return found


@cache
def former_names(resource: Resource) -> dict[str, str]:
    """{accessor: reference name} of the relations shown under both (the accessor deprecated)."""
    names = relations_of(resource)
    former: dict[str, str] = {}
    for rel in resource.model._meta.get_fields():
        if isinstance(rel, ManyToOneRel | ManyToManyRel) and not rel.hidden:
            old, new = rel.get_accessor_name(), reference_name(rel)
            if old != new and old in names and new in names and names[old].through is names[new].through:
                former[old] = new
    return former


def list_relation(resource: Resource, name: str) -> Relation | None:
    """The relation a list field of the resource's GraphQL type reads (None: not such a list)."""
    spec = next((s for s in resource.fields if s.key == name), None)  # a displaced one: its twin
    if spec is not None:
        return of_spec(spec) if resource_for(spec.target) else None
    return relations_of(resource).get(name)


def narrowed(relation: Relation, pairs, viewer, arguments: dict):
    """`pairs` (a queryset of `through`) keeping the members `viewer` may see (None: all) that
    match the filters among `arguments`, and the page of each owner `limit` and `offset` ask
    for; None when the viewer may see no member."""
    target = resource_for(relation.target)
    subset = None if viewer is None else viewer.subset(target)
    if subset is query.NOTHING:
        return None
    filters = {k: v for k, v in arguments.items() if k not in PAGING and v is not None}
    reader = None if viewer is None else viewer.user
    if relation.member is None:
        if filters:
            pairs = apply_filters(target, pairs, filters, query.filters_of(target), reader)
        if subset is not None:
            pairs = pairs.filter(pk__in=subset)
    elif filters or subset is not None:
        members = target.model._default_manager.all()
        if filters:
            members = apply_filters(target, members, filters, query.filters_of(target), reader)
        if subset is not None:
            members = members.filter(pk__in=subset)
        pairs = pairs.filter(**{f"{relation.member}__in": members.values("pk")})
    limit, offset = arguments.get("limit") or 0, max(arguments.get("offset") or 0, 0)
    if limit > 0 or offset:
        order = [F(o[1:]).desc() if o.startswith("-") else F(o).asc() for o in relation.order()]
        rank = Window(RowNumber(), partition_by=[F(relation.owner)], order_by=order)
        pairs = pairs.annotate(_rank=rank).filter(_rank__gt=offset)
        if limit > 0:
            pairs = pairs.filter(_rank__lte=offset + limit)
    return pairs


def members(relation: Relation, owner, viewer, arguments: dict) -> list:
    """The members of one owner's list, as objects (the generic executor's resolver)."""
    pairs = relation.through._default_manager.filter(**{relation.owner: owner.pk}, **relation.present)
    pairs = narrowed(relation, pairs, viewer, arguments)
    if pairs is None:
        return []
    pairs = pairs.order_by(*relation.order())
    budget = getattr(viewer, "budget", None)
    if relation.member is None:
        found = list(pairs if budget is None else pairs[: budget.left + 1])
    else:
        ids = list(
            pairs.values_list(relation.member_id, flat=True)[: None if budget is None else budget.left + 1]
        )
        objects = relation.target._default_manager.in_bulk(ids)
        found = [objects[pk] for pk in ids]
    if budget is not None:
        budget.take(len(found))
    return found


class RowBudget:
    """The rows a client's document may still return (GRAPHQL_MAX_ROWS), nested lists included:
    each list's query asks for one row more than is left, so a refusal reads little."""

    def __init__(self, rows: int):
        self.left = rows
        self.lock = threading.Lock()  # a page's lists are read alongside each other

    def take(self, rows: int) -> None:
        with self.lock:
            self.left -= rows
            if self.left < 0:
                self.left = 0
                raise GraphQLError(
                    f"Query returns more than {settings.GRAPHQL_MAX_ROWS} rows, nested lists included; "
                    "the limit is GRAPHQL_MAX_ROWS: lower `limit` or split the query."
                )
