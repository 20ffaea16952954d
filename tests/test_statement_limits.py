"""How long one database statement may run (DATABASE_STATEMENT_TIMEOUT), on SQLite and on
PostgreSQL: a slow filter is stopped by the database at the limit and answered with 503 (REST),
a GraphQL error, a page's message or a failed job; the connection stays usable; migrations are
not held to it; and on PostgreSQL a statement whose client is killed stops too."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import urlencode, urlparse

import orjson
import pytest
from django.core.management import call_command
from django.db import connection
from django.db.models.signals import pre_migrate
from django.test import Client

from config.settings import database_from_url
from inventory.jobs.models import Job
from inventory.tenancy.models import Tenant
from inventory.users.models import Token

from .conftest import Api, send

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 0.5
# Slow but allowed: every automaton matching it has about 2**26 states, so neither PostgreSQL
# nor RE2 (SQLite's REGEXP) can cache them all; each reads 4 MB of it in about a second.
SLOW = "(a|b)*a(a|b){25}x"
TIMED_OUT = (
    f"The database stopped a statement that ran longer than {LIMIT:g} seconds, the limit "
    "(DATABASE_STATEMENT_TIMEOUT). Narrow the filters (a regular expression over long texts is slow) "
    "and try again."
)
on_postgresql = pytest.mark.skipif(connection.vendor != "postgresql", reason="a PostgreSQL setting")


def random_text(size: int) -> str:
    return os.urandom(size).translate(bytes(b"ab"[i & 1] for i in range(256))).decode()


def connect_with(statement_timeout: float) -> None:
    """The connections PostgreSQL's pool (and the concurrent readers) open from now on start with
    this limit, as a server's do from its settings."""
    options = database_from_url(
        os.environ["DATABASE_URL"],
        statement_timeout,
        float(os.environ.get("DATABASE_CLIENT_CHECK_INTERVAL") or 5),
    )["OPTIONS"].get("options")
    connection.close()
    connection.close_pool()
    connection.settings_dict["OPTIONS"]["options"] = options


@pytest.fixture
def limit(transactional_db, settings, superuser):
    """Puts a small limit in force (once the test's data is written) and answers a superuser's
    client; outside a transaction, as requests run."""
    client = Api(Token.objects.create(user=superuser).key)

    def apply() -> Api:
        settings.DATABASE_STATEMENT_TIMEOUT = LIMIT
        if connection.vendor == "postgresql":
            connect_with(LIMIT)
        return client

    yield apply
    if connection.vendor == "postgresql":
        connect_with(float(os.environ.get("DATABASE_STATEMENT_TIMEOUT") or 60))


def running(marker: str) -> int:
    """Backends of other connections running a statement whose text holds `marker`."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() "
            "AND position(%s in query) > 0",
            [marker],
        )
        return cursor.fetchone()[0]


def test_a_slow_regular_expression_is_stopped_at_the_limit(limit):
    for index in range(3):  # each about a second to match: the limit falls inside the statement
        Tenant.objects.create(name=f"long {index}", comments=random_text(4 << 20))
    Tenant.objects.create(name="short", comments="ab")
    limited = limit()
    started = time.perf_counter()
    response = limited.get("/api/tenancy/tenants/", {"comments__re": SLOW})
    took = time.perf_counter() - started
    assert response.status_code == 503, response.content[:300]
    assert orjson.loads(response.content) == {"detail": TIMED_OUT}
    assert LIMIT <= took < LIMIT + 5, took  # the page and its count, stopped at once or in turn
    if connection.vendor == "postgresql":
        assert running("{25}") == 0  # nothing left running on the database
    # GraphQL names the limit as its error; the connection is still usable.
    status, body = send(
        limited, "post", "/api/graphql/", {"query": f'{{ tenants(comments__re: ["{SLOW}"]) {{ name }} }}'}
    )
    assert status == 200 and body["data"] == {"tenants": None}
    assert [error["message"] for error in body["errors"]] == [TIMED_OUT]
    assert limited.json("/api/tenancy/tenants/", {"comments__re": "^ab$"})["count"] == 1
    # Details are read with the same filters' machinery: a plain read still answers.
    short = Tenant.objects.get(name="short")
    assert limited.json(f"/api/tenancy/tenants/{short.pk}/")["name"] == "short"


def test_the_page_and_the_job_say_so_too(limit, superuser, jobs):
    for index in range(3):
        Tenant.objects.create(name=f"long {index}", comments=random_text(4 << 20))
    limited = limit()
    browser = Client()
    browser.force_login(superuser)
    page = browser.get("/tenancy/tenants/", {"comments__re": SLOW})
    assert page.status_code == 503 and b"(DATABASE_STATEMENT_TIMEOUT)" in page.content
    export = Job.objects.get(name="Export Object List")
    query_string = urlencode({"comments__re": SLOW})
    status, run = send(
        limited,
        "post",
        f"/api/extras/jobs/{export.pk}/run/",
        {"data": {"content_type": "tenancy.tenant", "query_string": query_string}},
    )
    assert status == 201 and run["job_result"]["status"]["value"] == "FAILURE", run
    logs = limited.json(
        "/api/extras/job-logs/", {"job_result": run["job_result"]["id"], "log_level": "error"}
    )
    assert [entry["message"] for entry in logs["results"]] == [f"StatementTimeout: {TIMED_OUT}"]


def test_migrations_are_not_held_to_the_limit(limit):
    """A statement run while migrating (a pre_migrate receiver's) runs past the limit."""
    limited = limit()
    finished = []

    def slow(using, **kwargs):
        if finished:
            return
        with connection.cursor() as cursor:
            if connection.vendor == "postgresql":
                cursor.execute("SELECT pg_sleep(%s)", [LIMIT * 2])
            else:  # about a second of counting
                cursor.execute(
                    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000000) "
                    "SELECT count(*) FROM n"
                )
        finished.append(True)

    pre_migrate.connect(slow, dispatch_uid="test.slow")
    try:
        call_command("migrate", verbosity=0)
    finally:
        pre_migrate.disconnect(dispatch_uid="test.slow")
    assert finished
    # Requests are held to it again.
    assert limited.get("/api/tenancy/tenants/", {"comments__re": SLOW}).status_code == 200  # no long text
    with pytest.raises(Exception, match="statement timeout|interrupted"), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_sleep(2)"
            if connection.vendor == "postgresql"
            else "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30000000) "
            "SELECT count(*) FROM n"
        )


CLIENT = """
import django
django.setup()
from django.db import connection
with connection.cursor() as cursor:
    cursor.execute("SELECT pg_sleep(60) /* {marker} */")
"""


@on_postgresql
@pytest.mark.django_db
def test_a_statement_whose_client_is_killed_stops():
    """A web worker killed while its statement runs (gunicorn's timeout, an OOM kill) used to leave
    the statement running to its end; PostgreSQL now notices the closed connection within
    DATABASE_CLIENT_CHECK_INTERVAL seconds and stops it."""
    marker = uuid.uuid4().hex
    url = urlparse(os.environ["DATABASE_URL"])._replace(path=f"/{connection.settings_dict['NAME']}").geturl()
    env = {**os.environ, "DATABASE_URL": url, "DATABASE_CLIENT_CHECK_INTERVAL": "1"}
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    client = subprocess.Popen([sys.executable, "-c", CLIENT.format(marker=marker)], cwd=ROOT, env=env)
    try:
        deadline = time.monotonic() + 60
        while not running(marker):
            assert time.monotonic() < deadline and client.poll() is None, "the statement did not start"
            time.sleep(0.1)
        os.kill(client.pid, signal.SIGKILL)
        client.wait()
        killed = time.monotonic()
        while running(marker) and time.monotonic() - killed < 10:
            time.sleep(0.1)
        assert not running(marker)
        assert time.monotonic() - killed < 5
    finally:
        if client.poll() is None:
            client.kill()


on_sqlite = pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's REGEXP")


@on_sqlite
def test_sqlite_matches_regular_expressions_in_linear_time(api, superuser):
    """REGEXP on SQLite is RE2's: the rows a filter selects are those Python's `re` selects for
    the patterns users write, a pattern that makes `re` backtrack for hours answers at once, and
    what needs backtracking (lookaround, atomic groups, possessive repeats) is refused."""
    import re

    comments = ["ab", "AB\nxy", "leaf1 uplink", "core-01", "a" * 5000, ""]
    for index, text in enumerate(comments):
        Tenant.objects.create(name=f"regexp {index}", comments=text)
    tenants = {t.name: t.comments for t in Tenant.objects.filter(name__startswith="regexp ")}
    for lookup, flags, negate in (("re", 0, False), ("ire", re.IGNORECASE, False), ("nre", 0, True)):
        for pattern in ("^ab", "b$", "^[a-z]+\\d", "(leaf|core)-?\\d+", "x", "^$", "(?i)ab", "\\buplink\\b"):
            body = api.json(
                "/api/tenancy/tenants/",
                {f"comments__{lookup}": pattern, "name__isw": "regexp ", "limit": 100},
            )
            wanted = {
                name for name, text in tenants.items() if bool(re.search(pattern, text, flags)) != negate
            }
            assert {row["name"] for row in body["results"]} == wanted, (lookup, pattern)
    started = time.perf_counter()
    for pattern, matching in (("(a+)+b", {"ab"}), ("^(.*)(.*)(.*)(.*)x$", set()), ("(a|aa)*b", {"ab"})):
        body = api.json("/api/tenancy/tenants/", {"comments__re": pattern, "name__isw": "regexp "})
        assert {tenants[row["name"]] for row in body["results"]} == matching, pattern
    assert time.perf_counter() - started < 5
    for refused in ("a(?=b)", "(?<!a)b", "(?>a+)b", "a++"):
        response = api.get("/api/tenancy/tenants/", {"comments__re": refused})
        assert response.status_code == 400 and b"comments__re" in response.content, refused
