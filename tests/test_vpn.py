"""The VPN application through the HTTP stack: policies and their lists of choices, profiles
and the policies assigned to them, VPNs (VXLAN identifiers), tunnels, tunnel endpoints (their
device and interfaces) and terminations (one VLAN or interface each; two for a point-to-point
service)."""

from __future__ import annotations

from inventory.dcim.models import Device, Interface
from inventory.extras.models import Status
from inventory.ipam.models import VLAN, IPAddressToInterface
from inventory.virtualization.models import VMInterface
from inventory.vpn.models import VPN, VPNPhase1Policy, VPNProfile, VPNTunnel, VPNTunnelEndpoint

from .conftest import send

PHASE1 = "/api/vpn/vpn-phase-1-policies/"
PHASE2 = "/api/vpn/vpn-phase-2-policies/"
PROFILES = "/api/vpn/vpn-profiles/"
PHASE1_ASSIGNMENTS = "/api/vpn/vpn-profile-phase-1-policy-assignments/"
VPNS = "/api/vpn/vpns/"
TUNNELS = "/api/vpn/vpn-tunnels/"
ENDPOINTS = "/api/vpn/vpn-tunnel-endpoints/"
TERMINATIONS = "/api/vpn/vpn-terminations/"


def names(body) -> list[str]:
    return sorted(row["display"] for row in body["results"])


def test_app_root_lists_the_vpn_endpoints(api, sample):
    assert api.json("/api/")["vpn"] == "http://testserver/api/vpn/"
    assert sorted(api.json("/api/vpn/")) == [
        "vpn-phase-1-policies",
        "vpn-phase-2-policies",
        "vpn-profile-phase-1-policy-assignments",
        "vpn-profile-phase-2-policy-assignments",
        "vpn-profiles",
        "vpn-terminations",
        "vpn-tunnel-endpoints",
        "vpn-tunnels",
        "vpns",
    ]


class TestPolicies:
    def test_lists_of_choices_are_shown_as_values(self, api, sample):
        policy = VPNPhase1Policy.objects.get(name="ike-strong")
        body = api.json(f"{PHASE1}{policy.pk}/")
        assert body["encryption_algorithm"] == ["AES-256-GCM", "AES-128-GCM"]
        assert body["dh_group"] == ["20", "2"]
        assert body["ike_version"] == {"value": "IKEv2", "label": "IKEv2"}
        assert body["display"] == "ike-strong"
        assert body["natural_slug"].startswith("ike-strong")

    def test_a_bad_item_is_named_by_its_index(self, api, sample):
        status, errors = send(
            api, "post", PHASE1, {"name": "bad", "encryption_algorithm": ["AES-128-CBC", "ROT13"]}
        )
        assert status == 400
        assert errors == {"encryption_algorithm": {"1": ['"ROT13" is not a valid choice.']}}
        assert not VPNPhase1Policy.objects.filter(name="bad").exists()
        status, errors = send(api, "post", PHASE2, {"name": "bad", "pfs_group": "14"})
        assert status == 400 and "pfs_group" in errors

    def test_create_and_names_are_unique(self, api, sample):
        status, body = send(
            api,
            "post",
            PHASE2,
            {"name": "esp-new", "pfs_group": ["14", "19"], "integrity_algorithm": ["SHA1"]},
        )
        assert status == 201, body
        assert body["pfs_group"] == ["14", "19"]
        status, errors = send(api, "post", PHASE2, {"name": "esp-new"})
        assert status == 400 and "name" in errors

    def test_filter_by_a_listed_choice_matches_the_lists_text(self, api, sample):
        """As the reference's: an item containing the text, in any case (group 2 is in 22)."""
        assert names(api.json(PHASE1, {"dh_group": "22"})) == ["ike-legacy"]
        assert names(api.json(PHASE1, {"dh_group": "2"})) == ["ike-legacy", "ike-strong"]
        assert names(api.json(PHASE1, {"encryption_algorithm": "aes-128"})) == ["ike-strong"]
        assert names(api.json(PHASE1, {"encryption_algorithm": ["3DES", "AES-128-GCM"]})) == [
            "ike-legacy",
            "ike-strong",
        ]
        assert names(api.json(PHASE1, {"dh_group": "99"})) == []

    def test_options_describe_the_lists(self, api, sample):
        actions = api.client.options(PHASE1).json()["actions"]["POST"]
        field = actions["dh_group"]
        assert field["type"] == "list"
        assert {"value": "20", "display": "Group 20"} in field["child"]["choices"]


class TestProfiles:
    def test_policies_shown_and_filtered(self, api, sample):
        profile = VPNProfile.objects.get(name="site-to-site")
        body = api.json(f"{PROFILES}{profile.pk}/", {"depth": 1})
        assert body["keepalive_enabled"] is True and body["extra_options"] == {"mtu": 1400}
        assert names(api.json(PROFILES, {"vpn_phase1_policies": "ike-legacy"})) == [
            "Remote access",
            "site-to-site",
        ]
        assert names(api.json(PHASE1, {"vpn_profiles": "Remote access"})) == ["ike-legacy"]

    def test_assignment_once_per_pair(self, api, sample):
        profile = VPNProfile.objects.get(name="lab")
        policy = VPNPhase1Policy.objects.get(name="ike-empty")
        status, body = send(
            api,
            "post",
            PHASE1_ASSIGNMENTS,
            {"vpn_profile": str(profile.pk), "vpn_phase1_policy": str(policy.pk)},
        )
        assert status == 201, body
        assert body["display"] == "lab: ike-empty" and body["weight"] == 100
        status, errors = send(
            api,
            "post",
            PHASE1_ASSIGNMENTS,
            {"vpn_profile": str(profile.pk), "vpn_phase1_policy": str(policy.pk)},
        )
        assert status == 400
        assert errors == {
            "non_field_errors": ["The fields vpn_profile, vpn_phase1_policy must make a unique set."]
        }


class TestVPNs:
    def test_vxlan_needs_a_numeric_identifier_in_range(self, api, sample):
        for vpn_id, message in (
            ("", "Identifier is required for VXLAN-based VPN services."),
            ("blue", "Identifier must be a numeric VNI for VXLAN-based VPN services."),
            ("16777215", "VNI must be between 1 and 16777214."),
        ):
            status, errors = send(api, "post", VPNS, {"name": "v", "service_type": "vxlan", "vpn_id": vpn_id})
            assert status == 400 and errors == {"vpn_id": [message]}, vpn_id
        status, body = send(api, "post", VPNS, {"name": "v", "service_type": "vxlan", "vpn_id": "5000"})
        assert status == 201, body
        assert body["service_type"] == {"value": "vxlan", "label": "VXLAN"}
        assert body["status"] is None

    def test_service_type_choices_and_filter(self, api, sample):
        status, errors = send(api, "post", VPNS, {"name": "v", "service_type": "frame-relay"})
        assert status == 400 and "service_type" in errors
        assert names(api.json(VPNS, {"service_type": ["epl", "ipsec"]})) == ["Backbone", "metro-line"]
        assert names(api.json(VPNS, {"q": "10100"})) == ["dc-fabric"]


class TestTunnels:
    def test_shape_and_status(self, api, sample):
        tunnel = VPNTunnel.objects.get(name="ams-fra")
        body = api.json(f"{TUNNELS}{tunnel.pk}/")
        assert body["encapsulation"] == {"value": "IPsec-Tunnel", "label": "IPsec-Tunnel"}
        assert body["endpoint_a"]["object_type"] == "vpn.vpntunnelendpoint"
        assert body["status"]["object_type"] == "extras.status"
        status, errors = send(api, "post", TUNNELS, {"name": "no-status"})
        assert status == 400 and errors == {"status": ["This field is required."]}

    def test_endpoints_differ(self, api, sample):
        endpoint = VPNTunnelEndpoint.objects.get(source_fqdn="peer.example.net")
        status, errors = send(
            api,
            "post",
            TUNNELS,
            {
                "name": "loop",
                "status": "Active",
                "endpoint_a": str(endpoint.pk),
                "endpoint_z": str(endpoint.pk),
            },
        )
        assert status == 400
        assert errors == {"__all__": ["Endpoint A and Endpoint Z cannot be the same."]}

    def test_status_is_limited_to_tunnels(self, api, sample):
        status, errors = send(api, "post", TUNNELS, {"name": "t", "status": "Planned"})
        assert status == 400 and "status" in errors
        Status.objects.get(name="Down")  # a tunnel status every inventory starts with


class TestEndpoints:
    def test_name_and_device_come_from_the_source_interface(self, api, sample):
        link = IPAddressToInterface.objects.filter(interface__device__name="leaf1").first()
        endpoint = VPNTunnelEndpoint.objects.get(source_interface=link.interface)
        body = api.json(f"{ENDPOINTS}{endpoint.pk}/")
        assert body["name"] == body["display"] == f"leaf1 {link.interface.name} ({link.ip_address})"
        assert body["device"]["id"] == str(link.interface.device_id)
        free = Interface.objects.filter(device__name="core1", vpn_tunnel_endpoints_src_int=None).first()
        status, body = send(api, "post", ENDPOINTS, {"source_interface": str(free.pk), "device": None})
        assert status == 201, body
        assert body["name"] == f"core1 {free.name}" and body["device"]["id"] == str(free.device_id)

    def test_device_is_the_source_interfaces_or_as_given(self, api, sample):
        leaf, core = Device.objects.get(name="leaf1"), Device.objects.get(name="core1")
        status, body = send(
            api, "post", ENDPOINTS, {"source_fqdn": "vpn.example.org", "device": str(leaf.pk)}
        )
        assert status == 201, body
        assert body["name"] == "vpn.example.org" and body["device"]["id"] == str(leaf.pk)
        free = Interface.objects.filter(device=core, vpn_tunnel_endpoints_src_int=None).first()
        status, body = send(
            api, "patch", f"{ENDPOINTS}{body['id']}/", {"source_interface": str(free.pk), "source_fqdn": ""}
        )
        assert status == 200, body
        assert body["device"]["id"] == str(core.pk) and body["name"] == f"core1 {free.name}"

    def test_source_rules(self, api, sample):
        link = IPAddressToInterface.objects.filter(interface__device__name="leaf1").first()
        status, errors = send(api, "post", ENDPOINTS, {})
        assert status == 400
        assert errors == {"__all__": ["Source Interface or Source IP Address or Source FQDN Is required."]}
        status, errors = send(
            api, "post", ENDPOINTS, {"source_ipaddress": str(link.ip_address_id), "source_fqdn": "a.example"}
        )
        assert status == 400
        assert errors == {
            "__all__": ["Source IP Address and Source FQDN are mutually exclusive fields. Select only one."]
        }
        other = Interface.objects.filter(device__name="core1", vpn_tunnel_endpoints_src_int=None).first()
        status, errors = send(
            api,
            "post",
            ENDPOINTS,
            {"source_interface": str(other.pk), "source_ipaddress": str(link.ip_address_id)},
        )
        assert status == 400
        assert errors == {"__all__": ["Source IP address must be assigned to Source Interface."]}

    def test_tunnel_interface_on_the_same_device(self, api, sample):
        spine = Interface.objects.filter(device__name="core1", vpn_tunnel_endpoints_src_int=None)
        elsewhere = Interface.objects.filter(vpn_tunnel_endpoints_tunnel=None).exclude(device__name="core1")
        status, errors = send(
            api,
            "post",
            ENDPOINTS,
            {
                "source_interface": str(spine[0].pk),
                "tunnel_interface": str(elsewhere.exclude(device=None)[0].pk),
            },
        )
        assert status == 400
        assert errors == {"__all__": ["Tunnel Interface and Source Interface must be on the same device"]}
        assert not VPNTunnelEndpoint.objects.filter(source_interface=spine[0]).exists()

    def test_one_endpoint_per_source_interface(self, api, sample):
        used = VPNTunnelEndpoint.objects.exclude(source_interface=None).first()
        status, errors = send(api, "post", ENDPOINTS, {"source_interface": str(used.source_interface_id)})
        assert status == 400 and "source_interface" in errors

    def test_filters(self, api, sample):
        assert names(api.json(ENDPOINTS, {"device": "leaf1"})) == [
            n for n in names(api.json(ENDPOINTS)) if n.startswith("leaf1 ")
        ]
        assert names(api.json(ENDPOINTS, {"endpoint_a_vpn_tunnels": "ams-fra"}))[0].startswith("leaf1 ")
        assert names(api.json(ENDPOINTS, {"q": "peer.example"})) == ["peer.example.net"]


class TestTerminations:
    def test_shape(self, api, sample):
        vlan = VLAN.objects.filter(vpn_terminations__isnull=False).first()
        body = api.json(TERMINATIONS, {"vlan": str(vlan.pk)})["results"][0]
        assert body["assigned_object_type"] == "ipam.vlan"
        assert body["display"] == f"{vlan.name} ({vlan.vid}) <> dc-fabric"
        assert body["interface"] is None and body["vm_interface"] is None

    def test_exactly_one_target(self, api, sample):
        vpn = VPN.objects.get(name="Backbone")
        status, errors = send(api, "post", TERMINATIONS, {"vpn": str(vpn.pk)})
        assert status == 400
        assert errors == {"__all__": ["Exactly one of vlan, interface, or vm_interface must be set."]}
        vlan = VLAN.objects.filter(vpn_terminations=None).first()
        interface = Interface.objects.filter(vpn_terminations=None).first()
        status, errors = send(
            api,
            "post",
            TERMINATIONS,
            {"vpn": str(vpn.pk), "vlan": str(vlan.pk), "interface": str(interface.pk)},
        )
        assert status == 400 and "__all__" in errors

    def test_a_target_terminates_one_vpn(self, api, sample):
        vpn = VPN.objects.get(name="Backbone")
        taken = VLAN.objects.filter(vpn_terminations__isnull=False).first()
        status, errors = send(api, "post", TERMINATIONS, {"vpn": str(vpn.pk), "vlan": str(taken.pk)})
        assert status == 400
        assert errors == {"vlan": ["This object is already assigned to another VPN termination."]}

    def test_point_to_point_takes_two(self, api, sample):
        vpn = VPN.objects.get(name="metro-line")  # EPL, already two terminations
        interface = Interface.objects.filter(vpn_terminations=None).first()
        status, errors = send(api, "post", TERMINATIONS, {"vpn": str(vpn.pk), "interface": str(interface.pk)})
        assert status == 400
        assert errors == {"__all__": ["EPL VPNs cannot have more than 2 terminations."]}
        backbone = VPN.objects.get(name="Backbone")
        status, body = send(
            api, "post", TERMINATIONS, {"vpn": str(backbone.pk), "interface": str(interface.pk)}
        )
        assert status == 201, body
        assert body["assigned_object_type"] == "dcim.interface"

    def test_filters(self, api, sample):
        vm_interface = VMInterface.objects.filter(vpn_terminations__isnull=False).first()
        rows = api.json(TERMINATIONS, {"vm_interface": str(vm_interface.pk)})["results"]
        assert [r["assigned_object_type"] for r in rows] == ["virtualization.vminterface"]
        assert len(api.json(TERMINATIONS, {"vpn": "metro-line"})["results"]) == 2
        assert Device.objects.exists()


def test_tunnel_interface_filter_takes_tunnel_interfaces(api, sample):
    """As the reference's filter: it names tunnel interfaces only (writes take any interface)."""
    endpoint = VPNTunnelEndpoint.objects.exclude(tunnel_interface=None).first()
    interface = endpoint.tunnel_interface
    path = f"{ENDPOINTS}?tunnel_interface={interface.pk}"
    assert interface.type == "tunnel"
    assert [row["id"] for row in api.json(path)["results"]] == [str(endpoint.pk)]
    query = f'{{ vpn_tunnel_endpoints(tunnel_interface: ["{interface.pk}"]) {{ id }} }}'
    data = api.post("/api/graphql/", {"query": query}).json()
    assert data["data"]["vpn_tunnel_endpoints"] == [{"id": str(endpoint.pk)}]
    Interface.objects.filter(pk=interface.pk).update(type="1000base-t")
    status, errors = send(api, "get", path)
    assert status == 400
    assert errors == {
        "tunnel_interface": [f"Select a valid choice. {interface.pk} is not one of the available choices."]
    }
