"""The writes section of the benchmarks: bulk and single writes over HTTP against a write floor.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/netinventory_bench .venv/bin/python benchmarks/bench.py writes

The floor writes the same rows in-process with the ORM's bulk operations (`bulk_create`,
`bulk_update`, one DELETE statement): no HTTP, no validation, no read-back. For devices created
from templates it is the devices' and their interfaces' bulk_create. Single writes are
measured against an in-process create (or update) and a read-back of the same object, a single
DELETE against an in-process delete(). HTTP and floor samples alternate, so the ratios hold on a
busy machine.
"""

from __future__ import annotations

import itertools
import statistics
import time
import uuid

BATCH = 1000
CYCLES = 5
DEVICES = 100  # created at once, each with one interface per template of its type
PORTS = 48
GROWTH = (1000, 5000)  # bulk PATCH sizes compared
# Samples of each single write: a few milliseconds each, and a shared machine's slow spells move a
# median of a few dozen by a tenth.
SINGLE_SAMPLES = 201
TENANTS, INTERFACES, IP_ADDRESSES = (
    "/api/tenancy/tenants/",
    "/api/dcim/interfaces/",
    "/api/ipam/ip-addresses/",
)


def interface_fixtures():
    """Ten devices at one location and a VLAN there: 1000 interfaces are 100 per device."""
    from django.contrib.contenttypes.models import ContentType

    from inventory.dcim.models import Device, DeviceType, Interface, Location, LocationType, Manufacturer
    from inventory.extras.models import Role, Status
    from inventory.ipam.models import VLAN

    active = Status.objects.get(name="Active")
    site_type, _ = LocationType.objects.get_or_create(name="bench-writes-site")
    site_type.content_types.add(ContentType.objects.get_for_model(Device))
    site, _ = Location.objects.get_or_create(
        name="bench-writes", parent=None, defaults={"location_type": site_type, "status": active}
    )
    role, _ = Role.objects.get_or_create(name="bench-writes")
    role.content_types.add(ContentType.objects.get_for_model(Device))
    maker, _ = Manufacturer.objects.get_or_create(name="bench-writes")
    device_type, _ = DeviceType.objects.get_or_create(manufacturer=maker, model="bench-writes-0")
    devices = []
    for i in range(10):
        device = Device.objects.filter(name=f"bw-{i}", location=site).first()
        if device is None:
            device = Device.objects.create(
                name=f"bw-{i}", device_type=device_type, role=role, status=active, location=site
            )
        devices.append(device)
    vlan, _ = VLAN.objects.get_or_create(vid=100, name="bench-writes", defaults={"status": active})
    Interface.objects.filter(device__in=devices).delete()
    return devices, vlan, active, site, role, maker


def device_type_with_ports(maker):
    """A device type with PORTS interface templates."""
    from inventory.dcim.models import DeviceType, InterfaceTemplate

    device_type, _ = DeviceType.objects.get_or_create(manufacturer=maker, model=f"bench-writes-{PORTS}")
    for n in range(1, PORTS + 1):
        InterfaceTemplate.objects.get_or_create(
            device_type=device_type, name=f"Ethernet{n}", defaults={"type": "1000base-t"}
        )
    return device_type


def device_rows(run: str, device_type, site) -> list[dict]:
    return [
        {
            "name": f"bd-{run}-{i}",
            "device_type": str(device_type.pk),
            "role": "bench-writes",
            "status": "Active",
            "location": str(site.pk),
        }
        for i in range(DEVICES)
    ]


def device_floor(device_type, site, role, active):
    """The devices and their components written with bulk_create in-process (then removed)."""
    from django.db import transaction

    from inventory.dcim.models import Device, Interface
    from inventory.dcim.naming import naturalize

    templates = list(device_type.interfacetemplates.order_by("_name"))

    def create() -> float:
        run = uuid.uuid4().hex[:8]
        start = time.perf_counter()
        with transaction.atomic():
            devices = Device.objects.bulk_create(
                Device(
                    name=f"bd-{run}-{i}",
                    _name=naturalize(f"bd-{run}-{i}"),
                    device_type=device_type,
                    role=role,
                    status=active,
                    location=site,
                )
                for i in range(DEVICES)
            )
            Interface.objects.bulk_create(
                Interface(device=d, name=t.name, _name=t._name, type=t.type, status=active)
                for d in devices
                for t in templates
            )
        taken = (time.perf_counter() - start) * 1000
        Device.objects.filter(pk__in=[d.pk for d in devices]).delete()
        return taken

    return create


def device_create(server, device_type, site) -> float:
    """Bulk create of DEVICES devices from templates over HTTP (ms; then deleted, untimed)."""
    import orjson

    body = orjson.dumps(device_rows(uuid.uuid4().hex[:8], device_type, site))
    start = time.perf_counter()
    created = orjson.loads(server.ok("POST", "/api/dcim/devices/", body, status=201))
    taken = (time.perf_counter() - start) * 1000
    server.ok("DELETE", "/api/dcim/devices/", orjson.dumps([{"id": d["id"]} for d in created]), status=204)
    return taken


def compare_devices(server, device_type, site, role, active) -> None:
    """Bulk create of devices from templates against its floor."""
    from bench import row

    floor = device_floor(device_type, site, role, active)
    device_create(server, device_type, site), floor()  # warm-up
    http, floors = [], []
    for _ in range(CYCLES):
        http.append(device_create(server, device_type, site))
        floors.append(floor())
    h, f = statistics.median(http), statistics.median(floors)
    label = f"bulk create of {DEVICES} devices x {PORTS} ports"
    row(label, h, min(http), f"floor {f:.1f} ms: {h / f:.2f}x")


def patch_growth(server, devices, active) -> None:
    """Bulk PATCH of 1000 and of 5000 interfaces: time should grow with the batch, not faster."""
    import orjson
    from bench import row
    from django.db import transaction

    from inventory.dcim.models import Interface

    for size in GROWTH:
        run = uuid.uuid4().hex[:8]
        interfaces = Interface.objects.bulk_create(
            Interface(device=devices[i % len(devices)], name=f"g-{run}-{i}", type="1000base-t", status=active)
            for i in range(size)
        )
        http, floor = [], []
        for cycle in range(3):
            body = orjson.dumps([{"id": str(i.pk), "description": f"http-{cycle}"} for i in interfaces])
            start = time.perf_counter()
            server.ok("PATCH", "/api/dcim/interfaces/", body)
            http.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            with transaction.atomic():
                for interface in interfaces:
                    interface.description = f"floor-{cycle}"
                Interface.objects.bulk_update(interfaces, ["description"])
            floor.append((time.perf_counter() - start) * 1000)
        Interface.objects.filter(pk__in=[i.pk for i in interfaces])._raw_delete(Interface.objects.db)
        h, f = statistics.median(http), statistics.median(floor)
        row(f"bulk patch of {size} interfaces", h, min(http), f"floor (bulk_update) {f:.1f} ms: {h / f:.2f}x")


def tenant_rows(run: str) -> list[dict]:
    return [{"name": f"bench-{run}-{i}", "description": "x"} for i in range(BATCH)]


def interface_rows(run: str, devices, vlan) -> list[dict]:
    return [
        {
            "device": str(devices[i % len(devices)].pk),
            "name": f"et-{run}-{i}",
            "type": "1000base-t",
            "status": "Active",
            "mode": "access",
            "untagged_vlan": str(vlan.pk),
        }
        for i in range(BATCH)
    ]


ADDRESSES = 100  # per bulk write, beside STORED addresses under the same prefixes
STORED = 792
SPACE = "bench-writes"
single_hosts = itertools.count()


def address_fixtures(active):
    """A namespace with a /16 and eight /24s in it (and a /16 for single writes), in each /24 a
    plain range (.100-.149) and an exclusive one (.200-.250), and STORED addresses (.1-.99)."""
    from inventory.ipam.models import IPAddress, IPAddressRange, Namespace, Prefix

    space, made = Namespace.objects.get_or_create(name=SPACE)
    prefixes = {p.cidr: p for p in Prefix.objects.filter(namespace=space)}
    if not made:
        return space, prefixes
    for cidr in ("10.88.0.0/16", "10.89.0.0/16", *(f"10.88.{n}.0/24" for n in range(8))):
        prefix = Prefix(
            namespace=space, status=active, type="container" if cidr.endswith("/16") else "network"
        )
        prefix.set_prefix(cidr)
        prefix.full_clean()
        prefix.save()
        prefixes[cidr] = prefix
    for n in range(8):
        for first, last, exclusive in ((100, 149, False), (200, 250, True)):
            span = IPAddressRange(namespace=space, status=active, is_exclusive=exclusive)
            span.set_start_address(f"10.88.{n}.{first}")
            span.set_end_address(f"10.88.{n}.{last}")
            span.full_clean()
            span.save()
    stored = []
    for i in range(STORED):
        address = IPAddress(namespace=space, status=active)
        address.set_address(f"10.88.{i % 8}.{i // 8 + 1}/24")
        address.prepare_for_bulk()
        stored.append(address)
    with IPAddress.write_batch():
        IPAddress.objects.bulk_create(stored)
    return space, prefixes


def address_rows(space, prefixes) -> list[dict]:
    """ADDRESSES addresses in the plain ranges, half naming their namespace, half their parent."""
    rows = []
    for i in range(ADDRESSES):
        row = {"address": f"10.88.{i % 8}.{100 + i // 8}/24", "status": "Active", "description": "x"}
        if i % 2:
            row["parent"] = str(prefixes[f"10.88.{i % 8}.0/24"].pk)
        else:
            row["namespace"] = str(space.pk)
        rows.append(row)
    return rows


def address_build(space, prefixes, active):
    """An address of `address_rows` as the write floor makes it, its parent given."""
    from inventory.ipam.models import IPAddress

    def build(row: dict):
        network = row["address"].rsplit(".", 1)[0]
        address = IPAddress(
            namespace=space, status=active, description=row["description"], parent=prefixes[f"{network}.0/24"]
        )
        address.set_address(row["address"])
        return address

    return build


def single_cycle(server, route: str, body: dict, patch: dict) -> dict[str, float]:
    """A single POST, then a PATCH of what it made (ms each); then deleted, untimed."""
    import orjson

    taken = {}
    start = time.perf_counter()
    created = orjson.loads(server.ok("POST", route, orjson.dumps(body), status=201))
    taken["single POST"] = (time.perf_counter() - start) * 1000
    start = time.perf_counter()
    server.ok("PATCH", f"{route}{created['id']}/", orjson.dumps(patch))
    taken["single PATCH"] = (time.perf_counter() - start) * 1000
    server.ok("DELETE", f"{route}{created['id']}/", status=204)
    return taken


def single_address(space) -> dict:
    n = next(single_hosts)
    return {"address": f"10.89.{n // 250}.{n % 250 + 1}/16", "status": "Active", "namespace": str(space.pk)}


def write_cases() -> list:
    """The write family, seeded on the database connected, for an A/B run (benchmarks/ab.py):
    (label, one sample(server) -> {part: ms}, samples)."""
    devices, vlan, active, site, role, maker = interface_fixtures()
    device_type = device_type_with_ports(maker)
    space, prefixes = address_fixtures(active)

    def run() -> str:
        return uuid.uuid4().hex[:8]

    return [
        (f"{BATCH} tenants", lambda s: http_cycle(s, TENANTS, tenant_rows(run())), CYCLES),
        (
            f"{BATCH} interfaces",
            lambda s: http_cycle(s, INTERFACES, interface_rows(run(), devices, vlan)),
            CYCLES,
        ),
        (
            f"{DEVICES} devices x {PORTS} ports",
            lambda s: {"create": device_create(s, device_type, site)},
            CYCLES,
        ),
        (
            f"{ADDRESSES} IP addresses",
            lambda s: http_cycle(s, IP_ADDRESSES, address_rows(space, prefixes)),
            3 * CYCLES,
        ),
        (
            "tenant",
            lambda s: single_cycle(s, TENANTS, {"name": f"single-{run()}"}, {"description": "again"}),
            SINGLE_SAMPLES // 4,
        ),
        (
            "IP address",
            lambda s: single_cycle(s, IP_ADDRESSES, single_address(space), {"description": "again"}),
            SINGLE_SAMPLES // 4,
        ),
    ]


def floor_cycle(model, rows: list[dict], build) -> dict[str, float]:
    """The same rows created, updated and deleted with the ORM's bulk operations."""
    from django.db import transaction

    taken = {}
    start = time.perf_counter()
    with transaction.atomic():
        objects = model.objects.bulk_create([build(row) for row in rows])
    taken["create"] = (time.perf_counter() - start) * 1000
    start = time.perf_counter()
    with transaction.atomic():
        for obj in objects:
            obj.description = "patched"
        model.objects.bulk_update(objects, ["description"])
    taken["patch"] = (time.perf_counter() - start) * 1000
    start = time.perf_counter()
    with transaction.atomic():
        model.objects.filter(pk__in=[obj.pk for obj in objects])._raw_delete(model.objects.db)
    taken["delete"] = (time.perf_counter() - start) * 1000
    return taken


def http_cycle(server, route: str, rows: list[dict]) -> dict[str, float]:
    import orjson

    taken = {}
    start = time.perf_counter()
    created = orjson.loads(server.ok("POST", route, orjson.dumps(rows), status=201))
    taken["create"] = (time.perf_counter() - start) * 1000
    patch = orjson.dumps([{"id": obj["id"], "description": "patched"} for obj in created])
    start = time.perf_counter()
    server.ok("PATCH", route, patch)
    taken["patch"] = (time.perf_counter() - start) * 1000
    delete = orjson.dumps([{"id": obj["id"]} for obj in created])
    start = time.perf_counter()
    server.ok("DELETE", route, delete, status=204)
    taken["delete"] = (time.perf_counter() - start) * 1000
    return taken


def compare_bulk(server, label: str, route: str, model, http_rows, floor_rows, build) -> None:
    from bench import row

    http_cycle(server, route, http_rows())  # warm-up
    floor_cycle(model, floor_rows(), build)
    http = {"create": [], "patch": [], "delete": []}
    floor = {"create": [], "patch": [], "delete": []}
    for _ in range(CYCLES):
        for name, taken in http_cycle(server, route, http_rows()).items():
            http[name].append(taken)
        for name, taken in floor_cycle(model, floor_rows(), build).items():
            floor[name].append(taken)
    for name in ("create", "patch", "delete"):
        h, f = statistics.median(http[name]), statistics.median(floor[name])
        row(f"bulk {name} of {label}", h, min(http[name]), f"floor {f:.1f} ms: {h / f:.2f}x")


def changelog_cost(server, label: str, route: str, rows) -> None:
    """Bulk create, PATCH and DELETE with the change log (as configured by default: with
    object_data_v2, the depth-1 API shape of each object) against the same on a server that keeps
    none, and on one that keeps its records without object_data_v2."""
    from bench import Server, row

    variants = {
        "without the change log": {"CHANGELOG_ENABLED": "0"},
        "without object_data_v2": {"CHANGELOG_OBJECT_DATA_V2": "0"},
    }
    with (
        Server(**variants["without the change log"]) as bare,
        Server(**variants["without object_data_v2"]) as lean,
    ):
        servers = {"change log": server, "without the change log": bare, "without object_data_v2": lean}
        for each in servers.values():
            http_cycle(each, route, rows())  # warm-up
        taken = {name: {"create": [], "patch": [], "delete": []} for name in servers}
        for _ in range(CYCLES):  # the servers take turns, so a busy spell falls on all of them
            for name, each in servers.items():
                for operation, ms in http_cycle(each, route, rows()).items():
                    taken[name][operation].append(ms)
    for operation in ("create", "patch", "delete"):
        logged = taken["change log"][operation]
        h = statistics.median(logged)
        ratios = ", ".join(
            f"{name} {statistics.median(taken[name][operation]):.1f} ms: {h / statistics.median(taken[name][operation]):.2f}x"
            for name in variants
        )
        row(f"bulk {operation} of {BATCH} {label}, change log", h, min(logged), ratios)


def bench_writes() -> None:
    import orjson
    from bench import Server, row, timed_pair

    from inventory.dcim.models import Interface
    from inventory.dcim.naming import naturalize
    from inventory.ipam.models import IPAddress
    from inventory.tenancy.models import Tenant

    print(f"writes: bulk of {BATCH} against the write floor (bulk_create, bulk_update, one DELETE)")
    devices, vlan, active, site, role, maker = interface_fixtures()
    by_pk = {str(d.pk): d for d in devices}
    with Server() as server:
        compare_bulk(
            server,
            f"{BATCH} tenants",
            TENANTS,
            Tenant,
            lambda: tenant_rows(uuid.uuid4().hex[:8]),
            lambda: tenant_rows(uuid.uuid4().hex[:8]),
            lambda r: Tenant(name=r["name"], description=r["description"]),
        )
        compare_bulk(
            server,
            f"{BATCH} interfaces",
            INTERFACES,
            Interface,
            lambda: interface_rows(uuid.uuid4().hex[:8], devices, vlan),
            lambda: interface_rows(uuid.uuid4().hex[:8], devices, vlan),
            lambda r: Interface(
                device=by_pk[r["device"]],
                name=r["name"],
                _name=naturalize(r["name"]),
                type=r["type"],
                status=active,
                mode=r["mode"],
                untagged_vlan=vlan,
            ),
        )
        space, prefixes = address_fixtures(active)
        compare_bulk(
            server,
            f"{ADDRESSES} IP addresses in ranges, with parents",
            IP_ADDRESSES,
            IPAddress,
            lambda: address_rows(space, prefixes),
            lambda: address_rows(space, prefixes),
            address_build(space, prefixes, active),
        )
        compare_devices(server, device_type_with_ports(maker), site, role, active)
        patch_growth(server, devices, active)

        changelog_cost(server, "tenants", "/api/tenancy/tenants/", lambda: tenant_rows(uuid.uuid4().hex[:8]))
        changelog_cost(
            server,
            "interfaces",
            "/api/dcim/interfaces/",
            lambda: interface_rows(uuid.uuid4().hex[:8], devices, vlan),
        )

        def single_post():
            body = orjson.dumps({"name": f"single-{uuid.uuid4().hex}"})
            single_post.last = orjson.loads(server.ok("POST", "/api/tenancy/tenants/", body, status=201))

        def floor_post():
            tenant = Tenant.objects.create(name=f"single-{uuid.uuid4().hex}")
            floor_post.last = read_back(tenant.pk)

        columns = [f.attname for f in Tenant._meta.concrete_fields]

        def read_back(pk):
            return orjson.dumps(Tenant.objects.filter(pk=pk).values(*columns)[0], default=str)

        (post, post_min), (post_floor, _) = timed_pair(single_post, floor_post, repeat=SINGLE_SAMPLES)
        row("single POST", post, post_min, f"floor {post_floor:.1f} ms: {post / post_floor:.2f}x")
        path = f"/api/tenancy/tenants/{single_post.last['id']}/"
        tenant = Tenant.objects.get(pk=single_post.last["id"])

        def floor_patch():
            tenant.description = "again"
            tenant.save(update_fields=["description", "last_updated"])
            read_back(tenant.pk)

        (patch, patch_min), (patch_floor, _) = timed_pair(
            lambda: server.ok("PATCH", path, b'{"description": "again"}'), floor_patch, repeat=SINGLE_SAMPLES
        )
        row("single PATCH", patch, patch_min, f"floor {patch_floor:.1f} ms: {patch / patch_floor:.2f}x")

        # DELETE against an in-process delete(), which checks what refers to the object alike.
        doomed = Tenant.objects.bulk_create(
            Tenant(name=f"doomed-{uuid.uuid4().hex}") for _ in range(2 * (SINGLE_SAMPLES + 1))
        )
        (gone, gone_min), (gone_floor, _) = timed_pair(
            lambda: server.ok("DELETE", f"/api/tenancy/tenants/{doomed.pop().pk}/", status=204),
            lambda: doomed.pop().delete(),
            repeat=SINGLE_SAMPLES,
        )
        row("single DELETE", gone, gone_min, f"floor {gone_floor:.1f} ms: {gone / gone_floor:.2f}x")
