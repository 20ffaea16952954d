"""Free space inside a prefix, and atomic allocation of child prefixes and addresses.

Allocation locks the parent prefix's row first (an UPDATE, which both PostgreSQL and SQLite
serialise), so two clients allocating from one prefix at the same moment are served one after
the other and never receive the same prefix or address.
"""

from __future__ import annotations

from collections.abc import Iterator

import netaddr
from django.db.models import F

from queryengine.errors import Conflict, ValidationFailed

from . import networks
from .models import IPAddress, Prefix


def parent_network(parent: Prefix) -> netaddr.IPNetwork:
    return netaddr.IPNetwork(parent.cidr)


def same_namespace(parent: Prefix) -> dict:
    """Prefixes and addresses are unique within a namespace: only the parent's own take room."""
    return {"namespace_id": parent.namespace_id}


def child_networks(parent: Prefix) -> list[netaddr.IPNetwork]:
    net = parent_network(parent)
    rows = Prefix.objects.filter(
        networks.contained(net, "prefix_length", strict=True), **same_namespace(parent)
    )
    return [netaddr.IPNetwork(p.cidr) for p in rows.only("ip_version", "network_address", "prefix_length")]


def free_prefixes(parent: Prefix) -> list[netaddr.IPNetwork]:
    space = netaddr.IPSet([parent_network(parent)]) - netaddr.IPSet(child_networks(parent))
    return list(space.iter_cidrs())


def usable_range(parent: Prefix) -> tuple[int, int]:
    """First and last assignable host: a network's own and broadcast addresses are not (IPv4),
    nor the subnet-router anycast address (IPv6), except in pools and point-to-point links."""
    net = parent_network(parent)
    first, last = net.first, net.last
    if parent.type != "pool" and net.size > 2:
        first += 1
        if net.version == 4:
            last -= 1
    return first, last


def used_hosts(parent: Prefix) -> Iterator[int]:
    net = parent_network(parent)
    rows = IPAddress.objects.filter(networks.host_within(net), **same_namespace(parent)).order_by(
        "host_address"
    )
    for raw in rows.values_list("host_address", flat=True).iterator(chunk_size=2000):
        yield networks.from_bytes(raw)


def free_hosts(parent: Prefix, first: int | None = None, final: int | None = None) -> Iterator[int]:
    """Free addresses in order, walking the gaps between used ones (never materialising a /64);
    `first` and `final` (inclusive) narrow them."""
    candidate, last = usable_range(parent)
    candidate, last = max(candidate, first or 0), last if final is None else min(last, final)
    for used in used_hosts(parent):
        while candidate < min(used, last + 1):
            yield candidate
            candidate += 1
        candidate = max(candidate, used + 1)
    while candidate <= last:
        yield candidate
        candidate += 1


def free_addresses(
    parent: Prefix, limit: int, first: int | None = None, final: int | None = None
) -> list[str]:
    net = parent_network(parent)
    found = []
    for host in free_hosts(parent, first, final):
        if len(found) >= limit:
            break
        found.append(f"{netaddr.IPAddress(host, net.version)}/{net.prefixlen}")
    return found


def defaults(parent: Prefix) -> dict:
    """What an allocated object inherits unless the request says otherwise."""
    return {"vrf": str(parent.vrf_id) if parent.vrf_id else None, "status": "Active"}


def placed(parent: Prefix) -> dict:
    """What an allocated object always takes from its parent: its namespace (whatever the request
    says, as the reference does), where the parent is then found again."""
    return {"namespace": str(parent.namespace_id)}


def lock(parent: Prefix) -> Prefix:
    Prefix.objects.filter(pk=parent.pk).update(prefix_length=F("prefix_length"))
    return Prefix.objects.get(pk=parent.pk)


def plan_prefixes(parent: Prefix, requests: list) -> list[dict]:
    """Each request with `prefix` set to the first free block of its `prefix_length`."""
    parent = lock(parent)
    space = netaddr.IPSet(free_prefixes(parent))
    planned, errors = [], []
    for request in requests:
        length = request.get("prefix_length") if isinstance(request, dict) else None
        width = 32 if parent.ip_version == 4 else 128
        if (
            not isinstance(length, int)
            or isinstance(length, bool)
            or not parent.prefix_length <= length <= width
        ):
            errors.append({"prefix_length": ["A prefix length within the parent's family is required."]})
            continue
        block = next((c for c in space.iter_cidrs() if c.prefixlen <= length), None)
        if block is None:
            raise Conflict("Insufficient space is available to accommodate the requested prefix size(s)")
        chosen = next(block.subnet(length))
        space.remove(chosen)
        fields = {k: v for k, v in request.items() if k != "prefix_length"}
        planned.append({**defaults(parent), **fields, "prefix": str(chosen), **placed(parent)})
        errors.append({})
    if any(errors):
        raise ValidationFailed(errors)
    return planned


def plan_addresses(
    parent: Prefix, requests: list, first: int | None = None, final: int | None = None
) -> list[dict]:
    """Each request with `address` set to the next free address of the prefix, from `first` to
    `final` (inclusive) where given, as the reference allocates within `range_start` and
    `range_end`."""
    parent = lock(parent)
    free = free_addresses(parent, len(requests), first, final)
    if len(free) < len(requests):
        net = parent_network(parent)
        start, end = (
            netaddr.IPAddress(default if given is None else given, net.version)
            for given, default in ((first, net.first), (final, net.last))
        )
        raise Conflict(
            f"An insufficient number of IP addresses are available within the prefix {parent.cidr} "
            f"({len(requests)} requested, {len(free)} available between {start} and {end})."
        )
    planned = []
    for request, address in zip(requests, free, strict=True):
        fields = request if isinstance(request, dict) else {}
        planned.append({**defaults(parent), **fields, "address": address, **placed(parent)})
    return planned
