"""The reference's IPAM list filters beyond the generated families, through REST and GraphQL on
prefixes and addresses made for each test: a prefix's ancestors and descendants in its namespace,
its depth, strict network values, an address's parent's VRFs, VRFs by prefix, VLANs by the
interfaces carrying them and the devices they are available on."""

from __future__ import annotations

import netaddr
import orjson
import pytest

from inventory.dcim.models import Device, Interface, Location
from inventory.ipam.models import VLAN, VRF, IPAddress, Namespace, Prefix, VRFPrefixAssignment
from inventory.virtualization.models import VMInterface

from .conftest import send

PREFIXES, ADDRESSES = "/api/ipam/prefixes/", "/api/ipam/ip-addresses/"


def create(api, path: str, body) -> dict:
    status, created = send(api, "post", path, {"status": "Active", **body})
    assert status == 201, created
    return created


def ids(api, path: str, params: dict) -> set[str]:
    body = api.json(path, {"limit": 1000, **params})
    assert body["count"] == len(body["results"])
    return {row["id"] for row in body["results"]}


def graphql_ids(api, field: str, arguments: str) -> set[str]:
    response = api.post("/api/graphql/", {"query": f"{{ {field}({arguments}) {{ id }} }}"})
    body = orjson.loads(response.content)
    assert response.status_code == 200 and "errors" not in body, body
    return {row["id"] for row in body["data"][field]}


def net(prefix: Prefix) -> netaddr.IPNetwork:
    return netaddr.IPNetwork(prefix.cidr)


def inside(a: Prefix, b: Prefix, strict: bool) -> bool:
    """Prefix a in prefix b, in one namespace (strictly: a is not b)."""
    x, y = net(a), net(b)
    if a.namespace_id != b.namespace_id or x.version != y.version or x not in y:
        return False
    return x.prefixlen > y.prefixlen if strict else True


@pytest.fixture
def tree(api, sample):
    """Two namespaces holding the same networks, IPv4 and IPv6: {label: created prefix}."""
    other = create(api, "/api/ipam/namespaces/", {"name": "Lab"})
    made = {}
    for label, cidr, namespace in (
        ("v4", "172.20.0.0/16", None),
        ("v4/24", "172.20.1.0/24", None),
        ("v4/25", "172.20.1.128/25", None),
        ("v4/24b", "172.20.2.0/24", None),
        ("lab", "172.20.0.0/16", other["id"]),
        ("lab/24", "172.20.1.0/24", other["id"]),
        ("v6", "2001:db8:a::/48", None),
        ("v6/64", "2001:db8:a:1::/64", None),
        ("v6/120", "2001:db8:a:1::/120", None),
    ):
        made[label] = create(
            api, PREFIXES, {"prefix": cidr, **({"namespace": namespace} if namespace else {})}
        )
    return made


def test_a_prefix_ancestors_are_the_prefixes_containing_it_in_its_namespace(api, tree):
    everything = list(Prefix.objects.all())
    for label in ("v4/25", "lab/24", "v6/120"):
        named = Prefix.objects.get(pk=tree[label]["id"])
        expected = {str(p.pk) for p in everything if inside(named, p, strict=True)}
        assert expected and str(named.pk) not in expected
        assert ids(api, PREFIXES, {"ancestors": str(named.pk)}) == expected
        assert graphql_ids(api, "prefixes", f'ancestors: ["{named.pk}"]') == expected
    # In its own namespace only: the Lab /24's are the Lab /16 (and none of Global's).
    assert ids(api, PREFIXES, {"ancestors": tree["lab/24"]["id"]}) == {tree["lab"]["id"]}
    # A network address names every prefix starting there (the /16s and the /24s, in both
    # namespaces); a CIDR that network in any namespace.
    starting = [p for p in everything if str(net(p).network) == "172.20.1.0"]
    assert len(starting) == 2
    expected = {str(p.pk) for p in everything for s in starting if inside(s, p, strict=True)}
    assert ids(api, PREFIXES, {"ancestors": "172.20.1.0"}) == expected
    assert ids(api, PREFIXES, {"ancestors": "172.20.1.0/24"}) == expected
    assert tree["v4"]["id"] in expected and tree["lab"]["id"] in expected
    for bad in ("172.31.255.0", "not-a-prefix", "00000000-0000-0000-0000-000000000001"):
        assert list(api.json(PREFIXES, {"ancestors": bad}, status=400)) == ["ancestors"]


def test_a_prefix_and_its_descendants_in_its_namespace(api, tree):
    everything = list(Prefix.objects.all())
    for label in ("v4", "lab", "v6/64"):
        named = Prefix.objects.get(pk=tree[label]["id"])
        expected = {str(p.pk) for p in everything if inside(p, named, strict=False)}
        assert str(named.pk) in expected and len(expected) >= 2
        assert ids(api, PREFIXES, {"prefix_and_descendants": str(named.pk)}) == expected
        assert graphql_ids(api, "prefixes", f'prefix_and_descendants: ["{named.pk}"]') == expected
    assert ids(api, PREFIXES, {"prefix_and_descendants": tree["lab"]["id"]}) == {
        tree["lab"]["id"],
        tree["lab/24"]["id"],
    }
    # By CIDR: that network's tree in every namespace.
    assert ids(api, PREFIXES, {"prefix_and_descendants": "172.20.1.0/24"}) == {
        tree["v4/24"]["id"],
        tree["v4/25"]["id"],
        tree["lab/24"]["id"],
    }


def test_max_depth_counts_the_prefixes_above_in_the_namespace(api, tree):
    everything = list(Prefix.objects.all())

    def depth(prefix) -> int:
        return sum(inside(prefix, p, strict=True) for p in everything)

    for limit in (1, 2, 3):
        expected = {str(p.pk) for p in everything if depth(p) < limit}
        assert expected and expected != {str(p.pk) for p in everything}
        assert ids(api, PREFIXES, {"max_depth": str(limit)}) == expected
        assert graphql_ids(api, "prefixes", f"max_depth: {limit}") == expected
    # The Lab /24 is one below the Lab /16; Global's /25 lies deeper.
    top = ids(api, PREFIXES, {"max_depth": "2", "within_include": "172.20.0.0/16"})
    assert tree["lab/24"]["id"] in top and tree["v4/25"]["id"] not in top
    assert ids(api, PREFIXES, {"max_depth": "0"}) == {str(p.pk) for p in everything}
    assert list(api.json(PREFIXES, {"max_depth": "deep"}, status=400)) == ["max_depth"]


def test_prefix_exact_takes_networks_without_host_bits(api, tree):
    both = {tree["v4/24"]["id"], tree["lab/24"]["id"]}
    assert ids(api, PREFIXES, {"prefix_exact": "172.20.1.0/24"}) == both
    assert ids(api, PREFIXES, {"prefix_exact": tree["v4/24"]["id"]}) == both
    assert ids(api, PREFIXES, {"prefix_exact": "2001:db8:a:1::/64"}) == {tree["v6/64"]["id"]}
    assert graphql_ids(api, "prefixes", 'prefix_exact: ["2001:db8:a:1::/64"]') == {tree["v6/64"]["id"]}
    # `prefix` takes host bits; `prefix_exact` refuses them.
    assert ids(api, PREFIXES, {"prefix": "172.20.1.1/24"}) == both
    body = api.json(PREFIXES, {"prefix_exact": "172.20.1.1/24"}, status=400)
    assert "not a subnet boundary" in body["prefix_exact"][0]


def test_an_address_prefix_exact_needs_a_mask_and_a_boundary(api, tree):
    v4 = create(api, ADDRESSES, {"address": "172.20.1.5/24"})
    v6 = create(api, ADDRESSES, {"address": "2001:db8:a:1::5/64"})
    lab = create(api, ADDRESSES, {"address": "172.20.1.6/24", "namespace": tree["lab"]["namespace"]["id"]})
    assert ids(api, ADDRESSES, {"prefix_exact": "172.20.1.0/24"}) == {v4["id"], lab["id"]}
    assert ids(api, ADDRESSES, {"prefix_exact": "2001:db8:a:1::/64"}) == {v6["id"]}
    assert ids(api, ADDRESSES, {"prefix_exact": tree["v4/25"]["id"]}) == set()
    assert graphql_ids(api, "ip_addresses", 'prefix_exact: ["172.20.1.0/24"]') == {v4["id"], lab["id"]}
    missing = api.json(ADDRESSES, {"prefix_exact": "172.20.1.0"}, status=400)
    assert missing == {"prefix_exact": ["Invalid prefix_exact value (missing mask): 172.20.1.0"]}
    body = api.json(ADDRESSES, {"prefix_exact": "172.20.1.5/24"}, status=400)
    assert body["prefix_exact"][0].endswith("did you mean 172.20.1.0/24?")


def test_addresses_by_their_parent_prefix_vrfs(api, tree):
    global_24 = Prefix.objects.get(pk=tree["v4/24"]["id"])
    namespace = Namespace.objects.get(name="Global")
    vrf = VRF.objects.create(name="tree-vrf", rd="65000:920", namespace=namespace)
    VRFPrefixAssignment.objects.create(vrf=vrf, prefix=global_24)
    inside_vrf = create(api, ADDRESSES, {"address": "172.20.1.5/24"})
    deeper = create(api, ADDRESSES, {"address": "172.20.1.130/24"})  # under the /25: its parent
    lab = create(api, ADDRESSES, {"address": "172.20.1.6/24", "namespace": tree["lab"]["namespace"]["id"]})
    everything = {str(pk) for pk in IPAddress.objects.values_list("pk", flat=True)}
    assert ids(api, ADDRESSES, {"vrfs": "65000:920"}) == {inside_vrf["id"]}
    assert ids(api, ADDRESSES, {"vrfs": str(vrf.pk)}) == {inside_vrf["id"]}
    assert graphql_ids(api, "ip_addresses", f'vrfs: ["{vrf.pk}"]') == {inside_vrf["id"]}
    assert ids(api, ADDRESSES, {"vrfs__n": "65000:920"}) == everything - {inside_vrf["id"]}
    without = {str(a.pk) for a in IPAddress.objects.all() if a.parent is None or not a.parent.vrfs.exists()}
    assert {deeper["id"], lab["id"]} <= without and inside_vrf["id"] not in without
    assert ids(api, ADDRESSES, {"vrfs__isnull": "true"}) == without
    assert ids(api, ADDRESSES, {"vrfs__isnull": "false"}) == everything - without
    assert list(api.json(ADDRESSES, {"vrfs": "65000:999"}, status=400)) == ["vrfs"]


def test_vrfs_by_their_prefixes_and_devices(api, tree):
    namespace = Namespace.objects.get(name="Global")
    vrf = VRF.objects.create(name="tree-vrf", rd="65000:921", namespace=namespace)
    VRFPrefixAssignment.objects.create(vrf=vrf, prefix=Prefix.objects.get(pk=tree["v6/64"]["id"]))
    everything = {str(pk) for pk in VRF.objects.values_list("pk", flat=True)}
    assert ids(api, "/api/ipam/vrfs/", {"prefix": tree["v6/64"]["id"]}) == {str(vrf.pk)}
    assert ids(api, "/api/ipam/vrfs/", {"prefix": "2001:db8:a:1::/64"}) == {str(vrf.pk)}
    assert ids(api, "/api/ipam/vrfs/", {"prefix__n": "2001:db8:a:1::/64"}) == everything - {str(vrf.pk)}
    assert ids(api, "/api/ipam/vrfs/", {"prefix": "2001:db8:a:2::/64"}) == set()  # no such prefix
    assert graphql_ids(api, "vrfs", f'prefix: ["{tree["v6/64"]["id"]}"]') == {str(vrf.pk)}
    device = Device.objects.filter(vrfs__isnull=False).first()
    holding = {str(v.pk) for v in VRF.objects.filter(devices=device)}
    assert holding and holding != everything
    assert ids(api, "/api/ipam/vrfs/", {"device": device.name}) == holding
    assert ids(api, "/api/ipam/vrfs/", {"device__n": str(device.pk)}) == everything - holding


def test_vlans_by_the_interfaces_carrying_them(api, sample):
    everything = {str(pk) for pk in VLAN.objects.values_list("pk", flat=True)}
    for model, name in ((Interface, "interfaces"), (VMInterface, "vm_interfaces")):
        vlans = list(VLAN.objects.all()[:2])
        interface = model.objects.filter(untagged_vlan__isnull=True).first()
        interface.mode = "tagged"
        interface.untagged_vlan = vlans[0]
        interface.save()
        interface.tagged_vlans.set([vlans[1]])
        expected = {str(vlans[0].pk), str(vlans[1].pk)}
        assert expected != everything
        assert ids(api, "/api/ipam/vlans/", {name: str(interface.pk)}) == expected
        assert graphql_ids(api, "vlans", f'{name}: ["{interface.pk}"]') == expected
        named = model.objects.filter(name=interface.name)
        by_name = {
            str(v.pk)
            for v in VLAN.objects.all()
            if named.filter(untagged_vlan=v).exists() or named.filter(tagged_vlans=v).exists()
        }
        assert ids(api, "/api/ipam/vlans/", {name: interface.name}) == by_name >= expected
        bare = model.objects.filter(untagged_vlan__isnull=True, tagged_vlans__isnull=True).first()
        assert ids(api, "/api/ipam/vlans/", {name: str(bare.pk)}) == set()
        assert list(api.json("/api/ipam/vlans/", {name: "no-such-interface"}, status=400)) == [name]


def test_vlans_available_on_a_device_are_at_no_location_or_above_its_own(api, sample):
    device = Device.objects.filter(location__parent__isnull=False).first()
    above = device.location.parent
    elsewhere = Location.objects.exclude(pk__in=device.location.lineage()).first()
    vlans = list(VLAN.objects.all()[:3])
    vlans[0].locations.set([above])
    vlans[1].locations.set([elsewhere])
    vlans[2].locations.set([])
    expected = {
        str(v.pk)
        for v in VLAN.objects.all()
        if not v.locations.exists() or v.locations.filter(pk__in=device.location.lineage()).exists()
    }
    assert str(vlans[0].pk) in expected and str(vlans[2].pk) in expected and str(vlans[1].pk) not in expected
    assert ids(api, "/api/ipam/vlans/", {"available_on_device": str(device.pk)}) == expected
    assert graphql_ids(api, "vlans", f'available_on_device: ["{device.pk}"]') == expected
    unknown = "00000000-0000-0000-0000-000000000001"
    assert ids(api, "/api/ipam/vlans/", {"available_on_device": unknown}) == set()
    assert list(api.json("/api/ipam/vlans/", {"available_on_device": "leaf1"}, status=400)) == [
        "available_on_device"
    ]
