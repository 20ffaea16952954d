"""Many clients at once against a real multi-process server, on the database the suite runs on.

The server is gunicorn with several worker processes over its own database (a temporary SQLite
file, or a fresh PostgreSQL database next to the test one), so writers really race each other:
every request must succeed or answer 503 with Retry-After, and no write may be lost.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urlparse

import orjson
import pytest

from .conftest import copy_database

ROOT = Path(__file__).resolve().parent.parent
CLIENTS = 16


class Running(NamedTuple):
    base: str
    token: str
    process: subprocess.Popen
    database_url: str


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _server_database(tmp_path: Path, request) -> str:
    """A migrated database of its own: a copy of the run's migrated SQLite one, or a fresh
    PostgreSQL database (migrated by the caller)."""
    url = os.environ.get("DATABASE_URL") or ""
    if not url.startswith("postgres"):
        copy_database(request.getfixturevalue("migrated_sqlite"), tmp_path / "server.sqlite3")
        return f"sqlite:///{tmp_path / 'server.sqlite3'}"
    import psycopg

    parsed = urlparse(url)
    name = f"netinventory_concurrency_{os.getpid()}"
    admin = parsed._replace(path=f"/{parsed.path.lstrip('/') or 'postgres'}").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    return parsed._replace(path=f"/{name}").geturl()


def _drop(database_url: str) -> None:
    if not database_url.startswith("postgres"):
        return
    import psycopg

    parsed = urlparse(database_url)
    admin = parsed._replace(path=urlparse(os.environ["DATABASE_URL"]).path).geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{parsed.path.lstrip("/")}" WITH (FORCE)')


MAKE_TOKEN = """
from inventory.users.models import Token, User
user = User.objects.create_superuser("admin", "admin@example.com", "admin")
print("TOKEN", Token.objects.create(user=user).key)
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory, request):
    tmp_path = tmp_path_factory.mktemp("server")
    database_url = _server_database(tmp_path, request)
    env = {**os.environ, "DATABASE_URL": database_url, "DATA_DIR": str(tmp_path), "READ_WORKERS": "0"}
    manage = [sys.executable, str(ROOT / "manage.py")]
    if database_url.startswith("postgres"):
        subprocess.run([*manage, "migrate", "--verbosity", "0"], env=env, cwd=ROOT, check=True)
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    gunicorn = Path(sys.executable).with_name("gunicorn")
    process = subprocess.Popen(
        [str(gunicorn), "config.wsgi:application", "--bind", f"127.0.0.1:{port}", "--workers", "4"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        # While the workers start: a superuser's token, made on the server's database.
        made = subprocess.run(
            [*manage, "shell", "-c", MAKE_TOKEN], env=env, cwd=ROOT, capture_output=True, text=True
        )
        assert made.returncode == 0, made.stderr[-2000:]
        token = re.search(r"TOKEN ([0-9a-f]{40})", made.stdout).group(1)
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{base}/api/status/", timeout=2)
                break
            except urllib.error.HTTPError:
                break  # answering (403 without a token) is up
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("the server did not start") from None
                time.sleep(0.2)
        yield Running(base, token, process, database_url)
    finally:
        process.terminate()
        process.wait(timeout=30)
        _drop(database_url)


def call(base: str, token: str, method: str, path: str, body=None) -> tuple[int, dict, object]:
    request = urllib.request.Request(
        f"{base}{path}",
        method=method,
        data=None if body is None else orjson.dumps(body),
        headers={
            "Authorization": f"Token {token}",
            "Accept": "application/json",
            "Content-Type": "application/json",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, dict(response.headers), orjson.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), orjson.loads(exc.read() or b"null")


def at_once(calls) -> list:
    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        return list(pool.map(lambda c: c(), calls))


def settled(outcomes: list) -> list:
    """Requests the server refused for being busy must say when to come back; none may fail."""
    for status, headers, body in outcomes:
        assert status < 500 or (status == 503 and "Retry-After" in headers), (status, body)
    return [o for o in outcomes if o[0] < 300]


@pytest.mark.long
def test_concurrent_creates_all_land(server):
    base, token, *_ = server
    outcomes = at_once(
        [
            lambda i=i: call(base, token, "POST", "/api/tenancy/tenants/", {"name": f"tenant-{i}"})
            for i in range(CLIENTS)
        ]
    )
    created = settled(outcomes)
    assert all(status == 201 for status, _, _ in outcomes), outcomes
    listed = call(base, token, "GET", "/api/tenancy/tenants/?name__isw=tenant-&limit=100")[2]
    assert listed["count"] == len(created) == CLIENTS


def test_concurrent_allocations_get_distinct_addresses(server):
    base, token, *_ = server
    status, _, prefix = call(
        base, token, "POST", "/api/ipam/prefixes/", {"prefix": "198.51.100.0/28", "status": "Active"}
    )
    assert status == 201, prefix
    path = f"/api/ipam/prefixes/{prefix['id']}/available-ips/"
    outcomes = at_once([lambda: call(base, token, "POST", path, {"status": "Active"}) for _ in range(10)])
    allocated = settled(outcomes)
    assert all(status == 201 for status, _, _ in outcomes), outcomes
    addresses = [body["address"] for _, _, body in allocated]
    assert len(set(addresses)) == len(addresses) == 10
    stored = call(base, token, "GET", "/api/ipam/ip-addresses/?parent=198.51.100.0/28&limit=100")[2]
    assert sorted(a["address"] for a in stored["results"]) == sorted(addresses)


def test_concurrent_writes_of_one_address_keep_one(server):
    """Clients racing to create the same host in one namespace: one lands, the others are told
    it exists (the database's unique index decides, then validation names the clash)."""
    base, token, *_ = server
    status, _, prefix = call(
        base, token, "POST", "/api/ipam/prefixes/", {"prefix": "203.0.113.0/24", "status": "Active"}
    )
    assert status == 201, prefix
    body = {"address": "203.0.113.7/24", "status": "Active", "namespace": "Global"}
    outcomes = at_once(
        [
            lambda i=i: call(base, token, "POST", "/api/ipam/ip-addresses/", [body] if i % 2 else body)
            for i in range(8)
        ]
    )
    settled(outcomes)
    assert sorted(status for status, _, _ in outcomes) == [201] + [400] * 7, outcomes
    stored = call(base, token, "GET", "/api/ipam/ip-addresses/?address=203.0.113.7&limit=100")[2]
    assert stored["count"] == 1


def test_concurrent_bulk_writes_are_all_or_none(server):
    """Bulk creates racing each other over the same names: each lands whole or not at all."""
    base, token, *_ = server
    batches = [[{"name": f"race-{i}"} for i in range(start, start + 5)] for start in (0, 3, 6, 9)]
    outcomes = at_once([lambda b=b: call(base, token, "POST", "/api/tenancy/tenants/", b) for b in batches])
    settled(outcomes)
    listed = call(base, token, "GET", "/api/tenancy/tenants/?name__isw=race-&limit=100")[2]
    names = {t["name"] for t in listed["results"]}
    landed = [b for b, o in zip(batches, outcomes, strict=True) if o[0] == 201]
    assert names == {item["name"] for b in landed for item in b}
    assert all(o[0] in (201, 400) for o in outcomes)


def _workers(master: subprocess.Popen) -> list[int]:
    found = subprocess.run(["pgrep", "-P", str(master.pid)], capture_output=True, text=True)
    return [int(pid) for pid in found.stdout.split()]


def _answering(base: str, token: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if call(base, token, "GET", "/api/status/")[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError("the server did not come back")


@pytest.mark.long
@pytest.mark.parametrize("delay", [0.05, 0.3, 1.0])
def test_a_worker_killed_during_a_bulk_create_leaves_all_or_nothing(server, delay):
    """SIGKILL every worker while a 1000-object bulk create runs: either every object landed
    or none did, and the respawned workers answer normally."""
    base, token, master, _ = server
    prefix = f"killed-{int(delay * 1000)}-"
    batch = [{"name": f"{prefix}{i:04d}"} for i in range(1000)]
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(call, base, token, "POST", "/api/tenancy/tenants/", batch)
        time.sleep(delay)
        for pid in _workers(master):
            os.kill(pid, signal.SIGKILL)
        try:
            status = pending.result(timeout=120)[0]
        except OSError:  # the connection died with its worker
            status = None
    _answering(base, token)
    count = call(base, token, "GET", f"/api/tenancy/tenants/?name__isw={prefix}&limit=1")[2]["count"]
    assert count in (0, 1000), count
    assert (status == 201) == (count == 1000) or status is None


def test_dropped_database_connections_give_no_500(server):
    """Every connection of the server's is terminated while clients read and write (a database
    restart or failover): requests caught in it answer 503 with Retry-After, none 500, and the
    server then answers normally on new connections."""
    base, token, _, database_url = server
    if not database_url.startswith("postgres"):
        pytest.skip("an embedded SQLite database has no connections to drop")
    import psycopg

    name = urlparse(database_url).path.lstrip("/")

    def client(i: int) -> list:
        outcomes = []
        for j in range(15):
            outcomes.append(call(base, token, "GET", "/api/tenancy/tenants/?limit=5"))
            outcomes.append(call(base, token, "POST", "/api/tenancy/tenants/", {"name": f"dropped-{i}-{j}"}))
        return outcomes

    with ThreadPoolExecutor(max_workers=8) as pool:
        pending = [pool.submit(client, i) for i in range(8)]
        time.sleep(0.5)
        with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as admin:
            dropped = admin.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                " WHERE datname = %s AND pid <> pg_backend_pid()",
                (name,),
            ).fetchone()[0]
        outcomes = [o for p in pending for o in p.result(timeout=120)]
    assert dropped > 0
    settled(outcomes)
    # Connections broken in the pool are discarded as they are found: a few more requests see them.
    for _ in range(20):
        if call(base, token, "GET", "/api/tenancy/tenants/?limit=1")[0] == 200:
            break
    after = [call(base, token, "GET", "/api/tenancy/tenants/?limit=1")[0] for _ in range(10)]
    assert after == [200] * 10
