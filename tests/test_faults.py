"""Faults of the database under the service: a read-only database answers 503, never a traceback."""

from __future__ import annotations

import pytest
from django.db import connection, transaction

from inventory.tenancy.models import Tenant

from .conftest import send


def test_a_read_only_database_answers_503_and_reads_still_work(api, sample):
    # Rolling back to the savepoint ends read-only mode on PostgreSQL (the setting is undone).
    savepoint = transaction.savepoint()
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # As on a standby or a database switched to read-only for maintenance.
            cursor.execute("SET transaction_read_only = on")
        else:
            cursor.execute("PRAGMA query_only = ON")
    try:
        status, body = send(api, "post", "/api/tenancy/tenants/", {"name": "Not written"})
        assert status == 503, body
        assert body["detail"].startswith("The database is busy or unavailable; nothing was changed.")
        assert api.json("/api/tenancy/tenants/", {"name": "Acme"})["count"] == 1
    finally:
        transaction.savepoint_rollback(savepoint)
        if connection.vendor == "sqlite":
            with connection.cursor() as cursor:
                cursor.execute("PRAGMA query_only = OFF")
    assert not Tenant.objects.filter(name="Not written").exists()


def test_a_full_disk_answers_503_and_writes_nothing(api, sample):
    """SQLite's own limit on the file's pages stands in for a full disk: the write that needs
    more room fails as it would on a full file system ("database or disk is full")."""
    if connection.vendor != "sqlite":
        pytest.skip("PostgreSQL reports a full disk as disk_full (53100), an OperationalError like this")
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA max_page_count")
        limit = cursor.fetchone()[0]
        cursor.execute("PRAGMA page_count")
        cursor.execute(f"PRAGMA max_page_count = {cursor.fetchone()[0]}")
    try:
        body = [
            {"name": f"tenant {i}", "description": "x" * 200, "comments": "y" * 2000} for i in range(2000)
        ]
        status, answer = send(api, "post", "/api/tenancy/tenants/", body)
        assert status == 503, answer
        assert answer["detail"].startswith("The database is busy or unavailable; nothing was changed.")
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"PRAGMA max_page_count = {limit}")
    assert not Tenant.objects.filter(name__startswith="tenant ").exists()
    assert api.json("/api/tenancy/tenants/", {"name": "Acme"})["count"] == 1
