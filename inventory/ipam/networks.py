"""IP arithmetic (netaddr) and the portable storage of networks.

Every address is stored as 16 big-endian bytes beside its IP version, so containment is a
range comparison on indexed columns on any database: a network N contains an address A when
N.network <= A <= N.broadcast, within one IP version.
"""

from __future__ import annotations

from functools import reduce

import netaddr
from django.db.models import OuterRef, Q

WIDTH = 16


def to_bytes(value: int) -> bytes:
    return value.to_bytes(WIDTH, "big")


def from_bytes(raw) -> int:
    return int.from_bytes(bytes(raw), "big")


def address_text(version: int, raw) -> str:
    return str(netaddr.IPAddress(from_bytes(raw), version))


def cidr_text(version: int, raw, length: int) -> str:
    return f"{address_text(version, raw)}/{length}"


def family(version: int) -> dict:
    return {"value": version, "label": f"IPv{version}"}


def parse_network(value, what: str = "IP network") -> netaddr.IPNetwork:
    """A network or address with optional mask; anything else is a ValueError naming it."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"Invalid {what}: {value}")
    try:
        return netaddr.IPNetwork(value.strip())
    except (netaddr.AddrFormatError, ValueError, TypeError):
        raise ValueError(f"Invalid {what}: {value}") from None


class MaskedNetwork(netaddr.IPNetwork):
    """A parsed address that remembers whether a mask was written (`10.0.0.1` vs `10.0.0.1/32`)."""

    __slots__ = ("explicit_mask",)


def parse_masked(value) -> MaskedNetwork:
    net = MaskedNetwork(parse_network(value))
    net.explicit_mask = "/" in value
    return net


def parse_address(value) -> netaddr.IPAddress:
    if not isinstance(value, str) or "/" in value:
        raise ValueError(f"Invalid IP address: {value}")
    try:
        return netaddr.IPAddress(value.strip())
    except (netaddr.AddrFormatError, ValueError, TypeError):
        raise ValueError(f"Invalid IP address: {value}") from None


# -- lookups on rows that store (ip_version, network_address, broadcast_address, <length>) ------


def spans(net: netaddr.IPNetwork) -> tuple[int, bytes, bytes]:
    return net.version, to_bytes(net.first), to_bytes(net.last)


def contained(net: netaddr.IPNetwork, length: str, strict: bool) -> Q:
    """Networks inside `net` (strictly: not `net` itself)."""
    version, first, last = spans(net)
    q = Q(ip_version=version, network_address__gte=first, broadcast_address__lte=last)
    return q & Q(**{f"{length}__gt": net.prefixlen}) if strict else q


def containing(net: netaddr.IPNetwork, length: str, strict: bool) -> Q:
    """Networks that contain `net` (strictly: not `net` itself)."""
    version, first, last = spans(net)
    q = Q(ip_version=version, network_address__lte=first, broadcast_address__gte=last)
    return q & Q(**{f"{length}__lt": net.prefixlen}) if strict else q


def equal(net: netaddr.IPNetwork, length: str) -> Q:
    return Q(ip_version=net.version, network_address=to_bytes(net.first), **{length: net.prefixlen})


def host_within(net: netaddr.IPNetwork) -> Q:
    """Addresses whose host part lies in `net`, whatever their mask."""
    version, first, last = spans(net)
    return Q(ip_version=version, host_address__gte=first, host_address__lte=last)


def contained_in_outer(length: str, strict: bool) -> Q:
    """Networks of a subquery inside the network of the row it is correlated with (strictly: not
    that network itself), within its IP version: the relations of `contained`, row to row."""
    q = Q(
        ip_version=OuterRef("ip_version"),
        network_address__gte=OuterRef("network_address"),
        broadcast_address__lte=OuterRef("broadcast_address"),
    )
    return q & Q(**{f"{length}__gt": OuterRef(length)}) if strict else q


def containing_outer(length: str, strict: bool) -> Q:
    """Networks of a subquery containing the network of the row it is correlated with (strictly:
    not that network itself): the relation of `containing`, row to row."""
    q = Q(
        ip_version=OuterRef("ip_version"),
        network_address__lte=OuterRef("network_address"),
        broadcast_address__gte=OuterRef("broadcast_address"),
    )
    return q & Q(**{f"{length}__lt": OuterRef(length)}) if strict else q


def boundary_network(value: str, name: str, masked: bool) -> netaddr.IPNetwork:
    """A network without host bits (`10.0.0.0/24`, not `10.0.0.1/24`), written with its mask where
    `masked` asks for one, as the reference's strict `prefix_exact` takes it; `name` is the filter
    the error names."""
    net = parse_network(value)
    if masked and "/" not in value:
        raise ValueError(f"Invalid {name} value (missing mask): {value}")
    if net.ip != net.network:
        raise ValueError(
            f"Invalid {name} value as it is not a subnet boundary: {value}, did you mean {net.cidr}?"
        )
    return net


def host_and_mask(value: str) -> tuple[int, bytes, int]:
    """An address as the reference names one in a list of addresses: its host and mask, the mask
    being the whole address's (/32, /128) where none is written."""
    net = parse_network(value, "IP address")
    return net.version, to_bytes(int(net.ip)), net.prefixlen


def any_of(queries) -> Q:
    return reduce(lambda a, b: a | b, queries, Q(pk__in=[]))


def network_lookups(length: str, host: bool) -> dict:
    """The spec's network lookups (§4.5) for a field stored as above, by suffix.

    Each builds a Q from a list of parsed networks (ORed). `host` adds the host-part lookups of
    address rows; `length` names the column holding the prefix or mask length.
    """

    def each(build):
        return lambda nets: any_of(build(n) for n in nets)

    lookups = {
        "net_contained": each(lambda n: contained(n, length, strict=True)),
        "net_contained_or_equal": each(lambda n: contained(n, length, strict=False)),
        "net_contains": each(lambda n: containing(n, length, strict=True)),
        "net_contains_or_equals": each(lambda n: containing(n, length, strict=False)),
        "net_equals": each(lambda n: equal(n, length)),
        "net_host": each(lambda n: containing(_single(n), length, strict=False)),
        "net_in": each(lambda n: host_within(n) if host else contained(n, length, strict=False)),
        "family": lambda versions: Q(ip_version__in=versions),
    }
    if host:
        lookups["net_host_contained"] = each(host_within)
    else:
        # For networks, the "host part" is the network address itself.
        lookups["net_host_contained"] = each(lambda n: contained(n, length, strict=False))
    return lookups


def _single(net: netaddr.IPNetwork) -> netaddr.IPNetwork:
    """The host route of a network's address: 10.0.0.1/24 -> 10.0.0.1/32."""
    return netaddr.IPNetwork(f"{net.ip}/{32 if net.version == 4 else 128}")


def parse_family(value: str) -> int:
    if value not in ("4", "6"):
        raise ValueError(f"Select a valid choice. {value} is not one of the available choices.")
    return int(value)
