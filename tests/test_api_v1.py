"""API 1.2-1.4 (spec §9) served beside 2.x and 3.0: negotiation, the 1.x nested form, `brief`,
slugs, status as {value, label}, sites and regions over locations, and 1.x writes.

One sample is built per module and every test runs in a transaction rolled back after it."""

from __future__ import annotations

import re

import orjson
import pytest
from django.db import transaction

from inventory.dcim.models import Device, Interface, Location
from inventory.extras.models import CustomField
from inventory.ipam.models import IPAddress, IPAddressToInterface, Prefix
from inventory.tenancy.models import Tenant, TenantGroup
from inventory.users.models import User
from inventory.virtualization.models import VMInterface
from rest import versioning

from .builders import SUPERUSER_KEY, build_sample
from .conftest import Api, send
from .test_jobs import eager, jobs  # noqa: F401 (fixtures)

LEGACY = ("1.2", "1.3", "1.4")
BASE = "http://testserver/api/"
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@pytest.fixture(scope="module")
def sample(django_db_setup, django_db_blocker):
    """The generic sample, once for the module (tests roll back what they change)."""
    with django_db_blocker.unblock(), transaction.atomic():
        owner = User.objects.create_superuser("admin", "admin@example.com", "admin-password")
        yield build_sample(owner)
        transaction.set_rollback(True)


@pytest.fixture
def api(sample, db):
    return Api(SUPERUSER_KEY)


def at(version: str) -> dict:
    return {"HTTP_ACCEPT": f"application/json; version={version}"}


def get(api: Api, path: str, version: str, params=None, status: int = 200):
    return api.json(path, params, status=status, **at(version))


def write(api: Api, method: str, path: str, body, version: str) -> tuple[int, object]:
    response = getattr(api.client, method)(
        path, orjson.dumps(body), content_type="application/json", **at(version)
    )
    return response.status_code, orjson.loads(response.content) if response.content else None


def nested(obj, *keys) -> dict:
    return {"id": str(obj.pk), "url": f"{BASE}{keys[0]}/{obj.pk}/", "display": keys[1], **dict(keys[2:])}


# --- negotiation -------------------------------------------------------------------------------


@pytest.mark.parametrize("version", LEGACY)
def test_legacy_versions_by_header_and_parameter(api, version):
    by_header = api.get("/api/tenancy/tenants/", **at(version))
    by_parameter = api.get("/api/tenancy/tenants/", {"api_version": version})
    for response in (by_header, by_parameter):
        assert response.status_code == 200 and response["API-Version"] == version
    assert orjson.loads(by_header.content) == orjson.loads(by_parameter.content)
    assert api.get("/api/", **at(version))["API-Version"] == version  # where pynautobot reads it


def test_default_stays_the_newest_and_unknown_versions_are_refused(api):
    assert api.get("/api/tenancy/tenants/")["API-Version"] == versioning.DEFAULT == "3.2"
    supported = ", ".join(versioning.SUPPORTED)
    assert supported.startswith("1.2, 1.3, 1.4, 2.0")
    assert get(api, "/api/tenancy/tenants/", "1.1", status=406) == {
        "detail": f'Invalid version "1.1" in "Accept" header. Supported versions are: {supported}'
    }
    body = api.json("/api/tenancy/tenants/", {"api_version": "1.5"}, status=404)
    assert body["detail"].startswith('Invalid version "1.5" in query parameter')
    mismatch = api.json("/api/tenancy/tenants/", {"api_version": "1.3"}, status=400, **at("1.2"))
    assert mismatch == {"detail": 'Version mismatch between "Accept" header and query parameter.'}


def test_sites_and_regions_are_served_at_1x_only(api):
    for path in ("/api/dcim/sites/", "/api/dcim/regions/"):
        assert get(api, path, "1.3")["count"] >= 1
        served = (
            f"Not found. {path} is served at API versions 1.2 to 1.4: ask for one with "
            '"Accept: application/json; version=1.4" or "?api_version=1.4".'
        )
        assert get(api, path, "2.0", status=404) == {"detail": served}
        assert api.json(path, status=404) == {"detail": served}
    assert "sites" not in api.json("/api/dcim/")
    assert get(api, "/api/dcim/", "1.2")["sites"] == f"{BASE}dcim/sites/"


# --- tenants -----------------------------------------------------------------------------------


@pytest.mark.parametrize("version", LEGACY)
def test_tenant_in_the_1x_form(api, sample, version):
    tenant = Tenant.objects.get(name="Acme")
    group = tenant.tenant_group
    row = next(r for r in get(api, "/api/tenancy/tenants/", version)["results"] if r["name"] == "Acme")
    assert row["url"] == f"{BASE}tenancy/tenants/{tenant.pk}/" and "object_type" not in row
    assert row["slug"] == "acme" and row["display"] == "Acme"
    assert "tenant_group" not in row
    assert row["group"] == nested(
        group,
        "tenancy/tenant-groups",
        "Customers → Enterprise",
        ("name", "Enterprise"),
        ("slug", "enterprise"),
        ("tenant_count", 1),
        ("_depth", 1),
    )
    assert [t["slug"] for t in row["tags"]] == ["beta", "alpha"]  # by name: "Beta", "alpha"
    assert set(row["tags"][0]) == {"id", "url", "display", "name", "slug", "color"}
    assert DATE.match(row["created"]) and row["last_updated"].endswith("Z")
    assert row["custom_fields"] == {} and row["notes_url"].endswith(f"/{tenant.pk}/notes/")
    assert get(api, row["url"].removeprefix("http://testserver"), version) == row
    # the same object at 3.0: no slug, the group as a reference, created as a timestamp
    current = api.json(f"/api/tenancy/tenants/{tenant.pk}/")
    assert "slug" not in current and current["tenant_group"]["object_type"] == "tenancy.tenantgroup"
    assert not DATE.match(current["created"])


def test_brief_tenants_and_groups(api, sample):
    brief = get(api, "/api/tenancy/tenants/", "1.3", {"brief": "1"})["results"]
    assert {tuple(r) for r in brief} == {("id", "url", "display", "name", "slug")}
    one = get(api, f"/api/tenancy/tenants/{brief[0]['id']}/", "1.3", {"brief": "true"})
    assert one == brief[0]
    groups = get(api, "/api/tenancy/tenant-groups/", "1.2", {"brief": "1"})["results"]
    assert set(groups[0]) == {"id", "url", "display", "name", "slug", "tenant_count", "_depth"}
    assert "slug" not in api.json("/api/tenancy/tenants/", {"brief": "1"})["results"][0]


def test_tenant_filters_by_1x_names_and_slugs(api, sample):
    def names(params, version="1.3"):
        return sorted(r["name"] for r in get(api, "/api/tenancy/tenants/", version, params)["results"])

    assert names({"group": "enterprise"}) == ["Acme"]
    assert names({"group": "Enterprise"}) == ["Acme"]  # names still work
    group = TenantGroup.objects.get(name="Customers")
    assert names({"group_id": str(group.pk)}) == ["Initech"]
    assert names({"slug": "globex"}) == ["globex"]
    assert names({"tag": "beta"}) == ["Acme", "Initech"]
    assert names({"slug__ic": "INI"}) == ["Initech"]
    # slugs are a 1.x field: unknown from 2.0 on
    assert get(api, "/api/tenancy/tenants/", "2.0", {"slug": "acme"}, status=400) == {
        "slug": ["Unknown filter field"]
    }


def test_tenant_writes_at_1x(api, sample):
    status, created = write(
        api, "post", "/api/tenancy/tenants/", {"name": "Umbrella Corp", "group": "internal"}, "1.3"
    )
    assert status == 201, created
    assert created["slug"] == "umbrella-corp" and created["group"]["slug"] == "internal"
    assert DATE.match(created["created"])
    # derived slugs are unique; a given one is kept; a rename keeps the slug
    _, second = write(api, "post", "/api/tenancy/tenants/", [{"name": "umbrella corp!"}], "1.4")
    assert second[0]["slug"] == "umbrella-corp-2"
    status, patched = write(
        api, "patch", f"/api/tenancy/tenants/{created['id']}/", {"name": "Umbrella", "group": None}, "1.2"
    )
    assert status == 200 and patched["slug"] == "umbrella-corp" and patched["group"] is None
    status, given = write(api, "post", "/api/tenancy/tenants/", {"name": "Hooli", "slug": "hooli-xyz"}, "1.3")
    assert status == 201 and given["slug"] == "hooli-xyz"
    status, clash = write(
        api, "post", "/api/tenancy/tenants/", {"name": "Hooli 2", "slug": "hooli-xyz"}, "1.3"
    )
    assert status == 400 and list(clash) == ["slug"]
    # errors come back under the 1.x name
    status, errors = write(api, "post", "/api/tenancy/tenants/", {"name": "X", "group": "nope"}, "1.3")
    assert status == 400 and list(errors) == ["group"]
    assert Tenant.objects.filter(name="X").count() == 0
    # at 3.0 slugs do not exist: a given one is not written, a new object still gets one
    _, current = send(api, "post", "/api/tenancy/tenants/", {"name": "Stark", "slug": "ignored"})
    assert "slug" not in current and Tenant.objects.get(name="Stark").slug == "stark"


# --- prefixes ----------------------------------------------------------------------------------


def test_prefix_in_the_1x_form(api, sample):
    prefix = Prefix.objects.filter(location__name="AMS1").first()
    row = get(api, f"/api/ipam/prefixes/{prefix.pk}/", "1.3")
    ams = Location.objects.get(name="AMS1")
    assert row["site"] == nested(ams, "dcim/sites", "AMS1", ("name", "AMS1"), ("slug", "ams1"))
    assert row["location"]["url"] == f"{BASE}dcim/locations/{ams.pk}/"
    assert row["status"] == {"value": prefix.status.slug, "label": prefix.status.name}
    assert row["family"] == {"value": prefix.ip_version, "label": f"IPv{prefix.ip_version}"}
    assert row["is_pool"] is (prefix.type == "pool")
    assert row["prefix"] == prefix.cidr and DATE.match(row["created"])
    brief = get(api, f"/api/ipam/prefixes/{prefix.pk}/", "1.3", {"brief": "1"})
    assert brief == {
        "id": str(prefix.pk),
        "url": f"{BASE}ipam/prefixes/{prefix.pk}/",
        "display": f"{prefix.cidr}: Global",  # labelled with its namespace, as at every version
        "family": prefix.ip_version,
        "prefix": prefix.cidr,
    }
    listed = get(api, "/api/ipam/prefixes/", "1.4", {"brief": "1", "limit": 1000})["results"]
    assert all(set(r) == set(brief) and isinstance(r["family"], int) for r in listed)


def test_prefix_filters_by_site_region_and_status_slug(api, sample):
    def prefixes(params):
        return {
            r["prefix"] for r in get(api, "/api/ipam/prefixes/", "1.3", {"limit": 1000, **params})["results"]
        }

    at_ams = {
        p.cidr for p in Prefix.objects.filter(location__in=Location.objects.filter(name__startswith="AMS1"))
    }
    assert at_ams and prefixes({"site": "ams1"}) == at_ams
    europe = {p.cidr for p in Prefix.objects.exclude(location=None)}
    assert prefixes({"region": "europe"}) == europe
    assert prefixes({"status": "active"}) == {p.cidr for p in Prefix.objects.filter(status__name="Active")}
    assert get(api, "/api/ipam/prefixes/", "1.3", {"site": "nowhere"}, status=400) == {
        "site": ["Select a valid choice. nowhere is not one of the available choices."]
    }
    assert get(api, "/api/ipam/prefixes/", "3.0", {"site": "ams1"}, status=400) == {
        "site": ["Unknown filter field"]
    }


def test_prefix_write_at_1x_round_trips(api, sample):
    body = {"prefix": "10.99.0.0/24", "status": "active", "site": "ams1", "is_pool": True, "tenant": "acme"}
    status, created = write(api, "post", "/api/ipam/prefixes/", body, "1.3")
    assert status == 201, created
    assert created["site"]["slug"] == "ams1" and created["is_pool"] is True
    assert created["status"] == {"value": "active", "label": "Active"}
    current = api.json(f"/api/ipam/prefixes/{created['id']}/", {"depth": 1})
    assert Prefix.objects.get(pk=created["id"]).location.name == "AMS1" and current["type"]["value"] == "pool"
    assert current["status"]["name"] == "Active" and current["tenant"]["name"] == "Acme"
    created.pop("computed_fields")  # a write's response shows every include= value
    assert get(api, f"/api/ipam/prefixes/{created['id']}/", "1.3") == created
    # the {value, label} form a 1.x read shows is written back as it is
    status, patched = write(
        api,
        "patch",
        f"/api/ipam/prefixes/{created['id']}/",
        {"status": created["status"], "is_pool": False},
        "1.3",
    )
    assert status == 200 and patched["is_pool"] is False and patched["status"]["value"] == "active"
    status, errors = write(api, "post", "/api/ipam/prefixes/", {**body, "site": "nowhere"}, "1.3")
    assert status == 400 and list(errors) == ["site"]


# --- IP addresses: the assigned object and NAT ------------------------------------------------


def test_ip_address_assignment_and_nat_at_1x(api, sample):
    link = IPAddressToInterface.objects.filter(interface__isnull=False).select_related("interface").first()
    address, interface = link.ip_address, link.interface
    row = get(api, f"/api/ipam/ip-addresses/{address.pk}/", "1.4")
    assert row["assigned_object_type"] == "dcim.interface"
    assert row["assigned_object_id"] == str(interface.pk)
    assert row["assigned_object"] == {
        "id": str(interface.pk),
        "url": f"{BASE}dcim/interfaces/{interface.pk}/",
        "display": interface.name,
        "device": nested(
            interface.device, "dcim/devices", interface.device.name, ("name", interface.device.name)
        ),
        "name": interface.name,
        "cable": None if interface.cable_id is None else row["assigned_object"]["cable"],
    }
    assert row["family"] == {"value": address.ip_version, "label": f"IPv{address.ip_version}"}
    inside = IPAddress.objects.filter(nat_inside__isnull=False).first().nat_inside
    nat = get(api, f"/api/ipam/ip-addresses/{inside.pk}/", "1.3")
    outside = IPAddress.objects.get(nat_inside=inside)
    assert nat["nat_outside"]["id"] == str(outside.pk) and nat["nat_outside"]["address"] == str(outside)
    vm_link = IPAddressToInterface.objects.filter(vm_interface__isnull=False).first()
    on_vm = get(api, f"/api/ipam/ip-addresses/{vm_link.ip_address_id}/", "1.2")
    assert on_vm["assigned_object_type"] == "virtualization.vminterface"
    assert on_vm["assigned_object"]["virtual_machine"]["id"] == str(vm_link.vm_interface.virtual_machine_id)
    assert "assigned_object" not in api.json(f"/api/ipam/ip-addresses/{address.pk}/")  # not at 3.0


def test_ip_address_assignment_written_at_1x(api, sample):
    interface = Interface.objects.filter(type="1000base-t").first()
    vm_interface = VMInterface.objects.first()
    body = {
        "address": "192.0.2.77/24",
        "status": "active",
        "assigned_object_type": "dcim.interface",
        "assigned_object_id": str(interface.pk),
    }
    status, created = write(api, "post", "/api/ipam/ip-addresses/", body, "1.3")
    assert status == 201, created
    assert created["assigned_object"]["id"] == str(interface.pk)
    # the same assignment rows as 2.x's ip-address-to-interface
    rows = api.json("/api/ipam/ip-address-to-interface/", {"ip_address": created["id"]})["results"]
    assert [(r["interface"]["id"], r["vm_interface"]) for r in rows] == [(str(interface.pk), None)]
    moved = {"assigned_object_type": "virtualization.vminterface", "assigned_object_id": str(vm_interface.pk)}
    status, patched = write(api, "patch", f"/api/ipam/ip-addresses/{created['id']}/", moved, "1.3")
    assert status == 200 and patched["assigned_object_type"] == "virtualization.vminterface"
    assert list(
        IPAddressToInterface.objects.filter(ip_address=created["id"]).values_list("interface", "vm_interface")
    ) == [(None, vm_interface.pk)]
    status, cleared = write(
        api, "patch", f"/api/ipam/ip-addresses/{created['id']}/", {"assigned_object_id": None}, "1.3"
    )
    assert status == 200 and cleared["assigned_object"] is None and cleared["assigned_object_type"] is None
    assert not IPAddressToInterface.objects.filter(ip_address=created["id"]).exists()
    wrong = {**body, "address": "192.0.2.78/24", "assigned_object_type": "dcim.device"}
    status, errors = write(api, "post", "/api/ipam/ip-addresses/", wrong, "1.3")
    assert status == 400 and list(errors) == ["assigned_object"]
    assert (
        api.json("/api/ipam/ip-addresses/", {"address": "192.0.2.78"})["count"] == 0
    )  # nothing half-written


# --- jobs by class path ----------------------------------------------------------------------


def test_jobs_by_class_path_at_1x(api, jobs):  # noqa: F811 (the fixture)
    greet = jobs["Greet"]
    for class_path in (f"{greet.module_name}/Greet", f"local/{greet.module_name}/Greet"):
        found = get(api, f"/api/extras/jobs/{class_path}/", "1.3")
        assert found["id"] == str(greet.pk) and found["url"] == f"{BASE}extras/jobs/{greet.pk}/"
    status, body = write(
        api, "post", f"/api/extras/jobs/local/{greet.module_name}/Greet/run/", {"data": {"who": "v1"}}, "1.3"
    )
    assert status == 201, body
    assert body["schedule"] is None and body["job_result"]["result"]["who"] == "v1"
    assert body["job_result"]["status"] == {"value": "SUCCESS", "label": "SUCCESS"}
    assert "object_type" not in body["job_result"]
    status, errors = write(
        api, "post", f"/api/extras/jobs/{greet.module_name}/Greet/run/", {"data": {"times": "x"}}, "1.3"
    )
    assert status == 400 and "times" in errors["errors"]
    assert get(api, f"/api/extras/jobs/{greet.module_name}/Nope/", "1.3", status=404)
    # 2.0 addresses jobs by id only
    assert api.json(f"/api/extras/jobs/{greet.module_name}/Greet/", status=404) == {
        "detail": 'Not found. This path is served at API 1.x only: ask for it with "Accept: application/json; version=1.3".'
    }


# --- sites and regions: views of locations ------------------------------------------------------


def test_sites_and_regions_written_at_1x_are_locations(api, sample):
    status, region = write(
        api, "post", "/api/dcim/regions/", {"name": "North America", "parent": "europe"}, "1.3"
    )
    assert status == 201, region
    assert region["slug"] == "north-america" and region["parent"]["slug"] == "europe"
    assert set(region) >= {"site_count", "description", "custom_fields"} and "status" not in region
    body = {"name": "NYC 1", "status": "active", "region": "north-america", "asn": 65001, "tenant": "acme"}
    status, site = write(api, "post", "/api/dcim/sites/", body, "1.3")
    assert status == 201, site
    assert site["region"]["slug"] == "north-america" and site["status"] == {
        "value": "active",
        "label": "Active",
    }
    assert site["slug"] == "nyc-1" and site["tenant"]["slug"] == "acme" and "location_type" not in site
    # the same object at 3.0: a location of type Site under the Region-type location
    location = api.json(f"/api/dcim/locations/{site['id']}/", {"depth": 1})
    assert location["location_type"]["name"] == "Site" and location["parent"]["name"] == "North America"
    assert get(api, f"/api/dcim/regions/{region['id']}/", "1.3")["site_count"] == 1
    # a site without a region goes under the Global Region, as Nautobot's own migration places it
    status, alone = write(api, "post", "/api/dcim/sites/", {"name": "Lonely", "status": "active"}, "1.3")
    assert status == 201 and alone["region"]["name"] == "Global Region"
    # filters by region slug; locations of other types are not sites
    sites = get(api, "/api/dcim/sites/", "1.3", {"region": "europe", "limit": 100})["results"]
    assert {s["name"] for s in sites} == {"AMS1", "fra2", "NYC 1"}
    assert not {r["name"] for r in get(api, "/api/dcim/sites/", "1.3", {"limit": 100})["results"]} & {
        "Europe",
        "AMS1 floor 1",
    }
    status, renamed = write(api, "patch", f"/api/dcim/sites/{site['id']}/", {"name": "New York 1"}, "1.4")
    assert status == 200 and renamed["slug"] == "nyc-1"
    status, errors = write(
        api, "post", "/api/dcim/sites/", {"name": "X", "status": "active", "region": "nope"}, "1.3"
    )
    assert status == 400 and list(errors) == ["region"]


def test_devices_at_1x_show_site_and_device_role(api, sample):
    device = Device.objects.filter(location__name="AMS1 floor 1").first() or Device.objects.first()
    row = get(api, f"/api/dcim/devices/{device.pk}/", "1.3")
    assert row["site"]["slug"] == "ams1" and row["device_role"]["id"] == str(device.role_id)
    assert "role" not in row and "config_context" in row
    assert "config_context" not in get(
        api, f"/api/dcim/devices/{device.pk}/", "1.3", {"exclude": "config_context"}
    )
    names = {
        d["name"] for d in get(api, "/api/dcim/devices/", "1.3", {"site": "ams1", "limit": 100})["results"]
    }
    assert device.name in names
    assert names == {
        d.name for d in Device.objects.filter(location__in=Location.objects.filter(name__startswith="AMS1"))
    }
    role = device.role
    same_role = get(api, "/api/dcim/devices/", "1.3", {"device_role": role.slug, "limit": 100})
    assert same_role["count"] == Device.objects.filter(role=role).count()


def test_slugs_stay_unique_in_bulk_and_outside_the_api(api, sample):
    _, created = send(
        api, "post", "/api/tenancy/tenants/", [{"name": "Foo Bar"}, {"name": "foo bar!"}, {"name": "FOO-BAR"}]
    )
    slugs = [Tenant.objects.get(pk=row["id"]).slug for row in created]
    assert slugs == ["foo-bar", "foo-bar-2", "foo-bar-3"]
    # the ORM's bulk_create (seeding, data loads) derives them too, against every stored slug
    made = TenantGroup.objects.bulk_create(
        [TenantGroup(name="Enterprise"[::-1]), TenantGroup(name="enterprise ")]
    )
    assert [g.slug for g in made] == ["esirpretne", "enterprise-2"]


def test_options_and_custom_fields_at_1x(api, sample):
    def post_fields(path, version):
        response = api.client.options(path, HTTP_ACCEPT=f"application/json; version={version}")
        assert response.status_code == 200
        return orjson.loads(response.content)["actions"]["POST"]

    old, new = post_fields("/api/tenancy/tenants/", "1.3"), post_fields("/api/tenancy/tenants/", "3.0")
    assert {"slug", "group"} <= old.keys() and not {"tenant_group", "object_type"} & old.keys()
    assert "tenant_group" in new and "slug" not in new
    assert {"site", "device_role"} <= post_fields("/api/dcim/devices/", "1.4").keys()
    # A custom field's 1.x name and slug are its key: the same cf_ filter and data keys at 1.4.
    field = CustomField.objects.get(key="owner")
    shown = get(api, f"/api/extras/custom-fields/{field.pk}/", "1.4")
    assert shown["name"] == shown["slug"] == "owner" and shown["label"] == field.label
    device = Device.objects.get(_custom_field_data__owner="netops")
    found = get(api, "/api/dcim/devices/", "1.4", {"cf_owner": "netops"})["results"]
    assert [d["id"] for d in found] == [str(device.pk)] and found[0]["custom_fields"]["owner"] == "netops"
