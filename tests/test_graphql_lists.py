"""GraphQL lists of related objects: every relation pointing at a type, under the reference's
names, with the members' filters, `limit` and `offset`, read a level at a time and narrowed by
what the caller may see; the rows cap counts their rows."""

from __future__ import annotations

import orjson
import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.test.utils import CaptureQueriesContext, override_settings

from inventory.dcim.models import Device, Interface, Location
from inventory.ipam.models import VLAN
from inventory.users.models import ObjectPermission, Token, User
from queryengine import engine
from queryengine.registry import resource_for
from queryengine.scalars import dumps
from queryengine.schema import RequestContext

from .conftest import Api

GRAPHQL = "/api/graphql/"


def post(api, query, variables=None, status=200):
    response = api.post(GRAPHQL, {"query": query, "variables": variables or {}})
    assert response.status_code == status, response.content
    return orjson.loads(response.content)


def both(user, query, variables=None):
    """The compiled plan's data, checked against the generic executor's."""
    context = RequestContext(user=user, base_url="http://testserver/api/")
    assert engine.prepare(query).plan is not None, "nested lists compile"
    compiled = engine.run(query, variables or {}, context)
    generic = engine.run(query, variables or {}, context, compiled=False)
    assert not compiled.errors and not generic.errors, (compiled.errors, generic.errors)
    assert dumps(compiled.data) == dumps(generic.data)
    return orjson.loads(dumps(compiled.data))


def interface_names(device) -> list[str]:
    return list(Interface.objects.filter(device=device).order_by("_name").values_list("name", flat=True))


def test_a_device_walks_to_its_interfaces(api, sample):
    body = post(api, '{ devices(name: ["leaf1"]) { name interfaces { name device { name } } } }')
    [device] = body["data"]["devices"]
    leaf1 = Device.objects.get(name="leaf1")
    assert [i["name"] for i in device["interfaces"]] == interface_names(leaf1)
    assert {i["device"]["name"] for i in device["interfaces"]} == {"leaf1"}


def test_nested_lists_take_the_members_filters_limit_and_offset(sample, superuser):
    devices = [d for d in Device.objects.order_by("name") if interface_names(d)]
    data = both(
        superuser,
        """query ($p: [String]) {
            devices(limit: 50) {
                name all: interfaces { name }
                some: interfaces(name__isw: $p) { name }
                page: interfaces(limit: 2, offset: 1) { name }
                none: interfaces(name: ["no-such-interface"]) { name }
            }
        }""",
        {"p": ["bond"]},
    )
    rows = {row["name"]: row for row in data["devices"]}
    for device in devices:
        row, names = rows[device.name], interface_names(device)
        assert [i["name"] for i in row["all"]] == names
        assert [i["name"] for i in row["some"]] == [n for n in names if n.lower().startswith("bond")]
        assert [i["name"] for i in row["page"]] == names[1:3]
        assert row["none"] == []
    assert any(row["some"] for row in data["devices"])


def test_bad_filter_values_answer_errors(api, sample):
    body = post(api, '{ devices { name interfaces(status: ["Nope"]) { name } } }')
    assert body["data"] == {"devices": None} and "Nope" in body["errors"][0]["message"]


def test_trees_and_tenants_walk_everything_that_points_at_them(sample, superuser):
    data = both(
        superuser,
        "{ locations { name children { name } devices { name } racks { name } prefixes { prefix } } "
        "tenants { name devices { name } locations { name } ip_addresses { address } } }",
    )
    for row in data["locations"]:
        location = Location.objects.get(name=row["name"])
        assert [c["name"] for c in row["children"]] == [
            c.name for c in Location.objects.filter(parent=location).order_by(*Location._meta.ordering, "pk")
        ]
        assert {d["name"] for d in row["devices"]} == {d.name for d in location.devices.all()}
    assert any(row["children"] for row in data["locations"])
    assert any(row["devices"] for row in data["locations"])
    assert any(row["devices"] for row in data["tenants"])


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_statements_grow_with_depth_not_with_page_size(api, sample, depth):
    """One query of pairs and one of members per level, whatever the page size."""
    query = {
        1: "{ devices(limit: %d) { name interfaces { name } } }",
        2: "{ devices(limit: %d) { name interfaces { name tagged_vlans { name } } } }",
        3: '{ locations(limit: %d) { name devices { name interfaces(name__isw: "e") { name } } } }',
    }[depth]
    if depth == 2:  # pages of both sizes reach every level (the sample tags no VLANs)
        vlan = VLAN.objects.first()
        for interface in Interface.objects.all():
            interface.tagged_vlans.add(vlan)
    post(api, query % 1)  # the token is read once
    counts = []
    for size in (2, 50):  # a page of one id runs a statement prepared on the connection
        with CaptureQueriesContext(connection) as queries:
            body = post(api, query % size)
        assert "errors" not in body
        counts.append(len(queries))
    assert counts[0] == counts[1], counts


def test_members_the_caller_may_not_see_are_left_out_inside_the_sql(sample):
    user = User.objects.create_user("reader")
    leaf1 = Device.objects.get(name="leaf1")
    shown = interface_names(leaf1)[:1]
    for model, constraints in (("dcim.device", {"name": "leaf1"}), ("dcim.interface", {"name__in": shown})):
        permission = ObjectPermission.objects.create(
            name=f"view {model}", actions=["view"], constraints=constraints
        )
        app_label, model_name = model.split(".")
        permission.object_types.set([ContentType.objects.get(app_label=app_label, model=model_name)])
        permission.users.add(user)
    data = both(user, "{ devices { name interfaces { name } } }")
    assert data == {"devices": [{"name": "leaf1", "interfaces": [{"name": n} for n in shown]}]}
    body = post(Api(Token.objects.create(user=user).key), "{ devices { interfaces { name } } }")
    assert body["data"]["devices"] == [{"interfaces": [{"name": n} for n in shown]}]


def test_the_rows_cap_counts_nested_rows(api, sample):
    total = Device.objects.count() + Interface.objects.filter(device__isnull=False).count()
    query = f"{{ devices(limit: {Device.objects.count()}) {{ name interfaces {{ name }} }} }}"
    with override_settings(GRAPHQL_MAX_ROWS=total):
        assert "errors" not in post(api, query)
    with override_settings(GRAPHQL_MAX_ROWS=total - 1):
        body = post(api, query)
    assert body["data"] == {"devices": None}
    assert "GRAPHQL_MAX_ROWS" in body["errors"][0]["message"]


def test_the_schema_names_lists_as_the_reference_does(api):
    body = post(api, '{ __type(name: "DeviceType") { fields { name args { name } } } }')
    fields = {f["name"]: {a["name"] for a in f["args"]} for f in body["data"]["__type"]["fields"]}
    for name in ("interfaces", "module_bays", "device_bays", "inventory_items"):
        assert {"limit", "offset", "name", "name__isw", "id"} <= fields.get(name, set()), name
    assert resource_for(Device).type_name == "DeviceType"
