"""The cables section: every interface of the DCIM section's 10,000 devices cabled.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/netinventory_bench .venv/bin/python benchmarks/bench.py cables

Seeds in-process (device 2k's ports to device 2k+1's, with their peers and paths written in
bulk; reported), then over HTTP: a device's interfaces at depth 1 with their connected
endpoints, a 1000-cable list at depth 1, `trace` of a 7-hop path through two patch panels, and
bulk creation of 1000 cables (their paths traced in the same request).
"""

from __future__ import annotations

import time
import uuid


def seed_cables() -> None:
    from bench import analyze
    from dcim import seed_devices
    from django.contrib.contenttypes.models import ContentType

    from config.monitoring.progress import Progress
    from inventory.dcim.models import Cable, CablePath, Device, Interface
    from inventory.dcim.models.paths import CablePathNode
    from inventory.extras.models import Status

    seed_devices()
    if Cable.objects.exists():
        return
    start = time.perf_counter()
    kind = ContentType.objects.get_for_model(Interface)
    cable_kind = ContentType.objects.get_for_model(Cable)
    connected = Status.objects.get(name="Connected")
    names = list(Device.objects.filter(name__startswith="sw-").order_by("name").values_list("pk", flat=True))
    progress = Progress("devices cabled", len(names))
    for first in range(0, len(names) - 1, 200):
        pairs = names[first : first + 200]
        ports = {}
        for device, name, pk in Interface.objects.filter(device__in=pairs).values_list(
            "device", "name", "pk"
        ):
            ports[(device, name)] = pk
        cables, paths, ends = [], [], []
        for left, right in zip(pairs[::2], pairs[1::2], strict=False):
            for (device, name), a in ports.items():
                if device != left:
                    continue
                b = ports[(right, name)]
                cable = Cable(
                    termination_a_type=kind,
                    termination_a_id=a,
                    termination_b_type=kind,
                    termination_b_id=b,
                    status=connected,
                )
                cables.append(cable)
                for origin, far in ((a, b), (b, a)):
                    hops = [
                        f"dcim.interface:{origin}",
                        f"{cable_kind.app_label}.cable:{cable.pk}",
                        f"dcim.interface:{far}",
                    ]
                    paths.append(
                        CablePath(
                            origin_type=kind,
                            origin_id=origin,
                            destination_type=kind,
                            destination_id=far,
                            path=hops,
                            is_active=True,
                        )
                    )
                    ends.append((origin, far, cable.pk, paths[-1].pk))
        Cable.objects.bulk_create(cables, batch_size=5000)
        CablePath.objects.bulk_create(paths, batch_size=5000)
        CablePathNode.objects.bulk_create(
            (CablePathNode(cable_path=path, node=hop) for path in paths for hop in path.path),
            batch_size=10000,
        )
        updates = []
        for origin, far, cable, path in ends:
            updates.append(
                Interface(pk=origin, cable_id=cable, _cable_peer_type=kind, _cable_peer_id=far, _path_id=path)
            )
        Interface.objects.bulk_update(
            updates, ["cable", "_cable_peer_type", "_cable_peer_id", "_path"], batch_size=5000
        )
        progress.advance(len(pairs))
    progress.finish()
    print(f"  seeded {Cable.objects.count()} cables with their paths in {time.perf_counter() - start:.1f} s")
    analyze()


def bench_cables() -> None:
    import orjson
    from bench import Server, row, timed

    from inventory.dcim.models import Device, DeviceType, FrontPort, Interface, Location, RearPort

    print("cables: every interface of 10,000 devices cabled")
    seed_cables()
    with Server() as server:
        path = "/api/dcim/interfaces/?device=sw-05000&depth=1&limit=100"
        rows = orjson.loads(server.ok("GET", path))["results"]
        assert rows[0]["connected_endpoint"] is not None
        median, best = timed(lambda: server.ok("GET", path), repeat=21)
        row("interfaces/?device=<name>&depth=1 (48 cabled)", median, best)
        path = "/api/dcim/cables/?limit=1000&depth=1"
        assert len(orjson.loads(server.ok("GET", path))["results"]) == 1000
        median, best = timed(lambda: server.ok("GET", path), repeat=11)
        row("1000 cables, depth 1", median, best)

        # A 7-hop path: interface, front, rear, (trunk), rear, front, interface.
        location = Location.objects.get(name="dc-1")
        device_type = DeviceType.objects.get(model="bench-48")
        run = uuid.uuid4().hex[:6]

        def device(name):
            body = orjson.dumps(
                {
                    "name": f"{name}-{run}",
                    "device_type": str(device_type.pk),
                    "role": "access",
                    "status": "Active",
                    "location": str(location.pk),
                }
            )
            return Device.objects.get(
                pk=orjson.loads(server.ok("POST", "/api/dcim/devices/", body, status=201))["id"]
            )

        def port(model, name, **fields):
            body = orjson.dumps(
                {"device": str(fields.pop("device").pk), "name": name, "type": "8p8c", **fields}
            )
            route = "front-ports" if model is FrontPort else "rear-ports"
            return orjson.loads(server.ok("POST", f"/api/dcim/{route}/", body, status=201))["id"]

        def cable(a_type, a, b_type, b):
            body = orjson.dumps(
                {
                    "termination_a_type": a_type,
                    "termination_a_id": str(a),
                    "termination_b_type": b_type,
                    "termination_b_id": str(b),
                    "status": "Connected",
                }
            )
            server.ok("POST", "/api/dcim/cables/", body, status=201)

        x, a, b, y = device("x"), device("pa"), device("pb"), device("y")
        rear_a, rear_b = port(RearPort, "r1", device=a), port(RearPort, "r1", device=b)
        front_a = port(FrontPort, "f1", device=a, rear_port=rear_a)
        front_b = port(FrontPort, "f1", device=b, rear_port=rear_b)
        x1 = Interface.objects.get(device=x, name="Ethernet1")
        y1 = Interface.objects.get(device=y, name="Ethernet1")
        cable("dcim.interface", x1.pk, "dcim.frontport", front_a)
        cable("dcim.rearport", rear_a, "dcim.rearport", rear_b)
        cable("dcim.frontport", front_b, "dcim.interface", y1.pk)
        trace = f"/api/dcim/interfaces/{x1.pk}/trace/"
        assert len(orjson.loads(server.ok("GET", trace))) == 3
        median, best = timed(lambda: server.ok("GET", trace), repeat=21)
        row("trace, 7 hops through two patch panels", median, best)

        spare = [device(f"spare{i}") for i in range(42)]
        ends = list(Interface.objects.filter(device__in=spare).values_list("pk", flat=True))[:2000]
        assert len(ends) == 2000
        body = orjson.dumps(
            [
                {
                    "termination_a_type": "dcim.interface",
                    "termination_a_id": str(ends[i]),
                    "termination_b_type": "dcim.interface",
                    "termination_b_id": str(ends[i + 1]),
                    "status": "Connected",
                }
                for i in range(0, 2000, 2)
            ]
        )
        start = time.perf_counter()
        server.ok("POST", "/api/dcim/cables/", body, status=201)
        taken = (time.perf_counter() - start) * 1000
        row("bulk create 1000 cables (paths traced)", taken, taken)
