import uuid

from django.apps import apps
from django.db.models import Q

from inventory.ipam.listfilters import holding_addresses
from queryengine.registry import (
    Computed,
    CustomFilter,
    Derived,
    Display,
    Legacy,
    Resource,
    extend_graphql,
    register,
    words,
)

from . import graphql
from .cabling import cabled
from .capabilities import CAPABILITIES
from .filters import (
    DEVICE_MODULE_FILTERS,
    DEVICE_MODULE_RELATIONS,
    DEVICE_WITH_COMMON_VC,
    INTERFACE_DEVICE,
    KIND,
    LOCAL_CONTEXT,
    assigned_vlan,
    by_vid,
    by_vlan_id,
    compatible_with_bay,
    flag,
    holding,
    members,
)
from .labels import device_display, module_bay_labels, module_labels
from .legacy import region_of, site_filters, site_of, within
from .listfilters import DEVICE_TYPE_FILTERS, LOCATION_FILTERS, RACK_GROUP_FILTERS
from .models import (
    ConsolePort,
    ConsolePortTemplate,
    ConsoleServerPort,
    ConsoleServerPortTemplate,
    Controller,
    ControllerManagedDeviceGroup,
    Device,
    DeviceBay,
    DeviceBayTemplate,
    DeviceClusterAssignment,
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
    InventoryItem,
    Location,
    LocationType,
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
    Region,
    Site,
    SoftwareImageFile,
    SoftwareVersion,
    VirtualChassis,
)
from .models.locations import REGION, SITE, view_type
from .models.moduletree import CARRIERS

# Devices and virtual machines with a primary address of either family.
HAS_PRIMARY_IP = flag(
    lambda _: Q(primary_ip4__isnull=False) | Q(primary_ip6__isnull=False),
    lambda machine: machine.primary_ip4_id is not None or machine.primary_ip6_id is not None,
)
# A serial number is matched in any case, as the reference's racks, devices and items match it.
SERIAL = {"serial": "iexact"}


def primary_ips(ids) -> dict[str, str]:
    """API 1.x's `primary_ip` of devices or virtual machines: the IPv6 one, else the IPv4 one."""
    from django.apps import apps

    found = {}
    for label in ("dcim.Device", "virtualization.VirtualMachine"):
        rows = (
            apps.get_model(label).objects.filter(pk__in=ids).values_list("pk", "primary_ip6", "primary_ip4")
        )
        found.update((str(pk), str(six or four)) for pk, six, four in rows if six or four)
    return found


PRIMARY_IP = Derived("ipam.IPAddress", "id", primary_ips)


register(Resource(LocationType, "dcim/location-types", legacy=Legacy(nested=("name", "slug", "tree_depth"))))
LOCATION_SEARCH = (
    "name",
    "description",
    "facility",
    "physical_address",
    "shipping_address",
    "contact_name",
    "comments",
)
LOCATION_COUNTS = {
    "circuit_count": "circuits.Circuit.circuit_terminations__location",
    "device_count": "dcim.Device.location",
    "prefix_count": "ipam.Prefix.locations",
    "rack_count": "dcim.Rack.location",
    "virtual_machine_count": "virtualization.VirtualMachine.cluster__location",
    "vlan_count": "ipam.VLAN.locations",
}
register(
    Resource(
        Location,
        "dcim/locations",
        search=LOCATION_SEARCH,
        counts=LOCATION_COUNTS,
        filters=LOCATION_FILTERS,
        natural_key=None,  # names are unique only under one parent
        legacy=Legacy(
            nested=("name", "slug", "tree_depth"),
            fields={"site": site_of("id", writes="parent")},
            filters=site_filters("pk"),
        ),
    )
)
# API 1.x sites and regions: views of the locations of the Site and Region types (1.x only).
V1 = ("1.2", "1.4")
register(
    Resource(
        Site,
        "dcim/sites",
        search=LOCATION_SEARCH,
        counts=LOCATION_COUNTS,
        natural_key="slug",
        versions=V1,
        legacy=Legacy(
            nested=("name", "slug"),
            renamed={"virtualmachine_count": "virtual_machine_count"},
            fields={"region": region_of()},
            defaults={"location_type": lambda: str(view_type(SITE).pk)},
            hidden=("parent", "location_type"),
            filters={"region": within("pk", "Region"), "region_id": within("pk", "Region")},
        ),
    )
)
register(
    Resource(
        Region,
        "dcim/regions",
        search=("name", "description"),
        counts={"site_count": "dcim.Site.parent"},
        natural_key="slug",
        versions=V1,
        legacy=Legacy(
            nested=("name", "slug", "site_count"),
            renamed={"parent": "parent_region"},
            fields={"parent_region": region_of()},
            defaults={"status": {"name": "Active"}, "location_type": lambda: str(view_type(REGION).pk)},
            hidden=(
                "parent",
                "location_type",
                "status",
                "tenant",
                "facility",
                "asn",
                "time_zone",
                "physical_address",
                "shipping_address",
                "latitude",
                "longitude",
                "contact_name",
                "contact_phone",
                "contact_email",
                "comments",
                "tags",
            ),
        ),
    )
)

# --- device types, platforms, software -----------------------------------------------------

register(
    Resource(
        Manufacturer,
        "dcim/manufacturers",
        counts={
            "cloud_account_count": "cloud.CloudAccount.provider",
            "device_type_count": "dcim.DeviceType.manufacturer",
            "inventory_item_count": "dcim.InventoryItem.manufacturer",
            "platform_count": "dcim.Platform.manufacturer",
        },
        legacy=Legacy(
            nested=("name", "slug", "devicetype_count"),
            renamed={"devicetype_count": "device_type_count", "inventoryitem_count": "inventory_item_count"},
        ),
    )
)
register(
    Resource(
        DeviceFamily, "dcim/device-families", counts={"device_type_count": "dcim.DeviceType.device_family"}
    )
)
register(
    Resource(
        DeviceType,
        "dcim/device-types",
        display=Display(
            ("manufacturer__name", "model"), lambda manufacturer, model: f"{manufacturer} {model}"
        ),
        search=("model", "part_number", "comments"),
        counts={"device_count": "dcim.Device.device_type"},
        read_only=("software_image_files",),
        filters=DEVICE_TYPE_FILTERS,
        natural_key="model",
        legacy=Legacy(nested=("manufacturer", "model", "slug", "device_count")),
    )
)
register(
    Resource(
        Platform,
        "dcim/platforms",
        computed={
            "network_driver_mappings": Computed(
                ("network_driver",), Platform.driver_mappings, output="object"
            )
        },
        json_filters=("napalm_args",),
        search=("name", "description", "network_driver", "napalm_driver"),
        lists={
            "softwareversion_set": "dcim.SoftwareVersion.platform"
        },  # the reference's name for software_versions
        counts={
            "device_count": "dcim.Device.platform",
            "virtual_machine_count": "virtualization.VirtualMachine.platform",
        },
        legacy=Legacy(
            nested=("name", "slug", "device_count", "virtualmachine_count"),
            renamed={"virtualmachine_count": "virtual_machine_count"},
        ),
    )
)
register(
    Resource(
        SoftwareVersion,
        "dcim/software-versions",
        display=Display(
            ("alias", "platform__name", "version"),
            lambda alias, platform, version: alias or f"{platform} - {version}",
        ),
        search=("version", "alias"),
        relations={"device_types": "software_image_files__device_types"},
        natural_key=None,
    )
)
register(
    Resource(
        SoftwareImageFile,
        "dcim/software-image-files",
        display=Display(("image_file_name",)),
        search=("image_file_name", "image_file_checksum", "download_url"),
        relations={"software_version__platform": "software_version__platform"},
        natural_key=None,
    )
)
register(
    Resource(
        DeviceTypeToSoftwareImageFile,
        "dcim/device-types-to-software-image-files",
        list_names={
            "device_type": "software_image_file_mappings",
            "software_image_file": "device_type_mappings",
        },
        display=Display(
            ("device_type__manufacturer__name", "device_type__model", "software_image_file__image_file_name"),
            lambda manufacturer, model, image: f"{manufacturer} {model}: {image}",
        ),
        search=("device_type__model", "software_image_file__image_file_name"),
        natural_key=None,
    )
)

# --- component templates -------------------------------------------------------------------

TEMPLATES = (
    (ConsolePortTemplate, "dcim/console-port-templates"),
    (ConsoleServerPortTemplate, "dcim/console-server-port-templates"),
    (PowerPortTemplate, "dcim/power-port-templates"),
    (PowerOutletTemplate, "dcim/power-outlet-templates"),
    (InterfaceTemplate, "dcim/interface-templates"),
    (FrontPortTemplate, "dcim/front-port-templates"),
    (RearPortTemplate, "dcim/rear-port-templates"),
    (DeviceBayTemplate, "dcim/device-bay-templates"),
    (ModuleBayTemplate, "dcim/module-bay-templates"),
)
for template, route in TEMPLATES:
    parents = tuple(f for f in ("device_type", "module_type") if hasattr(template, f))
    register(
        Resource(
            template,
            route,
            search=("name", "label", "description"),
            natural_key=None,
            changes_relate_to=parents,
            has=parents,
            notes_url_null=True,  # templates take no notes, as the reference's
        )
    )

# --- racks -----------------------------------------------------------------------------------

register(
    Resource(
        RackGroup,
        "dcim/rack-groups",
        counts={"rack_count": "dcim.Rack.rack_group"},
        filters=RACK_GROUP_FILTERS,
        natural_key=None,
        legacy=Legacy(
            nested=("name", "slug", "rack_count", "_depth"),
            renamed={"_depth": "tree_depth"},
            fields={"site": site_of()},
            filters=site_filters(),
        ),
    )
)
register(
    Resource(
        Rack,
        "dcim/racks",
        search=("name", "facility_id", "serial", "asset_tag", "comments"),
        relayed={"rack_group": "rack_group", "location": "location"},
        counts={"device_count": "dcim.Device.rack", "power_feed_count": "dcim.PowerFeed.rack"},
        default_lookups=SERIAL,
        natural_key=None,
        legacy=Legacy(
            nested=("name", "device_count"),
            renamed={"group": "rack_group", "powerfeed_count": "power_feed_count"},
            fields={"site": site_of()},
            filters=site_filters(),
        ),
    )
)
register(
    Resource(
        RackReservation,
        "dcim/rack-reservations",
        display=Display(("rack__name",), lambda rack: f"Reservation for rack {rack}"),
        search=("description",),
        natural_key=None,
        owner_field="user",
        list_names={"rack": "rack_reservations"},
        legacy=Legacy(nested=("user", "units")),
    )
)

# --- devices ---------------------------------------------------------------------------------

# A device's parts with those of the modules installed in it, at any depth (`all_interfaces`,
# `all_modules`, ...): what a module carries carries the device too (moduletree).
ALL_PARTS = {
    **{
        f"all_{words(apps.get_model('dcim', name))}s": f"dcim.{name}.{device}" for name, device, _ in CARRIERS
    },
    "all_modules": "dcim.Module.parent_module_bay__parent_device",
}
VC_MEMBER = flag(
    lambda _: Q(virtual_chassis__isnull=False), lambda device: device.virtual_chassis_id is not None
)
register(
    Resource(
        Device,
        "dcim/devices",
        display=Display(
            ("name", "device_type__manufacturer__name", "device_type__model", "pk"), device_display
        ),
        search=("name", "serial", "asset_tag", "comments"),
        default_lookups=SERIAL,
        has=("software_version",),
        read_only=(
            "local_config_context_data_owner_content_type",
            "local_config_context_data_owner_object_id",
        ),
        reverse_one=("parent_bay",),
        lists=ALL_PARTS,
        graphql_names={"cluster": graphql.DEVICE_CLUSTER},  # the one cluster, as the reference's
        relations={
            "manufacturer": "device_type__manufacturer",
            "device_family": "device_type__device_family",
            "controller": "controller_managed_device_group__controller",
            "cluster": "clusters",
            "is_full_depth": "device_type__is_full_depth",
            "radio_profiles": "controller_managed_device_group__radio_profiles",
            "wireless_networks": "controller_managed_device_group__wireless_networks",
            **DEVICE_MODULE_RELATIONS,
        },
        legacy=Legacy(
            nested=("name",),
            renamed={
                "device_role": "role",
                "local_context_data": "local_config_context_data",
                "local_context_schema": "local_config_context_schema",
            },
            fields={"site": site_of(), "primary_ip": PRIMARY_IP},
            filters=site_filters(),
        ),
        filters={
            "has_primary_ip": HAS_PRIMARY_IP,
            "has_interfaces": flag(
                lambda _: Q(interfaces__isnull=False), lambda device: device.interfaces.exists()
            ),
            "is_virtual_chassis_member": VC_MEMBER,
            "virtual_chassis_member": VC_MEMBER,
            "has_ip_addresses": holding("interfaces__ip_addresses"),
            "ip_addresses": holding_addresses("interfaces__ip_addresses"),
            "has_radio_profiles": holding("controller_managed_device_group__radio_profiles"),
            "has_wireless_networks": holding("controller_managed_device_group__wireless_networks"),
            "local_config_context_data": LOCAL_CONTEXT,
            **DEVICE_MODULE_FILTERS,
        },
        natural_key=None,
    )
)
register(
    Resource(
        DeviceClusterAssignment,
        "dcim/device-cluster-assignments",
        display=Display(("device__name", "cluster__name"), lambda device, cluster: f"{device}: {cluster}"),
        search=("device__name", "device__asset_tag", "device__serial", "cluster__name"),
        natural_key=None,
    )
)
register(
    Resource(
        VirtualChassis,
        "dcim/virtual-chassis",
        search=("name", "domain"),
        counts={"member_count": "dcim.Device.virtual_chassis"},
        # Those of its master, as the reference's.
        relations={
            "location": "master__location",
            "tenant": "master__tenant",
            "tenant_group": "master__tenant__tenant_group",
        },
        legacy=Legacy(nested=("name", "master", "member_count")),
    )
)
register(
    Resource(
        DeviceRedundancyGroup,
        "dcim/device-redundancy-groups",
        search=("name", "description", "comments"),
        legacy=Legacy(nested=("name", "slug", "failover_strategy")),
    )
)


def group_subtree(value: str) -> set:
    """A group named by id or name and every group below it (one query per tree level)."""
    try:
        match = Q(pk=uuid.UUID(value))
    except ValueError:
        match = Q(name=value)
    found = level = set(ControllerManagedDeviceGroup.objects.filter(match).values_list("pk", flat=True))
    if not found:
        raise ValueError(f"Select a valid choice. {value} is not one of the available choices.")
    while level:
        below = ControllerManagedDeviceGroup.objects.filter(parent__in=level).values_list("pk", flat=True)
        level = set(below) - found
        found = found | level
    return found


# Controllers and the groups of devices they manage, a tree under each controller.
register(
    Resource(
        Controller,
        "dcim/controllers",
        relations={"wireless_networks": "controller_managed_device_groups__wireless_networks"},
        **CAPABILITIES,
    )
)
register(
    Resource(
        ControllerManagedDeviceGroup,
        "dcim/controller-managed-device-groups",
        search=("name",),
        shows_tree_depth=False,
        hidden=CAPABILITIES["hidden"],
        computed=CAPABILITIES["computed"],
        # Through their assignments (wireless), written there.
        read_only=("radio_profiles", "wireless_networks"),
        relations={"radio_profiles": "radio_profiles", "wireless_networks": "wireless_networks"},
        filters={
            **CAPABILITIES["filters"],
            "has_radio_profiles": flag(
                lambda _: Q(radio_profiles__isnull=False), lambda group: group.radio_profiles.exists()
            ),
            "has_wireless_networks": flag(
                lambda _: Q(wireless_networks__isnull=False), lambda group: group.wireless_networks.exists()
            ),
            # Groups within the named ones, as the reference's `subtree`.
            "subtree": CustomFilter(
                lambda trees: Q(pk__in={pk for tree in trees for pk in tree}),
                group_subtree,
                lambda group, trees: any(group.pk in tree for tree in trees),
                ("campus APs", "leafs"),
            ),
        },
    )
)
register(
    Resource(
        ModuleFamily,
        "dcim/module-families",
        counts={
            "module_type_count": "dcim.ModuleType.module_family",
            "module_bay_count": "dcim.ModuleBay.module_family",
        },
        search=("name", "description"),
        filters={
            "module_types": members("module_types", ModuleType, "model"),
            "module_bay_id": members("module_bays", ModuleBay, None),
        },
    )
)
register(
    Resource(
        ModuleType,
        "dcim/module-types",
        display=Display(("manufacturer__name", "model"), lambda maker, model: f"{maker} {model}"),
        search=("model", "part_number", "comments"),
        natural_key="model",
        read_only=("front_image", "rear_image"),
        filters={
            "compatible_with_module_bay": compatible_with_bay("module_family_id"),
            "has_modules": flag(lambda _: Q(modules__isnull=False), lambda kind: kind.modules.exists()),
        },
    )
)
register(
    Resource(
        Module,
        "dcim/modules",
        display=Display((), load=module_labels),
        # As the reference's search: a module is found by its type's model and manufacturer, and
        # by the bay, device or module it is installed in.
        search=(
            "serial",
            "asset_tag",
            "module_type__manufacturer__name",
            "module_type__model",
            "parent_module_bay__parent_device__name",
            "parent_module_bay__name",
            "parent_module_bay__position",
            "parent_module_bay__parent_module__module_type__manufacturer__name",
        ),
        relations={
            "module_family": "module_type__module_family",
            "manufacturer": "module_type__manufacturer",
            # Bays carry the device their module is installed in, at any depth (moduletree).
            "device": "parent_module_bay__parent_device",
            **DEVICE_MODULE_RELATIONS,
        },
        filters={
            "compatible_with_module_bay": compatible_with_bay("module_type__module_family_id"),
            "is_installed": flag(
                lambda _: Q(parent_module_bay__isnull=False),
                lambda module: module.parent_module_bay_id is not None,
            ),
            **DEVICE_MODULE_FILTERS,
        },
        isnull=("serial",),  # never null here, as the reference's: true selects none
        graphql_names={"device": graphql.MODULE_DEVICE},
        natural_key=None,
    )
)

# --- components --------------------------------------------------------------------------------

COMPONENT_RELATIONS = {
    "location": "device__location",
    "rack": "device__rack",
    "device_type": "device__device_type",
}
COMPONENTS = (
    (ConsolePort, "dcim/console-ports"),
    (ConsoleServerPort, "dcim/console-server-ports"),
    (PowerPort, "dcim/power-ports"),
    (PowerOutlet, "dcim/power-outlets"),
    (FrontPort, "dcim/front-ports"),
    (RearPort, "dcim/rear-ports"),
    (DeviceBay, "dcim/device-bays"),
)
# A component's 1.x nested form; a device's location was its site (the site= filters).
COMPONENT_LEGACY = Legacy(nested=("device", "name", "cable"), filters=site_filters("device__location"))
for component, route in COMPONENTS:
    declaration = {
        "search": ("name", "label", "description"),
        "relations": COMPONENT_RELATIONS,
        "natural_key": None,
        "changes_relate_to": ("module", "device") if hasattr(component, "module") else ("device",),
        "legacy": COMPONENT_LEGACY
        if component is not DeviceBay
        else Legacy(nested=("device", "name"), filters=site_filters("device__location")),
    }
    if component in (ConsolePort, PowerPort):  # listed by their connections too, searched there so
        declaration["connection_search"] = ("name", "device__name")
    if component is not DeviceBay:
        declaration = cabled(component, endpoint=component not in (FrontPort, RearPort), **declaration)
    register(Resource(component, route, **declaration))
register(
    Resource(
        Interface,
        "dcim/interfaces",
        **cabled(
            Interface,
            filters={
                "kind": KIND,
                "device": INTERFACE_DEVICE,
                "device_id": INTERFACE_DEVICE,
                "device_with_common_vc": DEVICE_WITH_COMMON_VC,
                "vlan": assigned_vlan(by_vid),
                "vlan_id": assigned_vlan(by_vlan_id),
            },
            search=("name", "label", "description", "mac_address"),
            counts={"ip_address_count": "ipam.IPAddress.interface_assignments__interface"},
            read_only=("ip_addresses",),
            relations=COMPONENT_RELATIONS,
            natural_key=None,
            changes_relate_to=("module", "device"),
            legacy=Legacy(
                nested=("device", "name", "cable"),
                renamed={"count_ipaddresses": "ip_address_count"},
                since={"status": "1.3"},
                filters=site_filters("device__location"),
            ),
        ),
    )
)
register(
    Resource(
        ModuleBay,
        "dcim/module-bays",
        display=Display((), load=module_bay_labels),
        search=("name", "label", "description", "position"),
        # The installed module is not shown on a bay (the reference shows it on the module only).
        relations={"location": "parent_device__location", "installed_module": "installed_module"},
        has=("parent_device", "parent_module"),
        filters={
            "has_installed_module": flag(
                lambda _: Q(installed_module__isnull=False), lambda bay: hasattr(bay, "installed_module")
            )
        },
        natural_key=None,
        changes_relate_to=("parent_device", "parent_module"),
    )
)
register(
    Resource(
        InventoryItem,
        "dcim/inventory-items",
        search=("name", "label", "description", "part_id", "serial", "asset_tag"),
        relations={"location": "device__location"},
        default_lookups=SERIAL,
        has=("software_version",),
        # Written, never shown, as the reference's serializer (GraphQL lists them).
        write_only=("software_image_files",),
        natural_key=None,
        changes_relate_to=("device",),
        legacy=Legacy(nested=("device", "name", "_depth"), renamed={"_depth": "tree_depth"}),
    )
)
register(
    Resource(
        InterfaceRedundancyGroup,
        "dcim/interface-redundancy-groups",
        read_only=("interfaces",),
        legacy=Legacy(nested=("name", "protocol")),
    )
)
register(
    Resource(
        InterfaceRedundancyGroupAssociation,
        "dcim/interface-redundancy-group-associations",
        display=Display(
            ("interface_redundancy_group__name", "interface__device__name", "interface__name", "priority"),
            lambda group, device, interface, priority: f"{group}: {device} {interface} ({priority})",
        ),
        search=("interface_redundancy_group__name", "interface__name"),
        natural_key=None,
        notes=True,
        notes_url=False,
    )
)

# --- power -----------------------------------------------------------------------------------

register(
    Resource(
        PowerPanel,
        "dcim/power-panels",
        search=("name",),
        relayed={"location": "location"},
        counts={"power_feed_count": "dcim.PowerFeed.power_panel"},
        natural_key=None,
        legacy=Legacy(
            nested=("name", "powerfeed_count"),
            renamed={"powerfeed_count": "power_feed_count"},
            fields={"site": site_of()},
            filters=site_filters(),
        ),
    )
)
register(
    Resource(
        PowerFeed,
        "dcim/power-feeds",
        **cabled(
            PowerFeed, search=("name", "comments"), natural_key=None, legacy=Legacy(nested=("name", "cable"))
        ),
    )
)
extend_graphql(query=graphql.query_fields, types=graphql.type_fields)

# Cables and the paths they make, and virtual device contexts, register in their own modules.
from . import cableresources, contextresources  # noqa: E402,F401
