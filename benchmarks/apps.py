"""The newer applications' lists against the floor: every list endpoint of the cloud, wireless,
VPN, load-balancer and data-validation applications and the newer extras, beside the location
list as the yardstick, on the same number of rows.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/netinventory_bench .venv/bin/python benchmarks/bench.py apps

Seeds COPIES copies of the test sample (three or more objects of every model each, in-process;
kept for later runs), then over HTTP: each list at depth 0 and 1 with every row on one page
against the floor (the same rows and columns, those of the objects related at depth 1 too, read
with the ORM's .values() and serialised with orjson in-process), and SQL statements per page at
two page sizes.
"""

from __future__ import annotations

COPIES = 100
APPS = ("cloud", "wireless", "vpn", "load-balancers", "data-validation")
EXTRAS = (
    "extras/saved-views",
    "extras/user-saved-view-associations",
    "extras/git-repositories",
    "extras/image-attachments",
    "extras/approval-workflow-definitions",
    "extras/approval-workflow-stage-definitions",
    "extras/approval-workflows",
    "extras/approval-workflow-stages",
)
YARDSTICK = "dcim/locations"


def measured() -> list:
    from queryengine.registry import resources

    wanted = {YARDSTICK, *EXTRAS}
    return [r for r in resources() if r.route in wanted or r.route.split("/")[0] in APPS]


def seed(copies: int = COPIES) -> None:
    import time

    from django.db import transaction

    from inventory.extras.models import Tag
    from inventory.users.models import User
    from tests.builders import build_sample

    owner = User.objects.get(username="bench")
    made = Tag.objects.filter(name__startswith="alpha-copy-").count()
    start = time.perf_counter()
    for copy in range(made, copies):
        with transaction.atomic():
            build_sample(owner, suffix=f"-copy-{copy:03d}")
    if copies > made:
        print(f"  seeded {copies - made} copies of the sample in {time.perf_counter() - start:.1f} s")


def floor(resource, depth: int, limit: int):
    import orjson

    model = resource.model
    columns = [f.attname for f in model._meta.concrete_fields]
    if depth:
        for field in model._meta.concrete_fields:
            if field.many_to_one and field.related_model is not None:
                columns += [f"{field.name}__{f.attname}" for f in field.related_model._meta.concrete_fields]
    ordering = [*(model._meta.ordering or []), "pk"]

    def read():
        rows = list(model.objects.order_by(*ordering).values(*columns)[:limit])
        return orjson.dumps(rows, default=str, option=orjson.OPT_UTC_Z)

    return read


def bench_apps() -> None:
    import orjson
    from bench import KEY, Server, analyze, timed_pair
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    print(f"apps: the newer applications' lists against the floor ({COPIES} copies of the sample)")
    seed()
    analyze()
    chosen = measured()
    client = Client(HTTP_AUTHORIZATION=f"Token {KEY}")
    print(f"  {'list':<58} {'rows':>5} {'HTTP ms':>8} {'floor ms':>9} {'ratio':>6}  SQL at 10 / 1000")
    ratios: dict[str, list[float]] = {"yardstick": [], "newer": []}
    with Server() as server:
        for resource in chosen:
            for depth in (0, 1):
                path = f"/api/{resource.route}/?limit=1000&depth={depth}"
                rows = len(orjson.loads(server.ok("GET", path))["results"])
                (http_median, _), (floor_median, _) = timed_pair(
                    lambda p=path: server.ok("GET", p), floor(resource, depth, 1000), repeat=11
                )
                counts = []
                for limit in (10, 1000):
                    with CaptureQueriesContext(connection) as queries:
                        client.get(f"/api/{resource.route}/?limit={limit}&depth={depth}")
                    counts.append(len(queries))
                ratio = http_median / floor_median
                ratios["yardstick" if resource.route == YARDSTICK else "newer"].append(ratio)
                print(
                    f"  {resource.route + f' depth={depth}':<58} {rows:>5} {http_median:8.1f} "
                    f"{floor_median:9.1f} {ratio:5.2f}x  {counts[0]} / {counts[1]}"
                )
    newer = sorted(ratios["newer"])
    print(
        f"  ratio to the floor: {YARDSTICK} {', '.join(f'{r:.2f}x' for r in ratios['yardstick'])}; "
        f"newer lists median {newer[len(newer) // 2]:.2f}x, worst {newer[-1]:.2f}x"
    )
