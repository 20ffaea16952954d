"""How the API shows, takes and filters a service's ports (a list of numbers in one JSON
column) and IP address ranges (first and last host, as bytes)."""

from __future__ import annotations

import uuid

from django.db.models import Q, TextField
from django.db.models.functions import Cast

from queryengine.registry import Computed, CustomFilter

from . import networks, parents
from .models import Service, port_list

PORT_ITEM = {"type": "integer", "minimum": Service.PORT_MIN, "maximum": Service.PORT_MAX}
# A list of integers, as the reference's serializer describes it (OPTIONS and the JSON schemas).
PORTS = Computed(
    ("ports",),
    lambda ports: list(ports or []),
    output="object",
    write=lambda service, value: service.set_ports(value),
    required=True,
    options={
        "type": "list",
        "child": {
            "type": "integer",
            "required": True,
            "read_only": False,
            "min_value": Service.PORT_MIN,
            "max_value": Service.PORT_MAX,
        },
    },
    read_schema={"type": "array", "items": PORT_ITEM},
    write_schema={"type": "array", "items": PORT_ITEM},
)


def service_display(name: str, protocol: str, ports) -> str:
    return f"{name} ({dict(Service.PROTOCOLS).get(protocol, protocol)}/{port_list(ports)})"


def parse_port(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise ValueError("Enter a number.") from None


def with_port(numbers) -> Q:
    """Services listing any of the ports: their JSON text holds the number, digits on neither
    side (the same on every database)."""
    pattern = "|".join(rf"(^|[^0-9]){n}([^0-9]|$)" for n in numbers)
    listing = Service.objects.annotate(port_text=Cast("ports", TextField())).filter(port_text__regex=pattern)
    return Q(pk__in=listing.values("pk"))


PORTS_FILTER = CustomFilter(
    with_port,
    parse_port,
    lambda service, numbers: bool(set(numbers) & set(service.ports or [])),
    lambda services: sorted({port for service in services for port in service.ports or []})[:2],
)


# -- IP address ranges -----------------------------------------------------------------------


def host_bytes(value: str) -> tuple[int, bytes]:
    """An address (a mask, if any, ignored) as its version and stored bytes."""
    net = networks.parse_network(value, "IP address")
    return net.version, networks.to_bytes(int(net.ip))


def at_host(column: str):
    def build(hosts) -> Q:
        return networks.any_of(Q(ip_version=v, **{column: raw}) for v, raw in hosts)

    def oracle(obj, hosts) -> bool:
        return any(obj.ip_version == v and bytes(getattr(obj, column)) == raw for v, raw in hosts)

    def samples(objects) -> list:
        return [networks.address_text(o.ip_version, getattr(o, column)) for o in objects][:2]

    return CustomFilter(build, host_bytes, oracle, samples)


def containing_host(hosts) -> Q:
    return networks.any_of(
        Q(ip_version=v, start_host_address__lte=raw, end_host_address__gte=raw) for v, raw in hosts
    )


def contains_oracle(obj, hosts) -> bool:
    start, end = bytes(obj.start_host_address), bytes(obj.end_host_address)
    return any(obj.ip_version == v and start <= raw <= end for v, raw in hosts)


def parse_prefix(value: str) -> list:
    """A prefix by id, or every prefix (of any namespace) equal to a CIDR."""
    try:
        return [uuid.UUID(value)]
    except ValueError:
        pass
    net = networks.parse_network(value, "prefix")
    found = parents.model("Prefix").objects.filter(networks.equal(net.cidr, "prefix_length"))
    return list(found.values_list("pk", flat=True))


RANGE_FILTERS = {
    "parent": CustomFilter(
        lambda groups: Q(parent__in=[pk for group in groups for pk in group]),
        parse_prefix,
        lambda obj, groups: any(obj.parent_id in group for group in groups),
        lambda objects: (
            [str(o.parent_id) for o in objects if o.parent_id][:1]
            + [o.parent.cidr for o in objects if o.parent_id][:1]
        ),
    ),
    "start_address": at_host("start_host_address"),
    "end_address": at_host("end_host_address"),
    "contains": CustomFilter(
        containing_host,
        host_bytes,
        contains_oracle,
        lambda objects: (
            [networks.address_text(o.ip_version, o.start_host_address) for o in objects][:1]
            + ["10.0.0.1", "2001:db8::1"]
        ),
    ),
}
