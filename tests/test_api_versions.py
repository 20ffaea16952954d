"""Answers that differ between API versions 2.0 and 3.x, through the HTTP stack: each row of the
version table a resource declares (Resource.versioned), read and written, single and bulk."""

import orjson
import pytest

from inventory.dcim.models import Location

VLANS, PREFIXES = "/api/ipam/vlans/", "/api/ipam/prefixes/"
OLD, NEW = ("2.0", "2.1"), ("2.2", "2.4", "3.0", "3.2")


def at(version: str) -> dict:
    return {"HTTP_ACCEPT": f"application/json; version={version}"}


def call(api, method: str, path: str, version: str, body=None) -> tuple[int, object]:
    data = orjson.dumps(body) if body is not None else ""
    response = getattr(api.client, method)(path, data, content_type="application/json", **at(version))
    return response.status_code, orjson.loads(response.content) if response.content else None


def reference_id(value) -> str | None:
    return None if value is None else value["id"]


@pytest.fixture
def places(sample):
    first, second = Location.objects.order_by("name")[:2]
    return str(first.pk), str(second.pk)


BODIES = {
    VLANS: lambda n: {"vid": 300 + n, "name": f"v-{n}", "status": "Active"},
    PREFIXES: lambda n: {"prefix": f"10.200.{n}.0/24", "status": "Active"},
}


@pytest.mark.parametrize("path", [VLANS, PREFIXES])
@pytest.mark.parametrize("version", OLD)
def test_old_versions_show_and_write_one_location(api, places, path, version):
    first, second = places
    status, created = call(api, "post", path, version, {**BODIES[path](1), "location": first})
    assert status == 201, created
    assert reference_id(created["location"]) == first and "locations" not in created
    assert "vrfs" not in created
    url = f"{path}{created['id']}/"
    status, shown = call(api, "get", url, version)
    assert status == 200 and reference_id(shown["location"]) == first
    assert "locations" not in shown and "vrfs" not in shown
    listed = call(api, "get", f"{path}?id={created['id']}", version)[1]["results"][0]
    assert reference_id(listed["location"]) == first and "locations" not in listed
    # Written back as read (the Ansible modules' second run): nothing changes.
    status, patched = call(api, "patch", url, version, {"location": shown["location"]["id"]})
    assert status == 200 and reference_id(patched["location"]) == first
    # Changed, then cleared, single and in bulk.
    status, patched = call(api, "patch", url, version, {"location": second})
    assert status == 200 and reference_id(patched["location"]) == second
    status, bulk = call(api, "patch", path, version, [{"id": created["id"], "location": None}])
    assert status == 200 and bulk[0]["location"] is None
    # Newer versions see the same through `locations`.
    status, newer = call(api, "get", f"{url}?exclude_m2m=false", "3.2")
    assert status == 200 and newer["locations"] == []


@pytest.mark.parametrize("path", [VLANS, PREFIXES])
@pytest.mark.parametrize("version", NEW)
def test_newer_versions_take_location_and_show_locations(api, places, path, version):
    first, second = places
    status, created = call(api, "post", path, version, {**BODIES[path](2), "location": first})
    assert status == 201, created
    assert "location" not in created
    url = f"{path}{created['id']}/"
    status, shown = call(api, "get", f"{url}?exclude_m2m=false", version)
    assert status == 200 and "location" not in shown
    assert [reference_id(x) for x in shown["locations"]] == [first]
    status, _ = call(
        api, "put", path, version, [{**BODIES[path](2), "id": created["id"], "location": second}]
    )
    assert status == 200
    shown = call(api, "get", f"{url}?exclude_m2m=false", version)[1]
    assert [reference_id(x) for x in shown["locations"]] == [second]
    # The older versions show it as their one location.
    assert reference_id(call(api, "get", url, "2.1")[1]["location"]) == second


def test_bulk_create_at_old_version(api, places):
    first, second = places
    items = [{**BODIES[VLANS](n), "location": loc} for n, loc in ((5, first), (6, second), (7, None))]
    status, created = call(api, "post", VLANS, "2.0", items)
    assert status == 201, created
    assert [reference_id(x["location"]) for x in created] == [first, second, None]
    for item, loc in zip(created, (first, second, None), strict=True):
        newer = call(api, "get", f"{VLANS}{item['id']}/?exclude_m2m=false", "3.2")[1]
        assert [reference_id(x) for x in newer["locations"]] == ([loc] if loc else [])


def test_openapi_documents_follow_the_version(api):
    for version, old in (("2.0", True), ("2.1", True), ("2.2", False), ("3.2", False)):
        doc = api.json("/api/swagger.json", {"api_version": version})
        for name in ("VLAN", "Prefix"):
            properties = doc["components"]["schemas"][name]["properties"]
            assert ("location" in properties) is old, (version, name)
            assert ("locations" in properties) is not old, (version, name)


ASSIGNMENTS = {
    VLANS: ("/api/ipam/vlan-location-assignments/", "vlan"),
    PREFIXES: ("/api/ipam/prefix-location-assignments/", "prefix"),
}


@pytest.mark.parametrize("path", [VLANS, PREFIXES])
def test_old_versions_show_the_assigned_location(api, places, path):
    """The one `location` of 2.0 and 2.1 is the object's one assigned location, however it was
    assigned; with several the object cannot be shown there (412), as the reference's."""
    first, second = places
    status, created = call(api, "post", path, "3.2", BODIES[path](3))
    assert status == 201, created
    url = f"{path}{created['id']}/"
    assignments, key = ASSIGNMENTS[path]
    status, one = call(api, "post", assignments, "3.2", {key: created["id"], "location": first})
    assert status == 201, one
    for version in OLD:
        assert reference_id(call(api, "get", url, version)[1]["location"]) == first
    status, other = call(api, "post", assignments, "3.2", {key: created["id"], "location": second})
    assert status == 201, other
    for version in OLD:
        status, shown = call(api, "get", url, version)
        assert status == 412, shown
        assert "multiple Locations" in shown["detail"] and "2.0 or 2.1" in shown["detail"]
        assert call(api, "get", f"{path}?id={created['id']}", version)[0] == 412
    assert call(api, "get", url, "2.2")[0] == 200
    # The filter matches any of the assigned locations, at every version.
    for place in (first, second):
        found = call(api, "get", f"{path}?location={place}&id={created['id']}", "3.2")[1]
        assert found["count"] == 1
    assert call(api, "delete", f"{assignments}{one['id']}/", "3.2")[0] == 204
    shown = call(api, "get", url, "2.0")[1]
    assert reference_id(shown["location"]) == second and "locations" not in shown
    found = call(api, "get", f"{path}?location={first}&id={created['id']}", "2.0")[1]
    assert found["count"] == 0


@pytest.mark.parametrize("path", [VLANS, PREFIXES])
def test_deleting_its_location_leaves_the_object_without(api, path):
    """A location deleted takes its assignments with it; the object stays, with no location."""
    top = Location.objects.filter(parent=None).first()
    status, place = call(
        api,
        "post",
        "/api/dcim/locations/",
        "3.2",
        {"name": "Doomed", "location_type": top.location_type_id, "status": "Active"},
    )
    assert status == 201, place
    status, created = call(api, "post", path, "2.0", {**BODIES[path](4), "location": place["id"]})
    assert status == 201, created
    assert reference_id(created["location"]) == place["id"]
    status, body = call(api, "delete", f"/api/dcim/locations/{place['id']}/", "3.2")
    assert status == 204, body
    shown = call(api, "get", f"{path}{created['id']}/", "2.0")[1]
    assert shown["location"] is None


@pytest.mark.parametrize(("name", "value"), [("available-ips", "address"), ("available-prefixes", "prefix")])
def test_free_space_shows_ip_version_from_2_0(api, name, value):
    """Free addresses and prefixes show `ip_version` and the value from 2.0 on (1.x: `family`, `vrf`)."""
    status, prefix = call(api, "post", PREFIXES, "3.2", {"prefix": "10.201.0.0/29", "status": "Active"})
    assert status == 201, prefix
    url = f"{PREFIXES}{prefix['id']}/{name}/"
    for version in ("2.0", "3.2"):
        status, free = call(api, "get", url, version)
        assert status == 200 and free, free
        assert list(free[0]) == ["ip_version", value] and free[0]["ip_version"] == 4
    status, free = call(api, "get", url, "1.3")
    assert status == 200 and set(free[0]) == {"family", value, "vrf"}
