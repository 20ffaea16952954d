"""The statuses a new inventory starts with, each limited to the models it makes sense for.

Models that are not installed yet are skipped and linked by the migrate that installs them.
"""

from django.apps import apps
from django.contrib.contenttypes.models import ContentType

# Controllers take the statuses of devices, as the reference's do.
DEVICE_LIKE = ("dcim.device", "dcim.controller", "virtualization.virtualmachine")
DCIM_MORE = (
    "dcim.module",
    "dcim.softwareversion",
    "dcim.softwareimagefile",
    "dcim.deviceredundancygroup",
    "dcim.interfaceredundancygroup",
    "dcim.virtualdevicecontext",
)
# Load balancer pool members: Active, Maintenance, Planned, Failed and Decommissioning.
POOL_MEMBER = "load_balancers.loadbalancerpoolmember"
STATUSES = [
    # name, color, description, models
    (
        "Active",
        "4caf50",
        "Unit is active",
        (
            "dcim.location",
            "dcim.rack",
            "dcim.interface",
            "dcim.powerfeed",
            "ipam.prefix",
            "ipam.ipaddress",
            "ipam.ipaddressrange",
            "ipam.vlan",
            "ipam.vrf",
            "circuits.circuit",
            "virtualization.vminterface",
            *DEVICE_LIKE,
            *DCIM_MORE,
            "extras.contactassociation",
            "vpn.vpntunnel",
            POOL_MEMBER,
        ),
    ),
    ("Available", "4caf50", "Unit is available", ("dcim.rack",)),
    ("Connected", "4caf50", "Cable is connected", ("dcim.cable",)),
    ("Decommissioned", "9e9e9e", "Circuit has been decommissioned", ("circuits.circuit",)),
    (
        "Decommissioning",
        "ffc107",
        "Unit is being decommissioned",
        ("dcim.location", "dcim.powerfeed", "circuits.circuit", *DEVICE_LIKE, POOL_MEMBER),
    ),
    (
        "Deprecated",
        "f44336",
        "Unit has been deprecated",
        (
            "ipam.prefix",
            "ipam.ipaddress",
            "ipam.ipaddressrange",
            "ipam.vlan",
            "dcim.softwareversion",
            "dcim.softwareimagefile",
            "vpn.vpntunnel",
        ),
    ),
    ("Down", "ffc107", "VRF is down", ("vpn.vpntunnel",)),
    ("DHCP", "4caf50", "Dynamically assigned IPv4/IPv6 address", ("ipam.ipaddress",)),
    (
        "Failed",
        "f44336",
        "Unit has failed",
        (
            "dcim.device",
            "dcim.controller",
            "dcim.interface",
            "dcim.powerfeed",
            "virtualization.vminterface",
            POOL_MEMBER,
        ),
    ),
    ("Inventory", "9e9e9e", "Device is in inventory", ("dcim.device", "dcim.controller")),
    (
        "Maintenance",
        "9e9e9e",
        "Unit is under maintenance",
        ("dcim.interface", "virtualization.vminterface", POOL_MEMBER),
    ),
    (
        "Offline",
        "ffc107",
        "Unit is offline",
        (
            "dcim.device",
            "dcim.controller",
            "dcim.powerfeed",
            "circuits.circuit",
            "virtualization.virtualmachine",
            "dcim.virtualdevicecontext",
        ),
    ),
    (
        "Planned",
        "00bcd4",
        "Unit has been planned",
        (
            "dcim.location",
            "dcim.rack",
            "dcim.interface",
            "dcim.cable",
            "dcim.powerfeed",
            "circuits.circuit",
            "virtualization.vminterface",
            *DEVICE_LIKE,
            "dcim.module",
            "dcim.virtualdevicecontext",
            POOL_MEMBER,
        ),
    ),
    ("Primary", "2196f3", "Unit is primary", ("extras.contactassociation",)),
    ("Provisioning", "2196f3", "Circuit is being provisioned", ("circuits.circuit",)),
    (
        "Reserved",
        "00bcd4",
        "Unit is reserved",
        ("dcim.rack", "ipam.prefix", "ipam.ipaddress", "ipam.ipaddressrange", "ipam.vlan"),
    ),
    ("Retired", "f44336", "Location has been retired", ("dcim.location",)),
    ("SLAAC", "4caf50", "Dynamically assigned IPv6 address", ("ipam.ipaddress",)),
    ("Secondary", "ffeb3b", "Unit is secondary", ("extras.contactassociation",)),
    ("Staged", "2196f3", "Unit has been staged", ("dcim.location", *DEVICE_LIKE)),
]


# IP address roles (spec §2.8), as roles limited to IP addresses.
IP_ROLES = ["Loopback", "Secondary", "Anycast", "VIP", "VRRP", "HSRP", "GLBP", "CARP"]
# What a contact or team does for an object, as roles limited to contact associations.
CONTACT_ROLES = [
    # name, color, description
    ("Administrative", "2196f3", "Unit plays an administrative role"),
    ("Billing", "4caf50", "Unit plays a billing role"),
    ("Support", "ffeb3b", "Unit plays a support role"),
    ("On Site", "111111", "Unit plays an on site role"),
]

# What an IP address range is for, as roles limited to ranges.
RANGE_ROLES = [
    ("DHCP", "2196f3", "IP Address Range used as a DHCP scope"),
    ("Firewall Object", "f44336", "IP Address Range representing a firewall address object"),
    ("NAT Pool", "ff9800", "IP Address Range used as a NAT pool"),
    ("Load Balancer Pool", "4caf50", "IP Address Range used as a load balancer pool"),
    ("Reserved", "9e9e9e", "IP Address Range reserved for a specific purpose"),
]

# What a VPN tunnel endpoint is, as roles limited to endpoints.
ENDPOINT_ROLES = [
    ("Hub", "2f6a31", "Unit plays a Hub role"),
    ("Spoke", "8bc34a", "Unit plays a Spoke role"),
    ("Peer", "ff9800", "Unit plays a Peer role"),
]


def installed_content_types(labels):
    found = []
    for label in labels:
        app_label, model_name = label.split(".")
        try:
            model = apps.get_model(app_label, model_name)
        except LookupError:
            continue
        found.append(ContentType.objects.get_for_model(model))
    return found


def populate_defaults(app_config=None, **kwargs):
    if app_config is None or app_config.label != "extras":
        return
    from .models import Role, Status

    for name, color, description, labels in STATUSES:
        status, _ = Status.objects.get_or_create(
            name=name, defaults={"color": color, "description": description}
        )
        status.content_types.add(*installed_content_types(labels))
    for name in IP_ROLES:
        role, _ = Role.objects.get_or_create(name=name)
        role.content_types.add(*installed_content_types(["ipam.ipaddress"]))
    for name, color, description in CONTACT_ROLES:
        role, _ = Role.objects.get_or_create(name=name, defaults={"color": color, "description": description})
        role.content_types.add(*installed_content_types(["extras.contactassociation"]))
    for name, color, description in RANGE_ROLES:
        role, _ = Role.objects.get_or_create(name=name, defaults={"color": color, "description": description})
        role.content_types.add(*installed_content_types(["ipam.ipaddressrange"]))
    for name, color, description in ENDPOINT_ROLES:
        role, _ = Role.objects.get_or_create(name=name, defaults={"color": color, "description": description})
        role.content_types.add(*installed_content_types(["vpn.vpntunnelendpoint"]))
