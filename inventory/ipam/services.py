"""How the API shows, takes and filters a service's ports: a list of numbers in one JSON column."""

from __future__ import annotations

from django.db.models import Q, TextField
from django.db.models.functions import Cast

from queryengine.filters import INT_ARGUMENT
from queryengine.registry import Computed, CustomFilter

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
    argument=INT_ARGUMENT,
)
