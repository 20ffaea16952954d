"""The one GraphQL schema, generated from the registry.

Every registered model gets an object type, a list field with the shared filter arguments,
paging and ordering, a `<list>_count` field with the same filters, and a single-object field.
These resolvers are the generic execution path; `compiler.py` produces identical results for
the documents it can compile.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import graphene
from graphene_django import DjangoObjectType

from . import customschema, naturalslug, otherfields, query, relatedlists, twins, uploads
from .documents import GENERIC_MARK
from .filters import (
    BIG_INT_ARGUMENT,
    BOOLEAN_ARGUMENT,
    CUSTOM_FIELDS_ARGUMENT,
    FLOAT_ARGUMENT,
    INT_ARGUMENT,
    LIST_ARGUMENT,
    ONE_INT_ARGUMENT,
    STRING_ARGUMENT,
)
from .registry import (
    COMPUTED,
    CONTENT_TYPE,
    CONTENT_TYPES,
    DERIVED,
    FILE,
    FOREIGN_KEY,
    GENERIC,
    INCLUDED,
    MANY_TO_MANY,
    QUERY_EXTENSIONS,
    REVERSE,
    SCALAR,
    Derived,
    Resource,
    resource_by_object_type,
    resource_for,
    resources,
)
from .scalars import UUID, BigInt, GenericScalar, scalar_for
from .selections import OBJECT_INTERFACE
from .twins import content_type_label


@dataclass
class RequestContext:
    """What resolvers know of the caller: who they are and the API's absolute base URL."""

    user: object
    base_url: str  # e.g. "http://host/api/"
    write_enabled: bool = False  # a read-only token (or none) may not run mutations
    first_attempt: bool = False  # set by engine.run for each attempt of a mutation
    # REST shows a related object the caller may not see as its reference; GraphQL as null.
    references_for_hidden: bool = False
    # (model, id) -> the row as the request's writes stored it (batches.update_one)
    stored_rows: dict = field(default_factory=dict)

    def viewer(self) -> query.Viewer:
        """What the caller may see inside other objects, worked out once per request."""
        viewer = self.__dict__.get("_viewer")
        if viewer is None:
            viewer = self.__dict__["_viewer"] = query.Viewer(self.user, self.references_for_hidden)
        return viewer


def object_url(context, resource: Resource, pk) -> str | None:
    return f"{context.base_url}{resource.route}/{pk}/" if resource.routed else None


def value_at(obj, path: str):
    for part in path.split("__"):
        obj = None if obj is None else getattr(obj, part)
    return obj


def display_value(resource: Resource, obj) -> str:
    if resource.display.load is not None:
        return resource.display.load([str(obj.pk)]).get(str(obj.pk))
    if resource.is_tree:
        return query.TREE_ARROW.join(node.name for node in [*obj.ancestors(), obj])
    return resource.display.render(*(value_at(obj, path) for path in resource.display.columns))


class InventoryObject(graphene.Interface):
    """What every object type shares: a generic relation's value, read further with
    `... on <Type> { ... }`."""

    class Meta:
        name = OBJECT_INTERFACE

    id = graphene.Field(UUID)
    object_type = graphene.String()
    display = graphene.String()
    url = graphene.String()

    @classmethod
    def resolve_type(cls, instance, info):
        return TYPES[resource_for(type(instance)).type_name]


def generic_target(object_type: str | None, pk) -> Resource | None:
    """The resource a generic relation's value belongs to (None: unset or not registered)."""
    target = resource_by_object_type(object_type) if object_type else None
    return None if pk is None else target


def generic_object(object_type: str | None, pk, context=None):
    """The object a generic relation points at (None when it is gone, not registered or one the
    caller may not see)."""
    target = generic_target(object_type, pk)
    if target is None:
        return None
    return readable(target, context, target.model._default_manager.filter(pk=pk)).first()


def readable(target: Resource, context, queryset):
    """`queryset` (of the target's objects, shown inside another object) narrowed to those the
    caller may see; unchanged when they see them all."""
    subset = None if context is None else context.viewer().subset(target)
    if subset is None:
        return queryset
    return queryset.none() if subset is query.NOTHING else queryset.filter(pk__in=subset)


def related_object(root, info, name: str, target: Resource):
    """A foreign key's object, or None when the caller may not see it."""
    subset = info.context.viewer().subset(target)
    if subset is None:
        return getattr(root, name, None)  # an absent reverse one-to-one: None
    if subset is query.NOTHING:
        return None
    field = root._meta.get_field(name)
    # A reverse one-to-one has no column here: its object, if any, holds the id.
    pk = getattr(root, field.attname) if field.concrete else getattr(getattr(root, name, None), "pk", None)
    return None if pk is None else target.model._default_manager.filter(pk=pk, pk__in=subset).first()


def derived_object(root, info, derived):
    """The object a derived relation finds for one object (its page loader asked for one id)."""
    source_id = value_at(root, derived.source)
    if source_id is None:
        return None
    found = source_id if derived.find is None else derived.find({str(source_id)}).get(str(source_id))
    target = resource_for(derived.model)
    return (
        None
        if found is None
        else readable(target, info.context, derived.model._default_manager.filter(pk=found)).first()
    )


def generic_ref(context, object_type: str | None, pk):
    target = generic_target(object_type, pk)
    if target is None:
        return None
    return {"id": pk, "object_type": object_type, "url": object_url(context, target, pk)}


# Set by a create mutation on the objects it answers with: only they show their shown-once secrets.
JUST_CREATED = "_just_created"


def shown_once_value(obj, attname: str):
    """A secret in the answer to the write that made it; null in any other read."""
    return getattr(obj, attname) if getattr(obj, JUST_CREATED, False) else None


def included_value(resource: Resource, included, pk, context, depth: int):
    """An `include=` value of one object: its page loader asked for a page of one."""
    key = str(pk)
    values = included.load(resource, [key], context.base_url, depth, context.viewer())
    return values.get(key, included.empty())


# The GraphQL types of values read a page at a time that are not any JSON value (Included.output).
INCLUDED_SCALARS = {"boolean": graphene.Boolean}


def included_field(resource: Resource, included) -> graphene.Field:
    """A value read a page at a time: any JSON value at a `depth`, or one of a type, never null."""

    def resolve(root, info, depth=0):
        return included_value(resource, included, root.pk, info.context, depth)

    if included.output == "object":
        return GenericScalar(depth=graphene.Int(default_value=0), resolver=resolve)
    return graphene.Field(graphene.NonNull(INCLUDED_SCALARS[included.output]), resolver=resolve)


TYPES: dict[str, type] = {}


def _type_of(model):
    return lambda: TYPES[resource_for(model).type_name]


def _field_attrs(resource: Resource) -> dict:
    attrs: dict = {
        "id": graphene.Field(
            graphene.Int if resource.integer_pk else UUID, resolver=lambda root, info: root.pk
        ),
        "object_type": graphene.String(resolver=lambda root, info, _v=resource.object_type: _v),
        "display": graphene.String(resolver=lambda root, info: display_value(resource, root)),
        "url": graphene.String(resolver=lambda root, info: object_url(info.context, resource, root.pk)),
        naturalslug.NAME: graphene.String(
            resolver=lambda root, info: naturalslug.value(root, info.context.viewer())
        ),
    }
    if resource.is_tree:
        attrs["tree_depth"] = graphene.Int(resolver=lambda root, info: len(root.ancestors()))
    for name in resource.counts:
        attrs[name] = graphene.Int(
            resolver=lambda root, info, _n=name: query.count_value(resource, _n, root, info.context.viewer())
        )
    for spec in resource.fields:
        name, key = spec.name, twins.key_of(spec)  # a displaced field: under its twin's name
        if (own := twins.own_form(spec)) is not None:
            attrs[key] = own.field(spec)
        elif spec.kind == SCALAR and name in resource.shown_once:
            attrs[key] = graphene.Field(
                scalar_for(spec.model_field)[0],
                resolver=lambda root, info, _n=spec.model_field.attname: shown_once_value(root, _n),
            )
        elif spec.kind in (FOREIGN_KEY, CONTENT_TYPE):  # a content type: its object, as the reference's
            if resource_for(spec.target) is not None:
                attrs[key] = graphene.Field(
                    _type_of(spec.target),
                    resolver=lambda root, info, _n=name, _t=spec.target: related_object(
                        root, info, _n, resource_for(_t)
                    ),
                )
        elif spec.kind in (MANY_TO_MANY, CONTENT_TYPES):
            if resource_for(spec.target) is not None:
                attrs[key] = related_list_field(relatedlists.of_spec(spec))
        elif spec.kind == COMPUTED:
            output = {"string": graphene.String, "integer": graphene.Int, "object": GenericScalar}
            attrs[key] = output[spec.computed.output](
                resolver=lambda root, info, _c=spec.computed: _c.render(
                    *(value_at(root, c) for c in _c.columns)
                )
            )
        elif spec.kind == REVERSE:
            attrs[key] = related_list_field(relatedlists.of_spec(spec))
        elif spec.kind == INCLUDED:
            attrs[key] = included_field(resource, spec.included)
        elif spec.kind == DERIVED:
            attrs[key] = graphene.Field(
                _type_of(spec.target),
                resolver=lambda root, info, _d=spec.derived: derived_object(root, info, _d),
            )
        elif spec.kind == FILE:
            attrs[key] = graphene.String(
                resolver=lambda root, info, _n=spec.model_field.attname: uploads.url(
                    info.context.base_url, getattr(root, _n)
                )
            )
        elif spec.kind == GENERIC:
            type_field, id_field = spec.columns
            union = resource.unions.get(name)
            attrs[key] = graphene.Field(
                InventoryObject if union is None else lambda _u=union, _s=spec: union_type(_u, _s),
                resolver=lambda root, info, _t=type_field, _i=id_field: generic_object(
                    content_type_label(value_at(root, _t)), value_at(root, _i), info.context
                ),
            )
        elif twins.is_choice(spec):
            attrs[key] = twins.choice_field(spec)
        else:
            scalar, _ = scalar_for(spec.model_field)
            attrs[key] = graphene.Field(scalar)
    for name in resource.timestamps:
        attrs[name] = graphene.Field(scalar_for(resource.model._meta.get_field(name))[0])
    attrs.update(generic_by_type_fields(resource))
    attrs.update(graphql_name_fields(resource))
    attrs.update(twins.schema_fields(resource))
    for name, rel in otherfields.reverse_ones(resource).items():
        if name not in attrs:
            target = resource_for(rel.related_model)
            attrs[name] = graphene.Field(
                _type_of(target.model),
                resolver=lambda root, info, _n=name, _t=target: related_object(root, info, _n, _t),
            )
    if otherfields.NATURAL_SORT_KEY not in attrs and otherfields.has_natural_sort_key(resource):
        # the name's natural-sort key, as the reference shows it
        attrs[otherfields.NATURAL_SORT_KEY] = graphene.String()
    former = relatedlists.former_names(resource)
    for name, relation in relatedlists.relations_of(resource).items():
        attrs[name] = related_list_field(relation, former.get(name))
    if resource.has_notes:
        attrs["notes_url"] = graphene.String(
            resolver=lambda root, info: object_url(info.context, resource, root.pk) + "notes/"
        )
    elif resource.notes_url_null:
        attrs["notes_url"] = graphene.String(resolver=lambda root, info: None)
    if resource.has_custom_fields:
        for name in ("custom_fields", "_custom_field_data"):
            attrs[name] = GenericScalar(resolver=lambda root, info: root._custom_field_data)
    attrs.update({k: v for k, v in otherfields.extension_fields(resource, TYPES).items() if k not in attrs})
    if not resource.integer_pk:
        # REST's nested form of an object reached through a generic relation carries it (true).
        attrs[GENERIC_MARK] = graphene.Boolean(resolver=lambda root, info: True)
    return attrs


def generic_by_type_fields(resource: Resource) -> dict:
    """`<prefix>_<type>` of each generic relation shown by type (Resource.generic_by_type)."""
    attrs: dict = {}
    for field_name, (name, object_type) in otherfields.by_type(resource).items():
        type_field, id_field = next(s for s in resource.fields if s.name == name).columns
        attrs[field_name] = graphene.Field(
            _type_of(resource_by_object_type(object_type).model),
            resolver=lambda root, info, _t=type_field, _i=id_field, _o=object_type: (
                generic_object(_o, value_at(root, _i), info.context)
                if content_type_label(value_at(root, _t)) == _o
                else None
            ),
        )
    return attrs


UNIONS: dict[str, type] = {}


def union_type(name: str, spec) -> type:
    """The union of a generic relation's targets' types (Resource.unions), built once by name."""
    members = tuple(TYPES[t.type_name] for t in spec.target_resources)
    if name not in UNIONS:
        meta = type("Meta", (), {"types": members})
        resolve = classmethod(lambda cls, instance, info: TYPES[resource_for(type(instance)).type_name])
        UNIONS[name] = type(name, (graphene.Union,), {"Meta": meta, "resolve_type": resolve})
    assert UNIONS[name]._meta.types == members, f"{name} names other types elsewhere"
    return UNIONS[name]


def graphql_name_fields(resource: Resource) -> dict:
    """The model fields GraphQL alone shows under the reference's names (Resource.graphql_names):
    a foreign key's object, as the caller may see it, or a column's value; or the object a
    derived relation finds."""
    attrs: dict = {}
    for name, field_name in resource.graphql_names.items():
        if isinstance(field_name, Derived):
            attrs[name] = graphene.Field(
                _type_of(field_name.model),
                resolver=lambda root, info, _d=field_name: derived_object(root, info, _d),
            )
            continue
        field = resource.model._meta.get_field(field_name)
        target = resource_for(field.related_model) if field.is_relation else None
        if target is not None:
            attrs[name] = graphene.Field(
                _type_of(target.model),
                resolver=lambda root, info, _n=field_name, _t=target: related_object(root, info, _n, _t),
            )
        else:
            attrs[name] = graphene.Field(
                scalar_for(field)[0], resolver=lambda root, info, _n=field.attname: getattr(root, _n)
            )
    return attrs


def related_list_field(relation: relatedlists.Relation, renamed: str | None = None) -> graphene.Field:
    """A list of related objects taking the members' list filters, `limit` and `offset`: the
    arguments of the members' root list (but `order_by`), given once the schema is built. A
    former name says which name replaces it."""
    return graphene.Field(
        graphene.List(_type_of(relation.target)),
        resolver=lambda root, info, _r=relation, **args: relatedlists.members(
            _r, root, info.context.viewer(), args
        ),
        deprecation_reason=f"Use `{renamed}`." if renamed else None,
    )


PAGED = ("limit", "offset", "order_by")  # a list's arguments that are not its filters


def share_list_arguments(built: graphene.Schema) -> None:
    """Every list of related objects takes the arguments of its members' root list, one set per
    member type shared by all the lists of it, and each root list's count takes the list's
    filters: built for each list, the hundreds of lists' tens of thousands of arguments would
    take seconds at every start."""
    types = built.graphql_schema.type_map
    roots = built.graphql_schema.query_type.fields
    shared: dict = {}
    for resource in resources():
        customschema.ROOT_LISTS[resource.type_name] = (resource.list_field, f"{resource.list_field}_count")
        listed = roots[resource.list_field].args
        roots[f"{resource.list_field}_count"].args = {k: v for k, v in listed.items() if k not in PAGED}
        for name, target in _list_fields(resource):
            if target not in shared:
                root = roots[target.list_field].args
                shared[target] = {k: v for k, v in root.items() if k != "order_by"}
            types[resource.type_name].fields[name].args = shared[target]
            customschema.LISTS.setdefault(target.type_name, []).append((resource.type_name, name))


def _list_fields(resource: Resource):
    """(name, member resource) of each list of related objects of a resource's type."""
    for spec in resource.fields:
        if spec.kind in (MANY_TO_MANY, CONTENT_TYPES, REVERSE) and resource_for(spec.target) is not None:
            yield twins.key_of(spec), resource_for(spec.target)
    for name, relation in relatedlists.relations_of(resource).items():
        yield name, resource_for(relation.target)


def build_type(resource: Resource) -> type:
    meta = type(
        "Meta",
        (),
        {
            "model": resource.model,
            "fields": ("id",),
            "name": resource.type_name,
            # Generic relations point at UUID-keyed objects only.
            "interfaces": () if resource.integer_pk else (InventoryObject,),
        },
    )
    object_type = type(resource.type_name, (DjangoObjectType,), {"Meta": meta, **_field_attrs(resource)})
    TYPES[resource.type_name] = object_type
    return object_type


ARGUMENT_TYPES = {
    LIST_ARGUMENT: lambda: graphene.List(graphene.String),
    CUSTOM_FIELDS_ARGUMENT: GenericScalar,
    BOOLEAN_ARGUMENT: graphene.Boolean,
    INT_ARGUMENT: lambda: graphene.List(graphene.Int),
    BIG_INT_ARGUMENT: lambda: graphene.List(BigInt),
    FLOAT_ARGUMENT: lambda: graphene.List(graphene.Float),
    STRING_ARGUMENT: graphene.String,
    ONE_INT_ARGUMENT: graphene.Int,
}


def filter_arguments(resource: Resource) -> dict:
    return {name: ARGUMENT_TYPES[f.argument]() for name, f in query.filters_of(resource).items()}


def root_list(resource: Resource, info, arguments: dict) -> list:
    found = list(query.list_queryset(resource, info.context.user, arguments))
    budget = info.context.viewer().budget
    if budget is not None:
        budget.take(len(found))
    return found


def build_query() -> type:
    fields: dict = {}
    for resource in resources():
        object_type = build_type(resource)
        arguments = filter_arguments(resource)
        # Arguments go in `args`: filter names such as `name` or `description` would otherwise
        # collide with graphene.Field's own keyword arguments.
        fields[resource.list_field] = graphene.Field(
            graphene.List(object_type),
            args={
                "limit": graphene.Int(),
                "offset": graphene.Int(),
                "order_by": graphene.List(graphene.String),
                **arguments,
            },
            resolver=lambda root, info, _r=resource, **args: root_list(_r, info, args),
        )
        # Its filters are the list's, shared once the schema is built (share_list_arguments).
        fields[f"{resource.list_field}_count"] = graphene.Field(
            graphene.Int,
            resolver=lambda root, info, _r=resource, **args: query.count_queryset(
                _r, info.context.user, args
            ),
        )
        # `ID`, as the reference types it (a `UUID` variable is taken too: rules.as_id); no id
        # finds nothing.
        fields[resource.single_field] = graphene.Field(
            object_type,
            id=graphene.ID(),
            resolver=lambda root, info, id=None, _r=resource: query.single_queryset(
                _r, info.context.user, id
            ).first(),
        )
    for extension in QUERY_EXTENSIONS:
        fields.update(extension(TYPES))
    return type("Query", (graphene.ObjectType,), fields)


def build_schema() -> graphene.Schema:
    from .mutations import build_mutation

    built = graphene.Schema(query=build_query(), mutation=build_mutation(), auto_camelcase=False)
    share_list_arguments(built)
    add_reference_roots(built)
    return built


def add_reference_roots(built: graphene.Schema) -> None:
    """The root fields under the reference's names too (Resource.reference_fields), each the very
    field of this schema's name (its `_count` beside a list): no arguments built twice."""
    roots = built.graphql_schema.query_type.fields
    for resource in resources():
        for name, own in resource.reference_fields.items():
            pairs = [(name, own)]
            if own == resource.list_field:
                pairs.append((f"{name}_count", f"{own}_count"))
            for alias, original in pairs:
                if alias not in roots:
                    roots[alias] = roots[original]


schema = build_schema()
