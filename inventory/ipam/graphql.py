"""GraphQL fields for free space and allocation inside a prefix (REST: available-prefixes and
available-ips) and a VLAN group (available-vlans), added to the one schema beside the generated fields."""

from __future__ import annotations

import graphene
import netaddr

from queryengine.errors import NotFound, ValidationFailed
from queryengine.mutations import perform
from queryengine.permissions import restricted
from queryengine.registry import resource_for
from queryengine.scalars import UUID, GenericScalar

from . import allocation, vlans
from .models import VLAN, IPAddress, Prefix, VLANGroup


def visible_parent(context, pk) -> Prefix:
    parent = restricted(resource_for(Prefix), context.user).filter(pk=pk).first()
    if parent is None:
        raise NotFound("No Prefix matches the given query.")
    return parent


def vrf_reference(context, parent: Prefix):
    from queryengine.schema import object_url  # the schema is built from the registry this module extends

    vrf = Prefix._meta.get_field("vrf").related_model
    if parent.vrf_id is None:
        return None
    return {
        "id": parent.vrf_id,
        "object_type": resource_for(vrf).object_type,
        "url": object_url(context, resource_for(vrf), parent.vrf_id),
    }


def resolve_available_prefixes(root, info, parent):
    prefix = visible_parent(info.context, parent)
    vrf = vrf_reference(info.context, prefix)
    return [
        {"prefix": str(net), "family": net.version, "vrf": vrf} for net in allocation.free_prefixes(prefix)
    ]


def resolve_available_ips(root, info, parent, limit=None, range_start=None, range_end=None):
    """The first free addresses (`limit`, the page size by default), from `range_start` to
    `range_end` (inclusive) where given, as the reference's."""
    from django.conf import settings

    prefix = visible_parent(info.context, parent)
    maximum = settings.MAX_PAGE_SIZE or None
    size = min(limit or settings.PAGINATE_COUNT, maximum) if maximum else limit or settings.PAGINATE_COUNT
    vrf = vrf_reference(info.context, prefix)
    free = allocation.free_addresses(prefix, size, *span(prefix, range_start, range_end))
    return [{"address": a, "family": prefix.ip_version, "vrf": vrf} for a in free]


def span(prefix: Prefix, range_start: str | None, range_end: str | None) -> tuple[int | None, int | None]:
    """The first and last address (integers, None where not given) of a span inside a prefix."""
    family = prefix.ip_version
    return host_of("range_start", range_start, family), host_of("range_end", range_end, family)


def host_of(name: str, text: str | None, family: int) -> int | None:
    """An address a parameter names, as an integer (None when not given)."""
    if text is None:
        return None
    try:
        address = netaddr.IPAddress(text)
    except (netaddr.AddrFormatError, ValueError, TypeError) as exc:
        raise ValidationFailed(
            {"detail": f"Incorrectly formatted address in parameter {name}: {exc}"}
        ) from None
    if address.version != family:
        raise ValidationFailed({"detail": f"The address in parameter {name} is not an IPv{family} address."})
    return int(address)


def allocate(model, plan):
    def resolve(root, info, parent, data):
        planned = plan(visible_parent(info.context, parent), data)
        return perform("create", resource_for(model), info.context, {"data": planned})

    return resolve


def allocate_ips(root, info, parent, data, range_start=None, range_end=None):
    """Addresses allocated from the prefix's free ones, within the span where given."""
    prefix = visible_parent(info.context, parent)
    planned = allocation.plan_addresses(prefix, data, *span(prefix, range_start, range_end))
    return perform("create", resource_for(IPAddress), info.context, {"data": planned})


def visible_group(context, pk) -> VLANGroup:
    group = restricted(resource_for(VLANGroup), context.user).filter(pk=pk).first()
    if group is None:
        raise NotFound("No VLANGroup matches the given query.")
    return group


def resolve_available_vlans(root, info, parent, limit=None):
    return vlans.free_vids(visible_group(info.context, parent))[:limit]


def allocate_vlans(root, info, parent, data):
    planned = vlans.plan_vlans(visible_group(info.context, parent), data)
    return perform("create", resource_for(VLAN), info.context, {"data": planned})


def span_arguments() -> dict:
    return {"range_start": graphene.String(), "range_end": graphene.String()}


def query_fields(types) -> dict:
    return {
        "available_vlan_ids": graphene.Field(
            graphene.List(graphene.Int),
            args={"parent": UUID(required=True), "limit": graphene.Int()},
            resolver=resolve_available_vlans,
        ),
        "available_prefixes": graphene.Field(
            graphene.List(GenericScalar),
            args={"parent": UUID(required=True)},
            resolver=resolve_available_prefixes,
        ),
        "available_ip_addresses": graphene.Field(
            graphene.List(GenericScalar),
            args={"parent": UUID(required=True), "limit": graphene.Int(), **span_arguments()},
            resolver=resolve_available_ips,
        ),
    }


def mutation_fields(types) -> dict:
    arguments = {"parent": UUID(required=True), "data": graphene.List(GenericScalar, required=True)}
    return {
        "allocate_vlans": graphene.Field(
            graphene.List(types[resource_for(VLAN).type_name]),
            args=arguments,
            resolver=allocate_vlans,
        ),
        "allocate_prefixes": graphene.Field(
            graphene.List(types[resource_for(Prefix).type_name]),
            args=arguments,
            resolver=allocate(Prefix, allocation.plan_prefixes),
        ),
        "allocate_ip_addresses": graphene.Field(
            graphene.List(types[resource_for(IPAddress).type_name]),
            args={**arguments, **span_arguments()},
            resolver=allocate_ips,
        ),
    }
