"""A VLAN group's range and its free VLAN ids: `ipam/vlan-groups/<id>/available-vlans/`, read and
allocated through the HTTP stack, as the reference answers."""

import orjson
import pytest

from inventory.ipam.models import VLAN, VLANGroup
from inventory.users.models import User

from .conftest import Api, send

GROUPS = "/api/ipam/vlan-groups/"


@pytest.fixture
def group(api, sample):
    status, body = send(api, "post", GROUPS, {"name": "alloc", "range": "10-14,20"})
    assert status == 201, body
    assert body["range"] == "10-14,20" and body["tags"] == []
    VLAN.objects.create(vid=11, name="taken", vlan_group_id=body["id"], status=VLAN.objects.first().status)
    return body


def free(api, group, **params) -> dict:
    return api.json(f"{GROUPS}{group['id']}/available-vlans/", params)


def test_free_ids_listed_in_the_envelope(api, group):
    assert free(api, group) == {"count": 5, "next": None, "previous": None, "results": [10, 12, 13, 14, 20]}
    assert free(api, group, limit=2)["results"] == [10, 12]
    assert free(api, group, limit="x")["count"] == 5  # a bad limit is ignored, as the reference


def test_allocate_one_and_many(api, group):
    path = f"{GROUPS}{group['id']}/available-vlans/"
    status, body = send(api, "post", path, {"name": "first", "status": "Active"})
    assert status == 201, body
    assert body["count"] == 1 and body["next"] is None
    (vlan,) = body["results"]
    assert vlan["vid"] == 10 and vlan["vlan_group"]["id"] == group["id"]
    status, body = send(
        api,
        "post",
        path,
        [{"name": "asked", "status": "Active", "vid": 20}, {"name": "next", "status": "Active"}],
    )
    assert status == 201, body
    assert [v["vid"] for v in body["results"]] == [20, 12]
    assert free(api, group)["results"] == [13, 14]


@pytest.mark.parametrize(
    "items, reason",
    [
        ([{"name": "x", "status": "Active"}] * 6, "An insufficient number of VLANs are available"),
        ([{"name": "x", "status": "Active", "vid": 11}], "VLAN 11 is not available within the VLANGroup."),
        (
            [{"name": "x", "status": "Active", "vid": 12}] * 2,
            "VLAN 12 is not available within the VLANGroup.",
        ),
        (
            [{"name": "x", "status": "Active", "vlan_group": "00000000-0000-4000-8000-000000000000"}],
            "Invalid",
        ),
    ],
)
def test_requests_it_cannot_meet_are_204_and_create_nothing(api, group, items, reason):
    before = VLAN.objects.count()
    status, body = send(api, "post", f"{GROUPS}{group['id']}/available-vlans/", items)
    # 204 (pynautobot's AllocationError): its body is not sent, as no 204's is.
    assert status == 204 and body is None
    assert VLAN.objects.count() == before


def test_bad_bodies_are_400(api, group):
    path = f"{GROUPS}{group['id']}/available-vlans/"
    status, body = send(api, "post", path, {"name": "no status"})
    assert status == 400 and "status" in body
    assert send(api, "post", path, ["text"])[0] == 400
    assert send(api, "post", f"{GROUPS}00000000-0000-4000-8000-000000000000/available-vlans/", {})[0] == 404


def test_range_rules(api, group):
    url = f"{GROUPS}{group['id']}/"
    status, body = send(api, "patch", url, {"range": "12-20"})
    assert status == 400 and "11" in body["range"][0]  # would leave VLAN 11 outside
    status, body = send(api, "patch", url, {"range": "5-1"})
    assert status == 400 and "range" in body
    status, body = send(
        api,
        "post",
        "/api/ipam/vlans/",
        {"vid": 30, "name": "out", "status": "Active", "vlan_group": group["id"]},
    )
    assert status == 400 and body["vid"] == ["VLAN ID is not contained in VLAN Group range (10-14,20)"]
    status, body = send(api, "post", GROUPS, {"name": "default range"})
    assert status == 201 and body["range"] == "1-4094"


def test_allocation_needs_permissions(sample, group):
    user = User.objects.create(username="viewer")
    token = user.tokens.create()
    reader = Api(token.key)
    response = reader.client.get(f"{GROUPS}{group['id']}/available-vlans/")
    assert response.status_code == 403
    assert VLANGroup.objects.filter(pk=group["id"]).exists()
    response = reader.client.post(
        f"{GROUPS}{group['id']}/available-vlans/",
        orjson.dumps({"name": "x", "status": "Active"}),
        content_type="application/json",
    )
    assert response.status_code == 403


def test_openapi_describes_the_path(api):
    doc = api.json("/api/swagger.json")
    operations = doc["paths"]["/ipam/vlan-groups/{id}/available-vlans/"]
    assert {"get", "post"} <= operations.keys()
    assert {"range", "tags"} <= doc["components"]["schemas"]["VLANGroup"]["properties"].keys()
