"""Config contexts: schema checks and the rendered context of devices and virtual machines
(`include=config_context`): every active context assigned to an object, merged deeply in
weight order, then the object's own local data on top.

A page of objects is rendered with a handful of queries whatever its size: the active contexts,
their assignments (one UNION), the objects' own facts, their tags and clusters, and the
ancestors of their locations and tenant groups, their dynamic groups (one query for all); matching
runs in Python over small sets."""

from __future__ import annotations

from collections import defaultdict

from django.core.exceptions import ValidationError
from django.db.models import IntegerField, Value
from jsonschema import Draft7Validator
from jsonschema.exceptions import SchemaError
from jsonschema.exceptions import ValidationError as SchemaViolation

from queryengine.registry import Included, Resource

from .models import ConfigContext

NOT_AN_OBJECT = 'JSON data must be in object form. Example: {"foo": 123}'
# The assignments a context may have; an empty one matches every object.
ASSIGNMENTS = (
    "locations",
    "roles",
    "device_types",
    "device_families",
    "device_redundancy_groups",
    "platforms",
    "cluster_groups",
    "clusters",
    "tenant_groups",
    "tenants",
    "tags",
    "dynamic_groups",
)


# -- validation -------------------------------------------------------------------------------


def check_schema(schema) -> None:
    try:
        Draft7Validator.check_schema(schema.data_schema)
    except SchemaError as exc:
        raise ValidationError({"data_schema": [exc.message]}) from None
    document = schema.data_schema
    if not isinstance(document, dict) or "properties" not in document or document.get("type") != "object":
        raise ValidationError(
            {
                "data_schema": [
                    "Nautobot only supports context data in the form of an object and thus the JSON schema "
                    "must be of type object and specify a set of properties."
                ]
            }
        )


def _validate(data, schema, field: str) -> None:
    if schema is None:
        return
    try:
        Draft7Validator(schema.data_schema, format_checker=Draft7Validator.FORMAT_CHECKER).validate(data)
    except SchemaViolation as exc:
        raise ValidationError(
            {field: [f"Validation using the JSON Schema {schema} failed.", exc.message]}
        ) from None


def check_context(context: ConfigContext) -> None:
    if not isinstance(context.data, dict):
        raise ValidationError({"data": [NOT_AN_OBJECT]})
    _validate(context.data, context.config_context_schema, "data")


def check_local_data(obj) -> None:
    data = obj.local_config_context_data
    if data is not None and not isinstance(data, dict):
        raise ValidationError({"local_config_context_data": [NOT_AN_OBJECT]})
    if obj.local_config_context_schema_id and not data:
        raise ValidationError(
            {
                "local_config_context_schema": [
                    "Local config context data must exist for a schema to be applied."
                ]
            }
        )
    if data:
        _validate(data, obj.local_config_context_schema, "local_config_context_data")


# -- rendering ----------------------------------------------------------------------------------


def deep_merge(base: dict, new: dict) -> dict:
    """`new` over `base`: objects merge key by key, anything else (lists too) is replaced."""
    merged = dict(base)
    for key, value in new.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def active_contexts() -> list[tuple[str, dict, dict]]:
    """(id, data, {assignment: set of ids}) of every active context, lowest weight first."""
    contexts = list(
        ConfigContext.objects.filter(is_active=True).order_by("weight", "name").values_list("pk", "data")
    )
    if not contexts:
        return []
    active = [pk for pk, _ in contexts]
    parts = []
    for index, name in enumerate(ASSIGNMENTS):
        field = ConfigContext._meta.get_field(name)
        through = field.remote_field.through
        parts.append(
            through.objects.filter(**{f"{field.m2m_field_name()}_id__in": active})
            .annotate(_kind=Value(index, IntegerField()))
            .values_list(f"{field.m2m_field_name()}_id", f"{field.m2m_reverse_field_name()}_id", "_kind")
            .order_by()
        )
    assigned: dict = defaultdict(lambda: defaultdict(set))
    for context_id, target_id, kind in parts[0].union(*parts[1:], all=True):
        assigned[context_id][ASSIGNMENTS[kind]].add(str(target_id))
    return [(pk, data, assigned.get(pk, {})) for pk, data in contexts]


def _with_ancestors(model, ids: set) -> dict[str, set]:
    """{id: the id itself and those of its ancestors} in a tree, one query per level."""
    parent: dict[str, str | None] = {}
    wanted = {i for i in ids if i}
    while wanted:
        rows = model._default_manager.filter(pk__in=list(wanted)).values_list("pk", "parent_id")
        found = {str(pk): (str(p) if p else None) for pk, p in rows}
        parent.update(found)
        wanted = {p for p in found.values() if p and p not in parent}
    chains = {}
    for start in ids:
        chain, node = set(), start
        while node and node not in chain:
            chain.add(node)
            node = parent.get(node)
        chains[start] = chain
    return chains


# What each kind of object offers to the assignments: ORM paths read per object.
FACTS = {
    "dcim.device": {
        "locations": "location_id",
        "roles": "role_id",
        "device_types": "device_type_id",
        "device_families": "device_type__device_family_id",
        "device_redundancy_groups": "device_redundancy_group_id",
        "platforms": "platform_id",
        "tenants": "tenant_id",
        "tenant_groups": "tenant__tenant_group_id",
    },
    "virtualization.virtualmachine": {
        "locations": "cluster__location_id",
        "roles": "role_id",
        "platforms": "platform_id",
        "tenants": "tenant_id",
        "tenant_groups": "tenant__tenant_group_id",
        "clusters": "cluster_id",
        "cluster_groups": "cluster__cluster_group_id",
    },
}


def _facts(resource: Resource, ids: list[str]) -> tuple[dict, dict]:
    """({id: {assignment: set of ids}}, {id: local data}) of a page of objects."""
    from inventory.dcim.models import DeviceClusterAssignment, Location
    from inventory.tenancy.models import TenantGroup

    model, paths = resource.model, FACTS[resource.object_type]
    names = list(paths)
    rows = model._default_manager.filter(pk__in=ids).values_list(
        "pk", "local_config_context_data", *(paths[n] for n in names)
    )
    facts: dict = {}
    local: dict = {}
    for pk, data, *values in rows:
        key = str(pk)
        local[key] = data
        facts[key] = {name: {str(v)} if v else set() for name, v in zip(names, values, strict=True)}
    tags = model._meta.get_field("tags")
    through, owner = tags.remote_field.through, f"{tags.m2m_field_name()}_id"
    for pk, tag in through.objects.filter(**{f"{owner}__in": ids}).values_list(
        owner, f"{tags.m2m_reverse_field_name()}_id"
    ):
        facts[str(pk)].setdefault("tags", set()).add(str(tag))
    if resource.object_type == "dcim.device":
        for pk, cluster, group in DeviceClusterAssignment.objects.filter(device_id__in=ids).values_list(
            "device_id", "cluster_id", "cluster__cluster_group_id"
        ):
            facts[str(pk)].setdefault("clusters", set()).add(str(cluster))
            if group:
                facts[str(pk)].setdefault("cluster_groups", set()).add(str(group))
    for name, tree in (("locations", Location), ("tenant_groups", TenantGroup)):
        chains = _with_ancestors(tree, {v for f in facts.values() for v in f[name]})
        for f in facts.values():
            f[name] = set().union(*(chains[v] for v in f[name])) if f[name] else set()
    return facts, local


def load(resource: Resource, ids: list[str], base: str, depth: int, viewer=None) -> dict:
    from .groups import groups_of_page

    contexts = active_contexts()
    facts, local = _facts(resource, ids)
    # Group membership is computed for the page at once: one query for every group contexts name.
    wanted = {group for _, _, assigned in contexts for group in assigned.get("dynamic_groups", ())}
    if wanted:
        members = groups_of_page(resource.model, list(facts), wanted)
        for pk, own in facts.items():
            own["dynamic_groups"] = members.get(pk, set())
    rendered = {}
    for pk, own in facts.items():
        data: dict = {}
        for _, context_data, assigned in contexts:
            if all(not targets or targets & own.get(name, set()) for name, targets in assigned.items()):
                data = deep_merge(data, context_data)
        if local.get(pk):
            data = deep_merge(data, local[pk])
        rendered[pk] = data
    return rendered


INCLUDED = Included(applies=lambda resource: resource.object_type in FACTS, load=load)
