"""Reproducible performance runs against a real HTTP server (gunicorn) on PostgreSQL.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/netinventory_bench .venv/bin/python benchmarks/bench.py
    ... benchmarks/bench.py list writes ipam      # choose sections (default: all)
    ... benchmarks/bench.py ab <commit> [list writes graphql]

`ab <commit>` compares this checkout with an earlier commit instead of with the floor: the
commit is served from a git worktree beside this checkout, each on a fresh database
(DATABASE_URL's name with `_a` and `_b`), the list, write and GraphQL families' cases (those of
the sections below) alternate their samples between the two, and each case prints both medians,
the ratio this / base, SLOWER when it is above 1.10, and each worker's CPU time per sample
(benchmarks/ab.py). Run it against the previous main before a change lands.

Sections:
  list    a 1000-row location list at depth 0 and 1 over HTTP against the floor (the same rows read
          with the ORM's .values() and serialised with orjson in-process), and SQL counts per page
  writes  bulk create, PATCH and DELETE of 1000 tenants, of 1000 interfaces and of 100 IP addresses
          (in ranges, naming their namespace or parent prefix, beside 792 others), and bulk create
          of 100 devices whose type has 48 interface templates, against the write floor (the same
          rows with bulk_create, bulk_update, one DELETE in-process); bulk PATCH of 1000 and 5000
          interfaces; single POST and PATCH against an in-process create (or update) and
          read-back, single DELETE against an in-process delete(); the same against servers without
          the change log and without object_data_v2 (benchmarks/writes.py)
  ipam    100,000 addresses and 10,000 prefixes: seeding time, then network lookups and
          available-ips at 10k and at 100k addresses
  dcim    10,000 devices x 48 interfaces: interface and device lists against the floor, a
          device's interfaces, bulk creation of devices from templates (benchmarks/dcim.py)
  cables  every one of those interfaces cabled: connected endpoints, cable lists, trace, bulk
          cable creation (benchmarks/cables.py)
  extras  10,000 then 100,000 devices with 5 custom fields and 20 config contexts: cf_ filters and
          a 1000-device list with include=config_context (benchmarks/extras.py)
  v1      1000 locations and 1000 prefixes at API 1.3 (the 1.x nested form: sites found through
          the tree, statuses as {value, label}) against the same lists at 3.0 depth 1, sampled
          alternately in one run, and SQL counts per page
  graphql 50 devices x 24 interfaces x an address: nested GraphQL lists (devices > interfaces >
          addresses, 1000 interfaces > device and addresses, a location tree with device counts)
          against the REST lists of the same rows (benchmarks/nested.py)
  apps    every list of the newer applications (cloud, wireless, VPN, load balancers, data
          validation, newer extras) at depth 0 and 1 against the floor, beside the location list,
          on 100 copies of the test sample, and SQL per page at two page sizes (benchmarks/apps.py);
          not in the default sections
  jobs    job enqueue-to-start latency through a Redis broker (BENCH_REDIS_URL) and a real worker,
          p50 and p99 over 300 runs (benchmarks/jobs.py); not in the default sections
"""

from __future__ import annotations

import http.client
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/netinventory_bench")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Servers refuse to start without one; this stays the same from run to run, as the tokens the
# benchmark database keeps are sealed with it.
os.environ.setdefault("SECRET_KEY", "netinventory-benchmarks-" + "0" * 40)
KEY = "b" * 40


def ensure_database() -> None:
    from urllib.parse import urlparse

    import psycopg

    url = urlparse(os.environ["DATABASE_URL"])
    if not url.scheme.startswith("postgres"):
        return
    name = url.path.lstrip("/")
    admin = url._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def setup() -> None:
    ensure_database()
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from inventory.users.models import Token, User

    user, _ = User.objects.get_or_create(username="bench", defaults={"is_superuser": True})
    Token.objects.get_or_create(key=KEY, defaults={"user": user})


def timed(fn, repeat: int = 7) -> tuple[float, float]:
    return timed_pair(fn, None, repeat)[0]


def timed_pair(first, second, repeat: int) -> list[tuple[float, float]]:
    """(median, min) in ms of each function; samples alternate, so a shared machine's
    slow spells fall on both alike and the ratio between them stays fair."""
    functions = [f for f in (first, second) if f is not None]
    samples: list[list[float]] = [[] for _ in functions]
    for f in functions:
        f()  # warm-up: caches, plans, connections
    for _ in range(repeat):
        for f, taken in zip(functions, samples, strict=True):
            start = time.perf_counter()
            f()
            taken.append((time.perf_counter() - start) * 1000)
    return [(statistics.median(taken), min(taken)) for taken in samples]


class Server:
    """gunicorn with one worker, started for the run and always stopped; `root`: the checkout
    it serves (this one unless told)."""

    def __init__(self, root: Path = ROOT, **environment: str):
        self.root = root
        self.environment = environment  # settings of this server only

    def __enter__(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.process = subprocess.Popen(
            [
                str(self.root / ".venv/bin/gunicorn"),
                "config.wsgi:application",
                "-b",
                f"127.0.0.1:{self.port}",
                "-w",
                "1",
                "--threads",
                "1",
                "--log-level",
                "warning",
            ],
            cwd=self.root,
            env={**os.environ, **self.environment},
        )
        for _ in range(100):
            try:
                self.request("GET", "/api/status/")
                return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("server did not start")

    def __exit__(self, *exc):
        self.process.terminate()
        self.process.wait(timeout=10)

    def cpu(self) -> float:
        """Milliseconds its worker process (every thread: it reads in threads too) has spent on
        a CPU so far, as the kernel counts it in nanoseconds: what requests cost the server,
        however busy the machine is."""
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children").read_text().split()
        spent = 0
        for pid in children:
            for task in Path(f"/proc/{pid}/task").iterdir():
                spent += int((task / "schedstat").read_text().split()[0])
        return spent / 1e6

    def request(self, method: str, path: str, body: bytes | None = None) -> tuple[int, bytes]:
        if not hasattr(self, "connection"):
            self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        headers = {"Authorization": f"Token {KEY}", "Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        try:
            self.connection.request(method, path, body=body, headers=headers)
            response = self.connection.getresponse()
        except (http.client.HTTPException, OSError):
            del self.connection
            raise
        return response.status, response.read()

    def ok(self, method: str, path: str, body: bytes | None = None, status: int = 200) -> bytes:
        code, content = self.request(method, path, body)
        if code != status:
            raise RuntimeError(f"{method} {path} -> {code}: {content[:300]!r}")
        return content


def row(label: str, median: float, best: float, extra: str = "") -> None:
    print(f"  {label:<46} {median:9.1f} ms  (min {best:7.1f}) {extra}")


# -- list -----------------------------------------------------------------------------------------


def seed_locations(count: int) -> None:
    from config.monitoring.progress import Progress
    from inventory.dcim.models import Location, LocationType
    from inventory.extras.models import Status, Tag
    from inventory.tenancy.models import Tenant

    if Location.objects.count() >= count:
        return
    start = time.perf_counter()
    region, _ = LocationType.objects.get_or_create(name="Region", defaults={"nestable": True})
    site, _ = LocationType.objects.get_or_create(name="Site", defaults={"parent": region})
    active = Status.objects.get(name="Active")
    tenants = [Tenant.objects.get_or_create(name=f"tenant-{i}")[0] for i in range(20)]
    tags = [Tag.objects.get_or_create(name=f"tag-{i}")[0] for i in range(5)]
    roots = [
        Location.objects.get_or_create(
            name=f"region-{i}", parent=None, defaults={"location_type": region, "status": active}
        )[0]
        for i in range(5)
    ]
    rows = [
        Location(
            name=f"site-{i:05d}",
            location_type=site,
            status=active,
            parent=roots[i % 5],
            tenant=tenants[i % 20] if i % 7 else None,
            facility=f"DC {i}",
            description=f"site number {i}",
            physical_address=f"{i} Network Street",
            asn=64512 + i,
        )
        for i in range(count)
    ]
    sites = []
    with Progress("locations", count) as progress:
        for first in range(0, count, 2000):
            sites += Location.objects.bulk_create(rows[first : first + 2000])
            progress.advance(len(rows[first : first + 2000]))
    through = Location.tags.through
    through.objects.bulk_create(
        through(location_id=s.pk, tag_id=tags[(i + k) % 5].pk)
        for i, s in enumerate(sites)
        for k in range(i % 3)
    )
    print(f"  seeded {count} locations in {time.perf_counter() - start:.1f} s")
    analyze()


def analyze() -> None:
    """Planner statistics, as autovacuum keeps them on a running database."""
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")


def floor(depth: int):
    import orjson

    from inventory.dcim.models import Location

    own = [f.attname for f in Location._meta.concrete_fields]
    related = []
    if depth:
        for fk, model in (("parent", Location), ("location_type", None), ("status", None), ("tenant", None)):
            target = model or Location._meta.get_field(fk).related_model
            related += [f"{fk}__{f.attname}" for f in target._meta.concrete_fields]

    def read():
        rows = list(Location.objects.order_by("name", "pk").values(*own, *related)[:1000])
        return orjson.dumps(rows, default=str, option=orjson.OPT_UTC_Z)

    return read


def list_cases(rows: int) -> list:
    """The list family, seeded on the database connected: (label, request(server), samples),
    as a run against the floor and an A/B run (benchmarks/ab.py) time them."""
    import orjson

    seed_locations(rows)

    def get(server, path: str) -> None:
        assert len(orjson.loads(server.ok("GET", path))["results"]) == 1000

    # Many samples: one request is tens of milliseconds and a shared machine is noisy.
    return [
        (
            f"1000 locations depth={depth}",
            lambda s, d=depth: get(s, f"/api/dcim/locations/?limit=1000&depth={d}"),
            41,
        )
        for depth in (0, 1)
    ]


def bench_list(rows: int) -> None:
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    print("list: 1000 locations per page")
    cases = list_cases(rows)
    with Server() as server:
        for depth, (_, request, repeat) in enumerate(cases):
            (http_median, http_min), (floor_median, floor_min) = timed_pair(
                lambda r=request: r(server), floor(depth), repeat=repeat
            )
            target = 1.5 if depth == 0 else 2.0
            row(f"HTTP depth={depth}", http_median, http_min)
            row(f"floor depth={depth} (.values() + orjson)", floor_median, floor_min)
            print(f"  ratio depth={depth}: {http_median / floor_median:.2f}x the floor (target {target}x)")
    client = Client(HTTP_AUTHORIZATION=f"Token {KEY}")
    for depth in (0, 1, 2):
        counts = []
        for limit in (10, 1000):
            with CaptureQueriesContext(connection) as queries:
                client.get(f"/api/dcim/locations/?limit={limit}&depth={depth}")
            counts.append(len(queries))
        print(
            f"  SQL queries per request at depth={depth}: limit=10 -> {counts[0]}, limit=1000 -> {counts[1]}"
        )


# -- ipam -----------------------------------------------------------------------------------------


def seed_ipam(addresses: int, prefixes: int) -> None:
    """/24 prefixes under 10.0.0.0/8 and addresses filling them from the bottom."""
    from config.monitoring.progress import Progress
    from inventory.extras.models import Status
    from inventory.ipam import networks, parents
    from inventory.ipam.models import IPAddress, Prefix

    have = IPAddress.objects.count()
    if have >= addresses and Prefix.objects.count() >= prefixes:
        return
    start = time.perf_counter()
    active = Status.objects.get(name="Active")
    namespace = parents.default_namespace_id()  # bulk_create skips save(), which sets it
    base = 10 << 24
    if Prefix.objects.count() < prefixes:
        Prefix.objects.all().delete()
        rows = [Prefix(status=active, type="container", namespace_id=namespace)]
        rows[0].set_prefix("10.0.0.0/8")
        for i in range(prefixes - 1):
            p = Prefix(status=active, namespace_id=namespace)
            p.set_prefix(f"{networks.address_text(4, networks.to_bytes(base + (i << 8)))}/24")
            rows.append(p)
        Prefix.objects.bulk_create(rows, batch_size=2000)
    batch = []
    progress = Progress("addresses", max(addresses - have, 0))
    for i in range(have, addresses):
        ip = IPAddress(status=active, namespace_id=namespace)
        # 200 addresses per /24 so every prefix keeps free space
        ip.set_address(
            f"{networks.address_text(4, networks.to_bytes(base + ((i // 200) << 8) + i % 200 + 1))}/24"
        )
        batch.append(ip)
        if len(batch) == 5000:
            IPAddress.objects.bulk_create(batch)
            progress.advance(len(batch))
            batch = []
    IPAddress.objects.bulk_create(batch)
    progress.finish()
    print(f"  seeded to {addresses} addresses and {prefixes} prefixes in {time.perf_counter() - start:.1f} s")
    analyze()


def bench_ipam() -> None:
    from inventory.ipam.models import Prefix

    print("ipam: lookups at two sizes")
    for addresses in (10_000, 100_000):
        seed_ipam(addresses, 10_000)
        middle = Prefix.objects.get(prefix_length=24, network_address=bytes(12) + bytes([10, 0, 20, 0]))
        with Server() as server:
            cases = [
                (
                    "prefixes net_contained 10.0.16.0/20",
                    "/api/ipam/prefixes/?prefix__net_contained=10.0.16.0/20&limit=50",
                ),
                (
                    "addresses net_host_contained 10.0.20.0/24",
                    "/api/ipam/ip-addresses/?address__net_host_contained=10.0.20.0/24&limit=50",
                ),
                ("addresses parent=<prefix id>", f"/api/ipam/ip-addresses/?parent={middle.pk}&limit=50"),
                ("prefix available-ips (50)", f"/api/ipam/prefixes/{middle.pk}/available-ips/"),
            ]
            print(f" with {addresses} addresses:")
            for label, path in cases:
                server.ok("GET", path)
                median, best = timed(lambda p=path: server.ok("GET", p), repeat=15)
                row(label, median, best)


# -- API 1.x --------------------------------------------------------------------------------------


def bench_v1(rows: int) -> None:
    """The 1.x path costs no more than depth 1: the same page both ways, alternately."""
    import orjson
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    print("v1: 1000 objects per page at 1.3 (nested) against 3.0 depth=1")
    seed_locations(rows)
    seed_ipam(10_000, 10_000)
    lists = ("/api/dcim/locations/?limit=1000", "/api/ipam/prefixes/?limit=1000")
    with Server() as server:
        for path in lists:
            old = f"{path}&api_version=1.3"
            assert len(orjson.loads(server.ok("GET", old))["results"]) == 1000
            # 3.0 leaves many-to-many lists (tags) out by default; 1.x shows them: both compared.
            for new in (f"{path}&depth=1", f"{path}&depth=1&exclude_m2m=false"):
                (old_median, old_min), (new_median, new_min) = timed_pair(
                    lambda p=old: server.ok("GET", p), lambda p=new: server.ok("GET", p), repeat=31
                )
                row(f"{path.split('?')[0]} at 1.3", old_median, old_min)
                row(f"  at 3.0 {new.split('&', 1)[1]}", new_median, new_min)
                print(f"  ratio: 1.3 / 3.0 = {old_median / new_median:.2f}x (target <= 1.0x)")
    client = Client(HTTP_AUTHORIZATION=f"Token {KEY}")
    for path in lists:
        for shape in ("api_version=1.3", "api_version=1.3&brief=1", "depth=1"):
            counts = []
            for limit in (10, 1000):
                with CaptureQueriesContext(connection) as queries:
                    client.get(path.replace("limit=1000", f"limit={limit}") + f"&{shape}")
                counts.append(len(queries))
            print(
                f"  SQL per request {path.split('?')[0]} {shape}: limit=10 -> {counts[0]}, 1000 -> {counts[1]}"
            )


def main() -> None:
    if sys.argv[1:2] == ["ab"]:
        import ab

        ab.run(sys.argv[2], sys.argv[3:] or list(ab.FAMILIES))
        return
    sections = sys.argv[1:] or ["list", "writes", "ipam", "dcim", "cables", "extras", "v1", "graphql"]
    rows = 5000
    setup()
    from django.db import connection

    print(f"database: {connection.vendor}")
    for section in sections:
        {
            "list": lambda: bench_list(rows),
            "writes": lambda: __import__("writes").bench_writes(),
            "ipam": bench_ipam,
            "dcim": lambda: __import__("dcim").bench_dcim(),
            "cables": lambda: __import__("cables").bench_cables(),
            "extras": lambda: __import__("extras").bench_extras(),
            "v1": lambda: bench_v1(rows),
            "graphql": lambda: __import__("nested").bench_graphql(),
            "jobs": lambda: __import__("jobs").bench_jobs(),
            "apps": lambda: __import__("apps").bench_apps(),
        }[section]()


if __name__ == "__main__":
    main()
