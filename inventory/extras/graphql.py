"""GraphQL fields beside the generated ones for extras: whether a secret's value is reachable
(REST: secrets/<id>/check/; no field anywhere returns a secret's value), and the dynamic groups
an object belongs to."""

from __future__ import annotations

import graphene
from django.contrib.contenttypes.models import ContentType

from queryengine.errors import NotFound
from queryengine.permissions import restricted
from queryengine.registry import ExtensionList, resource_for
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


def groups_holding(model, ids: list, user) -> dict[str, list[str]]:
    """{object id: ids of the groups `user` may view (every group: None) that hold it, by
    name}: one query for the groups and one for the page's memberships."""
    if member_resource(model) is None or not ids:
        return {}
    groups = DynamicGroup.objects.all() if user is None else restricted(resource_for(DynamicGroup), user)
    groups = groups.filter(content_type=ContentType.objects.get_for_model(model)).order_by("name", "pk")
    ordered = [str(pk) for pk in groups.values_list("pk", flat=True)]
    member_of = groups_of_page(model, ids, ordered)
    return {pk: [g for g in ordered if g in found] for pk, found in member_of.items()}


def resolve_dynamic_groups(root, info) -> list:
    """The groups the reader may view that hold the object, by name."""
    held = groups_holding(type(root), [root.pk], info.context.user).get(str(root.pk), [])
    found = {str(g.pk): g for g in DynamicGroup.objects.filter(pk__in=held)}
    return [found[pk] for pk in held if pk in found]


def type_fields(resource, types) -> dict:
    """`dynamic_groups` on every object groups may hold, and, always empty, on the other objects
    with custom fields, which the reference's groups may hold (statuses, roles)."""
    if member_resource(resource.model) is None and not resource.has_custom_fields:
        return {}
    group_type = resource_for(DynamicGroup).type_name
    return {
        "dynamic_groups": ExtensionList(
            field=lambda types: graphene.List(lambda: types[group_type], resolver=resolve_dynamic_groups),
            target="extras.DynamicGroup",
            members=lambda model, ids, viewer: groups_holding(
                model, ids, None if viewer is None else viewer.user
            ),
        )
    }
