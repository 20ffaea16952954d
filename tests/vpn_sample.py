"""Sample VPN inventory: policies, profiles using them, VPNs, tunnels between endpoints (by
interface, by address, by FQDN) and terminations on a VLAN, an interface and a VM interface."""

from __future__ import annotations

from django.contrib.contenttypes.models import ContentType

from inventory.dcim.models import Device, Interface
from inventory.extras.models import DynamicGroup, Role, SecretsGroup, Status
from inventory.ipam.models import VLAN, IPAddressToInterface, Prefix
from inventory.tenancy.models import Tenant
from inventory.virtualization.models import VMInterface
from inventory.vpn.models import (
    VPN,
    VPNPhase1Policy,
    VPNPhase2Policy,
    VPNProfile,
    VPNProfilePhase1PolicyAssignment,
    VPNProfilePhase2PolicyAssignment,
    VPNTermination,
    VPNTunnel,
    VPNTunnelEndpoint,
)


def build_vpn(s: str, sample: dict) -> dict[type, list]:
    tenants = sample[Tenant]
    tunnel_ct, endpoint_ct, vpn_ct, profile_ct = (
        ContentType.objects.get_for_model(m) for m in (VPNTunnel, VPNTunnelEndpoint, VPN, VPNProfile)
    )
    active = Status.objects.get(name="Active")
    active.content_types.add(tunnel_ct, vpn_ct)
    down, _ = Status.objects.get_or_create(name="Down", defaults={"color": "ffc107"})
    down.content_types.add(tunnel_ct)
    hub = Role.objects.get(name=f"Core{s}")
    hub.content_types.add(endpoint_ct, tunnel_ct, vpn_ct, profile_ct)

    phase1 = [
        VPNPhase1Policy.objects.create(
            name=f"ike-strong{s}",
            ike_version="IKEv2",
            encryption_algorithm=["AES-256-GCM", "AES-128-GCM"],
            integrity_algorithm=["SHA512"],
            dh_group=["20", "2"],
            lifetime_seconds=28800,
            authentication_method="Certificate",
            tenant=tenants[0],
        ),
        VPNPhase1Policy.objects.create(
            name=f"ike-legacy{s}",
            description="old peers",
            ike_version="IKEv1",
            aggressive_mode=True,
            encryption_algorithm=["3DES"],
            dh_group=["22"],
            lifetime_kb=4096,
            authentication_method="PSK",
        ),
        VPNPhase1Policy.objects.create(name=f"ike-empty{s}"),
    ]
    phase2 = [
        VPNPhase2Policy.objects.create(
            name=f"esp-strong{s}",
            encryption_algorithm=["AES-256-GCM"],
            integrity_algorithm=["SHA256", "SHA384"],
            pfs_group=["21"],
            lifetime=3600,
            tenant=tenants[1],
        ),
        VPNPhase2Policy.objects.create(
            name=f"esp-legacy{s}", description="old", encryption_algorithm=["DES"]
        ),
        VPNPhase2Policy.objects.create(name=f"esp-empty{s}", pfs_group=["2"]),
    ]
    profiles = [
        VPNProfile.objects.create(
            name=f"site-to-site{s}",
            description="branches",
            role=hub,
            secrets_group=sample[SecretsGroup][0],
            keepalive_enabled=True,
            keepalive_interval=10,
            keepalive_retries=3,
            nat_traversal=True,
            extra_options={"mtu": 1400},
            tenant=tenants[0],
        ),
        VPNProfile.objects.create(name=f"Remote access{s}"),
        VPNProfile.objects.create(name=f"lab{s}", description="testing", tenant=tenants[2]),
    ]
    p1_links = [
        VPNProfilePhase1PolicyAssignment.objects.create(vpn_profile=profiles[0], vpn_phase1_policy=phase1[0]),
        VPNProfilePhase1PolicyAssignment.objects.create(
            vpn_profile=profiles[0], vpn_phase1_policy=phase1[1], weight=200
        ),
        VPNProfilePhase1PolicyAssignment.objects.create(
            vpn_profile=profiles[1], vpn_phase1_policy=phase1[1], weight=50
        ),
    ]
    p2_links = [
        VPNProfilePhase2PolicyAssignment.objects.create(vpn_profile=profiles[0], vpn_phase2_policy=phase2[0]),
        VPNProfilePhase2PolicyAssignment.objects.create(
            vpn_profile=profiles[2], vpn_phase2_policy=phase2[1], weight=10
        ),
        VPNProfilePhase2PolicyAssignment.objects.create(
            vpn_profile=profiles[2], vpn_phase2_policy=phase2[2], weight=300
        ),
    ]
    vpns = [
        VPN.objects.create(
            name=f"Backbone{s}",
            description="core mesh",
            vpn_id="AS65000",
            vpn_profile=profiles[0],
            role=hub,
            tenant=tenants[0],
            service_type="ipsec",
            status=active,
            extra_attributes={"area": 0},
        ),
        VPN.objects.create(name=f"dc-fabric{s}", vpn_id="10100", service_type="vxlan-evpn"),
        VPN.objects.create(name=f"metro-line{s}", service_type="epl", tenant=tenants[1]),
    ]

    links = [link for link in sample[IPAddressToInterface] if link.interface_id]
    source = links[0]
    # Interfaces no endpoint or termination uses yet (a second sample picks others).
    free = Interface.objects.filter(
        device__in=sample[Device],
        vpn_tunnel_endpoints_src_int=None,
        vpn_tunnel_endpoints_tunnel=None,
        vpn_terminations=None,
    ).order_by("device__name", "name")
    tunnel_interface = (
        free.filter(device_id=source.interface.device_id, cable=None).exclude(pk=source.interface_id).first()
    )
    # A tunnel endpoint's tunnel interface is a virtual one (the filter names only those).
    Interface.objects.filter(pk=tunnel_interface.pk).update(type="tunnel")
    tunnel_interface.type = "tunnel"
    other = free.exclude(device_id=source.interface.device_id).exclude(device=None).first()
    endpoints = [
        VPNTunnelEndpoint.objects.create(
            source_interface=source.interface,
            source_ipaddress=source.ip_address,
            tunnel_interface=tunnel_interface,
            vpn_profile=profiles[0],
            role=hub,
            tenant=tenants[0],
        ),
        VPNTunnelEndpoint.objects.create(source_fqdn=f"peer{s}.example.net", vpn_profile=profiles[1]),
        VPNTunnelEndpoint.objects.create(source_interface=other, tenant=tenants[2]),
    ]
    endpoints[0].protected_prefixes.set(sample[Prefix][:2])
    endpoints[1].protected_prefixes.set(sample[Prefix][1:2])
    endpoints[0].protected_prefixes_dg.set(sample[DynamicGroup][:1])
    tunnels = [
        VPNTunnel.objects.create(
            name=f"ams-fra{s}",
            description="primary",
            tunnel_id="100",
            vpn_profile=profiles[0],
            vpn=vpns[0],
            role=hub,
            status=active,
            secrets_group=sample[SecretsGroup][0],
            encapsulation="IPsec-Tunnel",
            endpoint_a=endpoints[0],
            endpoint_z=endpoints[1],
            tenant=tenants[0],
        ),
        VPNTunnel.objects.create(
            name=f"ams-lab{s}", status=down, encapsulation="GRE", endpoint_a=endpoints[2], vpn=vpns[0]
        ),
        VPNTunnel.objects.create(name=f"spare{s}", status=active, tunnel_id="7"),
    ]
    vm_interface = VMInterface.objects.filter(vpn_terminations=None).first()
    interface = free.last()
    terminations = [
        VPNTermination.objects.create(vpn=vpns[1], vlan=sample[VLAN][0]),
        VPNTermination.objects.create(vpn=vpns[2], interface=interface),
        VPNTermination.objects.create(vpn=vpns[2], vm_interface=vm_interface),
    ]
    return {
        VPNPhase1Policy: phase1,
        VPNPhase2Policy: phase2,
        VPNProfile: profiles,
        VPNProfilePhase1PolicyAssignment: p1_links,
        VPNProfilePhase2PolicyAssignment: p2_links,
        VPN: vpns,
        VPNTunnelEndpoint: endpoints,
        VPNTunnel: tunnels,
        VPNTermination: terminations,
    }
