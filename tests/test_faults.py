"""Faults of the database under the service: a read-only database answers 503, never a traceback."""

from __future__ import annotations

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
