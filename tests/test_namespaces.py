"""IPAM namespaces and parents as the reference has them, beside the spec's VRF-only writes:
objects left out of a namespace are in Global, each prefix and address is under its closest
containing prefix of its namespace, kept so by every write."""

from __future__ import annotations

from inventory.ipam.models import IPAddress, Namespace, Prefix

from .conftest import send

PREFIXES, ADDRESSES, NAMESPACES = "/api/ipam/prefixes/", "/api/ipam/ip-addresses/", "/api/ipam/namespaces/"


def parent_of(api, path: str, pk) -> str | None:
    parent = api.json(f"{path}{pk}/")["parent"]
    return parent and parent["id"]


def create(api, path: str, body) -> dict:
    status, created = send(api, "post", path, {"status": "Active", **body})
    assert status == 201, created
    return created


def test_clients_find_the_global_namespace(api, sample):
    found = api.json(NAMESPACES, {"q": "Global"})["results"]
    assert [n["name"] for n in found] == ["Global"]
    assert api.json(NAMESPACES, {"name": "Global"})["count"] == 1


def test_writes_without_a_namespace_go_to_global_under_their_closest_prefix(api, sample):
    outer = create(api, PREFIXES, {"prefix": "198.18.0.0/15"})
    assert outer["namespace"]["id"] == str(Namespace.objects.get(name="Global").pk)
    inner = create(api, PREFIXES, {"prefix": "198.18.4.0/24"})
    assert inner["parent"]["id"] == outer["id"]
    # The spec's address write (a VRF, no namespace) still works; it shows its parent instead.
    address = create(api, ADDRESSES, {"address": "198.18.4.9/24"})
    assert address["parent"]["id"] == inner["id"] and "namespace" not in address
    # A prefix put between them takes the inner one and the address below it.
    middle = create(api, PREFIXES, {"prefix": "198.18.0.0/16"})
    assert middle["parent"]["id"] == outer["id"]
    assert parent_of(api, PREFIXES, inner["id"]) == middle["id"]
    assert parent_of(api, ADDRESSES, address["id"]) == inner["id"]
    # Deleting a prefix hands its children to the next one up.
    assert send(api, "delete", f"{PREFIXES}{inner['id']}/")[0] == 204
    assert parent_of(api, ADDRESSES, address["id"]) == middle["id"]
    assert api.json(PREFIXES, {"parent": middle["id"]})["count"] == 0
    assert api.json(ADDRESSES, {"parent": middle["id"], "address": "198.18.4.9"})["count"] == 1


def test_bulk_writes_reparent_once_for_the_whole_write(api, sample):
    status, created = send(
        api,
        "post",
        PREFIXES,
        [{"prefix": p, "status": "Active"} for p in ("198.51.0.0/16", "198.51.7.0/24", "198.51.0.0/20")],
    )
    assert status == 201, created
    outer, leaf, middle = (c["id"] for c in created)
    assert parent_of(api, PREFIXES, leaf) == middle and parent_of(api, PREFIXES, middle) == outer


def test_namespaces_keep_their_own_parents(api, sample):
    lab = Namespace.objects.get(name="lab")
    inside = Prefix.objects.get(namespace=lab, description="lab")
    same_cidr = create(api, PREFIXES, {"prefix": "172.31.0.0/16"})  # Global's own
    address = create(api, ADDRESSES, {"address": "172.31.0.7/16", "namespace": str(lab.pk)})
    assert address["parent"]["id"] == str(inside.pk) != same_cidr["id"]
    assert IPAddress.objects.get(pk=address["id"]).namespace == lab


def test_an_address_named_into_a_namespace_needs_a_prefix_there(api, sample):
    lab = Namespace.objects.get(name="lab")
    status, errors = send(
        api, "post", ADDRESSES, {"address": "203.0.113.5/24", "status": "Active", "namespace": str(lab.pk)}
    )
    assert status == 400 and errors == {
        "namespace": ["No suitable parent Prefix for 203.0.113.5 exists in Namespace lab"]
    }


def test_a_named_parent_must_be_the_closest_prefix(api, sample):
    outer = create(api, PREFIXES, {"prefix": "100.64.0.0/10"})
    create(api, PREFIXES, {"prefix": "100.64.0.0/16"})
    status, errors = send(
        api, "post", PREFIXES, {"prefix": "100.64.1.0/24", "status": "Active", "parent": outer["id"]}
    )
    assert status == 400 and "expected parent would be 100.64.0.0/16" in errors["parent"][0]


def test_api_1x_shows_no_namespaces_or_parents(api, sample):
    prefix = Prefix.objects.filter(parent__isnull=False).first()
    old = api.json(f"{PREFIXES}{prefix.pk}/", HTTP_ACCEPT="application/json; version=1.3")
    assert not {"namespace", "parent", "rir", "date_allocated"} & old.keys()


DUPLICATE = {"__all__": ["IP address with this Parent and Host already exists."]}


def test_an_address_is_in_a_namespace_once(api, sample):
    """A host is one address per namespace, whatever its mask, single or bulk, as the reference
    refuses a second one under the same parent; another namespace may hold it again."""
    blue = create(api, NAMESPACES, {"name": "Blue"})
    for namespace in ("Global", "Blue"):
        create(api, PREFIXES, {"prefix": "198.18.0.0/16", "namespace": namespace})
    first = create(api, ADDRESSES, {"address": "198.18.0.5/16", "namespace": "Global"})
    for mask in ("16", "24"):
        status, body = send(api, "post", ADDRESSES, {"address": f"198.18.0.5/{mask}", "status": "Active"})
        assert (status, body) == (400, DUPLICATE)
    again = {"address": "198.18.0.5/16", "status": "Active", "namespace": "Global"}
    other = {"address": "198.18.0.6/16", "status": "Active", "namespace": "Global"}
    status, body = send(api, "post", ADDRESSES, [other, again])
    assert (status, body) == (400, [{}, DUPLICATE])
    status, body = send(api, "post", ADDRESSES, [other, other])
    assert (status, body) == (400, [{}, DUPLICATE])
    for host, count in (("198.18.0.5", 1), ("198.18.0.6", 0)):
        assert api.json(ADDRESSES, {"address": host, "namespace": "Global"})["count"] == count
    # The same host in another namespace is another address.
    create(api, ADDRESSES, {"address": "198.18.0.5/16", "namespace": blue["id"]})
    # Moving an address onto a taken host of another namespace is refused too.
    status, body = send(api, "patch", f"{ADDRESSES}{first['id']}/", {"namespace": blue["id"]})
    assert (status, body) == (400, DUPLICATE)
    assert api.json(ADDRESSES, {"address": "198.18.0.5"})["count"] == 2


def test_a_route_distinguisher_is_unique_within_its_namespace(api, sample):
    """The same RD may be used once in each namespace, as the reference's VRFs are; a second one
    in a namespace, single or bulk, is refused as the reference refuses it."""
    VRFS = "/api/ipam/vrfs/"
    create(api, NAMESPACES, {"name": "Blue"})
    first = create(api, VRFS, {"name": "one", "rd": "65099:1"})
    other = create(api, VRFS, {"name": "one", "rd": "65099:1", "namespace": "Blue"})
    assert other["namespace"]["id"] != first["namespace"]["id"]
    clash = {"non_field_errors": ["The fields namespace, rd must make a unique set."]}
    status, body = send(api, "post", VRFS, {"name": "two", "rd": "65099:1", "status": "Active"})
    assert (status, body) == (400, clash)
    status, body = send(api, "post", VRFS, [{"name": "a", "rd": "65099:2"}, {"name": "b", "rd": "65099:2"}])
    assert (status, body) == (400, [{}, clash])
    status, body = send(api, "patch", f"{VRFS}{other['id']}/", {"namespace": "Global"})
    assert (status, body) == (400, clash)
    # VRFs without an RD are as many as wanted.
    for name in ("x", "y"):
        create(api, VRFS, {"name": name})
    assert api.json(VRFS, {"rd": "65099:1"})["count"] == 2
