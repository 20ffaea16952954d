"""Object permissions inside other objects: related objects at every depth and lists of related
objects show only what the caller may view, by REST and GraphQL, compiled or not."""

from __future__ import annotations

import csv
import io

import orjson
import pytest
from django.apps import apps
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inventory.circuits.models import CircuitTermination
from inventory.dcim.models import Location
from inventory.extras.models import Tag
from inventory.ipam.models import IPAddress, IPAddressToInterface
from inventory.tenancy.models import Tenant
from inventory.users.models import Token
from inventory.virtualization.models import Cluster
from queryengine import engine, query
from queryengine.registry import resource_for, resources
from queryengine.schema import RequestContext

from .builders import SUPERUSER_KEY, build_sample
from .conftest import Api, request_statements, send
from .test_permissions import account, grant, graphql

# What a location's and a device's other related objects need, so only the tested ones differ.
LOCATION_VIEW = ("dcim.view_location", "dcim.view_locationtype", "extras.view_status")


def reference(obj, route: str, object_type: str) -> dict:
    return {"id": str(obj.pk), "object_type": object_type, "url": f"http://testserver/api/{route}/{obj.pk}/"}


def by_name(results: list) -> dict:
    return {r["name"]: r for r in results}


def locations(api, depth: int) -> dict:
    return by_name(api.json("/api/dcim/locations/", {"depth": depth, "limit": 100})["results"])


@pytest.fixture
def tenant_viewer(sample):
    """Sees every location and tag, and of the tenants only Acme."""
    user, api = account(*LOCATION_VIEW, "extras.view_tag")
    grant(user, ["tenancy.tenant"], ["view"], {"name": "Acme"})
    return user, api


def test_rest_depth_1_shows_hidden_related_objects_as_references(sample, tenant_viewer):
    _, api = tenant_viewer
    acme, initech = Tenant.objects.get(name="Acme"), Tenant.objects.get(name="Initech")
    shown = locations(api, 1)
    assert shown["AMS1"]["tenant"]["name"] == "Acme"
    assert shown["AMS1"]["tenant"]["id"] == str(acme.pk)
    # Initech is outside the constraint: what the row holds (its reference), none of its fields.
    assert shown["fra2"]["tenant"] == reference(initech, "tenancy/tenants", "tenancy.tenant")
    assert shown["Europe"]["tenant"] is None
    # The rest of the object is the superuser's.
    full = locations(Api(SUPERUSER_KEY), 1)
    assert {k: v for k, v in shown["fra2"].items() if k != "tenant"} == {
        k: v for k, v in full["fra2"].items() if k != "tenant"
    }
    assert full["fra2"]["tenant"]["name"] == "Initech"
    # The detail view is the same.
    fra = Location.objects.get(name="fra2")
    detail = api.json(f"/api/dcim/locations/{fra.pk}/", {"depth": 1})
    assert detail["tenant"] == reference(initech, "tenancy/tenants", "tenancy.tenant")


def test_filters_name_only_related_objects_the_reader_may_view(sample, tenant_viewer):
    """A filter naming, by name, a related object the reader may not view is answered as one
    naming no object: otherwise the answer would confirm the hidden name. By id it is applied, as
    `tenant_id` is (the reader has the id from a reference), and the names given beside it stay
    unconfirmed."""
    _, api = tenant_viewer
    initech = Tenant.objects.get(name="Initech")
    for params in ({"tenant": "Initech"}, {"tenant__n": "Initech"}, {"tenant": ["Initech", str(initech.pk)]}):
        hidden = api.get("/api/dcim/locations/", params)
        missing = api.get("/api/dcim/locations/", {**params, next(iter(params)): "Nobody"})
        assert hidden.status_code == missing.status_code == 400, hidden.content
        assert hidden.content.replace(b"Initech", b"<v>") == missing.content.replace(b"Nobody", b"<v>")
    result = api.post("/api/graphql/", {"query": '{ locations(tenant: ["Initech"]) { name } }'})
    assert b"is not one of the available choices" in result.content
    held = Location.objects.filter(tenant=initech).count()
    assert api.json("/api/dcim/locations/", {"tenant": str(initech.pk)})["count"] == held > 0
    assert (
        api.json("/api/dcim/locations/", {"tenant": "Acme"})["count"]
        == Location.objects.filter(tenant__name="Acme").count()
    )


def test_rest_depth_2_hides_at_every_level(sample):
    user, api = account(
        "dcim.view_device",
        "dcim.view_devicetype",
        "dcim.view_manufacturer",
        "dcim.view_rack",
        "extras.view_role",
        *LOCATION_VIEW,
    )
    grant(user, ["tenancy.tenant"], ["view"], {"name": "Initech"})
    acme = Tenant.objects.get(name="Acme")
    devices = by_name(api.json("/api/dcim/devices/", {"depth": 2, "limit": 100})["results"])
    leaf = devices["leaf1"]
    hidden = reference(acme, "tenancy/tenants", "tenancy.tenant")
    assert leaf["tenant"] == hidden
    assert leaf["location"]["name"] == "AMS1" and leaf["location"]["tenant"] == hidden
    assert leaf["rack"]["location"]["tenant"] == hidden
    assert leaf["device_type"]["manufacturer"]["name"]  # a model permission: shown in full
    # A type the user may not view at all (platforms): a reference at every depth.
    assert set(leaf["platform"]) == {"id", "object_type", "url"}
    # A constrained location: the devices outside it nest it as a reference only.
    user, api = account("dcim.view_device", "tenancy.view_tenant")
    grant(user, ["dcim.location"], ["view"], {"name": "AMS1"})
    devices = by_name(api.json("/api/dcim/devices/", {"depth": 2, "limit": 100})["results"])
    assert devices["leaf1"]["location"]["name"] == "AMS1"
    assert devices["leaf1"]["location"]["parent"] == reference(
        Location.objects.get(name="Europe"), "dcim/locations", "dcim.location"
    )
    blade = next(d for d in devices.values() if d["location"]["id"] != devices["leaf1"]["location"]["id"])
    assert set(blade["location"]) == {"id", "object_type", "url"}


def test_many_to_many_lists_leave_out_hidden_members(sample, tenant_viewer):
    user, api = tenant_viewer
    # Tags: everything by a model permission; then only alpha by a constrained one.
    assert [t["id"] for t in locations(api, 0)["AMS1"]["tags"]] == [
        str(t.pk) for t in Tag.objects.filter(name__in=["alpha", "gamma-core"]).order_by("name")
    ]
    user, api = account(*LOCATION_VIEW)
    grant(user, ["extras.tag"], ["view"], {"name": "alpha"})
    alpha = Tag.objects.get(name="alpha")
    assert locations(api, 0)["AMS1"]["tags"] == [reference(alpha, "extras/tags", "extras.tag")]
    query_text = '{ locations(name: ["AMS1"]) { name tags { name } } }'
    assert graphql(api, query_text)["data"]["locations"] == [{"name": "AMS1", "tags": [{"name": "alpha"}]}]
    # Without any tag permission: no tags, not even as references.
    _, blind = account(*LOCATION_VIEW)
    assert all(location["tags"] == [] for location in locations(blind, 1).values())
    assert graphql(blind, query_text)["data"]["locations"] == [{"name": "AMS1", "tags": []}]


def test_graphql_foreign_keys_and_reverse_lists(sample, tenant_viewer):
    _, api = tenant_viewer
    data = graphql(api, "{ locations { name tenant { name } } }")["data"]["locations"]
    # GraphQL cannot leave a selected field out: a hidden related object is null.
    assert by_name(data)["AMS1"]["tenant"] == {"name": "Acme"}
    assert by_name(data)["fra2"]["tenant"] is None
    # A one-to-many list: the NAT outside address is not among the addresses the user may view.
    user, api = account()
    grant(user, ["ipam.ipaddress"], ["view"], {"description": ""})
    inside = IPAddress.objects.get(dns_name="gw.example.com")
    text = "query ($id: [String]) { ip_addresses(id: $id) { dns_name nat_outside_list { id } } }"
    assert graphql(api, text, {"id": [str(inside.pk)]})["data"]["ip_addresses"] == [
        {"dns_name": "gw.example.com", "nat_outside_list": []}
    ]
    full = graphql(Api(SUPERUSER_KEY), text, {"id": [str(inside.pk)]})["data"]["ip_addresses"]
    assert len(full[0]["nat_outside_list"]) == 1
    grant(user, ["ipam.ipaddress"], ["view"], {"description": "outside"})
    assert graphql(api, text, {"id": [str(inside.pk)]})["data"]["ip_addresses"] == full


GENERIC_QUERIES = [
    "{ locations { name tenant { name tenant_group { name } } tags { name } } }",
    "{ devices { name tenant { name } location { name tenant { id name } parent { name } } tags { name } } }",
    "{ ip_addresses { dns_name tenant { name } nat_outside_list { dns_name tenant { name } } } }",
    "{ tenant_groups { name tenant_count } }",
]


@pytest.mark.parametrize("text", GENERIC_QUERIES)
def test_generic_executor_agrees(sample, tenant_viewer, text):
    """Hand-written documents can run on graphql-core's executor: it hides the same objects."""
    user, _ = tenant_viewer
    user.user_permissions.add(
        *_permissions("dcim.view_device", "ipam.view_ipaddress", "tenancy.view_tenantgroup")
    )
    user = type(user).objects.get(pk=user.pk)  # permissions read afresh
    compiled = engine.run(text, None, RequestContext(user=user, base_url="http://testserver/api/"))
    generic = engine.run(
        text, None, RequestContext(user=user, base_url="http://testserver/api/"), compiled=False
    )
    assert compiled.errors is None and generic.errors is None
    assert orjson.loads(orjson.dumps(compiled.data)) == orjson.loads(orjson.dumps(generic.data))


def _permissions(*names):
    from django.contrib.auth.models import Permission

    return [
        Permission.objects.get(content_type__app_label=n.split(".")[0], codename=n.split(".")[1])
        for n in names
    ]


def _statements(api, params) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        api.json("/api/dcim/devices/", params)
    return request_statements(queries)


def test_superuser_sql_is_unchanged_and_constrained_counts_are_flat(sample, superuser, monkeypatch):
    params = {"depth": 2, "limit": 1000}
    admin = Api(SUPERUSER_KEY)
    with_checks = _statements(admin, params)
    # The same request with nested permissions switched off: the very same statements.
    monkeypatch.setattr(query.Viewer, "subset", lambda self, resource: None)
    assert _statements(admin, params) == with_checks
    monkeypatch.undo()
    # A constrained user: as many statements for a page twice as long (the same shapes again).
    user, api = account("dcim.view_device", "dcim.view_location")
    grant(user, ["tenancy.tenant", "extras.tag"], ["view"], [{"name": "Acme"}, {"name": "alpha"}])
    before = _statements(api, params)
    assert sum("users_objectpermission" in sql for sql in before) == 1
    build_sample(superuser, suffix="-2")
    assert len(_statements(api, params)) == len(before)


def test_included_values_follow_the_permissions(sample):
    """`include=relationships` peers are a list of related objects; a cable's terminations are
    its related objects."""
    user, api = account()
    grant(user, ["tenancy.tenant"], ["view"], {"name": "Acme"})
    params = {"include": "relationships", "depth": 1, "name": "Acme"}

    def peers(caller):
        (acme,) = caller.json("/api/tenancy/tenants/", params)["results"]
        return [peer["name"] for peer in acme["relationships"]["affiliates"]["destination"]["objects"]]

    assert peers(Api(SUPERUSER_KEY)) == ["globex"]
    assert peers(api) == []
    grant(user, ["tenancy.tenant"], ["view"], {"name": "globex"})
    assert peers(api) == ["globex"]
    # Terminations of a cable the user may view, on interfaces they may not.
    _, api = account("dcim.view_cable", "extras.view_status")
    cables = api.json("/api/dcim/cables/", {"depth": 1})["results"]
    ends = [end for cable in cables for end in cable["terminations"].values() if end is not None]
    assert ends and all(set(end) == {"id", "object_type", "url"} for end in ends)
    full = Api(SUPERUSER_KEY).json("/api/dcim/cables/", {"depth": 1})["results"]
    assert any("name" in end for cable in full for end in cable["terminations"].values() if end)


def test_derived_counts_count_what_the_caller_may_view(sample, tenant_viewer):
    user, api = tenant_viewer
    user.user_permissions.add(*_permissions("tenancy.view_tenantgroup"))
    path, params = "/api/tenancy/tenant-groups/", {"limit": 100}
    full = {g["name"]: g["tenant_count"] for g in Api(SUPERUSER_KEY).json(path, params)["results"]}
    assert full["Customers"] == 1 and full["Enterprise"] == 1
    shown = {g["name"]: g["tenant_count"] for g in api.json(path, params)["results"]}
    assert shown == {**full, "Customers": 0}  # Initech is outside the constraint
    text = "{ tenant_groups { name tenant_count } }"
    assert {g["name"]: g["tenant_count"] for g in graphql(api, text)["data"]["tenant_groups"]} == shown


def csv_rows(api, path: str, params=None) -> list[dict]:
    response = api.get(path, {**(params or {}), "format": "csv"})
    assert response.status_code == 200, response.content[:300]
    return list(csv.DictReader(io.StringIO(response.content.decode())))


def test_csv_names_no_related_object_the_caller_may_not_view(sample, tenant_viewer):
    """A hidden related object's natural-key columns read its id, as JSON shows its reference."""
    _, api = tenant_viewer
    initech = Tenant.objects.get(name="Initech")
    rows = by_name(csv_rows(api, "/api/dcim/locations/"))
    assert rows["AMS1"]["tenant__name"] == "Acme"
    assert rows["fra2"]["tenant__name"] == str(initech.pk)
    assert rows["Europe"]["tenant__name"] == "NoObject"
    assert by_name(csv_rows(Api(SUPERUSER_KEY), "/api/dcim/locations/"))["fra2"]["tenant__name"] == "Initech"
    fra = Location.objects.get(name="fra2")
    (detail,) = csv_rows(api, f"/api/dcim/locations/{fra.pk}/")
    assert detail["tenant__name"] == str(initech.pk)
    # One query for the tenants of the whole page (locations and the rest are viewed in full).
    with CaptureQueriesContext(connection) as queries:
        api.get("/api/dcim/locations/", {"format": "csv", "limit": 4})
    assert sum('FROM "tenancy_tenant"' in sql for sql in request_statements(queries)) == 1


def test_csv_hides_an_ancestor_the_caller_may_not_view(sample):
    """A natural key's columns that come through a hidden object (its parents' names) read that
    object's id, whatever lies beyond it."""
    user, api = account("dcim.view_locationtype", "extras.view_status", "tenancy.view_tenant")
    grant(user, ["dcim.location"], ["view"], {"name__in": ["AMS1", "AMS1 floor 1"]})
    europe = str(Location.objects.get(name="Europe").pk)
    rows = by_name(csv_rows(api, "/api/dcim/locations/"))
    assert set(rows) == {"AMS1", "AMS1 floor 1"}
    room = rows["AMS1 floor 1"]
    assert (room["parent__name"], room["parent__parent__name"]) == ("AMS1", europe)
    assert (rows["AMS1"]["parent__name"], rows["AMS1"]["parent__parent__name"]) == (europe, europe)
    assert not any(value == "Europe" for row in rows.values() for value in row.values())


def test_csv_export_job_hides_what_the_list_hides(sample, jobs, tenant_viewer):
    user, api = tenant_viewer
    user.user_permissions.add(*_permissions("extras.view_fileproxy"))
    grant(user, ["extras.job"], ["view", "run"])
    export = jobs["ExportObjectList"]
    status, run = send(
        api, "post", f"/api/extras/jobs/{export.pk}/run/", {"data": {"content_type": "dcim.location"}}
    )
    assert status == 201 and run["job_result"]["status"]["value"] == "SUCCESS", run
    (file,) = api.json("/api/extras/file-proxies/", {"job_result": run["job_result"]["id"]})["results"]
    text = api.get(f"/api/extras/file-proxies/{file['id']}/download/").content
    assert text == api.get("/api/dcim/locations/", {"format": "csv"}).content
    assert b"Initech" not in text and str(Tenant.objects.get(name="Initech").pk).encode() in text


def test_counts_through_assignments_count_what_the_caller_may_view(sample):
    """An interface's addresses and a cluster's devices are assigned through association objects:
    their counts count the addresses and devices the caller may view (as the lists of them show),
    whatever the caller may see of the assignments, in REST at every depth, GraphQL and CSV."""
    seen, hidden = IPAddressToInterface.objects.filter(interface__isnull=False).order_by("interface__name")
    user, api = account("dcim.view_interface", "ipam.view_ipaddresstointerface")
    grant(user, ["ipam.ipaddress"], ["view"], {"id": str(seen.ip_address_id)})
    interfaces = [str(seen.interface_id), str(hidden.interface_id)]
    expected = {interfaces[0]: 1, interfaces[1]: 0}
    assert {str(a.interface_id): 1 for a in (seen, hidden)} == {i: 1 for i in interfaces}  # the superuser's

    def rest_counts(caller, path, ids, depth) -> dict:
        rows = caller.json(path, {"id": ids, "depth": depth})["results"]
        return {row["id"]: row[COUNT[path]] for row in rows}

    for depth in (0, 1):
        assert rest_counts(api, INTERFACES, interfaces, depth) == expected
    text = "query ($id: [String]) { interfaces(id: $id) { id ip_address_count ip_addresses { id } } }"
    shown = graphql(api, text, {"id": interfaces})["data"]["interfaces"]
    assert {i["id"]: i["ip_address_count"] for i in shown} == expected
    assert all(i["ip_address_count"] == len(i["ip_addresses"]) for i in shown)
    assert {
        r["id"]: int(r["ip_address_count"]) for r in csv_rows(api, INTERFACES, {"id": interfaces})
    } == expected
    # Nested in the objects holding them (GraphQL shows counts at any depth).
    user.user_permissions.add(*_permissions("dcim.view_device"))
    api = Api(Token.objects.filter(user=user).first().key)
    nested = graphql(api, "{ devices { interfaces { id ip_address_count } } }")["data"]["devices"]
    found = {i["id"]: i["ip_address_count"] for d in nested for i in d["interfaces"] if i["id"] in expected}
    assert found == expected
    # Without any permission on the assignments: the addresses they may view, still.
    _, blind = account("dcim.view_interface")
    assert rest_counts(blind, INTERFACES, interfaces, 0) == {i: 0 for i in interfaces}
    user, api = account("dcim.view_interface", "ipam.view_ipaddress")
    assert rest_counts(api, INTERFACES, interfaces, 0) == {i: 1 for i in interfaces}

    # A cluster's devices: two, of which the caller may view leaf1 alone.
    cluster = Cluster.objects.get(name="esx-ams")
    assert rest_counts(Api(SUPERUSER_KEY), CLUSTERS, [str(cluster.pk)], 0) == {str(cluster.pk): 2}
    user, api = account("virtualization.view_cluster", "dcim.view_deviceclusterassignment")
    grant(user, ["dcim.device"], ["view"], {"name": "leaf1"})
    for depth in (0, 1):
        assert rest_counts(api, CLUSTERS, [str(cluster.pk)], depth) == {str(cluster.pk): 1}
    text = '{ clusters(name: ["esx-ams"]) { device_count devices { name } } }'
    assert graphql(api, text)["data"]["clusters"] == [{"device_count": 1, "devices": [{"name": "leaf1"}]}]
    (row,) = csv_rows(api, CLUSTERS, {"name": "esx-ams"})
    assert row["device_count"] == "1"

    # A location's circuits, by their terminations there: those the caller may view.
    user, api = account(*LOCATION_VIEW, "circuits.view_circuittermination")
    grant(user, ["circuits.circuit"], ["view"], {"cid": "TEL-1001"})
    terminations = CircuitTermination.objects.filter(location__isnull=False)
    places = {str(t.location_id): int(t.circuit.cid == "TEL-1001") for t in terminations}
    assert sorted(places.values()) == [0, 1]
    for depth in (0, 1):
        assert rest_counts(api, LOCATIONS, list(places), depth) == places
    assert rest_counts(Api(SUPERUSER_KEY), LOCATIONS, list(places), 0) == {pk: 1 for pk in places}
    text = "query ($id: [String]) { locations(id: $id) { id circuit_count } }"
    shown = graphql(api, text, {"id": list(places)})["data"]["locations"]
    assert {loc["id"]: loc["circuit_count"] for loc in shown} == places


def test_every_count_counts_objects_readers_may_view():
    """Counts are narrowed by the counted model's permissions: it must be one readers are granted
    (a registered model), never an association between two (whose own permissions say nothing
    about the objects it links)."""
    associations = {f.remote_field.through for model in apps.get_models() for f in model._meta.many_to_many}
    for resource in resources():
        for name in resource.counts:
            source = resource.count_source(name)
            if source is not None:
                assert resource_for(source[0]) is not None, (resource.route, name)
                assert source[0] not in associations, (resource.route, name)


INTERFACES, CLUSTERS, LOCATIONS = (
    "/api/dcim/interfaces/",
    "/api/virtualization/clusters/",
    "/api/dcim/locations/",
)
COUNT = {INTERFACES: "ip_address_count", CLUSTERS: "device_count", LOCATIONS: "circuit_count"}
