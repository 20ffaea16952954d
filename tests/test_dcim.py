"""DCIM behaviour through the HTTP stack: templates, racks, interfaces, primary IPs, counts."""

from __future__ import annotations

import uuid

import orjson
import pytest

from inventory.dcim.models import (
    Device,
    DeviceType,
    FrontPort,
    Interface,
    InterfaceTemplate,
    Location,
    Manufacturer,
    Module,
    ModuleBay,
    Platform,
    PowerOutlet,
    Rack,
    RackReservation,
)
from inventory.extras.models import Role, Status
from inventory.ipam.models import VLAN, VRF, IPAddress, IPAddressToInterface
from inventory.tenancy.models import Tenant

DEVICES = "/api/dcim/devices/"
INTERFACES = "/api/dcim/interfaces/"


def send(api, method: str, path: str, body=None):
    data = orjson.dumps(body) if body is not None else ""
    response = getattr(api.client, method)(path, data, content_type="application/json")
    return response.status_code, orjson.loads(response.content) if response.content else None


def new_device(name: str, **fields) -> dict:
    """A create body for a device of the sample's 48-port-style leaf type at the sample site."""
    leaf = DeviceType.objects.get(model="L48")
    return {
        "name": name,
        "device_type": str(leaf.pk),
        "role": "leaf",
        "status": "Active",
        "location": str(Location.objects.get(name="AMS1").pk),
        **fields,
    }


class TestTemplates:
    def test_device_gets_its_types_components_in_natural_order(self, api, sample):
        status, device = send(api, "post", DEVICES, new_device("leaf9"))
        assert status == 201, device
        names = [i["name"] for i in api.json(INTERFACES, {"device_id": device["id"]})["results"]]
        assert names == ["Ethernet1", "Ethernet2", "Ethernet10", "Management1"]
        management = Interface.objects.get(device=device["id"], name="Management1")
        assert management.mgmt_only and management.type == "1000base-t" and management.status.name == "Active"
        outlet = PowerOutlet.objects.get(device=device["id"])
        assert outlet.power_port.name == "PSU1" and outlet.power_port.device_id == outlet.device_id
        fronts = FrontPort.objects.filter(device=device["id"]).order_by("name")
        assert [(f.rear_port.name, f.rear_port_position) for f in fronts] == [("rear1", 1), ("rear1", 2)]
        assert all(f.rear_port.device_id == f.device_id for f in fronts)

    def test_bulk_create_is_all_or_none_with_components(self, api, sample):
        before = Interface.objects.count()
        bad = new_device("leaf12", status="no-such-status")
        status, errors = send(api, "post", DEVICES, [new_device("leaf11"), bad])
        assert status == 400 and errors[0] == {} and "status" in errors[1]
        assert Interface.objects.count() == before and not Device.objects.filter(name="leaf11").exists()
        status, created = send(api, "post", DEVICES, [new_device(f"bulk{i}") for i in range(5)])
        assert status == 201 and len(created) == 5
        assert Interface.objects.count() == before + 5 * 4

    def test_template_change_leaves_existing_devices_alone(self, api, sample):
        leaf = DeviceType.objects.get(model="L48")
        existing = Device.objects.get(name="leaf1")
        template = InterfaceTemplate.objects.get(device_type=leaf, name="Ethernet1")
        path = f"/api/dcim/interface-templates/{template.pk}/"
        assert send(api, "patch", path, {"name": "Ethernet0", "type": "10gbase-t"})[0] == 200
        assert Interface.objects.filter(device=existing, name="Ethernet1", type="1000base-t").exists()
        status, device = send(api, "post", DEVICES, new_device("leaf10"))
        assert Interface.objects.filter(device=device["id"], name="Ethernet0", type="10gbase-t").exists()

    def test_module_gets_its_types_components(self, api, sample):
        bay = ModuleBay.objects.create(parent_device=Device.objects.get(name="core1"), name="FPC1")
        module_type = Module.objects.get(serial="M1").module_type
        body = {"module_type": str(module_type.pk), "parent_module_bay": str(bay.pk), "status": "Active"}
        status, module = send(api, "post", "/api/dcim/modules/", body)
        assert status == 201, module
        assert Interface.objects.filter(module=module["id"], name="et-0/0/0").exists()
        assert ModuleBay.objects.filter(parent_module=module["id"], name="PIC0").exists()
        status, errors = send(api, "post", "/api/dcim/modules/", body)
        assert status == 400 and "parent_module_bay" in errors

    def test_a_module_goes_into_a_bay_of_a_module_created_before_it_in_the_batch(self, api, sample):
        bay = ModuleBay.objects.create(parent_device=Device.objects.get(name="core1"), name="FPC2")
        module_type = str(Module.objects.get(serial="M1").module_type.pk)
        first = str(uuid.uuid4())
        batch = [
            {"id": first, "module_type": module_type, "parent_module_bay": str(bay.pk), "status": "Active"},
            {
                "module_type": module_type,
                "parent_module_bay": {"parent_module": first, "name": "PIC0"},
                "status": "Active",
                "serial": "inner",
            },
        ]
        status, created = send(api, "post", "/api/dcim/modules/", batch)
        assert status == 201, created
        inner = Module.objects.get(pk=created[1]["id"])
        assert inner.parent_module_bay.parent_module_id == uuid.UUID(first) and inner.device.name == "core1"
        assert ModuleBay.objects.filter(parent_module=inner, name="PIC0").exists()


class TestRacks:
    def rack_body(self, **fields) -> dict:
        return new_device("racked", rack=str(Rack.objects.get(name="R101").pk), **fields)

    def test_unit_taken_answers_as_the_reference(self, api, sample):
        status, errors = send(api, "post", DEVICES, self.rack_body(position=10, face="front"))
        assert status == 400
        assert errors == {
            "non_field_errors": [
                "The position and face is already occupied on this rack. "
                "The fields rack, position, face must make a unique set."
            ]
        }

    @pytest.mark.parametrize(
        "fields, field",
        [
            ({"position": 42, "face": "rear"}, None),  # the top unit is free and 1U fits
            ({"position": 43, "face": "front"}, "position"),  # past the top
            ({"position": 10, "face": "rear"}, "position"),  # a full-depth device takes both faces
            ({"position": 5}, "face"),
            ({"face": "sideways"}, "face"),
        ],
    )
    def test_positions(self, api, sample, fields, field):
        status, body = send(api, "post", DEVICES, self.rack_body(**fields))
        if field is None:
            assert status == 201, body
        else:
            assert status == 400 and field in body, body

    def test_half_depth_devices_share_a_unit_on_opposite_faces(self, api, sample):
        core = Device.objects.get(name="core1")  # half depth, 8U at 20-27, rear
        chassis = str(core.device_type.pk)
        body = self.rack_body(device_type=chassis, position=20, face="front")
        assert send(api, "post", DEVICES, body)[0] == 201
        status, errors = send(
            api,
            "post",
            DEVICES,
            {**self.rack_body(device_type=chassis), "position": 24, "face": "rear", "name": "x"},
        )
        assert status == 400 and "U24 is already occupied" in errors["position"][0]

    def test_a_batch_is_checked_against_its_own_earlier_devices(self, api, sample):
        """Rack units, positions and names taken earlier in the same bulk create are taken, as
        if the devices were saved one by one; nothing is written."""
        chassis = str(Device.objects.get(name="core1").device_type.pk)  # 8U, half depth
        batch = [
            {**self.rack_body(position=30, face="front"), "name": "b0"},
            {**self.rack_body(position=30, face="rear"), "name": "b1"},  # b0 is full depth
            {**self.rack_body(device_type=chassis, position=28, face="front"), "name": "b2"},  # 28-35
            {**self.rack_body(position=30, face="front"), "name": "b3"},  # b0's own place
            {**self.rack_body(position=40, face="front"), "name": "b0"},  # b0's name, no tenant
            {**self.rack_body(device_type=chassis, position=31, face="rear"), "name": "b5"},  # free
        ]
        status, errors = send(api, "post", DEVICES, batch)
        assert status == 400
        assert [i for i, e in enumerate(errors) if e] == [1, 2, 3, 4]
        assert errors[1] == {
            "position": [
                "U30 is already occupied or does not have sufficient space to accommodate this device "
                "type: Acme Networks L48 (1U)"
            ]
        }
        assert "U28 is already occupied" in errors[2]["position"][0]
        assert errors[3] == {
            "non_field_errors": [
                "The position and face is already occupied on this rack. "
                "The fields rack, position, face must make a unique set."
            ]
        }
        assert errors[4] == {"name": ['A device named "b0" already exists in this location and tenant.']}
        assert not Device.objects.filter(name__in=["b0", "b5"]).exists()
        del batch[1:5]
        status, created = send(api, "post", DEVICES, batch)
        assert status == 201, created
        moved = [{"id": created[0]["id"], "position": 31}, {"id": created[1]["id"], "serial": "kept"}]
        status, errors = send(api, "patch", DEVICES, moved)  # b0 moves into the units b5 keeps
        assert status == 400 and list(errors) == ["position"], (
            errors
        )  # the failing object's, as the reference
        assert "U31 is already occupied" in errors["position"][0]

    def test_device_needs_a_rack_for_a_face(self, api, sample):
        status, errors = send(api, "post", DEVICES, new_device("floating", face="front"))
        assert status == 400 and errors == {"face": ["Cannot select a rack face without assigning a rack."]}

    def test_missing_fields_as_the_reference(self, api, sample):
        status, errors = send(api, "post", DEVICES, {"name": "x"})
        assert status == 400 and set(errors) == {"device_type", "role", "status", "location"}

    def test_elevation(self, api, sample):
        rack = Rack.objects.get(name="R101")
        path = f"/api/dcim/racks/{rack.pk}/elevation/"
        body = api.json(path, {"limit": 3, "offset": 31})
        assert body["count"] == 42
        assert [u["id"] for u in body["results"]] == [11, 10, 9]
        assert [u["occupied"] for u in body["results"]] == [False, True, False]
        assert body["results"][1]["face"] == {"value": "front", "label": "Front"}
        assert set(body["results"][1]) == {"id", "name", "face", "occupied"}  # no device, as the reference
        assert body["next"].endswith("offset=34") and body["previous"].endswith("offset=28")
        rear = api.json(path, {"face": "rear", "limit": 0})["results"]
        occupied = {u["id"] for u in rear if u["occupied"]}
        assert occupied == {10, *range(20, 28)}  # leaf1 is full depth, core1 sits on the rear
        leaf = Device.objects.get(name="leaf1")
        assert 10 not in {
            u["id"] for u in api.json(path, {"exclude": str(leaf.pk), "limit": 0})["results"] if u["occupied"]
        }
        assert [u["id"] for u in api.json(path, {"q": "41"})["results"]] == [41]
        assert api.json(path, {"face": "top"}, status=400) == {"face": ['"top" is not a valid choice.']}
        assert api.json(path, {"nope": "1"}, status=400) == {"nope": ["Unknown filter field"]}
        descending = Rack.objects.get(name="R102")
        first = api.json(f"/api/dcim/racks/{descending.pk}/elevation/", {"limit": 1})["results"][0]
        assert first["id"] == 1

    def test_rack_too_short_for_its_devices(self, api, sample):
        rack = Rack.objects.get(name="R101")
        status, errors = send(api, "patch", f"/api/dcim/racks/{rack.pk}/", {"u_height": 20})
        assert status == 400 and errors == {
            "u_height": ["Rack must be at least 27U tall to house currently installed devices."]
        }

    def test_reservations_stay_inside_the_rack_and_do_not_overlap(self, api, sample):
        rack = Rack.objects.get(name="R101")
        path = "/api/dcim/rack-reservations/"
        body = {"rack": str(rack.pk), "units": [41, 42], "description": "x"}
        assert send(api, "post", path, body) == (
            400,
            {"units": ["The following units have already been reserved: 41"]},
        )
        status, errors = send(api, "post", path, {**body, "units": [42, 43, 44]})
        assert status == 400 and errors == {"units": ["Invalid unit(s) for 42U rack: 43-44"]}
        status, created = send(api, "post", path, {**body, "units": [42, 1]})
        assert status == 201 and created["units"] == [1, 42] and created["user"] is not None
        assert RackReservation.objects.get(pk=created["id"]).user.username == "admin"

    def test_deleting_a_rack_with_devices_is_a_conflict(self, api, sample):
        rack = Rack.objects.get(name="R101")
        status, body = send(api, "delete", f"/api/dcim/racks/{rack.pk}/")
        assert status == 409 and "leaf1" in body["detail"]


class TestInterfaces:
    def interface(self, device="leaf1", **fields) -> dict:
        device = Device.objects.get(name=device)
        return {"device": str(device.pk), "name": "new0", "type": "1000base-t", "status": "Active", **fields}

    def test_lag_rules(self, api, sample):
        plain = Interface.objects.get(device__name="leaf1", name="Ethernet2")
        lag = Interface.objects.get(device__name="leaf1", name="bond0")
        status, errors = send(api, "post", INTERFACES, self.interface(lag=str(plain.pk)))
        assert status == 400 and errors == {
            "lag": ["The selected interface (Ethernet2) is not a LAG interface."]
        }
        status, errors = send(api, "post", INTERFACES, self.interface("core1", lag=str(lag.pk)))
        assert status == 400
        assert errors == {
            "lag": ["The selected LAG interface (bond0) belongs to a different device (leaf1)."]
        }
        status, errors = send(api, "post", INTERFACES, self.interface(type="virtual", lag=str(lag.pk)))
        assert status == 400 and errors == {"lag": ["Virtual interfaces cannot have a parent LAG interface."]}
        status, created = send(api, "post", INTERFACES, self.interface(lag=str(lag.pk)))
        assert status == 201 and created["lag"]["id"] == str(lag.pk)
        members = api.json(INTERFACES, {"lag_id": str(lag.pk)})["results"]
        assert {m["name"] for m in members} == {"Ethernet1", "new0"}

    def test_vlan_modes(self, api, sample):
        mgmt = VLAN.objects.get(name="mgmt")
        status, errors = send(
            api, "post", INTERFACES, self.interface(tagged_vlans=[str(mgmt.pk)], mode="access")
        )
        assert status == 400 and errors == {
            "tagged_vlans": ["Mode must be set to tagged when specifying tagged_vlans"]
        }
        status, errors = send(api, "post", INTERFACES, self.interface(untagged_vlan=str(mgmt.pk)))
        assert status == 400 and "untagged_vlan" in errors
        status, created = send(
            api,
            "post",
            f"{INTERFACES}?exclude_m2m=false",
            self.interface(mode="tagged", tagged_vlans=[str(mgmt.pk)]),
        )
        assert status == 201 and [v["id"] for v in created["tagged_vlans"]] == [str(mgmt.pk)]
        assert created["mode"] == {"value": "tagged", "label": "Tagged"}
        path = f"{INTERFACES}{created['id']}/?exclude_m2m=false"
        status, changed = send(api, "patch", path, {"mode": "access"})
        assert status == 200 and changed["tagged_vlans"] == []

    def test_untagged_vlan_must_be_reachable_from_the_device(self, api, sample):
        voice = VLAN.objects.get(name="voice")  # at AMS1
        voice.location = Location.objects.get(name="fra2")
        voice.save()
        status, errors = send(
            api, "post", INTERFACES, self.interface(mode="access", untagged_vlan=str(voice.pk))
        )
        assert status == 400 and "untagged_vlan" in errors

    def test_mac_addresses_normalized_and_filtered(self, api, sample):
        status, created = send(api, "post", INTERFACES, self.interface(mac_address="001a.2b3c.4d5f"))
        assert status == 201 and created["mac_address"] == "00:1A:2B:3C:4D:5F"
        status, errors = send(api, "post", INTERFACES, self.interface(name="bad", mac_address="00:1A:2B"))
        assert status == 400 and "mac_address" in errors
        found = api.json(INTERFACES, {"mac_address__ic": "4d:5"})["results"]
        assert {i["name"] for i in found} == {"Ethernet1", "new0"}
        # Any notation and case finds the address, as the reference's MAC filters do.
        for written in ("00:1a:2b:3c:4d:5f", "001a.2b3c.4d5f", "00-1A-2b-3C-4d-5F"):
            found = api.json(INTERFACES, {"mac_address": written})["results"]
            assert [i["name"] for i in found] == ["new0"], written
        assert [i["name"] for i in api.json(INTERFACES, {"mac_address__isw": "00:1a:2b:3c:4d:5"})["results"]]
        assert api.json(INTERFACES, {"mac_address__n": "00:1a:2b:3c:4d:5f", "limit": 1000})["count"] == (
            Interface.objects.exclude(mac_address="00:1A:2B:3C:4D:5F").count()
        )

    def test_component_cannot_move_to_another_device(self, api, sample):
        interface = Interface.objects.get(device__name="leaf1", name="Ethernet2")
        core = Device.objects.get(name="core1")
        status, errors = send(api, "patch", f"{INTERFACES}{interface.pk}/", {"device": str(core.pk)})
        assert status == 400 and errors == {"device": ["Components cannot be moved to a different device."]}

    def test_names_unique_per_device(self, api, sample):
        status, errors = send(api, "post", INTERFACES, self.interface(name="Ethernet1"))
        assert status == 400  # the reference's words (its clean method's)
        assert errors == {"__all__": ["A interface by this name already exists on leaf1"]}

    def test_type_choices_in_options(self, api, sample):
        choices = orjson.loads(api.client.options(INTERFACES).content)["actions"]["POST"]["type"]["choices"]
        values = {c["value"] for c in choices}
        assert {"virtual", "bridge", "lag", "100base-tx", "1000base-t"} <= values
        assert {"value": "lag", "display": "Link Aggregation Group (LAG)"} in choices

    def test_filters_users_type_every_day(self, api, sample):
        leaf = Device.objects.get(name="leaf1")
        by_name = {i["id"] for i in api.json(INTERFACES, {"device": "leaf1", "limit": 100})["results"]}
        by_id = {i["id"] for i in api.json(INTERFACES, {"device_id": str(leaf.pk), "limit": 100})["results"]}
        assert by_name == by_id == {str(pk) for pk in leaf.interfaces.values_list("pk", flat=True)}
        lags = api.json(INTERFACES, {"type": "lag", "device": "leaf1"})["results"]
        assert [i["name"] for i in lags] == ["bond0"]
        assert api.json(INTERFACES, {"type": "nope"}, status=400) == {
            "type": ["Select a valid choice. nope is not one of the available choices."]
        }
        at_site = api.json(INTERFACES, {"location": "AMS1", "limit": 100})["count"]
        assert at_site == Interface.objects.filter(device__location__name="AMS1").count() > 0


class TestDevices:
    def test_primary_ip_must_be_on_the_device(self, api, sample):
        core = Device.objects.get(name="core1")
        address = IPAddress.objects.get(dns_name="gw.example.com")  # on leaf1
        status, errors = send(api, "patch", f"{DEVICES}{core.pk}/", {"primary_ip4": str(address.pk)})
        assert status == 400
        assert errors == {
            "primary_ip4": ["The specified IP address (10.1.1.1/24) is not assigned to this device."]
        }
        status, errors = send(api, "patch", f"{DEVICES}{core.pk}/", {"primary_ip6": str(address.pk)})
        assert status == 400 and errors == {"primary_ip6": ["10.1.1.1/24 is not an IPv6 address."]}
        xe = Interface.objects.get(device=core, name="xe-0/0/0")
        status, link = send(
            api,
            "post",
            "/api/ipam/ip-address-to-interface/",
            {"ip_address": str(address.pk), "interface": str(xe.pk)},
        )
        assert status == 201, link
        status, device = send(api, "patch", f"{DEVICES}{core.pk}/", {"primary_ip4": str(address.pk)})
        assert status == 200 and device["primary_ip4"]["id"] == str(address.pk)
        has = {d["name"] for d in api.json(DEVICES, {"has_primary_ip": "true"})["results"]}
        assert has == {"leaf1", "core1"}

    def test_assignment_tables_show_on_both_sides(self, api, sample):
        leaf = Device.objects.get(name="leaf1")
        address = IPAddress.objects.get(dns_name="gw.example.com")
        ip = api.json(f"/api/ipam/ip-addresses/{address.pk}/", {"exclude_m2m": "false"})
        interface = Interface.objects.get(device=leaf, name="Ethernet1")
        assert [i["id"] for i in ip["interfaces"]] == [str(interface.pk)]
        shown = api.json(f"{INTERFACES}{interface.pk}/", {"exclude_m2m": "false"})
        assert [a["id"] for a in shown["ip_addresses"]] == [str(address.pk)] and shown[
            "ip_address_count"
        ] == 1
        blue = VRF.objects.get(name="blue")
        vrf = api.json(f"/api/ipam/vrfs/{blue.pk}/", {"exclude_m2m": "false"})
        assert [d["id"] for d in vrf["devices"]] == [str(leaf.pk)]
        link = IPAddressToInterface.objects.get(ip_address=address, interface=interface)
        assert (
            api.json(f"/api/ipam/ip-address-to-interface/{link.pk}/")["display"]
            == "10.1.1.1/24 leaf1 Ethernet1"
        )

    def test_interface_vrf_must_be_on_the_device(self, api, sample):
        red = VRF.objects.get(name="red")  # assigned to core1 only
        interface = Interface.objects.get(device__name="leaf1", name="Ethernet2")
        status, errors = send(api, "patch", f"{INTERFACES}{interface.pk}/", {"vrf": str(red.pk)})
        assert status == 400 and errors == {"vrf": ["VRF must be assigned to same Device."]}

    def test_counts_are_real(self, api, sample):
        ams = api.json(f"/api/dcim/locations/{Location.objects.get(name='AMS1').pk}/")
        assert ams["device_count"] == 2 and ams["rack_count"] == 1
        acme = api.json(f"/api/tenancy/tenants/{Tenant.objects.get(name='Acme').pk}/")
        assert acme["device_count"] == 1 and acme["rack_count"] == 1
        maker = api.json(f"/api/dcim/manufacturers/{Manufacturer.objects.get(name='juniper').pk}/")
        assert (maker["device_type_count"], maker["platform_count"], maker["cloud_account_count"]) == (
            2,
            0,
            0,
        )
        eos = api.json(f"/api/dcim/platforms/{Platform.objects.get(name='eos').pk}/")
        assert eos["device_count"] == 1
        assert eos["network_driver_mappings"]["netmiko"] == "arista_eos"
        assert eos["network_driver_mappings"]["ansible"] == "arista.eos.eos"
        rack = api.json(f"/api/dcim/racks/{Rack.objects.get(name='R101').pk}/")
        assert rack["device_count"] == 2 and rack["power_feed_count"] == 1
        assert rack["width"] == {"value": 19, "label": "19 inches"}
        assert rack["type"] == {"value": "4-post-cabinet", "label": "4-post cabinet"}

    def test_names_unique_per_location_and_tenant(self, api, sample):
        status, errors = send(api, "post", DEVICES, new_device("leaf1", tenant="Acme"))
        assert status == 400 and "name" in errors
        assert send(api, "post", DEVICES, new_device("leaf1"))[0] == 201  # no tenant: another device

    def test_filters_across_relations(self, api, sample):
        assert {d["name"] for d in api.json(DEVICES, {"manufacturer": "juniper"})["results"]} == {
            "core1",
            None,
        }
        assert [d["name"] for d in api.json(DEVICES, {"rack": "R101", "role": "leaf"})["results"]] == [
            "leaf1"
        ]
        assert [d["name"] for d in api.json(DEVICES, {"platform": "eos"})["results"]] == ["leaf1"]
        assert {d["name"] for d in api.json(DEVICES, {"q": "1"})["results"]} == {"leaf1", "core1"}
        assert api.json(DEVICES, {"device_type": "L48"})["count"] == 1

    def test_deleting_a_device_deletes_its_components(self, api, sample):
        leaf = Device.objects.get(name="leaf1")
        assert Interface.objects.filter(device=leaf).exists()
        status, body = send(api, "delete", f"{DEVICES}{leaf.pk}/")
        assert status == 409 and "stack1" in body["detail"]  # the master of a virtual chassis
        core = Device.objects.get(name="core1")
        assert send(api, "delete", f"{DEVICES}{core.pk}/") == (204, None)
        assert not Interface.objects.filter(device=core.pk).exists()
        assert not ModuleBay.objects.filter(parent_device=core.pk).exists()

    def test_device_types_list_with_choices(self, api, sample):
        chassis = api.json(f"/api/dcim/device-types/{DeviceType.objects.get(model='MX480').pk}/")
        assert chassis["subdevice_role"] == {"value": "parent", "label": "Parent"}
        assert chassis["display"] == "juniper MX480" and chassis["device_count"] == 1
        assert (
            api.json(f"/api/dcim/device-types/{DeviceType.objects.get(model='L48').pk}/")["subdevice_role"]
            is None
        )

    def test_device_role_must_apply_to_devices(self, api, sample):
        Role.objects.create(name="spine-only-locations")
        status, errors = send(api, "post", DEVICES, new_device("x", role="spine-only-locations"))
        assert status == 400 and "role" in errors
        assert Status.objects.filter(name="Active", content_types__model="device").exists()


def test_config_context_only_on_request(api, sample):
    leaf = Device.objects.get(name="leaf1")
    assert "config_context" not in api.json(f"{DEVICES}{leaf.pk}/")
    assert api.json(f"{DEVICES}{leaf.pk}/", {"include": "config_context"})["config_context"]["ntp"] == [
        "192.0.2.2"
    ]
    rows = api.json(DEVICES, {"include": "config_context", "depth": 1})["results"]
    assert all(row["config_context"]["ntp"] for row in rows)
    assert "config_context" not in api.json(INTERFACES, {"include": "config_context"})["results"][0]


def test_bays_show_what_they_hold_and_devices_their_bay(api, sample):
    blade = Device.objects.get(name=None)
    bay = blade.parent_bay
    shown = api.json(f"{DEVICES}{blade.pk}/", {"depth": 1})
    assert shown["parent_bay"]["id"] == str(bay.pk) and shown["parent_bay"]["name"] == "slot 1"
    assert api.json(f"{DEVICES}{Device.objects.get(name='leaf1').pk}/")["parent_bay"] is None
    module = Module.objects.get(serial="M1")
    # A module bay shows no installed module (as the reference's); it is found by its module.
    module_bay = api.json(f"/api/dcim/module-bays/{module.parent_module_bay_id}/")
    assert "installed_module" not in module_bay
    found = api.json("/api/dcim/module-bays/", {"installed_module": str(module.pk)})["results"]
    assert [b["id"] for b in found] == [str(module.parent_module_bay_id)]
    assert api.json(DEVICES, {"parent_bay__isnull": "false"})["count"] == 1
    status, errors = send(
        api,
        "patch",
        f"/api/dcim/device-bays/{bay.pk}/",
        {"installed_device": str(Device.objects.get(name="leaf1").pk)},
    )
    assert status == 400 and "installed_device" in errors  # not a child device type


def test_objects_only_at_locations_whose_type_lists_them(api, sample):
    europe = Location.objects.get(name="Europe")
    status, errors = send(api, "post", DEVICES, new_device("far", location=str(europe.pk)))
    assert status == 400 and errors == {
        "location": ['Devices may not associate to locations of type "Region".']
    }
    body = {"name": "rg", "location": str(europe.pk)}
    status, errors = send(api, "post", "/api/dcim/rack-groups/", body)
    assert status == 400 and errors == {
        "location": ['Rack groups may not associate to locations of type "Region".']
    }


def test_deleting_devices_takes_statements_per_table_not_per_component(api, sample):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    leaf = DeviceType.objects.get(model="L48")

    def delete_with(ports: int) -> int:
        status, device = send(api, "post", DEVICES, new_device(f"d{ports}"))
        assert status == 201
        status, _ = send(
            api,
            "post",
            INTERFACES,
            [
                {"device": device["id"], "name": f"x{n}", "type": "virtual", "status": "Active"}
                for n in range(ports)
            ],
        )
        assert status == 201
        with CaptureQueriesContext(connection) as queries:
            assert send(api, "delete", f"{DEVICES}{device['id']}/") == (204, None)
        assert not Interface.objects.filter(device=device["id"]).exists()
        return len(queries)

    assert leaf.interfacetemplates.count() == 4
    assert delete_with(2) == delete_with(40)


def test_component_templates_show_notes_url_null_and_take_no_notes(api, sample):
    """As the reference's: templates are not notes-capable, their `notes_url` is null."""
    row = api.json("/api/dcim/interface-templates/", {"limit": 1})["results"][0]
    assert "notes_url" in row and row["notes_url"] is None
    assert isinstance(row["duplex"], str)  # a bare value ("" when unset), as the reference shows it
    assert api.get(f"/api/dcim/interface-templates/{row['id']}/notes/").status_code == 404
    data = api.client.post(
        "/api/graphql/",
        orjson.dumps({"query": "{ interface_templates(limit: 1) { notes_url } }"}),
        content_type="application/json",
    )
    assert orjson.loads(data.content)["data"]["interface_templates"] == [{"notes_url": None}]
    device = api.json("/api/dcim/devices/", {"limit": 1})["results"][0]
    assert device["notes_url"].endswith(f"/dcim/devices/{device['id']}/notes/")


def test_a_location_reads_back_every_field_as_written(api, sample):
    """Every field of the reference's location write schema reads back as it was written (a
    client's idempotent second run, the Ansible location module's, compares them), coordinates
    as the decimal text the reference shows."""
    parent = Location.objects.get(name="AMS1")
    child_type = Location.objects.filter(parent=parent).values_list("location_type", flat=True).first()
    written = {
        "name": "Test Location 2",
        "description": "Test Location 2 Description",
        "facility": "EquinoxCA7",
        "asn": 65001,
        "time_zone": "America/Los_Angeles",
        "physical_address": "Hollywood, CA, 90210",
        "shipping_address": "Hollywood, CA, 90210",
        "latitude": "10.100000",
        "longitude": "-12.200000",
        "contact_name": "Jenny",
        "contact_phone": "867-5309",
        "contact_email": "jenny@example.com",
        "comments": "**This** is a `markdown` comment",
        "parent": str(parent.pk),
        "location_type": str(child_type),
        "status": str(Status.objects.get(name="Active").pk),
        "tenant": str(Tenant.objects.get(name="Acme").pk),
        "custom_fields": {},
        "tags": [],
    }
    status, created = send(api, "post", "/api/dcim/locations/", written)
    assert status == 201, created
    read = api.json(f"/api/dcim/locations/{created['id']}/")
    shown = {k: v["id"] if isinstance(v, dict) and "id" in v else v for k, v in read.items()}
    assert {k: shown[k] for k in written} == written
    # Written again as read, nothing changes; numbers are taken too.
    status, again = send(api, "patch", f"/api/dcim/locations/{created['id']}/", {**written, "latitude": 10.1})
    assert (
        status == 200 and again["latitude"] == "10.100000" and again["last_updated"] >= read["last_updated"]
    )
