"""The GraphQL section of the benchmarks: nested lists against the REST lists of the same rows.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/netinventory_bench .venv/bin/python benchmarks/bench.py graphql

Seeds in-process (50 devices x 24 interfaces, an address on each interface, a tree of 3 regions
and 15 sites), then over HTTP, each GraphQL query against the REST list that returns the same
rows: devices with their interfaces and those interfaces' addresses; 1000 interfaces with their
device and addresses; the location tree with device counts and devices.
"""

from __future__ import annotations

import time

import orjson

DEVICES, PORTS = 50, 24
PREFIX = "gql-"


def seed() -> None:
    from django.contrib.contenttypes.models import ContentType

    from inventory.dcim.models import Device, DeviceType, Interface, Location, LocationType, Manufacturer
    from inventory.dcim.naming import naturalize
    from inventory.extras.models import Role, Status
    from inventory.ipam.models import IPAddress, IPAddressToInterface

    if Device.objects.filter(name__startswith=PREFIX).count() >= DEVICES:
        return
    start = time.perf_counter()
    active = Status.objects.get(name="Active")
    for model in (Device, IPAddress):
        active.content_types.add(ContentType.objects.get_for_model(model))
    region_type, _ = LocationType.objects.get_or_create(name=f"{PREFIX}region", defaults={"nestable": True})
    site_type, _ = LocationType.objects.get_or_create(name=f"{PREFIX}site", defaults={"parent": region_type})
    site_type.content_types.add(ContentType.objects.get_for_model(Device))
    regions = [
        Location.objects.create(name=f"{PREFIX}region-{r}", location_type=region_type, status=active)
        for r in range(3)
    ]
    sites = [
        Location.objects.create(
            name=f"{PREFIX}site-{s}", parent=regions[s % 3], location_type=site_type, status=active
        )
        for s in range(15)
    ]
    role, _ = Role.objects.get_or_create(name=f"{PREFIX}leaf")
    role.content_types.add(ContentType.objects.get_for_model(Device))
    maker, _ = Manufacturer.objects.get_or_create(name=f"{PREFIX}maker")
    device_type, _ = DeviceType.objects.get_or_create(manufacturer=maker, model=f"{PREFIX}24")
    devices = Device.objects.bulk_create(
        Device(
            name=f"{PREFIX}{d:03d}",
            _name=naturalize(f"{PREFIX}{d:03d}"),
            device_type=device_type,
            role=role,
            status=active,
            location=sites[d % 15],
        )
        for d in range(DEVICES)
    )
    interfaces = Interface.objects.bulk_create(
        Interface(
            device=device, name=f"eth{p}", _name=naturalize(f"eth{p}"), type="1000base-t", status=active
        )
        for device in devices
        for p in range(PORTS)
    )
    addresses = []
    for index, _ in enumerate(interfaces):
        address = IPAddress(status=active)
        address.set_address(f"10.{200 + index // 65536}.{index // 256 % 256}.{index % 256}/16")
        addresses.append(address)
    for address in addresses:
        address.prepare_for_bulk()
    with IPAddress.write_batch():
        IPAddress.objects.bulk_create(addresses)
    IPAddressToInterface.objects.bulk_create(
        IPAddressToInterface(ip_address=address, interface=interface)
        for address, interface in zip(addresses, interfaces, strict=True)
    )
    print(
        f"  seeded {DEVICES} devices x {PORTS} interfaces and addresses in {time.perf_counter() - start:.1f} s"
    )


def graphql_cases() -> list:
    """The GraphQL family, seeded on the database connected: (label, request(server), samples)
    of each GraphQL query and of the REST list of the same rows, in pairs, as a run against the
    REST lists and an A/B run (benchmarks/ab.py) time them."""
    seed()
    names = ",".join(f"{PREFIX}{d:03d}" for d in range(DEVICES))
    shapes = [
        (
            "devices > interfaces > addresses",
            f'{{ devices(name__isw: "{PREFIX}") {{ name interfaces {{ name ip_addresses {{ address }} }} }} }}',
            f"/api/dcim/interfaces/?device={names.replace(',', '&device=')}&limit=1200&depth=1",
        ),
        (
            "1000 interfaces > device, addresses",
            f"{{ interfaces(device: {orjson.dumps(names.split(',')).decode()}, limit: 1000) "
            "{ name device { name } ip_addresses { address } } }",
            f"/api/dcim/interfaces/?device={names.replace(',', '&device=')}&limit=1000&depth=1",
        ),
        (
            "location tree > device counts, devices",
            f'{{ locations(name__isw: "{PREFIX}") {{ name device_count children {{ name }} devices {{ name }} }} }}',
            f"/api/dcim/locations/?name__isw={PREFIX}&limit=100&depth=1",
        ),
    ]

    def graphql(server, body: bytes) -> None:
        answer = orjson.loads(server.ok("POST", "/api/graphql/", body))
        assert "errors" not in answer, answer

    cases = []
    for label, query, rest_path in shapes:
        body = orjson.dumps({"query": query})
        cases.append((f"GraphQL {label}", lambda s, b=body: graphql(s, b), 15))
        cases.append((f"REST    {label}", lambda s, p=rest_path: s.ok("GET", p), 15))
    return cases


def bench_graphql() -> None:
    from bench import Server, row, timed_pair

    print(f"graphql: {DEVICES} devices x {PORTS} interfaces x an address each")
    cases = graphql_cases()
    with Server() as server:
        for (label, graphql, repeat), (rest_label, rest, _) in zip(cases[::2], cases[1::2], strict=True):
            (graphql_median, graphql_best), (rest_median, rest_best) = timed_pair(
                lambda q=graphql: q(server), lambda r=rest: r(server), repeat=repeat
            )
            row(label, graphql_median, graphql_best)
            row(rest_label, rest_median, rest_best)
            print(f"  ratio {label[8:]}: GraphQL {graphql_median / rest_median:.2f}x the REST list")
