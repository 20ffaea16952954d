"""Registrations of virtual device contexts and their interface assignments."""

from django.db.models import Q

from queryengine.registry import Display, Resource, register

from .filters import flag, members
from .models import Interface, InterfaceVDCAssignment, VirtualDeviceContext

register(
    Resource(
        VirtualDeviceContext,
        "dcim/virtual-device-contexts",
        search=("name", "device__name", "tenant__name"),
        read_only=("interfaces",),
        natural_key=None,  # names are unique only on one device
        filters={
            "has_primary_ip": flag(
                lambda _: Q(primary_ip4__isnull=False) | Q(primary_ip6__isnull=False),
                lambda vdc: vdc.primary_ip4_id is not None or vdc.primary_ip6_id is not None,
            ),
            "interfaces": members("interfaces", Interface, None),
            "has_interfaces": flag(
                lambda _: Q(interfaces__isnull=False), lambda vdc: vdc.interfaces.exists()
            ),
            "has_tenant": flag(lambda _: Q(tenant__isnull=False), lambda vdc: vdc.tenant_id is not None),
        },
    )
)
register(
    Resource(
        InterfaceVDCAssignment,
        "dcim/interface-vdc-assignments",
        display=Display(
            ("virtual_device_context__name", "interface__name"), lambda vdc, interface: f"{vdc}: {interface}"
        ),
        search=("interface__name", "virtual_device_context__name"),
        relations={"device": "interface__device"},
        natural_key=None,
        timestamp_filters=True,
    )
)
