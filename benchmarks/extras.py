"""The extras section of the benchmarks: devices with five custom fields and twenty config contexts.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/netinventory_bench .venv/bin/python benchmarks/bench.py extras

Seeds devices in-process with bulk inserts, every one with data in five custom fields, and twenty
config contexts assigned by location, role, platform, tenant and tag; then over HTTP, at 10,000
and again at 100,000 such devices: `cf_<text>__ic=`, `cf_<integer>__gte=`, and a 1000-device list
with and without `include=config_context` (and its SQL count).
"""

from __future__ import annotations

import time

STEPS = (10_000, 100_000)
SITES = 20
OWNERS = 10


def seed_fields_and_contexts() -> None:
    from django.contrib.contenttypes.models import ContentType

    from inventory.dcim.models import Device, Location, LocationType, Platform
    from inventory.extras.models import ConfigContext, CustomField, CustomFieldChoice, Role, Status, Tag
    from inventory.tenancy.models import Tenant

    device_ct = ContentType.objects.get_for_model(Device)
    for key, kind in (
        ("owner", "text"),
        ("ports", "integer"),
        ("tier", "select"),
        ("audited", "boolean"),
        ("since", "date"),
    ):
        field, created = CustomField.objects.get_or_create(
            key=key, defaults={"label": key.title(), "type": kind}
        )
        if created:
            field.content_types.add(device_ct)
    tier = CustomField.objects.get(key="tier")
    for value in ("gold", "silver", "bronze"):
        CustomFieldChoice.objects.get_or_create(custom_field=tier, value=value)
    if ConfigContext.objects.filter(name__startswith="cc-").count() >= 20:
        return
    active = Status.objects.get(name="Active")
    site_type, _ = LocationType.objects.get_or_create(name="CF site")
    site_type.content_types.add(device_ct)
    sites = [
        Location.objects.get_or_create(
            name=f"cf-site-{i}", parent=None, defaults={"location_type": site_type, "status": active}
        )[0]
        for i in range(SITES)
    ]
    roles = [Role.objects.get_or_create(name=f"cf-role-{i}")[0] for i in range(3)]
    for role in roles:
        role.content_types.add(device_ct)
    platform, _ = Platform.objects.get_or_create(name="cf-os")
    tenant, _ = Tenant.objects.get_or_create(name="cf-tenant")
    tag, _ = Tag.objects.get_or_create(name="cf-tag")
    tag.content_types.add(device_ct)
    ConfigContext.objects.create(
        name="cc-global", weight=10, data={"ntp": ["192.0.2.1"], "dns": ["192.0.2.53"]}
    )
    for i in range(10):
        context = ConfigContext.objects.create(
            name=f"cc-site-{i}", weight=100 + i, data={"site": i, "syslog": {"host": f"192.0.2.{100 + i}"}}
        )
        context.locations.set([sites[i], sites[i + 10]])
    for i, role in enumerate(roles):
        context = ConfigContext.objects.create(
            name=f"cc-role-{i}", weight=200, data={"role": i, "syslog": {"port": 514 + i}}
        )
        context.roles.set([role])
    for name, field, target in (
        ("cc-platform", "platforms", platform),
        ("cc-tenant", "tenants", tenant),
        ("cc-tag", "tags", tag),
    ):
        context = ConfigContext.objects.create(name=name, weight=300, data={name: True})
        getattr(context, field).set([target])
    for i in range(3):
        ConfigContext.objects.create(name=f"cc-extra-{i}", weight=400 + i, data={"extra": {f"k{i}": i}})


def seed_devices(total: int) -> None:
    """Custom-field devices up to `total`, each with data in the five fields."""
    from bench import analyze

    from config.monitoring.progress import Progress
    from inventory.dcim.models import Device, DeviceType, Location, Manufacturer, Platform
    from inventory.dcim.naming import naturalize
    from inventory.extras.models import Role, Status
    from inventory.tenancy.models import Tenant

    have = Device.objects.filter(name__startswith="cf-").count()
    if have >= total:
        return
    start = time.perf_counter()
    active = Status.objects.get(name="Active")
    sites = list(Location.objects.filter(name__startswith="cf-site-").order_by("name"))
    roles = list(Role.objects.filter(name__startswith="cf-role-").order_by("name"))
    maker, _ = Manufacturer.objects.get_or_create(name="cf-networks")
    device_type, _ = DeviceType.objects.get_or_create(manufacturer=maker, model="cf-1")
    platform, tenant = Platform.objects.get(name="cf-os"), Tenant.objects.get(name="cf-tenant")
    batch = []
    progress = Progress("custom-field devices", total - have)
    for i in range(have, total):
        name = f"cf-{i:06d}"
        batch.append(
            Device(
                name=name,
                _name=naturalize(name),
                device_type=device_type,
                role=roles[i % 3],
                status=active,
                location=sites[i % SITES],
                platform=platform if i % 2 else None,
                tenant=tenant if i % 5 == 0 else None,
                _custom_field_data={
                    "owner": f"team-{i % OWNERS}",
                    "ports": 8 + i % 48,
                    "tier": ("gold", "silver", "bronze")[i % 3],
                    "audited": bool(i % 2),
                    "since": f"2024-{1 + i % 12:02d}-01",
                },
            )
        )
        if len(batch) >= 5000:
            Device.objects.bulk_create(batch)
            progress.advance(len(batch))
            batch = []
    Device.objects.bulk_create(batch)
    progress.finish()
    print(f"  seeded devices up to {total} custom-field devices in {time.perf_counter() - start:.1f} s")
    analyze()


def bench_extras() -> None:
    import orjson
    from bench import KEY, Server, row, timed
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from inventory.dcim.models import Device

    print("extras: devices with 5 custom fields, 20 config contexts")
    seed_fields_and_contexts()
    cases = (
        ("cf_owner__ic=team-7 (limit 50)", "/api/dcim/devices/?cf_owner__ic=team-7&limit=50"),
        ("cf_ports__gte=50 (limit 50)", "/api/dcim/devices/?cf_ports__gte=50&limit=50"),
        ("1000 devices", "/api/dcim/devices/?limit=1000"),
        ("1000 devices, include=config_context", "/api/dcim/devices/?limit=1000&include=config_context"),
    )
    for total in STEPS:
        seed_devices(total)
        print(f"  at {total} custom-field devices ({Device.objects.count()} devices in all):")
        with Server() as server:
            for label, path in cases:
                body = orjson.loads(server.ok("GET", path))
                assert body["results"], path
                median, best = timed(lambda p=path: server.ok("GET", p), repeat=11)
                row(f"{label} [{body['count']} match]", median, best)
        client = Client(HTTP_AUTHORIZATION=f"Token {KEY}")
        counts = []
        for limit in (10, 1000):
            with CaptureQueriesContext(connection) as queries:
                client.get(f"/api/dcim/devices/?limit={limit}&include=config_context")
            counts.append(len(queries))
        print(
            f"  SQL per device list with config contexts: limit=10 -> {counts[0]}, limit=1000 -> {counts[1]}"
        )
