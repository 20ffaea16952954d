"""Filters of IPAM lists the reference names beyond the generated families: prefixes by their
place in their namespace's tree (ancestors, descendants, depth), strict network values, VRFs by
prefix, VLANs by the interfaces carrying them and the devices they are available on, and
devices or virtual machines by their addresses' values.

The tree is read in SQL, on the stored bytes, as the other network filters (networks.py): a
prefix's ancestors are the prefixes of its namespace containing it, a correlated subquery on
PostgreSQL and SQLite alike.
"""

from __future__ import annotations

import uuid

import netaddr
from django.db.models import Exists, F, Func, OuterRef, Q, Subquery, Value
from django.db.models.functions import StrIndex
from django.db.models.lookups import LessThan

from inventory.dcim.filters import objects_named
from inventory.dcim.models import Device, Interface, Location
from inventory.virtualization.models import VMInterface
from queryengine.filters import parse_int, parse_uuid
from queryengine.registry import CustomFilter

from . import networks
from .models import IPAddress, Prefix

INVALID = "Select a valid choice. {} is not one of the available choices."
LENGTH = "prefix_length"


def flat(groups) -> list:
    return [pk for group in groups for pk in group]


def prefixes_named(value: str, by_network: bool) -> list:
    """The prefixes a value names: by id, by CIDR (that network, in any namespace) or, where
    `by_network`, by network address (every prefix starting there, as the reference's `ancestors`
    takes one). An unknown id is an error; a network naming no prefix too where `by_network`."""
    try:
        pk = uuid.UUID(value)
    except ValueError:
        pk = None
    if pk is not None:
        if not Prefix.objects.filter(pk=pk).exists():
            raise ValueError(INVALID.format(value))
        return [pk]
    net = networks.parse_network(value)
    if "/" in value or not by_network:
        named = networks.equal(net, LENGTH)
    else:
        named = Q(ip_version=net.version, network_address=networks.to_bytes(net.first))
    found = list(Prefix.objects.filter(named).values_list("pk", flat=True))
    if by_network and not found:
        raise ValueError(INVALID.format(value))
    return found


def parse_tree_prefixes(value: str) -> list:
    return prefixes_named(value, by_network=True)


def parse_prefixes(value: str) -> list:
    return prefixes_named(value, by_network=False)


def span(prefix) -> tuple:
    return (
        prefix.namespace_id,
        prefix.ip_version,
        networks.from_bytes(prefix.network_address),
        networks.from_bytes(prefix.broadcast_address),
        prefix.prefix_length,
    )


def inside(inner, outer, strict: bool) -> bool:
    """Whether prefix `inner` lies in prefix `outer`, in one namespace (strictly: not itself)."""
    a, b = span(inner), span(outer)
    if a[:2] != b[:2] or not (b[2] <= a[2] and a[3] <= b[3]):
        return False
    return a[4] > b[4] if strict else True


def tree_filter(named_relation: Q, oracle_relation, samples) -> CustomFilter:
    """Prefixes standing in `named_relation` (a condition on the named prefixes, relative to the
    prefix filtered: networks.contained_in_outer/containing_outer) to any of the given ones, in
    their namespace."""

    def build(groups) -> Q:
        named = Prefix.objects.filter(named_relation, pk__in=flat(groups), namespace=OuterRef("namespace"))
        return Q(Exists(named))

    def oracle(prefix, groups) -> bool:
        return any(oracle_relation(prefix, named) for named in Prefix.objects.filter(pk__in=flat(groups)))

    return CustomFilter(build, parse_tree_prefixes, oracle, samples)


def nested_samples(prefixes) -> list:
    """A prefix below another (by id) and a network address starting prefixes (all of them)."""
    nested = [p for p in prefixes if p.parent_id is not None]
    return (
        [str(nested[-1].pk), networks.address_text(nested[0].ip_version, nested[0].network_address)]
        if nested
        else []
    )


def holding_samples(prefixes) -> list:
    """A prefix above others (by id, and by CIDR)."""
    parents = {p.parent_id for p in prefixes}
    above = [p for p in prefixes if p.pk in parents]
    return [str(above[0].pk), above[-1].cidr] if above else []


def depth_below(limit: int) -> Q:
    """Prefixes with fewer than `limit` prefixes of their namespace around them: the reference's
    `max_depth` (1: the top-level ones), its count of parents above each."""
    around = Prefix.objects.filter(
        networks.containing_outer(LENGTH, strict=True), namespace=OuterRef("namespace")
    )
    count = around.order_by().annotate(found=Func(F("pk"), function="COUNT")).values("found")
    return Q(LessThan(Subquery(count), Value(limit)))


def parents_above(prefix) -> int:
    depth = 0
    while prefix.parent_id is not None:
        prefix, depth = prefix.parent, depth + 1
    return depth


def tunnel_endpoints_named(texts) -> Q:
    """Prefixes protected by a VPN tunnel endpoint whose name holds the text, in this case
    (StrIndex: `strpos` and `instr`, both case-sensitive, as the reference's `contains`)."""
    text = texts[-1]
    if not text:
        return Q()
    endpoints = Prefix._meta.get_field("vpn_tunnel_endpoints").related_model.objects
    named = endpoints.annotate(at=StrIndex("name", Value(text))).filter(at__gt=0)
    return Q(vpn_tunnel_endpoints__in=named.values("pk"))


def tunnel_endpoint_samples(prefixes) -> list:
    names = [e.name for p in prefixes for e in p.vpn_tunnel_endpoints.all()]
    return [names[0][1:4], names[0][1:4].swapcase()] if names else []


def exact_prefix(masked: bool):
    """A network by id (a prefix's) or written without host bits, as the reference's strict
    `prefix_exact`: an address's takes one only with its mask."""

    def parse(value: str) -> netaddr.IPNetwork:
        try:
            return networks.parse_network(Prefix.objects.get(pk=uuid.UUID(value)).cidr)
        except ValueError:
            return networks.boundary_network(value.strip(), "prefix_exact", masked)
        except Prefix.DoesNotExist:
            raise ValueError(INVALID.format(value)) from None

    return parse


def equal_networks(prefix, nets) -> bool:
    mine = netaddr.IPNetwork(prefix.cidr)
    return any(
        mine.version == n.version and mine.first == n.first and mine.prefixlen == n.prefixlen for n in nets
    )


def host_in_networks(address, nets) -> bool:
    host = netaddr.IPAddress(networks.from_bytes(address.host_address), address.ip_version)
    return any(host.version == n.version and n.first <= int(host) <= n.last for n in nets)


def prefix_cidrs(objects) -> list:
    cidrs = sorted({p.cidr for p in Prefix.objects.all()})
    return [cidrs[0], cidrs[-1:] + cidrs[:1]] if cidrs else []


def each(build):
    return lambda nets: networks.any_of(build(n) for n in nets)


PREFIX_FILTERS = {
    "prefix_exact": CustomFilter(
        each(lambda n: networks.equal(n, LENGTH)), exact_prefix(masked=False), equal_networks, prefix_cidrs
    ),
    # The prefixes containing any of the given ones in their namespace.
    "ancestors": tree_filter(
        networks.contained_in_outer(LENGTH, strict=True),
        lambda prefix, named: inside(named, prefix, strict=True),
        nested_samples,
    ),
    # The given prefixes and every one inside them in their namespace.
    "prefix_and_descendants": tree_filter(
        networks.containing_outer(LENGTH, strict=False),
        lambda prefix, named: inside(prefix, named, strict=False),
        holding_samples,
    ),
    "max_depth": CustomFilter(
        lambda limits: depth_below(limits[-1]) if limits[-1] >= 1 else Q(),
        parse_int,
        lambda prefix, limits: limits[-1] < 1 or parents_above(prefix) < limits[-1],
        ("1", "2", "0"),
        argument="Int",
    ),
    "vpn_tunnel_endpoints_name_contains": CustomFilter(
        tunnel_endpoints_named,
        str,
        lambda prefix, texts: (
            not texts[-1] or any(texts[-1] in e.name for e in prefix.vpn_tunnel_endpoints.all())
        ),
        tunnel_endpoint_samples,
        argument="String",
    ),
}

ADDRESS_FILTERS = {
    # Addresses in any of the given networks, written without host bits and with their mask.
    "prefix_exact": CustomFilter(
        each(networks.host_within), exact_prefix(masked=True), host_in_networks, prefix_cidrs
    ),
}


def vrf_holding_prefixes() -> CustomFilter:
    """VRFs a given prefix (by id, or by CIDR: every prefix of that network) is assigned to."""

    def oracle(vrf, groups) -> bool:
        return bool(set(flat(groups)) & set(vrf.prefixes.values_list("pk", flat=True)))

    def samples(vrfs) -> list:
        held = [p for vrf in vrfs for p in vrf.prefixes.all()[:1]]
        return [str(held[0].pk), held[-1].cidr] if held else []

    return CustomFilter(
        lambda groups: Q(prefixes__in=flat(groups)), parse_prefixes, oracle, samples, negated=True
    )


def carried_by(model, untagged: str, tagged: str) -> CustomFilter:
    """VLANs an interface of `model` (by id or name) carries, untagged or tagged, as the
    reference's VLAN lists its interfaces."""

    def oracle(vlan, groups) -> bool:
        held = {
            *getattr(vlan, untagged).values_list("pk", flat=True),
            *getattr(vlan, tagged).values_list("pk", flat=True),
        }
        return bool(held & set(flat(groups)))

    def samples(vlans) -> list:
        carrying = model.objects.filter(Q(untagged_vlan__isnull=False) | Q(tagged_vlans__isnull=False))
        found = carrying.order_by("pk").first()
        return [str(found.pk), found.name] if found else []

    return CustomFilter(
        lambda groups: Q(**{f"{untagged}__in": flat(groups)}) | Q(**{f"{tagged}__in": flat(groups)}),
        lambda value: objects_named(model, value),
        oracle,
        samples,
    )


def lineage_of_devices(ids) -> set | None:
    """The locations of the given devices and every location above them; None: no such device."""
    devices = list(Device.objects.filter(pk__in=ids).select_related("location"))
    if not devices:
        return None
    return set().union(*(device.location.lineage() for device in devices if device.location_id))


def available_on(ids) -> Q:
    """VLANs a device may use: those at no location, or at its location or one above it; none
    for devices that do not exist, as the reference's `available_on_device`."""
    lineage = lineage_of_devices(ids)
    if lineage is None:
        return Q(pk__in=[])
    return Q(locations__isnull=True) | Q(locations__in=lineage)


def available_oracle(vlan, ids) -> bool:
    lineage = lineage_of_devices(ids)
    held = set(vlan.locations.values_list("pk", flat=True))
    return lineage is not None and (not held or bool(held & lineage))


def device_samples(vlans) -> list:
    located = Location.objects.filter(assigned_vlans__isnull=False).values("devices").exclude(devices=None)
    found = [str(row["devices"]) for row in located[:1]]
    return [*found, str(uuid.UUID(int=1))]


VLAN_FILTERS = {
    "available_on_device": CustomFilter(available_on, parse_uuid, available_oracle, device_samples),
    "interfaces": carried_by(Interface, "interfaces_as_untagged", "interfaces_as_tagged"),
    "vm_interfaces": carried_by(VMInterface, "vminterfaces_as_untagged", "vminterfaces_as_tagged"),
}


def parse_address_or_id(value: str):
    """An address by id or as the reference names one in a list: its host and mask."""
    try:
        return uuid.UUID(value)
    except ValueError:
        return networks.host_and_mask(value.strip())


def addresses_given(values) -> Q:
    query = Q(pk__in=[v for v in values if isinstance(v, uuid.UUID)])
    for version, host, length in (v for v in values if not isinstance(v, uuid.UUID)):
        query |= Q(ip_version=version, host_address=host, mask_length=length)
    return query


def holding_addresses(path: str) -> CustomFilter:
    """Objects with an address at `path` (a device's `interfaces__ip_addresses`) given by id or
    value (`10.0.0.1/24`; `10.0.0.1` is the /32 one), as the reference's `ip_addresses`."""

    def oracle(obj, values) -> bool:
        held = type(obj)._default_manager.filter(pk=obj.pk).values_list(path, flat=True)
        for address in IPAddress.objects.filter(pk__in=[pk for pk in held if pk is not None]):
            value = (address.ip_version, bytes(address.host_address), address.mask_length)
            if address.pk in values or value in values:
                return True
        return False

    def samples(objects) -> list:
        held = type(objects[0])._default_manager.filter(**{f"{path}__isnull": False}) if objects else None
        first = held.values_list(path, flat=True).order_by(path).first() if held is not None else None
        if first is None:
            return []
        address = IPAddress.objects.get(pk=first)
        return [
            str(address.pk),
            str(address),
            networks.address_text(address.ip_version, address.host_address),
        ]

    return CustomFilter(
        lambda values: Q(**{f"{path}__in": IPAddress.objects.filter(addresses_given(values)).values("pk")}),
        parse_address_or_id,
        oracle,
        samples,
        negated=True,
    )
