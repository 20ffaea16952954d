"""Sample route targets, services and IP address ranges (on the sample's devices, machines,
VRFs and prefixes)."""

from __future__ import annotations

from django.contrib.contenttypes.models import ContentType

from inventory.dcim.models import Device
from inventory.extras.models import Role, Status, Tag
from inventory.ipam.models import VRF, IPAddress, IPAddressRange, Prefix, RouteTarget, Service
from inventory.virtualization.models import VirtualMachine


def build_ipam_more(s: str, tenants, made: dict) -> dict[type, list]:
    targets = [
        RouteTarget.objects.create(name=f"65000:100{s}", description="blue import", tenant=tenants[0]),
        RouteTarget.objects.create(name=f"65000:200{s}"),
        RouteTarget.objects.create(name=f"65001:1{s}", description="shared"),
    ]
    blue, red = made[VRF]
    blue.import_targets.set(targets[:2])
    blue.export_targets.set([targets[0]])
    red.import_targets.set([targets[2]])
    device, machine = made[Device][0], made[VirtualMachine][0]
    addresses = made[IPAddress]
    services = [
        Service.objects.create(
            device=device, name="ssh", protocol="tcp", ports=[22], description="management"
        ),
        Service.objects.create(device=device, name="web", protocol="tcp", ports=[80, 443, 8080]),
        Service.objects.create(virtual_machine=machine, name="dns", protocol="udp", ports=[53]),
    ]
    services[0].ip_addresses.set(addresses[:1])
    alpha = Tag.objects.get(name="alpha" + s)
    alpha.content_types.add(
        *ContentType.objects.get_for_models(Service, IPAddressRange, RouteTarget).values()
    )
    services[1].tags.set([alpha])
    targets[0].tags.set([alpha])

    active, reserved = Status.objects.get(name="Active"), Status.objects.get(name="Reserved")
    pool, v6 = (
        next(p for p in made[Prefix] if p.cidr == cidr) for cidr in ("10.1.1.0/24", "2001:db8:1::/64")
    )

    def span(parent, start, end, **fields):
        found = IPAddressRange(namespace_id=parent.namespace_id, **fields)
        found.set_start_address(start)
        found.set_end_address(end)
        found.full_clean()
        found.save()
        return found

    ranges = [
        span(
            pool, "10.1.1.100", "10.1.1.150", name="dhcp", status=active, role=Role.objects.get(name="DHCP")
        ),
        span(pool, "10.1.1.200", "10.1.1.210", status=reserved, tenant=tenants[0], is_exclusive=True),
        span(
            v6,
            "2001:db8:1::10",
            "2001:db8:1::20",
            status=active,
            description="v6 pool",
            count_as_utilized=True,
        ),
    ]
    ranges[0].tags.set([alpha])
    return {RouteTarget: targets, Service: services, IPAddressRange: ranges}
