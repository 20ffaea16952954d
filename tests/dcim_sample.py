"""DCIM sample data: device types with templates, racks, devices with components, power."""

from __future__ import annotations

import datetime
from decimal import Decimal

from django.contrib.contenttypes.models import ContentType
from django.db.models import Q

from inventory.dcim.models import (
    ConsolePort,
    ConsolePortTemplate,
    ConsoleServerPort,
    ConsoleServerPortTemplate,
    Device,
    DeviceBay,
    DeviceBayTemplate,
    DeviceFamily,
    DeviceRedundancyGroup,
    DeviceType,
    DeviceTypeToSoftwareImageFile,
    FrontPort,
    FrontPortTemplate,
    Interface,
    InterfaceRedundancyGroup,
    InterfaceRedundancyGroupAssociation,
    InterfaceTemplate,
    InterfaceVDCAssignment,
    InventoryItem,
    Manufacturer,
    Module,
    ModuleBay,
    ModuleBayTemplate,
    ModuleFamily,
    ModuleType,
    Platform,
    PowerFeed,
    PowerOutlet,
    PowerOutletTemplate,
    PowerPanel,
    PowerPort,
    PowerPortTemplate,
    Rack,
    RackGroup,
    RackReservation,
    RearPort,
    RearPortTemplate,
    SoftwareImageFile,
    SoftwareVersion,
    VirtualChassis,
    VirtualDeviceContext,
)
from inventory.extras.models import Role, Status
from inventory.ipam.models import IPAddressToInterface, VRFDeviceAssignment

DEVICE_SCOPED = ("device", "rack", "rackgroup", "powerpanel", "module")


def allow_dcim_at(location_type) -> None:
    location_type.content_types.add(
        *(ContentType.objects.get_by_natural_key("dcim", model) for model in DEVICE_SCOPED)
    )


def build_dcim(s: str, owner, tenants, site, room, active, vrfs, vlans, addresses) -> dict[type, list]:
    """Two or more objects of every DCIM model; `site` and `room` take devices."""
    allow_dcim_at(site.location_type)
    allow_dcim_at(room.location_type)
    device_ct = ContentType.objects.get_for_model(Device)
    planned = Status.objects.get(name="Planned")
    roles = [Role.objects.create(name=f"leaf{s}", color="2196f3"), Role.objects.create(name=f"spine{s}")]
    for role in roles:
        role.content_types.add(device_ct)

    acme = Manufacturer.objects.create(name=f"Acme Networks{s}", description="switches")
    juniper = Manufacturer.objects.create(name=f"juniper{s}")
    families = [
        DeviceFamily.objects.create(name=f"Catalyst{s}", description="campus"),
        DeviceFamily.objects.create(name=f"MX{s}"),
    ]
    leaf = DeviceType.objects.create(
        manufacturer=acme, model=f"L48{s}", part_number="L48-AC", u_height=1, device_family=families[0]
    )
    chassis = DeviceType.objects.create(
        manufacturer=juniper, model=f"MX480{s}", u_height=8, is_full_depth=False, subdevice_role="parent"
    )
    blade = DeviceType.objects.create(
        manufacturer=juniper, model=f"blade{s}", u_height=0, subdevice_role="child"
    )
    platforms = [
        Platform.objects.create(name=f"eos{s}", manufacturer=acme, network_driver="arista_eos"),
        Platform.objects.create(name=f"junos{s}", network_driver="juniper_junos", napalm_driver="junos"),
    ]
    versions = [
        SoftwareVersion.objects.create(
            platform=platforms[0], version="4.30.1F", status=active, release_date=datetime.date(2024, 1, 5)
        ),
        SoftwareVersion.objects.create(
            platform=platforms[1], version="23.2R1", alias="junos-lts", status=active
        ),
    ]
    images = [
        SoftwareImageFile.objects.create(
            software_version=versions[0],
            image_file_name=f"EOS-4.30.1F{s}.swi",
            hashing_algorithm="sha256",
            image_file_size=1048576,
            status=active,
        ),
        SoftwareImageFile.objects.create(
            software_version=versions[1],
            image_file_name=f"junos-23.2R1{s}.tgz",
            status=active,
            default_image=True,
        ),
    ]
    type_images = [
        DeviceTypeToSoftwareImageFile.objects.create(device_type=leaf, software_image_file=images[0]),
        DeviceTypeToSoftwareImageFile.objects.create(device_type=chassis, software_image_file=images[1]),
    ]
    module_families = [
        ModuleFamily.objects.create(name=f"MPC{s}", description="line cards"),
        ModuleFamily.objects.create(name=f"PSU{s}"),
    ]
    module_types = [
        ModuleType.objects.create(
            manufacturer=juniper,
            model=f"MPC7E{s}",
            part_number="MPC7E-MRATE",
            module_family=module_families[0],
        ),
        ModuleType.objects.create(manufacturer=acme, model=f"PSU-AC{s}"),
    ]
    templates = build_templates(leaf, chassis, module_types[0], module_families[0])

    rack_groups = [RackGroup.objects.create(name=f"row A{s}", location=site, description="cold aisle")]
    rack_groups.append(RackGroup.objects.create(name=f"row A cage{s}", location=room, parent=rack_groups[0]))
    racks = [
        Rack.objects.create(
            name=f"R101{s}",
            location=site,
            rack_group=rack_groups[0],
            status=active,
            tenant=tenants[0],
            serial="SN-R101",
            asset_tag=f"RACK-101{s}",
            type="4-post-cabinet",
        ),
        Rack.objects.create(
            name=f"R102{s}", location=room, status=planned, u_height=24, width=23, desc_units=True
        ),
    ]
    reservations = [
        RackReservation.objects.create(rack=racks[0], units=[40, 41], user=owner, description="future spine"),
        RackReservation.objects.create(
            rack=racks[1], units=[1], user=owner, tenant=tenants[1], description="lab"
        ),
    ]
    chassis_group = VirtualChassis.objects.create(name=f"stack1{s}", domain="stack.example.com")
    redundancy = [
        DeviceRedundancyGroup.objects.create(
            name=f"fw-pair{s}", status=active, failover_strategy="active-passive"
        ),
        DeviceRedundancyGroup.objects.create(name=f"lb-pair{s}", status=active, description="load balancers"),
    ]
    devices = [
        Device.objects.create(
            name=f"leaf1{s}",
            device_type=leaf,
            role=roles[0],
            status=active,
            location=site,
            rack=racks[0],
            position=10,
            face="front",
            platform=platforms[0],
            serial="FDO1234",
            asset_tag=f"A-1001{s}",
            tenant=tenants[0],
            software_version=versions[0],
            virtual_chassis=chassis_group,
            vc_position=1,
            device_redundancy_group=redundancy[0],
            device_redundancy_group_priority=1,
        ),
        Device.objects.create(
            name=f"core1{s}",
            device_type=chassis,
            role=roles[1],
            status=planned,
            location=site,
            rack=racks[0],
            position=20,
            face="rear",
            platform=platforms[1],
            comments="core router",
        ),
        Device.objects.create(name=None, device_type=blade, role=roles[0], status=active, location=room),
    ]
    chassis_group.master = devices[0]
    chassis_group.save()
    VirtualChassis.objects.create(name=f"stack2{s}")

    interfaces = list(Interface.objects.filter(device=devices[0]).order_by("_name"))
    lag = Interface.objects.create(device=devices[0], name="bond0", type="lag", status=active, mtu=9000)
    interfaces[0].lag = lag
    interfaces[0].mac_address = "00:1A:2B:3C:4D:5E"
    interfaces[0].mode = "access"
    interfaces[0].untagged_vlan = vlans[2]
    interfaces[0].save()
    interfaces[1].mode = "tagged"
    interfaces[1].description = "uplink"
    interfaces[1].vrf = vrfs[0]
    interfaces[1].save()
    interfaces[1].tagged_vlans.set([vlans[2]])
    Interface.objects.create(
        device=devices[1], name="xe-0/0/0", type="10gbase-x-sfpp", status=planned, enabled=False
    )
    vrf_devices = [
        VRFDeviceAssignment.objects.create(vrf=vrfs[0], device=devices[0], rd="65000:100", name="blue-leaf"),
        VRFDeviceAssignment.objects.create(vrf=vrfs[1], device=devices[1], name="red-vrf"),
    ]
    assignments = [
        IPAddressToInterface.objects.create(
            ip_address=addresses[0], interface=interfaces[0], is_primary=True
        ),
        IPAddressToInterface.objects.create(ip_address=addresses[3], interface=lag),
    ]
    devices[0].primary_ip4 = addresses[0]
    devices[0].save()

    bay = DeviceBay.objects.get(device=devices[1], name="slot 1")
    bay.installed_device = devices[2]
    bay.save()
    DeviceBay.objects.create(device=devices[1], name="slot 2", label="lower")
    module_bay = ModuleBay.objects.get(parent_device=devices[1])  # takes MPC modules (its template's)
    modules = [
        Module.objects.create(
            module_type=module_types[0], parent_module_bay=module_bay, status=active, serial="M1"
        ),
        Module.objects.create(
            module_type=module_types[1], location=site, status=planned, asset_tag=f"PSU-9{s}"
        ),
    ]
    items = [InventoryItem.objects.create(device=devices[0], name="PSU0", manufacturer=acme, part_id="PWR-1")]
    items.append(InventoryItem.objects.create(device=devices[0], name="fan0", parent=items[0], serial="F1"))
    contexts = [
        VirtualDeviceContext.objects.create(
            name=f"vdc1{s}", device=devices[0], identifier=1, status=active, primary_ip4=addresses[0]
        ),
        VirtualDeviceContext.objects.create(
            name=f"vdc2{s}", device=devices[0], status=planned, tenant=tenants[1], description="lab"
        ),
    ]
    vdc_links = [
        InterfaceVDCAssignment.objects.create(virtual_device_context=contexts[0], interface=interfaces[0]),
        InterfaceVDCAssignment.objects.create(virtual_device_context=contexts[1], interface=interfaces[1]),
    ]
    vrf_devices.append(
        VRFDeviceAssignment.objects.create(vrf=vrfs[1], virtual_device_context=contexts[0], name="red-vdc")
    )
    irg = [
        InterfaceRedundancyGroup.objects.create(name=f"vrrp-10{s}", status=active, protocol="vrrp"),
        InterfaceRedundancyGroup.objects.create(
            name=f"hsrp-20{s}", status=active, protocol="hsrp", virtual_ip=addresses[2]
        ),
    ]
    irg_links = [
        InterfaceRedundancyGroupAssociation.objects.create(
            interface_redundancy_group=irg[0], interface=interfaces[0], priority=100
        ),
        InterfaceRedundancyGroupAssociation.objects.create(
            interface_redundancy_group=irg[1], interface=lag, priority=50
        ),
    ]
    panels = [
        PowerPanel.objects.create(
            location=site, name=f"PP-1{s}", rack_group=rack_groups[0], breaker_position_count=42
        ),
        PowerPanel.objects.create(location=room, name=f"PP-2{s}", panel_type="utility"),
    ]
    feeds = [
        PowerFeed.objects.create(
            power_panel=panels[0], rack=racks[0], name="feed A", status=active, breaker_position=1
        ),
        PowerFeed.objects.create(
            power_panel=panels[0],
            name="feed B",
            status=planned,
            phase="three-phase",
            voltage=230,
            type="redundant",
        ),
    ]
    return {
        **templates,
        Manufacturer: [acme, juniper],
        DeviceFamily: families,
        DeviceType: [leaf, chassis, blade],
        Platform: platforms,
        SoftwareVersion: versions,
        SoftwareImageFile: images,
        DeviceTypeToSoftwareImageFile: type_images,
        ModuleFamily: module_families,
        ModuleType: module_types,
        VirtualDeviceContext: contexts,
        InterfaceVDCAssignment: vdc_links,
        RackGroup: rack_groups,
        Rack: racks,
        RackReservation: reservations,
        VirtualChassis: list(VirtualChassis.objects.filter(name__endswith=f"{s}", name__startswith="stack")),
        DeviceRedundancyGroup: redundancy,
        Device: devices,
        Interface: list(Interface.objects.filter(device__in=devices[:2])),
        ConsolePort: list(ConsolePort.objects.filter(device__in=devices)),
        ConsoleServerPort: list(ConsoleServerPort.objects.filter(device__in=devices)),
        PowerPort: list(PowerPort.objects.filter(device__in=devices)),
        PowerOutlet: list(PowerOutlet.objects.filter(device__in=devices)),
        FrontPort: list(FrontPort.objects.filter(device__in=devices)),
        RearPort: list(RearPort.objects.filter(device__in=devices)),
        DeviceBay: list(DeviceBay.objects.filter(device__in=devices)),
        # A module's bays carry the device it is installed in too.
        ModuleBay: list(
            ModuleBay.objects.filter(Q(parent_device__in=devices) | Q(parent_module__in=modules))
        ),
        Module: modules,
        InventoryItem: items,
        InterfaceRedundancyGroup: irg,
        InterfaceRedundancyGroupAssociation: irg_links,
        PowerPanel: panels,
        PowerFeed: feeds,
        VRFDeviceAssignment: vrf_devices,
        IPAddressToInterface: assignments,
    }


def build_templates(leaf, chassis, module_type, module_family) -> dict[type, list]:
    """Templates on two types (and a module type): the devices built from them get components."""
    rear = [
        RearPortTemplate.objects.create(device_type=leaf, name="rear1", type="8p8c", positions=2),
        RearPortTemplate.objects.create(device_type=chassis, name="rear1", type="lc"),
    ]
    power = [
        PowerPortTemplate.objects.create(
            device_type=leaf, name="PSU1", type="iec-60320-c14", maximum_draw=300
        ),
        PowerPortTemplate.objects.create(
            device_type=chassis, name="PEM0", allocated_draw=1200, power_factor=Decimal("0.90")
        ),
    ]
    return {
        InterfaceTemplate: [
            InterfaceTemplate.objects.create(device_type=leaf, name=f"Ethernet{n}", type="1000base-t")
            for n in (1, 2, 10)
        ]
        + [
            InterfaceTemplate.objects.create(
                device_type=leaf, name="Management1", type="1000base-t", mgmt_only=True
            ),
            InterfaceTemplate.objects.create(
                module_type=module_type, name="et-0/0/0", type="100gbase-x-qsfp28"
            ),
        ],
        ConsolePortTemplate: [
            ConsolePortTemplate.objects.create(device_type=leaf, name="con0", type="rj-45"),
            ConsolePortTemplate.objects.create(device_type=chassis, name="console", label="CON"),
        ],
        ConsoleServerPortTemplate: [
            ConsoleServerPortTemplate.objects.create(device_type=leaf, name="cs1", type="rj-45"),
            ConsoleServerPortTemplate.objects.create(device_type=chassis, name="cs-aux"),
        ],
        PowerPortTemplate: power,
        PowerOutletTemplate: [
            PowerOutletTemplate.objects.create(
                device_type=leaf, name="out1", power_port_template=power[0], feed_leg="A"
            ),
            PowerOutletTemplate.objects.create(device_type=chassis, name="out-aux", type="iec-60320-c13"),
        ],
        RearPortTemplate: rear,
        FrontPortTemplate: [
            FrontPortTemplate.objects.create(
                device_type=leaf, name="front1", type="8p8c", rear_port_template=rear[0]
            ),
            FrontPortTemplate.objects.create(
                device_type=leaf, name="front2", type="8p8c", rear_port_template=rear[0], rear_port_position=2
            ),
            FrontPortTemplate.objects.create(
                device_type=chassis, name="front1", type="lc", rear_port_template=rear[1]
            ),
        ],
        DeviceBayTemplate: [
            DeviceBayTemplate.objects.create(device_type=chassis, name="slot 1", label="upper"),
            DeviceBayTemplate.objects.create(device_type=chassis, name="slot 0", description="unused"),
        ],
        ModuleBayTemplate: [
            ModuleBayTemplate.objects.create(
                device_type=chassis, name="FPC0", position="0", module_family=module_family
            ),
            ModuleBayTemplate.objects.create(module_type=module_type, name="PIC0", position="0"),
        ],
    }
