"""Bulk writes cost a constant number of SQL statements, whatever the batch size."""

import uuid

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inventory.dcim.models import Device, DeviceType, Interface, Location, LocationType, Manufacturer
from inventory.extras.models import Role, Status, Tag
from inventory.ipam.models import VLAN, IPAddress, IPAddressRange, Namespace, Prefix
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


@pytest.fixture
def address_space(network):
    """A namespace with nested prefixes, a range and an exclusive range in its /24s: where the
    addresses of a batch find their parents and are checked against the ranges."""
    active = Status.objects.get(name="Active")
    space = Namespace.objects.create(name="batch-space")
    tag = network[2]
    tag.content_types.add(ContentType.objects.get_for_model(IPAddress))
    prefixes = {}
    for cidr in ("10.77.0.0/16", *(f"10.77.{n}.0/24" for n in range(8))):
        prefix = Prefix(namespace=space, status=active)
        prefix.set_prefix(cidr)
        prefix.full_clean()
        prefix.save()
        prefixes[cidr] = prefix
    for n in range(8):
        for first, last, exclusive in ((100, 149, False), (200, 250, True)):
            span = IPAddressRange(namespace=space, status=active, is_exclusive=exclusive)
            span.set_start_address(f"10.77.{n}.{first}")
            span.set_end_address(f"10.77.{n}.{last}")
            span.full_clean()
            span.save()
    return space, prefixes, tag


def addresses(size: int, address_space) -> list[dict]:
    """Addresses spread over the /24s, inside and outside a plain range, each naming its
    namespace, its parent or neither (then the Global namespace, where no prefix holds them)."""
    space, prefixes, tag = address_space
    rows = []
    for i in range(size):
        net, host = i % 8, (120 if i // 8 % 2 else 10) + i // 16  # unique: i = 16 q + 8 b + n
        row = {"address": f"10.77.{net}.{host}/24", "status": "Active", "tags": [str(tag.pk)]}
        if i % 3 == 0:
            row["namespace"] = str(space.pk)
        elif i % 3 == 1:
            row["parent"] = str(prefixes[f"10.77.{net}.0/24"].pk)
        rows.append(row)
    return rows


@pytest.mark.parametrize("kind", ["tenants", "interfaces", "ip addresses"])
def test_statements_per_bulk_write_do_not_grow_with_the_batch(api, network, kind, request):
    path = {
        "tenants": "/api/tenancy/tenants/",
        "interfaces": "/api/dcim/interfaces/",
        "ip addresses": "/api/ipam/ip-addresses/",
    }[kind]
    space = request.getfixturevalue("address_space") if kind == "ip addresses" else None

    def rows(size):
        run = uuid.uuid4().hex[:6]
        if kind == "ip addresses":
            return addresses(size, space)
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


def test_a_batch_of_addresses_is_refused_as_each_address_alone(api, address_space):
    """Ranges and parents are read for the whole batch at once: each item's refusal reads as a
    single write's, and the batch writes nothing."""
    space, prefixes, _ = address_space
    wrong = str(prefixes["10.77.1.0/24"].pk)
    rows = [
        {"address": "10.77.0.210/24", "status": "Active", "namespace": str(space.pk)},
        {"address": "10.77.0.20/24", "status": "Active", "namespace": str(space.pk)},
        {"address": "10.77.2.20/24", "status": "Active", "parent": wrong},
        {"address": "10.78.0.1/24", "status": "Active", "namespace": str(space.pk)},
    ]
    singles = [send(api, "post", "/api/ipam/ip-addresses/", row) for row in rows]
    assert [status for status, _ in singles] == [400, 201, 400, 400]
    for status, created in singles:
        if status == 201:
            assert send(api, "delete", f"/api/ipam/ip-addresses/{created['id']}/")[0] == 204
    status, errors = send(api, "post", "/api/ipam/ip-addresses/", rows)
    assert status == 400
    assert errors == [body if status == 400 else {} for status, body in singles]
    assert errors[0] == {
        "__all__": [
            'IP address 10.77.0.210 falls within exclusive IP Address Range "batch-space: 10.77.0.200 - '
            '10.77.0.250". Creating an IP Address within an exclusive range is not permitted.'
        ]
    }
    assert errors[2] == {
        "parent": [
            "10.77.1.0/24 cannot be assigned as the parent of 10.77.2.20/24.  In namespace batch-space, "
            "the expected parent would be 10.77.2.0/24."
        ]
    }
    assert errors[3] == {
        "namespace": ["No suitable parent Prefix for 10.78.0.1 exists in Namespace batch-space"]
    }
    assert not IPAddress.objects.filter(namespace=space).exists()


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
