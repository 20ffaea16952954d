"""IP address ranges: a span of host addresses (first to last, both included) inside one prefix
of a namespace, its `parent`. Like an address's, the parent is the closest prefix containing the
whole span: worked out when the range is written and kept by `parents` when prefixes change."""

from __future__ import annotations

import uuid

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

from queryengine.registry import CustomFilter

from . import networks, parents


def range_text(version: int, start, end) -> str:
    return f"{networks.address_text(version, start)} - {networks.address_text(version, end)}"


def range_size(start, end) -> int | None:
    """How many addresses lie from the first host to the last (inclusive)."""
    if start is None or end is None:
        return None
    return networks.from_bytes(end) - networks.from_bytes(start) + 1


class RangeRules:
    """The validation of an IP address range (mixed into the model, which declares the columns)."""

    def set_start_address(self, value) -> None:
        self.start_version, self.start_host_address = self.parse_host(value)

    def set_end_address(self, value) -> None:
        self.end_version, self.end_host_address = self.parse_host(value)

    @staticmethod
    def parse_host(value) -> tuple[int, bytes]:
        if value == "":
            raise ValueError("This field may not be blank.")
        address = networks.parse_address(value)
        return address.version, networks.to_bytes(int(address))

    def clean_fields(self, exclude=None):
        # A new range names where it is: its namespace, or its parent (whose namespace it is then).
        if self._state.adding and self.namespace_id is None:
            if self.parent_id is None:
                raise ValidationError("One of parent or namespace must be provided")
            self.namespace_id = self.parent.namespace_id
        super().clean_fields(exclude)

    def clean(self):
        super().clean()
        versions = {getattr(self, "start_version", None), getattr(self, "end_version", None)} - {None}
        if len(versions) > 1:
            raise ValidationError(
                f"start_address (IPv{self.start_version}) and end_address (IPv{self.end_version}) "
                "must be of the same IP version"
            )
        if versions:
            self.ip_version = versions.pop()
        # Left out or refused (its own error): nothing to check the span against.
        if not self.start_host_address or not self.end_host_address or self.namespace_id is None:
            return
        if bytes(self.start_host_address) > bytes(self.end_host_address):
            raise ValidationError(
                {"start_address": ["start_address must be less than or equal to end_address"]}
            )
        self.check_parent()
        self.check_overlaps()

    def closest_prefix(self, host: bytes):
        """The closest prefix of the namespace containing `host` (a host prefix included)."""
        prefix = parents.model("Prefix").objects.filter(
            namespace_id=self.namespace_id,
            ip_version=self.ip_version,
            network_address__lte=host,
            broadcast_address__gte=host,
        )
        found = prefix.order_by("-prefix_length", "pk").first()
        if found is None:
            namespace = parents.model("Namespace").objects.get(pk=self.namespace_id)
            host_text = networks.address_text(self.ip_version, host)
            raise ValidationError(
                {"namespace": [f"No suitable parent Prefix for {host_text} exists in Namespace {namespace}"]}
            )
        return found

    def check_parent(self) -> None:
        first, last = (
            self.closest_prefix(bytes(self.start_host_address)),
            self.closest_prefix(bytes(self.end_host_address)),
        )
        if first.pk != last.pk:
            raise ValidationError(
                "IP Address Range must be fully contained within a single parent Prefix. "
                "No single Prefix in namespace contains both start_address and end_address. "
                "Consider creating a wider parent Prefix that covers the entire range."
            )
        if self.parent_id is not None and self.parent_id != first.pk and self.parent_named():
            namespace = parents.model("Namespace").objects.get(pk=self.namespace_id)
            raise ValidationError(
                {
                    "parent": [
                        f"{self.parent} cannot be assigned as the parent of {self.parent.namespace}: "
                        f"{self.span_text()}. In namespace {namespace}, the expected parent would be {first}."
                    ]
                }
            )
        self.parent = first

    def parent_named(self) -> bool:
        """Whether the write names a parent (not the one stored, which a new span replaces)."""
        return self.parent_id != getattr(self, "stored_parent_id", None)

    def check_overlaps(self) -> None:
        start, end = bytes(self.start_host_address), bytes(self.end_host_address)
        # Ranges of other prefixes (its parent's children) cannot reach it: see the child check.
        others = type(self).objects.filter(
            parent_id=self.parent_id,
            ip_version=self.ip_version,
            start_host_address__lte=end,
            end_host_address__gte=start,
        )
        other = others.exclude(pk=self.pk).order_by("start_host_address").first()
        if other is not None:
            raise ValidationError(
                f"IP Address Range intersects with existing range "
                f"'{range_text(other.ip_version, other.start_host_address, other.end_host_address)}'"
            )
        if self.is_exclusive:
            inside = self.parent.ip_addresses.filter(
                ip_version=self.ip_version, host_address__gte=start, host_address__lte=end
            )
            hosts = [
                networks.address_text(v, h) for v, h in inside.values_list("ip_version", "host_address")[:5]
            ]
            if hosts:
                raise ValidationError(
                    {
                        "is_exclusive": [
                            "Cannot make this IP Address Range exclusive: existing IP address(es) fall "
                            f"within the range: {', '.join(hosts)}"
                        ]
                    }
                )
        child = (
            self.parent.children.filter(network_address__lte=end, broadcast_address__gte=start)
            .order_by("ip_version", "network_address", "prefix_length")
            .first()
        )
        if child is not None:
            raise ValidationError(
                f"IP Address Range overlaps with child Prefix '{child}' of the assigned parent Prefix"
            )

    def span_text(self) -> str:
        return range_text(self.ip_version, self.start_host_address, self.end_host_address)

    def __str__(self) -> str:
        if not self.start_host_address or not self.end_host_address:
            return super().__str__()
        return f"{self.namespace}: {self.span_text()}"

    @classmethod
    def from_db(cls, db, field_names, values):
        instance = super().from_db(db, field_names, values)
        if "parent_id" in field_names:
            instance.stored_parent_id = instance.parent_id
        return instance


# The exclusive range holding a host, as `parents.first_for_each` reads it.
EXCLUSIVE = (
    "r.is_exclusive AND r.start_host_address <= v.a AND r.end_host_address >= v.b",
    "r.start_host_address, r.id",
)


def exclusive_range_refusal(address) -> None:
    """An address may not be made inside an exclusive range of its namespace."""
    point = parents.point_of(address)
    if point is None:  # no address (refused as such) or no namespace: no range holds it
        return
    found = parents.batch_read(address, "exclusive", point, lambda: exclusive_ranges([point])[point])
    if found is not None:
        host_text = networks.address_text(address.ip_version, bytes(address.host_address))
        raise ValidationError(
            f'IP address {host_text} falls within exclusive IP Address Range "{found}". '
            "Creating an IP Address within an exclusive range is not permitted."
        )


def exclusive_ranges(points: list[tuple]) -> dict:
    """{point: the exclusive range of its namespace holding it, or None}: one statement for the
    points, and one more for the ranges found."""
    ids = parents.first_for_each("IPAddressRange", *EXCLUSIVE, points)
    wanted = {pk for pk in ids.values() if pk is not None}
    found = (
        parents.model("IPAddressRange").objects.select_related("namespace").in_bulk(wanted) if wanted else {}
    )
    return {point: found.get(pk) for point, pk in ids.items()}


def read_exclusive_ranges(addresses: list) -> None:
    """The exclusive ranges a batch's addresses fall in, read for their clean()."""
    points = [parents.point_of(a, a.namespace_id or parents.default_namespace_id()) for a in addresses]
    points = [point for point in points if point is not None]
    if points:
        parents.read_for_batch(addresses, "exclusive", exclusive_ranges(points))


def ranges_left_outside(prefix) -> None:
    """A prefix changed so that a range it holds no longer fits in it is refused."""
    stored = getattr(prefix, "stored_span", None)
    if (
        prefix.pk is None
        or stored is None
        or stored[1:]
        == (
            prefix.ip_version,
            bytes(prefix.network_address),
            bytes(prefix.broadcast_address),
        )
    ):
        return
    outside = (
        prefix.ip_address_ranges.exclude(
            ip_version=prefix.ip_version,
            start_host_address__gte=prefix.network_address,
            end_host_address__lte=prefix.broadcast_address,
        )
        .order_by("start_host_address")
        .first()
    )
    if outside is not None:
        raise ValidationError(
            f"Cannot modify Prefix: IP Address Range '{outside.span_text()}' would no longer be fully "
            "contained within this Prefix. Modify or delete the IP Address Range first."
        )


def kept_parent(sender, instance, **kwargs) -> None:
    """A prefix holding ranges and with no parent to hand them to is not deleted (pre_delete)."""
    if instance.parent_id is None and instance.ip_address_ranges.exists():
        raise models.ProtectedError(
            f"Cannot delete Prefix {instance} because it has child IPAddressRanges objects that "
            "would no longer have a valid parent.",
            # Read now: once raised, the deletion's transaction takes no more queries.
            list(instance.ip_address_ranges.select_related("namespace")),
        )


# -- filters -------------------------------------------------------------------------------------


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
