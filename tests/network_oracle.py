"""A Python model of the network filters, built on netaddr, to check the service against."""

from __future__ import annotations

import netaddr

from inventory.ipam.models import IPAddress, Prefix


def network_of(obj) -> netaddr.IPNetwork:
    """A prefix's network, or an address's interface network (host bits kept)."""
    return netaddr.IPNetwork(obj.cidr if isinstance(obj, Prefix) else str(obj))


def sample_networks(objects) -> list[str]:
    nets = [network_of(o) for o in objects if isinstance(o, Prefix | IPAddress)]
    chosen = sorted({str(n.cidr) for n in nets})
    return chosen[:3] + [str(nets[0].ip)] if nets else []


def same_family(a: netaddr.IPNetwork, b: netaddr.IPNetwork) -> bool:
    return a.version == b.version


def inside(a: netaddr.IPNetwork, b: netaddr.IPNetwork, strict: bool) -> bool:
    """Is network a inside network b (a's network part)?"""
    a = a.cidr
    if not same_family(a, b) or not (b.first <= a.first and a.last <= b.last):
        return False
    return a.prefixlen > b.prefixlen if strict else a.prefixlen >= b.prefixlen


def host_in(obj, net: netaddr.IPNetwork) -> bool:
    ip = network_of(obj).ip
    return ip.version == net.version and net.first <= int(ip) <= net.last


def matches(name: str, obj, value: str) -> bool:
    """Whether `obj` passes `<name>=<value>` for the network filters of prefixes and addresses."""
    field, _, lookup = name.partition("__")
    if name == "family" or lookup == "family":
        return network_of(obj).version == int(value)
    given = netaddr.IPNetwork(value)
    mine = network_of(obj)
    is_address = isinstance(obj, IPAddress)
    host_route = netaddr.IPNetwork(f"{given.ip}/{32 if given.version == 4 else 128}")
    rules = {
        "net_contained": lambda: inside(mine, given, strict=True),
        "net_contained_or_equal": lambda: inside(mine, given, strict=False),
        "net_contains": lambda: inside(given, mine, strict=True),
        "net_contains_or_equals": lambda: inside(given, mine, strict=False),
        "net_equals": lambda: (
            same_family(mine, given) and mine.first == given.first and mine.prefixlen == given.prefixlen
        ),
        "net_host": lambda: inside(host_route, mine, strict=False),
        "net_host_contained": lambda: (
            host_in(obj, given) if is_address else inside(mine, given, strict=False)
        ),
        "net_in": lambda: host_in(obj, given) if is_address else inside(mine, given, strict=False),
    }
    if lookup:
        return rules[lookup]()
    if field == "prefix":
        return (
            host_in(obj, given)
            if is_address
            else inside(mine, given, False) and mine.prefixlen == given.prefixlen
        )
    if field == "address":
        ip = mine.ip
        return (
            ip.version == given.version
            and ip == given.ip
            and ("/" not in value or mine.prefixlen == given.prefixlen)
        )
    if field == "within":
        return inside(mine, given, strict=True)
    if field == "within_include":
        return inside(mine, given, strict=False)
    if field == "contains":
        return inside(given, mine, strict=False)
    if field == "parent":
        return host_in(obj, given) if is_address else inside(mine, given, strict=True)
    raise KeyError(name)


def search_matches(obj, text: str) -> bool:
    """Free text: names and descriptions contain it, or (for an address or network) the object
    contains the address (prefixes) or lies inside the network (addresses)."""
    words = [obj.description] + ([obj.dns_name] if isinstance(obj, IPAddress) else [])
    if any(text.lower() in w.lower() for w in words):
        return True
    try:
        given = netaddr.IPNetwork(text)
    except netaddr.AddrFormatError:
        return False
    return host_in(obj, given) if isinstance(obj, IPAddress) else inside(given, network_of(obj), strict=False)
