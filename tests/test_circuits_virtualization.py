"""Circuits and virtualization through the HTTP stack: terminations, clusters, VMs, counts."""

from __future__ import annotations

import orjson

from inventory.circuits.models import Circuit, CircuitTermination, Provider
from inventory.dcim.models import Device, Location, Platform
from inventory.ipam.models import VLAN, IPAddress
from inventory.tenancy.models import Tenant
from inventory.virtualization.models import Cluster, VirtualMachine, VMInterface

TERMINATIONS = "/api/circuits/circuit-terminations/"
VMS = "/api/virtualization/virtual-machines/"
VM_INTERFACES = "/api/virtualization/interfaces/"


def send(api, method: str, path: str, body=None):
    data = orjson.dumps(body) if body is not None else ""
    response = getattr(api.client, method)(path, data, content_type="application/json")
    return response.status_code, orjson.loads(response.content) if response.content else None


class TestCircuits:
    def test_terminations_keep_their_circuit_current(self, api, sample):
        circuit = Circuit.objects.get(cid="LUM-77")
        shown = api.json(f"/api/circuits/circuits/{circuit.pk}/")
        a = CircuitTermination.objects.get(circuit=circuit, term_side="A")
        assert shown["circuit_termination_a"]["id"] == str(a.pk) and shown["circuit_termination_z"] is None
        body = {"circuit": str(circuit.pk), "term_side": "Z", "location": "fra2"}
        status, z = send(api, "post", TERMINATIONS, body)
        assert status == 201 and z["term_side"] == "Z" and z["display"] == "Termination Z: fra2"
        assert api.json(f"/api/circuits/circuits/{circuit.pk}/")["circuit_termination_z"]["id"] == z["id"]
        status, errors = send(api, "post", TERMINATIONS, body)
        assert status == 400 and errors  # one Z per circuit
        assert send(api, "delete", f"{TERMINATIONS}{z['id']}/") == (204, None)
        assert api.json(f"/api/circuits/circuits/{circuit.pk}/")["circuit_termination_z"] is None

    def test_termination_attaches_to_a_location_a_provider_network_or_a_cloud_network(self, api, sample):
        circuit = Circuit.objects.get(cid="LUM-77")
        status, errors = send(api, "post", TERMINATIONS, {"circuit": str(circuit.pk), "term_side": "Z"})
        assert status == 400 and errors == {
            "__all__": [
                "A circuit termination must attach to a location, a provider network or a cloud network."
            ]
        }
        status, errors = send(
            api, "post", TERMINATIONS, {"circuit": str(circuit.pk), "term_side": "B", "location": "fra2"}
        )
        assert status == 400 and errors == {"term_side": ['"B" is not a valid choice. Valid choices: A, Z.']}

    def test_circuits_unique_per_provider_and_counted(self, api, sample):
        circuit = Circuit.objects.get(cid="TEL-1001")
        body = {
            "cid": "TEL-1001",
            "provider": str(circuit.provider_id),
            "circuit_type": str(circuit.circuit_type_id),
            "status": "Active",
        }
        status, errors = send(api, "post", "/api/circuits/circuits/", body)
        assert status == 400 and errors
        assert send(api, "post", "/api/circuits/circuits/", {**body, "provider": "lumen"})[0] == 201
        telia = api.json(f"/api/circuits/providers/{Provider.objects.get(name='Telia').pk}/")
        assert telia["circuit_count"] == 1 and telia["asn"] == 1299
        ams = api.json(f"/api/dcim/locations/{Location.objects.get(name='AMS1').pk}/")
        assert ams["circuit_count"] == 1
        acme = api.json(f"/api/tenancy/tenants/{Tenant.objects.get(name='Acme').pk}/")
        assert acme["circuit_count"] == 1 and acme["virtualmachine_count"] == 1


class TestVirtualization:
    def test_counts(self, api, sample):
        cluster = api.json(f"/api/virtualization/clusters/{Cluster.objects.get(name='esx-ams').pk}/")
        assert cluster["device_count"] == 2 and cluster["virtualmachine_count"] == 1
        ams = api.json(f"/api/dcim/locations/{Location.objects.get(name='AMS1').pk}/")
        assert ams["virtual_machine_count"] == 1
        junos = api.json(f"/api/dcim/platforms/{Platform.objects.get(name='junos').pk}/")
        assert junos["virtual_machine_count"] == 1
        leaf = api.json(f"/api/dcim/devices/{Device.objects.get(name='leaf1').pk}/", {"exclude_m2m": "false"})
        assert [c["id"] for c in leaf["clusters"]] == [str(Cluster.objects.get(name="esx-ams").pk)]

    def test_vm_primary_ip_on_its_own_interfaces(self, api, sample):
        db = VirtualMachine.objects.get(name="db01")
        address = IPAddress.objects.get(description="outside")  # on web01's eth0
        path = f"{VMS}{db.pk}/"
        status, errors = send(api, "patch", path, {"primary_ip4": str(address.pk)})
        assert status == 400 and errors == {
            "primary_ip4": ["The specified IP address (10.1.1.2/24) is not assigned to this virtual machine."]
        }
        ens3 = VMInterface.objects.get(virtual_machine=db)
        link = {"ip_address": str(address.pk), "vm_interface": str(ens3.pk)}
        status, created = send(api, "post", "/api/ipam/ip-address-to-interface/", link)
        assert status == 201 and created["display"] == "10.1.1.2/24 db01 ens3"
        # Assigned twice: the reference's unique-set message, single and bulk.
        for body in (link, [link]):
            status, errors = send(api, "post", "/api/ipam/ip-address-to-interface/", body)
            expected = {"non_field_errors": ["The fields ip_address, vm_interface must make a unique set."]}
            assert status == 400 and errors == (expected if isinstance(body, dict) else [expected])
        assert send(api, "patch", path, {"primary_ip4": str(address.pk)})[0] == 200
        ip = api.json(f"/api/ipam/ip-addresses/{address.pk}/", {"exclude_m2m": "false"})
        assert {i["id"] for i in ip["vm_interfaces"]} == {
            str(ens3.pk),
            str(VMInterface.objects.get(name="eth0").pk),
        }

    def test_assignment_to_exactly_one_kind_of_interface(self, api, sample):
        address = IPAddress.objects.get(description="outside")
        eth1 = VMInterface.objects.get(name="eth1")
        interface = Device.objects.get(name="leaf1").interfaces.first()
        both = {"ip_address": str(address.pk), "vm_interface": str(eth1.pk), "interface": str(interface.pk)}
        status, errors = send(api, "post", "/api/ipam/ip-address-to-interface/", both)
        assert status == 400 and errors == {
            "interface": ["Cannot use a single instance to associate to both an Interface and a VMInterface."]
        }
        status, errors = send(
            api, "post", "/api/ipam/ip-address-to-interface/", {"ip_address": str(address.pk)}
        )
        assert status == 400 and errors == {
            "interface": ["Must associate to either an Interface or a VMInterface."]
        }

    def test_vm_interfaces_follow_the_interface_rules(self, api, sample):
        web = VirtualMachine.objects.get(name="web01")
        mgmt = VLAN.objects.get(name="mgmt")
        body = {
            "virtual_machine": str(web.pk),
            "name": "eth9",
            "status": "Active",
            "mac_address": "5254.0012.3457",
        }
        status, errors = send(api, "post", VM_INTERFACES, {**body, "tagged_vlans": [str(mgmt.pk)]})
        assert status == 400 and errors == {
            "tagged_vlans": ["Mode must be set to tagged when specifying tagged_vlans"]
        }
        status, created = send(
            api, "post", VM_INTERFACES, {**body, "mode": "access", "untagged_vlan": str(mgmt.pk)}
        )
        assert status == 201 and created["mac_address"] == "52:54:00:12:34:57"
        eth0 = VMInterface.objects.get(name="eth0")
        status, errors = send(api, "patch", f"{VM_INTERFACES}{created['id']}/", {"bridge": str(eth0.pk)})
        assert status == 200
        other = VirtualMachine.objects.get(name="db01")
        status, errors = send(api, "patch", f"{VM_INTERFACES}{eth0.pk}/", {"virtual_machine": str(other.pk)})
        assert status == 400 and "virtual_machine" in errors
        names = [i["name"] for i in api.json(VM_INTERFACES, {"virtual_machine": "web01"})["results"]]
        assert names == ["eth0", "eth1", "eth9"]

    def test_host_cluster_location_must_include_the_device(self, api, sample):
        core = Device.objects.get(name="core1")
        lab = Cluster.objects.get(name="kvm-lab")
        lab.location = Location.objects.get(name="fra2")
        lab.save()
        path = "/api/dcim/device-cluster-assignments/"
        status, errors = send(api, "post", path, {"device": str(core.pk), "cluster": str(lab.pk)})
        assert status == 400 and errors == {
            "cluster": ["Cluster kvm-lab belongs to a location, fra2, that does not include AMS1."]
        }

    def test_vm_config_context_on_request(self, api, sample):
        web = VirtualMachine.objects.get(name="web01")
        assert api.json(f"{VMS}{web.pk}/", {"include": "config_context"})["config_context"] == {
            "ntp": ["192.0.2.1"],
            "syslog": {"host": "192.0.2.9", "port": 514},
        }
        assert "config_context" not in api.json(f"{VMS}{web.pk}/")
