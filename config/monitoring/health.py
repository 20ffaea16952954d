"""Probes for load balancers and orchestrators, outside the API (no token, no negotiation).

`/health/` answers 200 while the process serves requests (liveness). `/health/ready/` answers 200
when the database answers and every migration this code ships is applied, 503 otherwise
(readiness: keep traffic away from a process that cannot serve it yet)."""

from __future__ import annotations

import logging

from django.db import DatabaseError, connections
from django.db.migrations.executor import MigrationExecutor
from django.http import JsonResponse

logger = logging.getLogger(__name__)
_migrated = False  # once all are applied, this process's code needs no other check


def live(request):
    return JsonResponse({"status": "ok"})


def ready(request):
    problems = {}
    try:
        connection = connections["default"]
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError as exc:
        logger.warning("readiness: database unreachable: %s", exc)
        return JsonResponse({"status": "unavailable", "database": "unreachable"}, status=503)
    pending = unapplied_migrations(connection)
    if pending:
        problems["migrations"] = [f"{app}.{name}" for app, name in pending]
    if problems:
        return JsonResponse({"status": "unavailable", "database": "ok", **problems}, status=503)
    return JsonResponse({"status": "ok", "database": "ok", "migrations": []})


def unapplied_migrations(connection) -> list[tuple[str, str]]:
    """Migrations of this code not yet applied; the graph is read until none are left."""
    global _migrated
    if _migrated:
        return []
    executor = MigrationExecutor(connection)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    pending = [(migration.app_label, migration.name) for migration, backwards in plan if not backwards]
    _migrated = not pending
    return pending
