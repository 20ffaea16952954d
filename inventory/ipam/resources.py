import uuid

from django.db.models import Q

from inventory.dcim.filters import members
from inventory.dcim.legacy import site_filters, site_of
from inventory.dcim.models import Device, VirtualDeviceContext
from inventory.virtualization.models import VirtualMachine
from queryengine.filters import parse_uuid, whole_number_search
from queryengine.registry import Computed, CustomFilter, Display, Legacy, Resource, extend_graphql, register

from . import graphql, legacy, listfilters, networks, ranges, services
from .models import (
    RIR,
    VLAN,
    VRF,
    IPAddress,
    IPAddressRange,
    IPAddressToInterface,
    Namespace,
    Prefix,
    PrefixLocationAssignment,
    RouteTarget,
    Service,
    VLANGroup,
    VLANLocationAssignment,
    VRFDeviceAssignment,
    VRFPrefixAssignment,
)

BYTES = ("network_address", "broadcast_address", "host_address")
FAMILY = Computed(("ip_version",), networks.family, output="object", order_by=("ip_version",))
FAMILY_FILTER = CustomFilter(lambda versions: Q(ip_version__in=versions), networks.parse_family)


def cidr(address_column: str, length_column: str, setter: str) -> Computed:
    """A CIDR string stored as version, address bytes and length; written through `setter`."""
    columns = ("ip_version", address_column, length_column)
    return Computed(columns, networks.cidr_text, write=write_with(setter), required=True, order_by=columns)


def host(column: str, setter: str | None = None, help_text: str = "") -> Computed:
    """A host address stored as version and bytes, written (when `setter` names how) as text."""
    columns = ("ip_version", column)
    write = write_with(setter) if setter else None
    return Computed(
        columns,
        networks.address_text,
        write=write,
        required=bool(setter),
        order_by=columns,
        help_text=help_text,
    )


def write_pool(prefix, value) -> None:
    """API 1.x's `is_pool`: a pool is a prefix of type pool."""
    if not isinstance(value, bool):
        raise ValueError("Must be a valid boolean.")
    if value:
        prefix.type = "pool"
    elif prefix.type == "pool":
        prefix.type = "network"


IS_POOL = Computed(("type",), lambda kind: kind == "pool", output="object", write=write_pool)


def write_with(setter: str):
    def write(instance, value):
        getattr(instance, setter)(value)

    return write


def lookups(field: str, length: str, host: bool) -> dict[str, CustomFilter]:
    """`<field>__net_*` and `<field>__family` (spec §4.5), over the stored byte columns."""
    found = {}
    for suffix, build in networks.network_lookups(length, host).items():
        parse = networks.parse_family if suffix == "family" else networks.parse_network
        found[f"{field}__{suffix}"] = CustomFilter(build, parse)
    return found


def related_ids_or_networks(model):
    """Prefixes named by UUID or CIDR, for filters such as `parent`."""

    def parse(value: str):
        try:
            return networks.parse_network(model.objects.get(pk=uuid.UUID(value)).cidr)
        except ValueError:
            return networks.parse_network(value)
        except model.DoesNotExist:
            raise ValueError(f"Select a valid choice. {value} is not one of the available choices.") from None

    return parse


def assigned_to(path: str, by_name: bool) -> CustomFilter:
    """Addresses on an interface whose `path` (from the assignment: `interface__device`) is one of
    the given objects, by id, or (`by_name`) by id or name: the reference's `device`,
    `device_id`, `virtual_machine`, `interfaces`... filters, which scripts use to find a
    device's addresses."""

    def parse(value: str):
        if not by_name:
            return parse_uuid(value)
        try:
            return uuid.UUID(value)
        except ValueError:
            return value

    def condition(values) -> Q:
        ids = [v for v in values if isinstance(v, uuid.UUID)]
        names = [v for v in values if not isinstance(v, uuid.UUID)]
        return Q(**{f"{path}__in": ids}) | Q(**{f"{path}__name__in": names})

    def build(values) -> Q:
        return Q(pk__in=IPAddressToInterface.objects.filter(condition(values)).values("ip_address"))

    def oracle(address, values) -> bool:
        return IPAddressToInterface.objects.filter(condition(values), ip_address=address).exists()

    def samples(addresses):
        assigned = IPAddressToInterface.objects.filter(ip_address__in=addresses, **{f"{path}__isnull": False})
        target = assigned.values_list(f"{path}", f"{path}__name").first()
        if target is None:
            return []
        return [str(target[0]), target[1]] if by_name else [str(target[0])]

    return CustomFilter(build, parse, oracle, samples)


def each(build):
    """A filter over parsed networks: a row matches if it matches any of them."""
    return lambda nets: networks.any_of(build(n) for n in nets)


def address_equals(net) -> Q:
    """`address=10.0.0.1` matches that host with any mask; `address=10.0.0.1/24` only that mask."""
    host = Q(ip_version=net.version, host_address=networks.to_bytes(int(net.ip)))
    return host & Q(mask_length=net.prefixlen) if net.explicit_mask else host


def prefix_search(text: str) -> Q:
    query = Q(description__icontains=text)
    try:
        return query | networks.containing(networks.parse_network(text), "prefix_length", strict=False)
    except ValueError:
        return query


def address_search(text: str) -> Q:
    query = Q(dns_name__icontains=text) | Q(description__icontains=text)
    try:
        return query | networks.host_within(networks.parse_network(text))
    except ValueError:
        return query


def present_in_vrf(field_for_assignment: str | None):
    def build(vrf_ids) -> Q:
        query = Q(vrf__in=vrf_ids)
        if field_for_assignment:
            query |= Q(**{f"{field_for_assignment}__in": vrf_ids})
        return query

    return build


def parse_vrf(value: str):
    try:
        return VRF.objects.get(pk=uuid.UUID(value)).pk
    except ValueError:
        found = list(VRF.objects.filter(Q(name=value) | Q(rd=value)).values_list("pk", flat=True)[:1])
        if found:
            return found[0]
    except VRF.DoesNotExist:
        pass
    raise ValueError(f"Select a valid choice. {value} is not one of the available choices.")


def present_in_vrf_id(field_for_assignment: str | None) -> CustomFilter:
    """`present_in_vrf` by one VRF's id, as the reference's `present_in_vrf_id`."""
    build = present_in_vrf(field_for_assignment)

    def oracle(obj, ids) -> bool:
        assigned = getattr(obj, field_for_assignment).all() if field_for_assignment else []
        return obj.vrf_id == ids[-1] or ids[-1] in {vrf.pk for vrf in assigned}

    return CustomFilter(
        lambda ids: build(ids[-1:]),
        parse_vrf_id,
        oracle,
        lambda objects: [str(o.vrf_id) for o in objects if o.vrf_id is not None][:1],
        argument="String",
    )


def parse_vrf_id(value: str):
    pk = parse_uuid(value)
    if not VRF.objects.filter(pk=pk).exists():
        raise ValueError(f"Select a valid choice. {value} is not one of the available choices.")
    return pk


# API 1.x knew no namespaces, parents, RIRs or address types: its shapes stay as they were.
NAMESPACED = ("namespace", "parent")

register(Resource(Namespace, "ipam/namespaces"))
register(Resource(RIR, "ipam/rirs", counts={"assigned_prefix_count": "ipam.Prefix.rir"}))
register(
    Resource(
        VRF,
        "ipam/vrfs",
        display=Display(("namespace__name", "name"), lambda namespace, name: f"{namespace}: ({name})"),
        read_only=("prefixes", "devices", "virtual_machines", "virtual_device_contexts"),
        filters={
            "import_targets": members("import_targets", RouteTarget),
            "export_targets": members("export_targets", RouteTarget),
            "device": members("devices", Device, negated=True),
            "prefix": listfilters.vrf_holding_prefixes(),
            "virtual_machines": members("virtual_machines", VirtualMachine),
            "virtual_device_contexts": members("virtual_device_contexts", VirtualDeviceContext),
        },
        search=("name", "rd", "description"),
        legacy=Legacy(nested=("name", "rd"), hidden=("namespace", "status")),
    )
)
register(
    Resource(
        RouteTarget,
        "ipam/route-targets",
        filters={
            "importing_vrfs": members("importing_vrfs", VRF, "rd"),
            "exporting_vrfs": members("exporting_vrfs", VRF, "rd"),
        },
    )
)
register(
    Resource(
        VLANGroup,
        "ipam/vlan-groups",
        counts={"vlan_count": "ipam.VLAN.vlan_group"},
        legacy=Legacy(
            nested=("name", "slug", "vlan_count"), fields={"site": site_of()}, filters=site_filters()
        ),
    )
)
register(
    Resource(
        VLAN,
        "ipam/vlans",
        display=Display(("name", "vid"), lambda name, vid: f"{name} ({vid})"),
        read_only=("locations",),
        # Shown as its list of locations, as the reference shows it; the single one is still
        # written, and shown up to API 2.1.
        write_only=("location",),
        versioned={"location": (None, "multiple_locations"), "locations": ("multiple_locations", None)},
        single_of={"location": "locations"},
        # Any of its locations, as the reference's `location` filter.
        relations={"location": "locations"},
        filters=listfilters.VLAN_FILTERS,
        counts={"prefix_count": "ipam.Prefix.vlan"},
        natural_key=None,
        legacy=Legacy(
            nested=("vid", "name"),
            renamed={"group": "vlan_group"},
            fields={"site": site_of()},
            filters=site_filters(),
        ),
    )
)
register(
    Resource(
        Prefix,
        "ipam/prefixes",
        # As the reference labels a prefix: the same network may be in several namespaces.
        display=Display(
            ("ip_version", "network_address", "prefix_length", "namespace__name"),
            lambda *parts: f"{networks.cidr_text(*parts[:3])}: {parts[3]}",
        ),
        hidden=BYTES,
        read_only=("locations", "vrfs"),
        has=("rir",),
        # Shown as their lists, as the reference shows them; the single ones are still written,
        # and the location shown (without the lists) up to API 2.1.
        write_only=("location", "vrf"),
        versioned={
            "location": (None, "multiple_locations"),
            "locations": ("multiple_locations", None),
            "vrfs": ("multiple_locations", None),
        },
        single_of={"location": "locations"},
        relations={"location": "locations", "vlan_vid": "vlan__vid"},
        natural_key=None,
        computed={
            "prefix": cidr("network_address", "prefix_length", "set_prefix"),
            "network": Computed(
                ("ip_version", "network_address"),
                networks.address_text,
                help_text="IPv4 or IPv6 network address",
            ),
            "broadcast": Computed(
                ("ip_version", "broadcast_address"),
                networks.address_text,
                help_text="IPv4 or IPv6 broadcast address",
            ),
        },
        filters={
            "prefix": CustomFilter(
                each(lambda n: networks.equal(n, "prefix_length")), networks.parse_network
            ),
            **lookups("prefix", "prefix_length", host=False),
            "family": FAMILY_FILTER,
            "within": CustomFilter(
                each(lambda n: networks.contained(n, "prefix_length", strict=True)), networks.parse_network
            ),
            "within_include": CustomFilter(
                each(lambda n: networks.contained(n, "prefix_length", strict=False)), networks.parse_network
            ),
            "contains": CustomFilter(
                each(lambda n: networks.containing(n, "prefix_length", strict=False)), networks.parse_network
            ),
            "parent": CustomFilter(
                each(lambda n: networks.contained(n, "prefix_length", strict=True)),
                related_ids_or_networks(Prefix),
            ),
            "present_in_vrf": CustomFilter(present_in_vrf("assigned_vrfs"), parse_vrf),
            "present_in_vrf_id": present_in_vrf_id("assigned_vrfs"),
            **listfilters.PREFIX_FILTERS,
        },
        search_q=prefix_search,
        legacy=Legacy(
            nested=("family: ip_version", "prefix"),
            fields={"family": FAMILY, "site": site_of(), "is_pool": IS_POOL},
            filters=site_filters(),
            hidden=(*NAMESPACED, "rir", "date_allocated", "vrfs"),
        ),
    )
)
register(
    Resource(
        IPAddress,
        "ipam/ip-addresses",
        display=Display(("ip_version", "host_address", "mask_length"), networks.cidr_text),
        hidden=("network_address", "broadcast_address", "host_address"),
        reverse={"nat_outside_list": "IPAddress.nat_inside"},
        has=("nat_inside",),
        read_only=("interfaces", "vm_interfaces"),
        # Taken, as the reference takes it, but shown as the address's parent prefix.
        write_only=("namespace",),
        natural_key=None,
        computed={
            "address": cidr("host_address", "mask_length", "set_address"),
            "host": Computed(
                ("ip_version", "host_address"), networks.address_text, help_text="IPv4 or IPv6 host address"
            ),
            "family": FAMILY,
        },
        filters={
            "address": CustomFilter(each(address_equals), networks.parse_masked),
            **lookups("address", "mask_length", host=True),
            "family": FAMILY_FILTER,
            "prefix": CustomFilter(each(networks.host_within), networks.parse_network),
            "parent": CustomFilter(each(networks.host_within), related_ids_or_networks(Prefix)),
            "present_in_vrf": CustomFilter(present_in_vrf(None), parse_vrf),
            "present_in_vrf_id": present_in_vrf_id(None),
            "device": assigned_to("interface__device", by_name=True),
            "device_id": assigned_to("interface__device", by_name=False),
            "virtual_machine": assigned_to("vm_interface__virtual_machine", by_name=True),
            "virtual_machine_id": assigned_to("vm_interface__virtual_machine", by_name=False),
            "interfaces": assigned_to("interface", by_name=True),
            "vm_interfaces": assigned_to("vm_interface", by_name=True),
            # The VRFs of the address's parent prefix, by id or RD, as the reference's.
            "vrfs": members("parent__vrfs", VRF, "rd", negated=True, isnull=True),
            **listfilters.ADDRESS_FILTERS,
        },
        search_q=address_search,
        legacy=Legacy(
            nested=("family: ip_version", "address"),
            hidden=(*NAMESPACED, "type"),
            choices=("role",),
            fields=legacy.ASSIGNMENT,
            together={"assigned_object": ("assigned_object_type", "assigned_object_id")},
        ),
    )
)
register(
    Resource(
        VRFPrefixAssignment,
        "ipam/vrf-prefix-assignments",
        display=Display(
            ("vrf__name", "prefix__ip_version", "prefix__network_address", "prefix__prefix_length"),
            lambda vrf, *prefix: f"{vrf}: {networks.cidr_text(*prefix)}",
        ),
        search=("vrf__name",),
        natural_key=None,
        timestamp_filters=True,
    )
)
register(
    Resource(
        PrefixLocationAssignment,
        "ipam/prefix-location-assignments",
        display=Display(
            ("prefix__ip_version", "prefix__network_address", "prefix__prefix_length", "location__name"),
            lambda *parts: f"{networks.cidr_text(*parts[:3])}: {parts[3]}",
        ),
        search=("location__name",),
        natural_key=None,
        timestamp_filters=True,
    )
)
register(
    Resource(
        VLANLocationAssignment,
        "ipam/vlan-location-assignments",
        display=Display(("vlan__name", "location__name"), lambda vlan, location: f"{vlan}: {location}"),
        search=("location__name",),
        search_q=whole_number_search(("location__name",), ("vlan__vid",)),
        natural_key=None,
        timestamp_filters=True,
    )
)

register(
    Resource(
        VRFDeviceAssignment,
        "ipam/vrf-device-assignments",
        display=Display(
            (
                "vrf__namespace__name",
                "vrf__name",
                "device__name",
                "virtual_machine__name",
                "virtual_device_context__name",
                "rd",
                "name",
            ),
            lambda namespace, vrf, device, machine, context, rd, name: (
                f"{namespace}: ({vrf}) [{device or machine or context}] (rd: {rd}, name: {name})"
            ),
        ),
        search=(
            "name",
            "rd",
            "vrf__name",
            "device__name",
            "virtual_machine__name",
            "virtual_device_context__name",
        ),
        natural_key=None,
        timestamp_filters=True,
    )
)
register(
    Resource(
        IPAddressToInterface,
        "ipam/ip-address-to-interface",
        display=Display(
            (
                "ip_address__ip_version",
                "ip_address__host_address",
                "ip_address__mask_length",
                "interface__device__name",
                "interface__name",
                "vm_interface__virtual_machine__name",
                "vm_interface__name",
            ),
            lambda version, host, length, device, interface, machine, vm_interface: (
                f"{networks.cidr_text(version, host, length)} "
                + (f"{device} {interface}" if interface is not None else f"{machine} {vm_interface}")
            ),
        ),
        search=("interface__name", "vm_interface__name"),
        natural_key=None,
        hidden=("created", "last_updated"),  # kept, not shown: the reference's assignments have none
        timestamp_filters=True,  # on the kept columns
        notes=True,
        notes_url=False,
    )
)

register(
    Resource(
        IPAddressRange,
        "ipam/ip-address-ranges",
        display=Display(
            ("namespace__name", "ip_version", "start_host_address", "end_host_address"),
            lambda namespace, *span: f"{namespace}: {ranges.range_text(*span)}",
        ),
        hidden=("start_host_address", "end_host_address"),
        # Taken, as the reference takes it, but shown as the range's parent prefix.
        write_only=("namespace",),
        natural_key=None,
        computed={
            "start_address": host("start_host_address", "set_start_address"),
            "end_address": host("end_host_address", "set_end_address"),
            "start_host": host(
                "start_host_address", help_text="First IP host address in the range (inclusive)"
            ),
            "end_host": host("end_host_address", help_text="Last IP host address in the range (inclusive)"),
            "size": Computed(
                ("start_host_address", "end_host_address"),
                ranges.range_size,
                output="integer",
                help_text="How many addresses the range holds",
            ),
        },
        filters=ranges.RANGE_FILTERS,
    )
)
register(
    Resource(
        Service,
        "ipam/services",
        display=Display(("name", "protocol", "ports"), services.service_display),
        hidden=("ports",),
        computed={"ports": services.PORTS},
        filters={"ports": services.PORTS_FILTER},
        natural_key=None,
        legacy=Legacy(renamed={"ipaddresses": "ip_addresses"}),
    )
)

extend_graphql(query=graphql.query_fields, mutation=graphql.mutation_fields)
