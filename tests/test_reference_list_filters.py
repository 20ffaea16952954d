"""The reference's named filters of DCIM, IPAM, circuits and virtualization lists, through REST and
GraphQL on the sample's objects: each selects the objects it names, and leaves the others out."""

from __future__ import annotations

import orjson
import pytest

from inventory.circuits.models import Circuit
from inventory.dcim.models import (
    Cable,
    Device,
    DeviceType,
    Interface,
    Location,
    LocationType,
    Module,
    ModuleBay,
    Platform,
    RackGroup,
    VirtualChassis,
)
from inventory.ipam.models import VLAN, IPAddress, Prefix
from inventory.virtualization.models import VirtualMachine, VMInterface

pytestmark = pytest.mark.usefixtures("shared_sample")


def ids(api, route: str, params: dict) -> set[str]:
    body = api.json(f"/api/{route}/", {"limit": 1000, **params})
    assert body["count"] == len(body["results"])
    return {str(row["id"]) for row in body["results"]}


def graphql_ids(api, field: str, arguments: str) -> set[str]:
    response = api.post("/api/graphql/", {"query": f"{{ {field}({arguments}) {{ id }} }}"})
    body = orjson.loads(response.content)
    assert response.status_code == 200 and "errors" not in body, body
    return {str(row["id"]) for row in body["data"][field]}


def pks(objects) -> set[str]:
    return {str(o.pk) for o in objects}


def split(expected: set[str], everything: set[str]) -> None:
    """A filter worth checking selects some objects, not all."""
    assert expected and expected != everything, (len(expected), len(everything))


def test_cable_ends_available_for_a_cable_are_free_or_on_it(api):
    port = Interface.objects.filter(cable__isnull=False).first()
    cable = port.cable
    expected = pks(Interface.objects.filter(cable__isnull=True)) | pks(Interface.objects.filter(cable=cable))
    assert ids(api, "dcim/interfaces", {"available_for_cable": str(cable.pk)}) == expected
    assert str(port.pk) in expected
    other = Cable.objects.exclude(pk=cable.pk).first()
    elsewhere = pks(Interface.objects.filter(cable__isnull=True)) | pks(Interface.objects.filter(cable=other))
    split(elsewhere, pks(Interface.objects.all()))  # not the ends on the first cable
    assert ids(api, "dcim/interfaces", {"available_for_cable": str(other.pk)}) == elsewhere
    assert graphql_ids(api, "interfaces", f'available_for_cable: ["{cable.pk}"]') == expected
    body = api.json("/api/dcim/interfaces/", {"available_for_cable": "not-a-cable"}, status=400)
    assert list(body) == ["available_for_cable"]


def test_devices_and_modules_by_their_interfaces_mac_addresses(api):
    interface = Interface.objects.filter(mac_address__isnull=False, device__isnull=False).first()
    mac = interface.mac_address
    everything = pks(Device.objects.all())
    expected = pks(Device.objects.filter(interfaces__mac_address=mac))
    split(expected, everything)
    assert ids(api, "dcim/devices", {"mac_address": mac.lower()}) == expected
    assert ids(api, "dcim/devices", {"mac_address__n": mac}) == everything - expected
    assert ids(api, "dcim/devices", {"mac_address__ic": mac[-5:]}) >= expected
    assert graphql_ids(api, "devices", f'mac_address: ["{mac}"]') == expected
    modules = pks(Module.objects.filter(interfaces__mac_address=mac))
    assert ids(api, "dcim/modules", {"mac_address": mac}) == modules


def test_devices_by_module_bays_modules_and_device_type(api):
    everything = pks(Device.objects.all())
    empty = pks(Device.objects.filter(module_bays__installed_module__isnull=True, module_bays__isnull=False))
    split(empty, everything)
    assert ids(api, "dcim/devices", {"has_empty_module_bays": "true"}) == empty
    assert ids(api, "dcim/devices", {"has_empty_module_bays": "false"}) == everything - empty
    holding = pks(Device.objects.filter(module_bays__installed_module__isnull=False))
    split(holding, everything)
    assert ids(api, "dcim/devices", {"has_modules": "true"}) == holding
    assert graphql_ids(api, "devices", "has_modules: false") == everything - holding
    full = pks(Device.objects.filter(device_type__is_full_depth=True))
    assert ids(api, "dcim/devices", {"is_full_depth": "true"}) == full
    assert ids(api, "dcim/devices", {"is_full_depth": "false"}) == everything - full
    local = pks(Device.objects.filter(local_config_context_data__isnull=False))
    assert ids(api, "dcim/devices", {"local_config_context_data": "true"}) == local
    assert ids(api, "dcim/devices", {"local_config_context_data": "false"}) == everything - local


def test_modules_by_installation_and_device(api):
    everything = pks(Module.objects.all())
    installed = pks(Module.objects.filter(parent_module_bay__isnull=False))
    split(installed, everything)
    assert ids(api, "dcim/modules", {"is_installed": "true"}) == installed
    assert ids(api, "dcim/modules", {"is_installed": "false"}) == everything - installed
    bay = ModuleBay.objects.filter(installed_module__isnull=False, parent_device__isnull=False).first()
    device = bay.parent_device
    carried = pks(Module.objects.filter(parent_module_bay__parent_device=device))
    assert ids(api, "dcim/modules", {"device": device.name}) == carried
    assert ids(api, "dcim/modules", {"device": str(device.pk)}) == carried


def test_cables_by_their_ends(api):
    everything = pks(Cable.objects.all())
    cable = Cable.objects.filter(termination_a_type__model="interface").first()
    end = cable.end("a")
    assert ids(api, "dcim/cables", {"termination_id": str(end.pk)}) == {str(cable.pk)}
    kinds = {
        str(c.pk)
        for c in Cable.objects.all()
        if "consoleport" in {c.termination_a_type.model, c.termination_b_type.model}
    }
    split(kinds, everything)
    assert ids(api, "dcim/cables", {"termination_type": "dcim.consoleport"}) == kinds
    device = end.device
    by_device = {
        str(c.pk) for c in Cable.objects.all() if device in {getattr(c.end(s), "device", None) for s in "ab"}
    }
    assert ids(api, "dcim/cables", {"device_id": str(device.pk)}) == by_device
    if device.rack_id is not None:
        racked = {
            str(c.pk)
            for c in Cable.objects.all()
            if device.rack_id in {getattr(getattr(c.end(s), "device", None), "rack_id", None) for s in "ab"}
        }
        assert ids(api, "dcim/cables", {"rack_id": str(device.rack_id)}) == racked
    ends = {
        str(c.pk)
        for c in Cable.objects.all()
        if {"A", "B"} <= set(c.terminations.values_list("cable_end", flat=True))
    }
    assert ids(api, "dcim/cables", {"is_disconnected": "false"}) == ends
    assert ids(api, "dcim/cables", {"is_disconnected": "true"}) == everything - ends


def test_interfaces_by_vlan_and_common_virtual_chassis(api):
    everything = pks(Interface.objects.all())
    vlan = (
        VLAN.objects.filter(interfaces_as_untagged__isnull=False).first()
        or VLAN.objects.filter(interfaces_as_tagged__isnull=False).first()
    )
    carrying = pks(Interface.objects.filter(untagged_vlan=vlan)) | pks(
        Interface.objects.filter(tagged_vlans=vlan)
    )
    split(carrying, everything)
    assert ids(api, "dcim/interfaces", {"vlan_id": str(vlan.pk)}) == carrying
    by_vid = pks(Interface.objects.filter(untagged_vlan__vid=vlan.vid)) | pks(
        Interface.objects.filter(tagged_vlans__vid=vlan.vid)
    )
    assert ids(api, "dcim/interfaces", {"vlan": str(vlan.vid)}) == by_vid
    # One value each, typed as the reference types them (a String, an Int).
    assert graphql_ids(api, "interfaces", f'vlan_id: "{vlan.pk}"') == carrying
    assert graphql_ids(api, "interfaces", f"vlan: {vlan.vid}") == by_vid
    chassis = VirtualChassis.objects.filter(master__isnull=False).first()
    member = Device.objects.filter(virtual_chassis=chassis).order_by("-vc_position").first()
    common = pks(Interface.objects.filter(device__virtual_chassis=chassis))
    assert ids(api, "dcim/interfaces", {"device_with_common_vc": str(member.pk)}) == common
    alone = Device.objects.filter(virtual_chassis__isnull=True, interfaces__isnull=False).first()
    assert ids(api, "dcim/interfaces", {"device_with_common_vc": str(alone.pk)}) == pks(
        alone.interfaces.all()
    )
    assert graphql_ids(api, "interfaces", f'device_with_common_vc: "{member.pk}"') == common
    assert VMInterface.objects.exists()
    machine = VMInterface.objects.first().virtual_machine
    in_cluster = pks(VMInterface.objects.filter(virtual_machine__cluster=machine.cluster))
    assert ids(api, "virtualization/interfaces", {"cluster": machine.cluster.name}) == in_cluster
    assert ids(api, "virtualization/interfaces", {"cluster_id": str(machine.cluster_id)}) == in_cluster


def test_locations_within_trees_and_depths(api):
    everything = pks(Location.objects.all())
    root = Location.objects.filter(parent__isnull=False, children__isnull=False).first()
    below = set()
    level = {root.pk}
    while level:
        below |= level
        level = set(Location.objects.filter(parent__in=level).values_list("pk", flat=True)) - below
    expected = {str(pk) for pk in below}
    split(expected, everything)
    assert ids(api, "dcim/locations", {"subtree": root.name}) == expected
    top = pks(Location.objects.filter(parent__isnull=True))
    assert ids(api, "dcim/locations", {"max_depth": "1"}) == top
    assert graphql_ids(api, "locations", "max_depth: 1") == top
    two = pks(Location.objects.filter(parent__parent__isnull=True))
    assert ids(api, "dcim/locations", {"max_depth": "2"}) == two
    kind = LocationType.objects.filter(parent__isnull=False).first()
    holding = pks(Location.objects.filter(location_type=kind.parent)) | (
        pks(Location.objects.filter(location_type=kind)) if kind.nestable else set()
    )
    assert ids(api, "dcim/locations", {"child_location_type": kind.name}) == holding
    admitting = pks(Location.objects.filter(location_type__content_types__model="device"))
    split(admitting, everything)
    assert ids(api, "dcim/locations", {"content_type": "dcim.device"}) == admitting
    assert ids(api, "dcim/locations", {"content_type__n": "dcim.device"}) == everything - admitting


def test_rack_groups_at_a_location_or_above_it(api):
    group = RackGroup.objects.first()
    child = Location.objects.filter(parent=group.location).first() or group.location
    lineage = child.lineage()
    expected = pks(RackGroup.objects.filter(location__in=lineage))
    assert str(group.pk) in expected
    assert ids(api, "dcim/rack-groups", {"ancestors": str(child.pk)}) == expected


def test_prefixes_by_vlan_vid_and_vrf_id(api):
    everything = pks(Prefix.objects.all())
    prefix = Prefix.objects.filter(vlan__isnull=False).first()
    vid = prefix.vlan.vid
    expected = pks(Prefix.objects.filter(vlan__vid=vid))
    split(expected, everything)
    assert ids(api, "ipam/prefixes", {"vlan_vid": str(vid)}) == expected
    assert ids(api, "ipam/prefixes", {"vlan_vid__gte": str(vid)}) == pks(
        Prefix.objects.filter(vlan__vid__gte=vid)
    )
    assert graphql_ids(api, "prefixes", f"vlan_vid: [{vid}]") == expected
    in_vrf = Prefix.objects.filter(vrf__isnull=False).first().vrf
    present = pks(Prefix.objects.filter(vrf=in_vrf)) | pks(Prefix.objects.filter(assigned_vrfs=in_vrf))
    assert ids(api, "ipam/prefixes", {"present_in_vrf_id": str(in_vrf.pk)}) == present
    assert graphql_ids(api, "prefixes", f'present_in_vrf_id: "{in_vrf.pk}"') == present


def test_circuits_by_where_their_terminations_are(api):
    everything = pks(Circuit.objects.all())
    located = Circuit.objects.filter(circuit_terminations__location__isnull=False).first()
    location = located.circuit_terminations.filter(location__isnull=False).first().location
    expected = pks(Circuit.objects.filter(circuit_terminations__location=location))
    assert ids(api, "circuits/circuits", {"location": location.name}) == expected
    assert ids(api, "circuits/circuits", {"location__n": str(location.pk)}) == everything - expected
    terminated = pks(Circuit.objects.filter(circuit_terminations__isnull=False))
    assert ids(api, "circuits/circuits", {"has_terminations": "true"}) == terminated
    assert ids(api, "circuits/circuits", {"has_terminations": "false"}) == everything - terminated


def test_virtual_chassis_by_their_masters_location(api):
    everything = pks(VirtualChassis.objects.all())
    chassis = VirtualChassis.objects.filter(master__isnull=False).first()
    location = chassis.master.location
    expected = pks(VirtualChassis.objects.filter(master__location=location))
    assert str(chassis.pk) in expected
    assert ids(api, "dcim/virtual-chassis", {"location": location.name}) == expected
    assert ids(api, "dcim/virtual-chassis", {"location__n": location.name}) == everything - expected


def test_one_value_filters_are_typed_as_the_reference_types_them(api):
    from queryengine.schema import schema

    fields = schema.graphql_schema.query_type.fields
    typed = {
        ("interfaces", "device_with_common_vc"): "String",
        ("interfaces", "vlan_id"): "String",
        ("interfaces", "vlan"): "Int",
        ("locations", "max_depth"): "Int",
        ("prefixes", "present_in_vrf_id"): "String",
        ("prefixes", "vlan_vid"): "[Int]",
        ("devices", "mac_address__ic"): "[String]",
        ("devices", "has_empty_module_bays"): "Boolean",
    }
    for (field, argument), kind in typed.items():
        assert str(fields[field].args[argument].type) == kind, (field, argument)
    # REST takes the last value of a one-value filter; the document shows one value.
    document = orjson.loads(api.get("/api/swagger.json").content)
    parameters = {p["name"]: p for p in document["paths"]["/dcim/locations/"]["get"]["parameters"]}
    assert parameters["max_depth"]["schema"]["type"] == "integer"
    assert parameters["subtree"]["schema"]["type"] == "array"
    top = pks(Location.objects.filter(parent__isnull=True))
    assert ids(api, "dcim/locations", {"max_depth": ["3", "1"]}) == top
    body = api.json("/api/dcim/locations/", {"max_depth": "deep"}, status=400)
    assert list(body) == ["max_depth"]


DEVICE_TYPE_TEMPLATES = {
    "console_ports": "consoleporttemplates",
    "console_server_ports": "consoleserverporttemplates",
    "power_ports": "powerporttemplates",
    "power_outlets": "poweroutlettemplates",
    "interfaces": "interfacetemplates",
    "device_bays": "device_bay_templates",
    "pass_through_ports": "frontporttemplates",
}


@pytest.mark.parametrize("name", DEVICE_TYPE_TEMPLATES)
def test_device_types_by_whether_they_have_templates(api, name):
    everything = pks(DeviceType.objects.all())
    having = pks(DeviceType.objects.filter(**{f"{DEVICE_TYPE_TEMPLATES[name]}__isnull": False}))
    split(having, everything)
    assert ids(api, "dcim/device-types", {name: "true"}) == having
    assert ids(api, "dcim/device-types", {name: "false"}) == everything - having
    # A Boolean in GraphQL, as the reference's boolean filters.
    assert graphql_ids(api, "device_types", f"{name}: true") == having
    assert graphql_ids(api, "device_types", f"{name}: false") == everything - having
    assert list(api.json("/api/dcim/device-types/", {name: "maybe"}, status=400)) == [name]


def test_modules_serial_isnull_and_platforms_napalm_args(api):
    everything = pks(Module.objects.all())
    assert ids(api, "dcim/modules", {"serial__isnull": "true"}) == set()  # never null, as the reference's
    assert ids(api, "dcim/modules", {"serial__isnull": "false"}) == everything
    assert graphql_ids(api, "modules", "serial__isnull: true") == set()
    platform = Platform.objects.order_by("name").first()
    before = platform.napalm_args
    Platform.objects.filter(pk=platform.pk).update(napalm_args={"secret_Port": 8022})
    try:  # the shared sample holds no arguments: restored after
        for text in ("SECRET_port", "8022"):
            assert ids(api, "dcim/platforms", {"napalm_args": text}) == {str(platform.pk)}
        assert ids(api, "dcim/platforms", {"napalm_args": "8023"}) == set()
    finally:
        Platform.objects.filter(pk=platform.pk).update(napalm_args=before)


@pytest.mark.parametrize(
    "model, route, field",
    [
        (Device, "dcim/devices", "devices"),
        (VirtualMachine, "virtualization/virtual-machines", "virtual_machines"),
    ],
)
def test_devices_and_machines_by_their_addresses_id_or_value(api, model, route, field):
    everything = pks(model.objects.all())
    holder = model.objects.filter(interfaces__ip_addresses__isnull=False).first()
    address = IPAddress.objects.filter(pk__in=holder.interfaces.values("ip_addresses")).first()
    same = IPAddress.objects.filter(
        ip_version=address.ip_version, host_address=address.host_address, mask_length=address.mask_length
    )
    expected = pks(model.objects.filter(interfaces__ip_addresses__in=same))
    split(expected, everything)
    assert ids(api, route, {"ip_addresses": str(address)}) == expected
    assert ids(api, route, {"ip_addresses": str(address.pk)}) == pks(
        model.objects.filter(interfaces__ip_addresses=address)
    )
    assert ids(api, route, {"ip_addresses__n": str(address)}) == everything - expected
    assert graphql_ids(api, field, f'ip_addresses: ["{address}"]') == expected
    # A host without its mask is the /32 (/128) one, as the reference reads it.
    host = str(address).split("/")[0]
    full = 32 if address.ip_version == 4 else 128
    whole = pks(
        model.objects.filter(
            interfaces__ip_addresses__in=same.model.objects.filter(
                ip_version=address.ip_version, host_address=address.host_address, mask_length=full
            )
        )
    )
    assert ids(api, route, {"ip_addresses": host}) == whole
    assert list(api.json(f"/api/{route}/", {"ip_addresses": "not-an-address"}, status=400)) == [
        "ip_addresses"
    ]
