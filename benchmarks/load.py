"""A bounded load run: many clients at once against gunicorn with several workers.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/netinventory_load .venv/bin/python benchmarks/load.py
    DATABASE_URL=sqlite:////tmp/netinventory_load.sqlite3 .venv/bin/python benchmarks/load.py --minutes 2

Each client loops over a weighted mix: lists at depth 0-2, filtered lists, details, GraphQL
queries, single POST/PATCH/DELETE, bulk create + bulk delete, and address allocations from one
shared prefix. Reported: requests/s, p50/p99 per kind, every status >= 500 (the target is none;
503 with Retry-After is the embedded database asking a writer to come back) and the workers'
memory at start, every minute and at the end.
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter, defaultdict
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/netinventory_load")

from bench import KEY, ROOT, seed_locations, setup  # noqa: E402

MIX = (
    ("list depth 0", 20),
    ("list depth 1", 10),
    ("list depth 2", 5),
    ("filtered list", 15),
    ("detail", 15),
    ("graphql", 8),
    ("single write", 12),
    ("bulk write", 5),
    ("allocation", 10),
)


class Client:
    def __init__(self, port: int):
        self.port = port
        self.connection: http.client.HTTPConnection | None = None

    def call(self, method: str, path: str, body=None) -> tuple[int, object]:
        if self.connection is None:
            self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        headers = {"Authorization": f"Token {KEY}", "Accept": "application/json"}
        data = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            data = orjson.dumps(body)
        try:
            self.connection.request(method, path, body=data, headers=headers)
            response = self.connection.getresponse()
            content = response.read()
        except (http.client.HTTPException, OSError):
            self.connection = None
            return 599, None  # the connection failed: counted as an error
        return response.status, orjson.loads(content) if content else None


def one_round(client: Client, kind: str, shared: dict, rng: random.Random) -> list[int]:
    """Run one operation of `kind`; the statuses of the requests it made."""
    offset = rng.randrange(0, 1900)
    if kind.startswith("list depth"):
        return [client.call("GET", f"/api/dcim/locations/?limit=50&offset={offset}&depth={kind[-1]}")[0]]
    if kind == "filtered list":
        path = f"/api/dcim/locations/?name__ic=site-0{rng.randrange(10)}&tenant=tenant-{rng.randrange(20)}"
        return [client.call("GET", path)[0]]
    if kind == "detail":
        return [client.call("GET", f"/api/dcim/locations/{rng.choice(shared['locations'])}/?depth=1")[0]]
    if kind == "graphql":
        query = f"{{ locations(limit: 20, offset: {offset}) {{ name status {{ name }} tenant {{ name }} }} }}"
        return [client.call("POST", "/api/graphql/", {"query": query})[0]]
    if kind == "single write":
        status, body = client.call("POST", "/api/tenancy/tenants/", {"name": f"load-{uuid.uuid4().hex[:12]}"})
        statuses = [status]
        if status == 201:
            path = f"/api/tenancy/tenants/{body['id']}/"
            statuses.append(client.call("PATCH", path, {"description": "changed under load"})[0])
            statuses.append(client.call("DELETE", path)[0])
        return statuses
    if kind == "bulk write":
        batch = [{"name": f"load-bulk-{uuid.uuid4().hex[:12]}"} for _ in range(20)]
        status, body = client.call("POST", "/api/tenancy/tenants/", batch)
        statuses = [status]
        if status == 201:
            statuses.append(
                client.call("DELETE", "/api/tenancy/tenants/", [{"id": t["id"]} for t in body])[0]
            )
        return statuses
    if kind == "allocation":
        status, body = client.call(
            "POST", f"/api/ipam/prefixes/{shared['prefix']}/available-ips/", {"status": "Active"}
        )
        statuses = [status]
        if status == 201:
            statuses.append(client.call("DELETE", f"/api/ipam/ip-addresses/{body['id']}/")[0])
        return statuses
    raise ValueError(kind)


def workers(master: subprocess.Popen) -> set[str]:
    found = subprocess.run(["pgrep", "-P", str(master.pid)], capture_output=True, text=True)
    return set(found.stdout.split())


def worker_memory(master: subprocess.Popen) -> list[int]:
    """Resident memory (MiB) of each gunicorn worker."""
    sizes = []
    for pid in workers(master):
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    sizes.append(int(line.split()[1]) // 1024)
        except OSError:
            pass
    return sorted(sizes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--workers", type=int, default=4)
    options = parser.parse_args()

    setup()
    from django.db import connection

    from inventory.dcim.models import Location

    seed_locations(2000)
    shared = {"locations": [str(pk) for pk in Location.objects.values_list("pk", flat=True)[:500]]}
    vendor = connection.vendor
    connection.close()

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    gunicorn = [str(ROOT / ".venv/bin/gunicorn"), "config.wsgi:application", "-b", f"127.0.0.1:{port}"]
    # Workers are not recycled during the run (WEB_MAX_REQUESTS, gunicorn.conf.py), so the
    # memory series shows whether a worker's own memory levels off.
    master = subprocess.Popen(
        [*gunicorn, "-w", str(options.workers), "--log-level", "warning"],
        cwd=ROOT,
        env={**os.environ, "WEB_MAX_REQUESTS": "0"},
    )
    try:
        probe = Client(port)
        for _ in range(200):
            if probe.call("GET", "/api/status/")[0] == 200:
                break
            time.sleep(0.1)
        pool = "10.250.0.0/16"
        status, body = probe.call("POST", "/api/ipam/prefixes/", {"prefix": pool, "status": "Active"})
        if status != 201:  # left by an earlier run
            body = probe.call("GET", f"/api/ipam/prefixes/?prefix={pool}")[1]["results"][0]
        shared["prefix"] = body["id"]
        memory_at_start, first_workers = worker_memory(master), workers(master)
        latencies: dict[str, list[float]] = defaultdict(list)
        statuses: Counter = Counter()
        failures: Counter = Counter()
        lock = threading.Lock()
        deadline = time.monotonic() + options.minutes * 60

        def run_client(seed: int) -> None:
            rng = random.Random(seed)
            client = Client(port)
            kinds = [k for k, _ in MIX]
            weights = [w for _, w in MIX]
            while time.monotonic() < deadline:
                kind = rng.choices(kinds, weights)[0]
                start = time.perf_counter()
                got = one_round(client, kind, shared, rng)
                taken = (time.perf_counter() - start) * 1000
                with lock:
                    latencies[kind].append(taken)
                    statuses.update(got)
                    failures.update(f"{kind} {s}" for s in got if s >= 500)

        # Memory every minute: once the workers have compiled what the mix asks for, growth is
        # what a leak would show, so the series should level off.
        samples: list[tuple[float, list[int]]] = []
        sampling = threading.Event()

        def sample_memory() -> None:
            while not sampling.wait(60.0):
                samples.append(((time.monotonic() - started) / 60, worker_memory(master)))

        sampler = threading.Thread(target=sample_memory, daemon=True)
        started = time.monotonic()
        sampler.start()
        threads = [threading.Thread(target=run_client, args=(i,)) for i in range(options.clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - started
        sampling.set()
        memory_at_end, replaced = worker_memory(master), len(first_workers - workers(master))
    finally:
        master.terminate()
        master.wait(timeout=30)

    requests = sum(statuses.values())
    print(
        f"load: {vendor}, {options.workers} workers, {options.clients} clients, {elapsed / 60:.1f} min: "
        f"{requests} requests, {requests / elapsed:.1f} requests/s"
    )
    print(f"  {'kind':<16} {'rounds':>7} {'p50 ms':>8} {'p99 ms':>8}")
    for kind, _ in MIX:
        taken = sorted(latencies[kind])
        if taken:
            p99 = taken[min(len(taken) - 1, int(len(taken) * 0.99))]
            print(f"  {kind:<16} {len(taken):>7} {statistics.median(taken):>8.1f} {p99:>8.1f}")
    print(f"  statuses: {dict(sorted(statuses.items()))}")
    print(f"  responses >= 500: {sum(failures.values())} {dict(failures) if failures else ''}")
    print(
        f"  worker memory (MiB): start {memory_at_start}, end {memory_at_end}, workers replaced: {replaced}"
    )
    for minute, sizes in samples:
        print(f"    minute {minute:5.1f}: {sizes}")


if __name__ == "__main__":
    main()
