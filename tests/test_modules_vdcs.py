"""Module families, virtual device contexts, VRF assignments beyond devices, power factors and
redundancy groups' secrets groups, through the HTTP stack."""

from __future__ import annotations

import orjson

from inventory.dcim.models import (
    ControllerManagedDeviceGroup,
    Device,
    DeviceRedundancyGroup,
    Interface,
    InterfaceVDCAssignment,
    ModuleBay,
    ModuleFamily,
    ModuleType,
    PowerPort,
    VirtualDeviceContext,
)
from inventory.extras.models import SecretsGroup
from inventory.ipam.models import VRF, IPAddress
from inventory.virtualization.models import VirtualMachine

from .test_dcim import new_device, send

VDCS = "/api/dcim/virtual-device-contexts/"
GROUPS = "/api/dcim/controller-managed-device-groups/"
VRF_ASSIGNMENTS = "/api/ipam/vrf-device-assignments/"


def names(api, path: str, params: dict, key: str = "name") -> list:
    return sorted(row[key] for row in api.json(path, {**params, "limit": 100})["results"])


class TestPowerFactor:
    def test_shown_as_the_reference_shows_it_and_copied_from_templates(self, api, sample):
        status, device = send(api, "post", "/api/dcim/devices/", new_device("leaf9"))
        assert status == 201, device
        port = api.json("/api/dcim/power-ports/", {"device_id": device["id"]})["results"][0]
        assert port["power_factor"] == "0.95"  # the default, a string as the reference's
        template = api.json("/api/dcim/power-port-templates/", {"name": "PEM0"})["results"][0]
        assert template["power_factor"] == "0.90"
        core = Device.objects.get(name="core1")
        assert str(PowerPort.objects.get(device=core, name="PEM0").power_factor) == "0.90"

    def test_written_filtered_and_checked(self, api, sample):
        port = PowerPort.objects.get(device__name="leaf1", name="PSU1")
        status, body = send(api, "patch", f"/api/dcim/power-ports/{port.pk}/", {"power_factor": 0.8})
        assert status == 200 and body["power_factor"] == "0.80"
        assert names(api, "/api/dcim/power-ports/", {"power_factor__lt": "0.9"}) == ["PSU1"]
        status, errors = send(api, "patch", f"/api/dcim/power-ports/{port.pk}/", {"power_factor": "1.5"})
        assert status == 400
        assert errors == {"power_factor": ["Ensure this value is less than or equal to 1.00."]}

    def test_graphql_shows_the_same_string(self, api, sample):
        response = api.post("/api/graphql/", {"query": '{ power_ports(name: "PEM0") { power_factor } }'})
        assert orjson.loads(response.content)["data"]["power_ports"] == [{"power_factor": "0.90"}]


def test_redundancy_groups_take_a_secrets_group(api, sample):
    group = DeviceRedundancyGroup.objects.get(name="lb-pair")
    secrets = SecretsGroup.objects.get(name="Spare")
    path = f"/api/dcim/device-redundancy-groups/{group.pk}/"
    status, body = send(api, "patch", path, {"secrets_group": str(secrets.pk)})
    assert status == 200 and body["secrets_group"]["id"] == str(secrets.pk)
    assert names(api, "/api/dcim/device-redundancy-groups/", {"secrets_group": "Spare"}) == ["lb-pair"]
    irg = api.json("/api/dcim/interface-redundancy-groups/", {"secrets_group__isnull": "false"})["results"]
    assert [g["name"] for g in irg] == ["hsrp-20"]


class TestModuleFamilies:
    def test_counts_and_filters(self, api, sample):
        rows = api.json("/api/dcim/module-families/")["results"]
        assert [(r["name"], r["module_type_count"], r["module_bay_count"]) for r in rows] == [
            ("MPC", 1, 1),
            ("PSU", 0, 0),
        ]
        assert names(api, "/api/dcim/module-families/", {"module_types": "MPC7E"}) == ["MPC"]
        bay = ModuleBay.objects.get(name="FPC0", parent_device__name="core1")
        assert bay.module_family.name == "MPC"  # taken from its template
        assert names(
            api, "/api/dcim/module-types/", {"compatible_with_module_bay": str(bay.pk)}, "model"
        ) == ["MPC7E"]
        assert names(api, "/api/dcim/module-bays/", {"module_family": "MPC"}) == ["FPC0"]
        assert names(api, "/api/dcim/modules/", {"module_family": "MPC"}, "serial") == ["M1"]

    def test_module_types_and_bays_in_the_reference_shape(self, api, sample):
        module_type = api.json("/api/dcim/module-types/", {"model": "MPC7E"})["results"][0]
        assert module_type["front_image"] is None and module_type["rear_image"] is None
        assert module_type["module_family"]["object_type"] == "dcim.modulefamily"
        bay = api.json("/api/dcim/module-bays/", {"name": "FPC0"})["results"][0]
        assert "installed_module" not in bay and bay["requires_first_party_modules"] is False
        assert names(api, "/api/dcim/module-bays/", {"has_installed_module": "true"}) == ["FPC0"]

    def test_labels_name_where_modules_sit(self, api, sample):
        """As the reference's: a type by maker and model, a module and a bay by their place."""
        assert names(api, "/api/dcim/module-types/", {"model": "MPC7E"}, "display") == ["juniper MPC7E"]
        assert names(api, "/api/dcim/modules/", {}, "display") == [
            "MPC7E installed in core1",
            "PSU-AC (Asset Tag: PSU-9) at location AMS1",
        ]
        # A module's bay carries the device the module is installed in, and is named after it.
        assert names(api, "/api/dcim/module-bays/", {}, "display") == ["core1 (FPC0)", "core1 (PIC0)"]
        module = api.json("/api/dcim/modules/", {"serial": "M1", "depth": 1})["results"][0]
        assert module["parent_module_bay"]["display"] == "core1 (FPC0)"

    def test_a_bay_takes_modules_of_its_family_only(self, api, sample):
        core = Device.objects.get(name="core1")
        bay = ModuleBay.objects.create(
            parent_device=core, name="FPC7", module_family=ModuleFamily.objects.get(name="PSU")
        )
        body = {
            "module_type": str(ModuleType.objects.get(model="MPC7E").pk),
            "parent_module_bay": str(bay.pk),
            "status": "Active",
        }
        status, errors = send(api, "post", "/api/dcim/modules/", body)
        assert status == 400
        assert errors == {
            "module_type": [
                "The selected module bay requires a module type in the family PSU, "
                "but the selected module type is in the family MPC."
            ]
        }
        body["module_type"] = str(ModuleType.objects.get(model="PSU-AC").pk)
        status, errors = send(api, "post", "/api/dcim/modules/", body)
        assert status == 400 and "is not assigned to a family" in errors["module_type"][0]

    def test_a_first_party_bay_takes_its_makers_modules_only(self, api, sample):
        core = Device.objects.get(name="core1")  # a juniper chassis
        bay = ModuleBay.objects.create(parent_device=core, name="PEM9", requires_first_party_modules=True)
        body = {
            "module_type": str(ModuleType.objects.get(model="PSU-AC").pk),  # made by Acme
            "parent_module_bay": str(bay.pk),
            "status": "Active",
        }
        status, errors = send(api, "post", "/api/dcim/modules/", body)
        assert status == 400
        assert errors == {
            "module_type": [
                "The selected module bay requires a module type from the same manufacturer as the "
                "parent device or module"
            ]
        }
        body["module_type"] = str(ModuleType.objects.get(model="MPC7E").pk)
        status, created = send(api, "post", "/api/dcim/modules/", body)
        assert status == 201, created


class TestVirtualDeviceContexts:
    def test_create_filter_and_assign_interfaces(self, api, sample):
        leaf = Device.objects.get(name="leaf1")
        body = {"name": "vdc3", "device": str(leaf.pk), "status": "Active", "identifier": 3}
        status, vdc = send(api, "post", VDCS, body)
        assert status == 201, vdc
        assert vdc["identifier"] == 3 and vdc["device"]["id"] == str(leaf.pk)
        interface = Interface.objects.get(device=leaf, name="Ethernet10")
        link = {"virtual_device_context": vdc["id"], "interface": str(interface.pk)}
        status, created = send(api, "post", "/api/dcim/interface-vdc-assignments/", link)
        assert status == 201 and created["display"] == "vdc3: Ethernet10"
        assert names(api, VDCS, {"has_primary_ip": "true"}) == ["vdc1"]
        assert names(api, VDCS, {"interfaces": str(interface.pk)}) == ["vdc3"]
        assert names(api, VDCS, {"has_tenant": "true"}) == ["vdc2"]
        rows = api.json("/api/dcim/interface-vdc-assignments/", {"device": "leaf1"})["results"]
        assert len(rows) == 3
        status, again = send(api, "post", VDCS, body)
        assert status == 400, again

    def test_device_stays_and_primary_addresses_are_its_own(self, api, sample):
        vdc = VirtualDeviceContext.objects.get(name="vdc1")
        core = Device.objects.get(name="core1")
        status, errors = send(api, "patch", f"{VDCS}{vdc.pk}/", {"device": str(core.pk)})
        assert status == 400
        assert errors == {
            "non_field_errors": ["Changing the device of a VirtualDeviceContext is not allowed."]
        }
        elsewhere = IPAddress.objects.get(description="mapped")  # on no interface
        status, errors = send(api, "patch", f"{VDCS}{vdc.pk}/", {"primary_ip6": str(elsewhere.pk)})
        assert status == 400
        assert errors == {
            "primary_ip6": [f"{elsewhere} is not part of an interface that belongs to this VDC's device."]
        }
        status, errors = send(api, "patch", f"{VDCS}{vdc.pk}/", {"primary_ip4": str(elsewhere.pk)})
        assert status == 400 and errors == {"primary_ip4": [f"{elsewhere} is not an IPv4 address."]}

    def test_graphql_lists_them(self, api, sample):
        query = "{ virtual_device_contexts { name device { name } interfaces { name } } }"
        data = orjson.loads(api.post("/api/graphql/", {"query": query}).content)["data"]
        assert data["virtual_device_contexts"][0] == {
            "name": "vdc1",
            "device": {"name": "leaf1"},
            "interfaces": [{"name": "Ethernet1"}],
        }
        assert InterfaceVDCAssignment.objects.count() == 2

    def test_controller_managed_device_group_shown_written_and_filtered(self, api, sample):
        vdc1, vdc2 = (VirtualDeviceContext.objects.get(name=name) for name in ("vdc1", "vdc2"))
        leafs, campus = (ControllerManagedDeviceGroup.objects.get(name=n) for n in ("leafs", "campus APs"))
        body = api.json(f"{VDCS}{vdc1.pk}/")
        assert body["controller_managed_device_group"] == {
            "id": str(leafs.pk),
            "object_type": "dcim.controllermanageddevicegroup",
            "url": f"http://testserver{GROUPS}{leafs.pk}/",
        }
        nested = api.json(f"{VDCS}{vdc1.pk}/", {"depth": 1})["controller_managed_device_group"]
        assert (nested["name"], nested["display"]) == ("leafs", "leafs")
        assert api.json(f"{VDCS}{vdc2.pk}/")["controller_managed_device_group"] is None
        status, patched = send(
            api, "patch", f"{VDCS}{vdc2.pk}/", {"controller_managed_device_group": "campus APs"}
        )
        assert status == 200 and patched["controller_managed_device_group"]["id"] == str(campus.pk)
        vdc2.refresh_from_db()
        assert vdc2.controller_managed_device_group_id == campus.pk
        assert names(api, VDCS, {"controller_managed_device_group": "leafs"}) == ["vdc1"]
        assert names(api, VDCS, {"controller_managed_device_group": str(campus.pk)}) == ["vdc2"]
        assert names(api, VDCS, {"controller_managed_device_group__n": "leafs"}) == ["vdc2"]
        status, _ = send(api, "patch", f"{VDCS}{vdc2.pk}/", {"controller_managed_device_group": None})
        assert status == 200
        assert names(api, VDCS, {"controller_managed_device_group__isnull": "true"}) == ["vdc2"]
        assert names(api, GROUPS, {"virtual_device_contexts": str(vdc1.pk)}) == ["leafs"]
        assert names(api, GROUPS, {"has_virtual_device_contexts": "true"}) == ["leafs"]
        assert names(api, GROUPS, {"has_virtual_device_contexts": "false"}) == ["campus APs", "floor 1 APs"]
        assert names(api, GROUPS, {"virtual_device_contexts__isnull": "true"}) == [
            "campus APs",
            "floor 1 APs",
        ]
        status, errors = send(
            api, "patch", f"{VDCS}{vdc2.pk}/", {"controller_managed_device_group": "nowhere"}
        )
        assert status == 400 and list(errors) == ["controller_managed_device_group"]

    def test_graphql_shows_the_group_and_its_contexts(self, api, sample):
        query = (
            "{ virtual_device_contexts { name controller_managed_device_group { name } }"
            " controller_managed_device_groups { name virtual_device_contexts { name } } }"
        )
        data = orjson.loads(api.post("/api/graphql/", {"query": query}).content)["data"]
        assert data["virtual_device_contexts"] == [
            {"name": "vdc1", "controller_managed_device_group": {"name": "leafs"}},
            {"name": "vdc2", "controller_managed_device_group": None},
        ]
        groups = {
            row["name"]: row["virtual_device_contexts"] for row in data["controller_managed_device_groups"]
        }
        assert groups == {"campus APs": [], "floor 1 APs": [], "leafs": [{"name": "vdc1"}]}
        query = "{ controller_managed_device_groups(has_virtual_device_contexts: true) { name } }"
        data = orjson.loads(api.post("/api/graphql/", {"query": query}).content)["data"]
        assert data["controller_managed_device_groups"] == [{"name": "leafs"}]


class TestVRFAssignments:
    def test_shown_and_filtered_by_machine_and_context(self, api, sample):
        rows = api.json(VRF_ASSIGNMENTS, {"virtual_machine": "web01"})["results"]
        assert len(rows) == 1 and rows[0]["device"] is None and rows[0]["virtual_device_context"] is None
        assert rows[0]["display"] == "Global: (blue) [web01] (rd: 65000:200, name: blue-web)"
        rows = api.json(VRF_ASSIGNMENTS, {"virtual_device_context": "vdc1"})["results"]
        assert [r["name"] for r in rows] == ["red-vdc"]
        assert len(api.json(VRF_ASSIGNMENTS, {"virtual_machine__isnull": "true"})["results"]) == 3

    def test_vrfs_filtered_by_where_they_are(self, api, sample):
        assert names(api, "/api/ipam/vrfs/", {"device": "leaf1"}) == ["blue"]
        assert names(api, "/api/ipam/vrfs/", {"virtual_machines": "web01"}) == ["blue"]
        assert names(api, "/api/ipam/vrfs/", {"virtual_device_contexts": "vdc1"}) == ["red"]
        assert api.get("/api/ipam/vrfs/", {"virtual_machines": "nowhere"}).status_code == 400

    def test_exactly_one_of_device_machine_or_context(self, api, sample):
        vrf = VRF.objects.get(name="red")
        machine = VirtualMachine.objects.get(name="web01")
        leaf = Device.objects.get(name="leaf1")
        body = {"vrf": str(vrf.pk), "device": str(leaf.pk), "virtual_machine": str(machine.pk)}
        status, errors = send(api, "post", VRF_ASSIGNMENTS, body)
        assert status == 400
        assert errors == {
            "__all__": [
                "A VRFDeviceAssignment entry cannot be associated with both a device and a virtual machine."
            ]
        }
        status, errors = send(api, "post", VRF_ASSIGNMENTS, {"vrf": str(vrf.pk)})
        assert status == 400
        assert errors == {
            "__all__": [
                "A VRFDeviceAssignment entry must be associated with a device, a virtual machine, "
                "or a virtual device context."
            ]
        }
        status, created = send(
            api, "post", VRF_ASSIGNMENTS, {"vrf": str(vrf.pk), "virtual_machine": str(machine.pk)}
        )
        assert status == 201, created
        assert created["name"] == "red" and created["rd"] is None  # the VRF's own, unset


def test_app_root_lists_the_new_endpoints(api, sample):
    body = api.json("/api/dcim/")
    for endpoint in ("module-families", "virtual-device-contexts", "interface-vdc-assignments"):
        assert body[endpoint] == f"http://testserver/api/dcim/{endpoint}/"
