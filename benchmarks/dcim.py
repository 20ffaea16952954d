"""The DCIM section of the benchmarks: 10,000 devices with 48 interfaces each.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/netinventory_bench .venv/bin/python benchmarks/bench.py dcim

Seeds in-process with bulk inserts (reported), then over HTTP: 1000-interface lists at depth 0
and 1 against the floor, `interfaces/?device=<name>`, a 1000-device list at depth 1 against the
floor, SQL per list at two page sizes, and bulk creation of 100 devices whose type has 48
interface templates.
"""

from __future__ import annotations

import statistics
import time
import uuid

DEVICES = 10_000
PORTS = 48


def seed_devices(count: int = DEVICES, ports: int = PORTS) -> None:
    from bench import analyze
    from django.contrib.contenttypes.models import ContentType

    from config.monitoring.progress import Progress
    from inventory.dcim.models import (
        Device,
        DeviceType,
        Interface,
        InterfaceTemplate,
        Location,
        LocationType,
        Manufacturer,
        Platform,
        Rack,
    )
    from inventory.dcim.naming import naturalize
    from inventory.extras.models import Role, Status
    from inventory.tenancy.models import Tenant

    if Device.objects.count() >= count:
        return
    start = time.perf_counter()
    active = Status.objects.get(name="Active")
    site_type, _ = LocationType.objects.get_or_create(name="DC")
    site_type.content_types.add(*(ContentType.objects.get_for_model(m) for m in (Device, Rack, Location)))
    sites = [
        Location.objects.get_or_create(
            name=f"dc-{i}", parent=None, defaults={"location_type": site_type, "status": active}
        )[0]
        for i in range(10)
    ]
    role, _ = Role.objects.get_or_create(name="access")
    role.content_types.add(ContentType.objects.get_for_model(Device))
    maker, _ = Manufacturer.objects.get_or_create(name="bench-networks")
    device_type, _ = DeviceType.objects.get_or_create(manufacturer=maker, model="bench-48")
    for n in range(1, ports + 1):
        InterfaceTemplate.objects.get_or_create(
            device_type=device_type, name=f"Ethernet{n}", defaults={"type": "1000base-t"}
        )
    platform, _ = Platform.objects.get_or_create(name="bench-eos", defaults={"network_driver": "arista_eos"})
    tenants = [Tenant.objects.get_or_create(name=f"dcim-tenant-{i}")[0] for i in range(5)]
    racks = Rack.objects.bulk_create(
        Rack(name=f"rack-{i}", location=sites[i % 10], status=active) for i in range(count // 40)
    )
    devices = []
    for i in range(count):
        name = f"sw-{i:05d}"
        devices.append(
            Device(
                name=name,
                _name=naturalize(name),
                device_type=device_type,
                role=role,
                status=active,
                platform=platform,
                location=racks[i // 40].location,
                rack=racks[i // 40],
                position=1 + i % 40,
                face="front",
                tenant=tenants[i % 5],
                serial=f"SN{i:08d}",
            )
        )
    with Progress("devices", count) as progress:
        for first in range(0, count, 2000):
            Device.objects.bulk_create(devices[first : first + 2000])
            progress.advance(len(devices[first : first + 2000]))
    batch = []
    progress = Progress("interfaces", count * ports)
    for device in devices:
        for n in range(1, ports + 1):
            name = f"Ethernet{n}"
            batch.append(
                Interface(
                    device=device,
                    name=name,
                    _name=naturalize(name),
                    type="1000base-t",
                    status=active,
                    mtu=1500 if n % 2 else None,
                    description=f"port {n}",
                )
            )
        if len(batch) >= 20_000:
            Interface.objects.bulk_create(batch)
            progress.advance(len(batch))
            batch = []
    Interface.objects.bulk_create(batch)
    progress.finish()
    print(f"  seeded {count} devices x {ports} interfaces in {time.perf_counter() - start:.1f} s")
    analyze()


def floor(model, depth: int, related: tuple[str, ...], order: tuple[str, ...], **where):
    """The rows of a page read with .values() and serialised with orjson, in-process."""
    import orjson

    own = [f.attname for f in model._meta.concrete_fields]
    columns = list(own)
    if depth:
        for fk in related:
            target = model._meta.get_field(fk).related_model
            columns += [f"{fk}__{f.attname}" for f in target._meta.concrete_fields]

    def read():
        rows = list(model.objects.filter(**where).order_by(*order).values(*columns)[:1000])
        return orjson.dumps(rows, default=str, option=orjson.OPT_UTC_Z)

    return read


def bench_dcim() -> None:
    import orjson
    from bench import KEY, Server, row, timed, timed_pair
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from inventory.dcim.models import Device, DeviceType, Interface, Location

    print(f"dcim: {DEVICES} devices x {PORTS} interfaces")
    seed_devices()
    interface_related = (
        "device",
        "status",
        "module",
        "role",
        "lag",
        "parent_interface",
        "bridge",
        "untagged_vlan",
        "vrf",
    )
    device_related = (
        "device_type",
        "status",
        "role",
        "tenant",
        "platform",
        "location",
        "rack",
        "primary_ip4",
        "primary_ip6",
        "virtual_chassis",
        "device_redundancy_group",
        "software_version",
    )
    cases = [
        (
            "interfaces",
            "/api/dcim/interfaces/?limit=1000&depth={depth}",
            Interface,
            interface_related,
            (0, 1),
        ),
        ("devices", "/api/dcim/devices/?limit=1000&depth={depth}", Device, device_related, (1,)),
    ]
    with Server() as server:
        for label, template, model, related, depths in cases:
            order = ("device", "_name", "id") if model is Interface else ("_name", "id")
            for depth in depths:
                path = template.format(depth=depth)
                assert len(orjson.loads(server.ok("GET", path))["results"]) == 1000
                (http_median, http_min), (floor_median, floor_min) = timed_pair(
                    lambda p=path: server.ok("GET", p), floor(model, depth, related, order), repeat=21
                )
                row(f"HTTP 1000 {label} depth={depth}", http_median, http_min)
                row(f"floor 1000 {label} depth={depth}", floor_median, floor_min)
                print(f"  ratio {label} depth={depth}: {http_median / floor_median:.2f}x the floor")
        path = "/api/dcim/interfaces/?device=sw-05000&limit=100"
        assert orjson.loads(server.ok("GET", path))["count"] == PORTS
        median, best = timed(lambda: server.ok("GET", path), repeat=21)
        row("interfaces/?device=<name> (48 rows)", median, best)

        device_type = DeviceType.objects.get(model="bench-48")
        location = Location.objects.get(name="dc-0")
        samples = []
        for _ in range(3):
            run = uuid.uuid4().hex[:6]
            body = orjson.dumps(
                [
                    {
                        "name": f"new-{run}-{i}",
                        "device_type": str(device_type.pk),
                        "role": "access",
                        "status": "Active",
                        "location": str(location.pk),
                    }
                    for i in range(100)
                ]
            )
            start = time.perf_counter()
            created = orjson.loads(server.ok("POST", "/api/dcim/devices/", body, status=201))
            samples.append((time.perf_counter() - start) * 1000)
            server.ok(
                "DELETE", "/api/dcim/devices/", orjson.dumps([{"id": d["id"]} for d in created]), status=204
            )
        row("bulk create 100 devices (48 interfaces each)", statistics.median(samples), min(samples))
    client = Client(HTTP_AUTHORIZATION=f"Token {KEY}")
    for route in ("interfaces", "devices"):
        for depth in (0, 1):
            counts = []
            for limit in (10, 1000):
                with CaptureQueriesContext(connection) as queries:
                    client.get(f"/api/dcim/{route}/?limit={limit}&depth={depth}")
                counts.append(len(queries))
            print(
                f"  SQL per {route} list at depth={depth}: limit=10 -> {counts[0]}, limit=1000 -> {counts[1]}"
            )
