"""Bulk writes cost a constant number of SQL statements, whatever the batch size."""

import uuid

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inventory.dcim.models import Device, DeviceType, Interface, Location, LocationType, Manufacturer
from inventory.extras.models import Role, Status, Tag
from inventory.ipam.models import VLAN
from inventory.tenancy.models import Tenant

from .conftest import send


@pytest.fixture
def network(sample):
    active = Status.objects.get(name="Active")
    site_type = LocationType.objects.create(name="batch-site")
    site_type.content_types.add(ContentType.objects.get_for_model(Device))
    site = Location.objects.create(name="batch-site", location_type=site_type, status=active)
    role = Role.objects.create(name="batch-role")
    role.content_types.add(ContentType.objects.get_for_model(Device))
    device_type = DeviceType.objects.create(
        manufacturer=Manufacturer.objects.create(name="batch-maker"), model="batch-type"
    )
    devices = [
        Device.objects.create(
            name=f"batch-{i}", device_type=device_type, role=role, status=active, location=site
        )
        for i in range(3)
    ]
    vlan = VLAN.objects.create(vid=42, name="batch-vlan", status=active, location=site)
    tag = Tag.objects.create(name="batch-tag")
    tag.content_types.add(*(ContentType.objects.get_for_model(m) for m in (Tenant, Interface)))
    return devices, vlan, tag


def tenants(size: int, run: str, tag) -> list[dict]:
    return [{"name": f"t-{run}-{i}", "description": "x", "tags": [str(tag.pk)]} for i in range(size)]


def interfaces(size: int, run: str, network) -> list[dict]:
    devices, vlan, tag = network
    return [
        {
            "device": str(devices[i % 3].pk) if i % 2 else {"name": devices[i % 3].name},
            "name": f"et-{run}-{i}",
            "type": "1000base-t",
            "status": "Active",
            "mode": "access",
            "untagged_vlan": str(vlan.pk),
            "tags": [str(tag.pk)],
        }
        for i in range(size)
    ]


def batched(queries) -> int:
    """Statements, counting as one the consecutive INSERTs, UPDATEs or DELETEs of one table that
    a batch is split into (SQLite binds at most 999 parameters per statement; Django deletes
    100 rows per DELETE)."""
    count, previous = 0, None
    for query in queries.captured_queries:
        sql = query["sql"]
        head = sql.split(" (", 1)[0] if sql.startswith("INSERT") else sql.split(" SET", 1)[0]
        if sql.startswith("DELETE"):
            head = sql.split(" WHERE", 1)[0]
        chunked = sql.startswith(("INSERT", "UPDATE", "DELETE"))
        if not (chunked and head == previous):
            count += 1
        previous = head if chunked else None
    return count


def statements(api, path: str, rows: list[dict], field: str = "description") -> dict[str, int]:
    """SQL statements of a bulk create, a bulk PATCH (of `field` and the tags) and a bulk DELETE
    of `rows`."""
    counts = {}
    with CaptureQueriesContext(connection) as queries:
        status, created = send(api, "post", path, rows)
    assert status == 201, created
    counts["create"] = batched(queries)
    patch = [{"id": obj["id"], field: "patched", "tags": []} for obj in created]
    with CaptureQueriesContext(connection) as queries:
        status, body = send(api, "patch", path, patch)
    assert status == 200, body
    assert all(obj[field] == "patched" and obj["tags"] == [] for obj in body)
    counts["patch"] = batched(queries)
    with CaptureQueriesContext(connection) as queries:
        status, body = send(api, "delete", path, [{"id": obj["id"]} for obj in created])
    assert status == 204, body
    counts["delete"] = batched(queries)
    return counts


@pytest.mark.parametrize("kind", ["tenants", "interfaces"])
def test_statements_per_bulk_write_do_not_grow_with_the_batch(api, network, kind):
    path = {"tenants": "/api/tenancy/tenants/", "interfaces": "/api/dcim/interfaces/"}[kind]

    def rows(size):
        run = uuid.uuid4().hex[:6]
        return tenants(size, run, network[2]) if kind == "tenants" else interfaces(size, run, network)

    statements(api, path, rows(3))  # warm-up: content types, custom field definitions, plans
    small, large = statements(api, path, rows(10)), statements(api, path, rows(100))
    assert small == large


def test_devices_from_templates_cost_statements_per_table_not_per_device(api, network):
    """Every device gets its type's components (interfaces, power ports and outlets, rear and
    front ports), made for the whole batch with one INSERT per kind."""
    leaf = DeviceType.objects.get(model="L48")
    site = network[0][0].location

    def rows(size):
        run = uuid.uuid4().hex[:6]
        return [
            {
                "name": f"d-{run}-{i}",
                "device_type": str(leaf.pk),
                "role": "batch-role",
                "status": "Active",
                "location": str(site.pk),
                "tenant": None if i % 2 else "Acme",
                "tags": [str(network[2].pk)],
            }
            for i in range(size)
        ]

    path = "/api/dcim/devices/"
    network[2].content_types.add(ContentType.objects.get_for_model(Device))
    statements(api, path, rows(2), "serial")  # warm-up
    small, large = statements(api, path, rows(5), "serial"), statements(api, path, rows(40), "serial")
    assert small == large
    status, created = send(api, "post", path, rows(3))
    assert status == 201, created
    for device in Device.objects.filter(pk__in=[d["id"] for d in created]):
        assert [i.name for i in device.interfaces.all()] == [
            "Ethernet1",
            "Ethernet2",
            "Ethernet10",
            "Management1",
        ]
        fronts = device.frontports.select_related("rear_port").order_by("name")
        assert [(f.rear_port.name, f.rear_port.device_id) for f in fronts] == [("rear1", device.pk)] * 2
        assert [o.power_port.device_id for o in device.poweroutlets.select_related("power_port")] == [
            device.pk
        ]


def test_a_batch_names_its_failing_items_and_writes_nothing(api, network):
    rows = interfaces(20, "dup", network)
    rows[13]["device"], rows[13]["name"] = rows[4]["device"], rows[4]["name"]  # twice in the batch
    missing = uuid.uuid4()
    rows[17]["untagged_vlan"] = str(missing)
    status, body = send(api, "post", "/api/dcim/interfaces/", rows)
    assert status == 400
    assert [i for i, errors in enumerate(body) if errors] == [13, 17]
    device = rows[4]["device"]["name"]  # named by name in this item
    assert body[13] == {"__all__": [f"A interface by this name already exists on {device}"]}
    assert body[17] == {
        "untagged_vlan": [f"Related object not found using the provided attributes: id={missing}."]
    }
    assert not Interface.objects.filter(name__startswith="et-dup-").exists()


@pytest.mark.parametrize("path", ["/api/tenancy/tenants/", "/api/dcim/devices/", "/api/dcim/interfaces/"])
def test_empty_bulk_writes_change_nothing(api, path):
    before = Tenant.objects.count(), Device.objects.count(), Interface.objects.count()
    assert send(api, "patch", path, []) == (200, [])
    assert send(api, "put", path, []) == (200, [])
    assert send(api, "post", path, []) == (201, [])
    assert send(api, "delete", path, [])[0] == 204
    assert (Tenant.objects.count(), Device.objects.count(), Interface.objects.count()) == before
