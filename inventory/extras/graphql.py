"""GraphQL fields beside the generated ones for extras: whether a secret's value is reachable
(REST: secrets/<id>/check/; no field anywhere returns a secret's value), and the dynamic groups
an object belongs to."""

from __future__ import annotations

import graphene
from django.contrib.contenttypes.models import ContentType

from queryengine.errors import NotFound
from queryengine.permissions import restricted
from queryengine.registry import resource_for
from queryengine.scalars import UUID, GenericScalar

from . import secrets
from .groups import groups_of_page, member_resource
from .models import DynamicGroup, Secret


def resolve_secret_check(root, info, id):
    found = restricted(resource_for(Secret), info.context.user).filter(pk=id).first()
    if found is None:
        raise NotFound("No Secret matches the given query.")
    return secrets.check(found, info.context.user)


def query_fields(types) -> dict:
    return {
        "secret_check": graphene.Field(
            GenericScalar, id=graphene.Argument(UUID, required=True), resolver=resolve_secret_check
        )
    }


def resolve_dynamic_groups(root, info) -> list:
    """The groups the reader may view that hold the object, by name."""
    if member_resource(type(root)) is None:
        return []
    groups = restricted(resource_for(DynamicGroup), info.context.user).filter(
        content_type=ContentType.objects.get_for_model(type(root))
    )
    groups = list(groups.order_by("name", "pk"))
    member_of = groups_of_page(type(root), [root.pk], {g.pk for g in groups}).get(str(root.pk), set())
    return [g for g in groups if str(g.pk) in member_of]


def type_fields(resource, types) -> dict:
    """`dynamic_groups` on every object groups may hold, and, always empty, on the other objects
    with custom fields, which the reference's groups may hold (statuses, roles)."""
    if member_resource(resource.model) is None and not resource.has_custom_fields:
        return {}
    group_type = resource_for(DynamicGroup).type_name
    return {"dynamic_groups": graphene.List(lambda: types[group_type], resolver=resolve_dynamic_groups)}
