"""Statements sent with the next one (queryengine.prepared.deferring): a write's change record
travels with its read-back on PostgreSQL, yet every statement still sees the ones deferred before
it, a rolled-back write leaves no record, and the records of a committed write are all stored."""

from __future__ import annotations

import pytest
from django.db import DataError, connection, transaction
from django.test.utils import CaptureQueriesContext

from inventory.extras.models import ObjectChange
from inventory.tenancy.models import Tenant
from inventory.users.models import Token, User
from queryengine.prepared import deferring, fetch_all, reading_back, run_later, update_later

from .conftest import Api

KEY = "d" * 40
GRAPHQL = "/api/graphql/"
postgresql_only = pytest.mark.skipif(connection.vendor != "postgresql", reason="deferring is PostgreSQL's")


@pytest.fixture
def api(db):
    Token.objects.create(user=User.objects.create_superuser("deferrer", "d@example.com", "pw"), key=KEY)
    return Api(KEY)


@pytest.fixture
def probe(db):
    """A table of its own per test: a statement prepared on the connection names it."""
    name = f"deferred_probe_{abs(hash(object())) % 10**8}"
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE TEMPORARY TABLE {name} (id integer, n integer)")
    return name


def stored(table: str) -> list[int]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT n FROM {table} ORDER BY n")
        return [n for (n,) in cursor.fetchall()]


def later(table: str, n: int) -> None:
    run_later(connection, f"INSERT INTO {table} (id, n) VALUES (%s, %s)", [n + 1, n], table)


def update(table: str, n: int, into: list) -> None:
    """The UPDATE of the probe's one row (its id is 1), its returned rows appended to `into`."""
    update_later(
        connection, f"UPDATE {table} SET n = %s WHERE id = %s", [n, 1], (table, "1"), ['"n"'], into.extend
    )


def test_outside_a_deferring_block_a_statement_runs_at_once(probe):
    later(probe, 1)
    assert stored(probe) == [1]


@postgresql_only
def test_a_deferred_statement_travels_with_the_next_one(probe):
    with transaction.atomic(), deferring(connection):
        later(probe, 1)
        later(probe, 2)
        with CaptureQueriesContext(connection) as queries:
            assert fetch_all(connection, "SELECT %s::integer + 1", [41]) == [(42,)]
        assert [q["sql"][:22] for q in queries.captured_queries] == ["WITH deferred0 AS (INS"]
        assert stored(probe) == [1, 2]


@postgresql_only
def test_a_statement_reading_the_written_table_runs_after_the_deferred_one(probe):
    # A WITH clause's writes are not seen by its own statement: this one is sent after it instead.
    with transaction.atomic(), deferring(connection):
        later(probe, 7)
        assert fetch_all(connection, f"SELECT n FROM {probe}", []) == [(7,)]


@postgresql_only
def test_what_waits_at_the_end_of_the_block_is_stored_before_commit(probe):
    with transaction.atomic(), deferring(connection):
        later(probe, 3)
    assert stored(probe) == [3]


@postgresql_only
def test_a_rolled_back_savepoint_takes_its_deferred_statements_with_it(probe):
    with transaction.atomic(), deferring(connection):
        later(probe, 1)
        with pytest.raises(RuntimeError), transaction.atomic():
            later(probe, 2)
            raise RuntimeError("rolled back")
        # A statement fails in a savepoint: what waits behind it is dropped with the savepoint,
        # not sent into the failed transaction.
        with pytest.raises(DataError), transaction.atomic():
            later(probe, 3)
            fetch_all(connection, "SELECT 1 / %s::integer", [0])
            later(probe, 4)
        assert stored(probe) == [1]


@postgresql_only
def test_a_block_to_be_rolled_back_sends_nothing(probe):
    with transaction.atomic():
        with transaction.atomic(), deferring(connection):
            later(probe, 5)
            transaction.set_rollback(True)
        assert stored(probe) == []


def mutation(api, query: str, variables: dict) -> dict:
    response = api.post(GRAPHQL, {"query": query, "variables": variables})
    assert response.status_code == 200, response.content
    return response.json()


def test_a_mutation_failing_after_a_logged_write_leaves_neither_the_write_nor_its_record(api):
    tenant = Tenant.objects.create(name="kept as it was")
    query = """mutation ($changed: [GenericScalar]!, $bad: [GenericScalar]!) {
        update_tenants(data: $changed) { description }
        create_tenants(data: $bad) { name }
    }"""
    body = mutation(api, query, {"changed": [{"id": str(tenant.pk), "description": "new"}], "bad": [{}]})
    assert body["errors"], body
    tenant.refresh_from_db()
    assert tenant.description == ""
    assert not ObjectChange.objects.filter(changed_object_id=tenant.pk).exists()


def test_every_record_of_a_committed_mutation_is_stored(api):
    first, second = Tenant.objects.create(name="one"), Tenant.objects.create(name="two")
    query = """mutation ($a: [GenericScalar]!, $b: [GenericScalar]!) {
        first: update_tenants(data: $a) { description }
        second: update_tenants(data: $b) { description }
    }"""
    body = mutation(
        api,
        query,
        {"a": [{"id": str(first.pk), "description": "1"}], "b": [{"id": str(second.pk), "description": "2"}]},
    )
    assert body["data"] == {"first": [{"description": "1"}], "second": [{"description": "2"}]}, body
    records = ObjectChange.objects.filter(changed_object_id__in=[first.pk, second.pk])
    assert sorted(r.object_data["description"] for r in records) == ["1", "2"]


@postgresql_only
def test_an_update_travels_with_the_read_back_of_its_row(probe):
    later(probe, 0)  # the row with id 1
    returned: list = []
    with transaction.atomic(), deferring(connection), reading_back():
        update(probe, 9, returned)
        assert returned == []  # it waits
        read = f'SELECT n, n + 1 FROM "{probe}" WHERE id = %s'
        with CaptureQueriesContext(connection) as queries:
            rows = fetch_all(connection, read, [1], reads=(probe, "1"))
        # The read sees the row as updated, and the UPDATE's own rows come back beside it.
        assert rows == [(9, 10)] and returned == [(9,)]
        assert [q["sql"][:40] for q in queries.captured_queries] == [
            f'WITH "{probe}" AS (UPDATE {probe} SET n ='[:40]
        ]


@postgresql_only
def test_an_update_runs_alone_before_any_other_statement(probe):
    later(probe, 0)
    returned: list = []
    with transaction.atomic(), deferring(connection), reading_back():
        update(probe, 4, returned)
        # Another row's read, a read of the table in two places, and Django's own statements
        # each run the UPDATE first.
        assert fetch_all(connection, f'SELECT n FROM "{probe}" WHERE id = %s', [2], reads=(probe, "2")) == []
        assert returned == [(4,)]
        update(probe, 5, returned)
        twice = f'SELECT a.n, (SELECT count(*) FROM "{probe}" b) FROM "{probe}" a WHERE a.id = %s'
        assert fetch_all(connection, twice, [1], reads=(probe, "1")) == [(5, 1)]
        assert returned == [(4,), (5,)]
        update(probe, 6, returned)
        assert stored(probe) == [6] and returned == [(4,), (5,), (6,)]


def test_outside_a_read_back_an_update_runs_at_once(probe):
    later(probe, 0)
    returned: list = []
    with transaction.atomic(), deferring(connection):
        update(probe, 3, returned)
        assert returned == [(3,)]
    assert stored(probe) == [3]


def test_a_patch_clashing_with_a_unique_value_names_the_field(api):
    """The UPDATE leaves unique values to the database's indexes on a first attempt and travels
    with the read-back: the clash surfaces there, and the write's second attempt names it."""
    Tenant.objects.create(name="taken")
    tenant = Tenant.objects.create(name="free")
    response = api.client.patch(
        f"/api/tenancy/tenants/{tenant.pk}/", b'{"name": "taken"}', content_type="application/json"
    )
    assert response.status_code == 400, response.content
    assert response.json() == {"name": ["Tenant with this Name already exists."]}
    tenant.refresh_from_db()
    assert tenant.name == "free" and not ObjectChange.objects.filter(changed_object_id=tenant.pk).exists()
