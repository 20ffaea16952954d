"""Sample circuits and virtualization: providers, circuits with terminations, clusters, VMs."""

from __future__ import annotations

import datetime

from django.contrib.contenttypes.models import ContentType

from inventory.circuits.models import Circuit, CircuitTermination, CircuitType, Provider, ProviderNetwork
from inventory.dcim.models import (
    Cable,
    CableToCableTermination,
    CableType,
    ConsolePort,
    ConsoleServerPort,
    Device,
    DeviceClusterAssignment,
    FrontPort,
    Interface,
    Manufacturer,
    Platform,
)
from inventory.extras.models import Role, Status
from inventory.ipam.models import VRF, IPAddressToInterface, VRFDeviceAssignment
from inventory.virtualization.models import Cluster, ClusterGroup, ClusterType, VirtualMachine, VMInterface


def build_circuits_and_vms(s: str, tenants, site, room, active, addresses) -> dict[type, list]:
    site.location_type.content_types.add(ContentType.objects.get_for_model(Cluster))
    planned = Status.objects.get(name="Planned")
    providers = [
        Provider.objects.create(
            name=f"Telia{s}", asn=1299, account="ACC-1", portal_url="https://portal.example.net"
        ),
        Provider.objects.create(name=f"lumen{s}", noc_contact="noc@lumen.example", comments="tier 1"),
    ]
    networks = [
        ProviderNetwork.objects.create(name=f"MPLS core{s}", provider=providers[0], description="backbone"),
        ProviderNetwork.objects.create(name=f"internet{s}", provider=providers[1]),
    ]
    kinds = [
        CircuitType.objects.create(name=f"Transit{s}", description="IP transit"),
        CircuitType.objects.create(name=f"MPLS{s}"),
    ]
    circuits = [
        Circuit.objects.create(
            cid=f"TEL-1001{s}",
            provider=providers[0],
            circuit_type=kinds[0],
            status=active,
            tenant=tenants[0],
            install_date=datetime.date(2023, 3, 1),
            commit_rate=1_000_000,
        ),
        Circuit.objects.create(
            cid=f"LUM-77{s}",
            provider=providers[1],
            circuit_type=kinds[1],
            status=planned,
            description="backup",
        ),
    ]
    terminations = [
        CircuitTermination.objects.create(
            circuit=circuits[0], term_side="A", location=site, port_speed=1_000_000
        ),
        CircuitTermination.objects.create(circuit=circuits[0], term_side="Z", provider_network=networks[0]),
        CircuitTermination.objects.create(
            circuit=circuits[1], term_side="A", location=room, xconnect_id="XC-9"
        ),
    ]

    cluster_types = [
        ClusterType.objects.create(name=f"VMware ESXi{s}"),
        ClusterType.objects.create(name=f"kvm{s}"),
    ]
    cluster_groups = [
        ClusterGroup.objects.create(name=f"production{s}", description="prod"),
        ClusterGroup.objects.create(name=f"lab{s}"),
    ]
    clusters = [
        Cluster.objects.create(
            name=f"esx-ams{s}",
            cluster_type=cluster_types[0],
            cluster_group=cluster_groups[0],
            location=site,
            tenant=tenants[0],
        ),
        Cluster.objects.create(name=f"kvm-lab{s}", cluster_type=cluster_types[1], comments="scratch"),
    ]
    hosts = [
        DeviceClusterAssignment.objects.create(
            device=Device.objects.get(name=f"leaf1{s}"), cluster=clusters[0]
        ),
        DeviceClusterAssignment.objects.create(
            device=Device.objects.get(name=f"core1{s}"), cluster=clusters[0]
        ),
    ]
    vm_role = Role.objects.create(name=f"web{s}")
    vm_role.content_types.add(ContentType.objects.get_for_model(VirtualMachine))
    machines = [
        VirtualMachine.objects.create(
            name=f"web01{s}",
            cluster=clusters[0],
            status=active,
            role=vm_role,
            vcpus=4,
            memory=8192,
            disk=80,
            platform=Platform.objects.get(name=f"junos{s}"),
            tenant=tenants[0],
        ),
        VirtualMachine.objects.create(
            name=f"db01{s}", cluster=clusters[1], status=planned, comments="postgres"
        ),
    ]
    vm_interfaces = [
        VMInterface.objects.create(virtual_machine=machines[0], name="eth0", status=active, mtu=1500),
        VMInterface.objects.create(
            virtual_machine=machines[0],
            name="eth1",
            status=active,
            enabled=False,
            mac_address="52:54:00:12:34:56",
        ),
        VMInterface.objects.create(
            virtual_machine=machines[1], name="ens3", status=planned, description="uplink"
        ),
    ]
    link = IPAddressToInterface.objects.create(ip_address=addresses[1], vm_interface=vm_interfaces[0])
    cable_types, cables = build_cables(s, terminations[0])
    machines[0].primary_ip4 = addresses[1]
    machines[0].save()
    vm_vrf = VRFDeviceAssignment.objects.create(
        vrf=VRF.objects.get(name=f"blue{s}"), virtual_machine=machines[0], rd="65000:200", name="blue-web"
    )
    return {
        Provider: providers,
        ProviderNetwork: networks,
        CircuitType: kinds,
        Circuit: circuits,
        CircuitTermination: terminations,
        ClusterType: cluster_types,
        ClusterGroup: cluster_groups,
        Cluster: clusters,
        DeviceClusterAssignment: hosts,
        VirtualMachine: machines,
        VMInterface: vm_interfaces,
        "vm address": [link],
        "vm vrf": [vm_vrf],
        Cable: cables,
        CableType: cable_types,
        CableToCableTermination: list(CableToCableTermination.objects.filter(cable__in=cables)),
    }


def build_cables(s: str, termination) -> list:
    """Leaf1 and core1 joined by an interface cable and a console cable; a circuit reaches core1's
    front port."""
    leaf, core = Device.objects.get(name=f"leaf1{s}"), Device.objects.get(name=f"core1{s}")
    connected, planned = Status.objects.get(name="Connected"), Status.objects.get(name="Planned")

    def cable(a, b, **fields):
        return Cable.objects.create(
            termination_a_type=ContentType.objects.get_for_model(a),
            termination_a_id=a.pk,
            termination_b_type=ContentType.objects.get_for_model(b),
            termination_b_id=b.pk,
            **fields,
        )

    vendor = Manufacturer.objects.order_by("name").first()
    kinds = [
        CableType.objects.create(
            name=f"LC duplex{s}",
            manufacturer=vendor,
            part_number="LC-2M",
            strands_per_lane=2,
            polarity_method="straight-through",
        ),
        CableType.objects.create(
            name=f"1x4 AOC fanout{s}",
            b_connectors=4,
            total_lanes=4,
            has_embedded_transceivers=True,
            description="QSFP to 4 SFP",
        ),
    ]
    return kinds, [
        cable(
            Interface.objects.get(device=leaf, name="Ethernet2"),
            Interface.objects.get(device=core, name="xe-0/0/0"),
            status=connected,
            type="smf",
            length=3,
            length_unit="m",
            label=f"L-100{s}",
        ),
        cable(
            ConsolePort.objects.get(device=leaf),
            ConsoleServerPort.objects.get(device=core),
            status=planned,
            cable_type=kinds[0],
        ),
        cable(termination, FrontPort.objects.get(device=core), status=connected, color="ff9800"),
    ]
