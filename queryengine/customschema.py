"""Custom fields in the schema: a `cf_<key>` field on each type a custom field applies to, and
its `cf_<key>[__<lookup>]` filters as arguments of that type's lists, root and nested.

Custom fields come and go while the server runs, so these fields cannot be declared when the
schema is built: each process brings its schema up to date before it prepares a client's
document. What the application describes is kept between changes to any definition
(queryengine.definitions), so an unchanged description costs a comparison. The schema's field
and argument maps are replaced whole, never changed in place, so a document another thread is
validating sees either the old map or the new one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import orjson
from graphql import GraphQLArgument, GraphQLField, GraphQLList, GraphQLSchema

from .filters import CUSTOM_FIELD_PREFIX
from .registry import custom_field_support, resource_by_object_type

# What a custom field's values are in GraphQL, by the kind its application gives.
SCALARS = {
    "string": "String",
    "integer": "Int",
    "boolean": "Boolean",
    "object": "GenericScalar",
    "strings": "String",  # a list of them
}

# (type name, field name) of every list of each member type, and its root list fields: set by
# the schema once built (schema.share_list_arguments).
LISTS: dict[str, list[tuple[str, str]]] = {}
ROOT_LISTS: dict[str, tuple[str, ...]] = {}

_lock = threading.Lock()
_shown: dict = {}  # the description the schema shows now
_added: dict[str, frozenset] = {}  # type name -> the names of the fields and arguments added


def value(data: str | None, key: str):
    """A custom field's value from an object's data as the database returns it (JSON text)."""
    return None if data is None else orjson.loads(data).get(key)


def bring_up_to_date(schema: GraphQLSchema, changed: Callable[[], None]) -> None:
    """Show the custom fields that exist now; `changed()` after the schema changed."""
    support = custom_field_support()
    if support is None:
        return
    described = support.described()
    if described == _shown:
        return
    with _lock:
        if described == _shown:
            return
        _show(schema, described)
        _shown.clear()
        _shown.update(described)
    changed()


def _show(schema: GraphQLSchema, described: dict) -> None:
    by_type: dict[str, tuple] = {}
    for object_type, fields in described.items():
        resource = resource_by_object_type(object_type)
        if resource is not None and resource.has_custom_fields:
            by_type[resource.type_name] = fields
    for type_name in set(by_type) | set(_added):
        fields = by_type.get(type_name, ())
        object_type = schema.type_map[type_name]
        added = _added.get(type_name, frozenset())
        kept = {name: f for name, f in object_type.fields.items() if name not in added}
        shown = {}
        for key, kind, _ in fields:
            scalar = schema.type_map[SCALARS[kind]]
            shown[f"{CUSTOM_FIELD_PREFIX}{key}"] = GraphQLField(
                GraphQLList(scalar) if kind == "strings" else scalar,
                resolve=lambda root, info, _k=key: (root._custom_field_data or {}).get(_k),
            )
        arguments = {
            parameter: GraphQLArgument(GraphQLList(schema.type_map["String"]))
            for _, _, parameters in fields
            for parameter in parameters
        }
        object_type.fields = {**kept, **{n: f for n, f in shown.items() if n not in kept}}
        lists = [(schema.query_type, name) for name in ROOT_LISTS.get(type_name, ())]
        lists += [(schema.type_map[owner], name) for owner, name in LISTS.get(type_name, ())]
        replaced: dict[int, dict] = {}  # nested lists of one member type share their arguments
        for owner, name in lists:
            field = owner.fields[name]
            if id(field.args) not in replaced:
                own = {n: a for n, a in field.args.items() if n not in added}
                replaced[id(field.args)] = {**own, **{n: a for n, a in arguments.items() if n not in own}}
            field.args = replaced[id(field.args)]
        _added[type_name] = frozenset(shown) | frozenset(arguments)
    for type_name in [t for t in _added if t not in by_type]:
        del _added[type_name]
