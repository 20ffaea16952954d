"""Concurrent reads: on PostgreSQL outside a transaction, a request's independent reads run at
once on worker connections, and answer exactly what the same reads in turn answer."""

from __future__ import annotations

import orjson
import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext, override_settings

from queryengine import together
from queryengine.registry import resources
from rest import versioning

from .builders import SUPERUSER_KEY, build_sample
from .conftest import Api, request_statements

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="concurrent reads need PostgreSQL"),
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture
def worker_calls(monkeypatch):
    """The calls run on workers."""
    calls = []
    run_on_worker = together._on_worker

    def counted(*arguments):
        calls.append(arguments[1])
        return run_on_worker(*arguments)

    monkeypatch.setattr(together, "_on_worker", counted)
    return calls


def read(api, path: str, params: dict) -> tuple[bytes, int]:
    with CaptureQueriesContext(connection) as queries:
        response = api.get(path, params)
    assert response.status_code == 200, response.content[:300]
    return response.content, len(request_statements(queries))


def test_every_model_reads_the_same_at_once_and_in_turn(superuser, worker_calls):
    sample = build_sample(superuser)
    api = Api(SUPERUSER_KEY)
    for resource in (r for r in resources() if r.served_at(versioning.DEFAULT)):
        one = sample[resource.model][0]
        for depth in (0, 1, 2):
            for path, params in (
                (f"/api/{resource.route}/", {"limit": 1000, "depth": depth}),
                (f"/api/{resource.route}/{one.pk}/", {"depth": depth}),
            ):
                worker_calls.clear()
                at_once, _ = read(api, path, params)
                if "limit" in params:  # a list's count at least runs beside its rows
                    assert worker_calls, (path, params)
                with transaction.atomic():  # a transaction's reads all run on its connection
                    in_turn, _ = read(api, path, params)
                assert at_once == in_turn, (path, params)


def test_in_a_transaction_nothing_runs_alongside(superuser, worker_calls):
    build_sample(superuser)
    worker_calls.clear()  # the sample's change records read their objects' API shapes
    with transaction.atomic():
        read(Api(SUPERUSER_KEY), "/api/dcim/locations/", {"limit": 1000})
    assert worker_calls == []


def test_reads_at_once_are_counted_and_do_not_grow_with_the_page(superuser, worker_calls):
    api = Api(SUPERUSER_KEY)
    build_sample(superuser)
    first, queries = read(api, "/api/dcim/locations/", {"limit": 1000, "depth": 1})
    build_sample(superuser, suffix="-2")
    second, more_queries = read(api, "/api/dcim/locations/", {"limit": 1000, "depth": 1})
    assert len(second) > len(first) and worker_calls
    with transaction.atomic():
        _, in_turn = read(api, "/api/dcim/locations/", {"limit": 1000, "depth": 1})
    # Workers' queries are counted where the request runs.
    assert more_queries == queries == in_turn


@override_settings(READ_WORKERS=0)
def test_read_workers_zero_reads_in_turn(superuser, worker_calls):
    build_sample(superuser)
    read(Api(SUPERUSER_KEY), "/api/dcim/locations/", {"limit": 1000})
    assert worker_calls == []


def test_a_value_the_database_refuses_is_the_same_400_and_workers_recover(superuser, worker_calls):
    """PostgreSQL's regex dialect refuses what Python accepts: the count on a worker fails too."""
    build_sample(superuser)
    api = Api(SUPERUSER_KEY)
    params = {"name__re": "(?P<x>a)"}
    at_once = api.json("/api/dcim/locations/", params, status=400)
    assert worker_calls
    with transaction.atomic():
        in_turn = api.json("/api/dcim/locations/", params, status=400)
    assert at_once == in_turn and at_once["detail"].startswith("Invalid value")
    assert api.json("/api/dcim/locations/", {"limit": 1000})["count"] == 4


def test_workers_reconnect_when_their_connections_are_lost(superuser, worker_calls):
    """A worker connection idles between requests: a server restart or an idle timeout must
    cost nothing but a reconnection."""
    build_sample(superuser)
    api = Api(SUPERUSER_KEY)
    expected = api.json("/api/dcim/locations/", {"limit": 1000})
    workers = [c.connection.info.backend_pid for c in together._opened if c.connection is not None]
    assert workers
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(pid) FROM unnest(%s::int[]) AS pid", [workers])
    worker_calls.clear()
    assert api.json("/api/dcim/locations/", {"limit": 1000}) == expected
    assert worker_calls


def test_graphql_roots_read_at_once_in_document_order(superuser, worker_calls):
    """Every root of a query document is a read of its own; the answer keeps the document's order
    and a failing root's error beside the others' data."""
    build_sample(superuser)
    api = Api(SUPERUSER_KEY)
    document = {
        "query": '{ n: locations_count tenants(order_by: ["name"]) { name tags { name } } '
        'bad: locations(name__re: "(?P<x>a)") { name } locations(limit: 2) { name display } }'
    }
    at_once = api.post("/api/graphql/", document).content
    assert len(worker_calls) >= 3
    with transaction.atomic():
        in_turn = api.post("/api/graphql/", document).content
    body = orjson.loads(at_once)
    assert list(body["data"]) == ["n", "tenants", "bad", "locations"]
    assert body["data"]["n"] == 4 and body["data"]["bad"] is None and len(body["data"]["locations"]) == 2
    assert "invalid regular expression" in body["errors"][0]["message"]
    # In a transaction the refused root aborts it: the roots after it are not run.
    in_turn_body = orjson.loads(in_turn)
    assert in_turn_body["errors"] == body["errors"]
