"""Prometheus metrics: requests, latencies and database time per route, pool use.

Routes are labelled by their URL pattern (`api/dcim/locations/<str:key>/`), never by the raw path,
so the number of series stays fixed however many objects exist. With several server processes,
set PROMETHEUS_MULTIPROC_DIR to an empty directory shared by them (gunicorn.conf.py does): each
process writes its values there and `/metrics/` adds them up."""

from __future__ import annotations

import os
import time

from django.conf import settings
from django.db import connections
from django.http import HttpResponse
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)

# Latencies of an API that answers most lists in milliseconds and bulk writes in seconds.
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
REQUESTS = Counter("netinventory_http_requests", "HTTP requests answered", ["method", "route", "status"])
LATENCY = Histogram(
    "netinventory_http_request_duration_seconds",
    "Time from request to response",
    ["method", "route"],
    buckets=BUCKETS,
)
DATABASE_TIME = Histogram(
    "netinventory_http_request_database_seconds",
    "Time one request spent waiting for database queries (its own connection)",
    ["route"],
    buckets=BUCKETS,
)
QUERIES = Counter("netinventory_database_queries", "Database queries run by requests", ["route"])
POOL = Gauge(
    "netinventory_database_pool_connections",
    "Database connection pool of the server processes (PostgreSQL): size, idle, requests waiting",
    ["state"],
    multiprocess_mode="livesum",
)
UNMATCHED = "<unmatched>"
POOL_INTERVAL = 1.0  # seconds between pool readings in one process


class QueryTimer:
    """Wraps each query of the request's connection: adds up its time and counts it."""

    __slots__ = ("seconds", "count")

    def __init__(self):
        self.seconds = 0.0
        self.count = 0

    def __call__(self, execute, sql, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.seconds += time.perf_counter() - started
            self.count += 1


class MetricsMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response
        self.pool_read_at = 0.0

    def __call__(self, request):
        started = time.perf_counter()
        timer = QueryTimer()
        with connections["default"].execute_wrapper(timer):
            response = self.get_response(request)
        elapsed = time.perf_counter() - started
        match = getattr(request, "resolver_match", None)
        route = match.route if match is not None and match.route else UNMATCHED
        REQUESTS.labels(request.method, route, f"{response.status_code // 100}xx").inc()
        LATENCY.labels(request.method, route).observe(elapsed)
        DATABASE_TIME.labels(route).observe(timer.seconds)
        if timer.count:
            QUERIES.labels(route).inc(timer.count)
        if started - self.pool_read_at > POOL_INTERVAL:
            self.pool_read_at = started
            read_pool()
        return response


def read_pool() -> None:
    pool = getattr(connections["default"], "pool", None)  # PostgreSQL with DATABASE_POOL only
    if pool is None:
        return
    stats = pool.get_stats()
    POOL.labels("size").set(stats.get("pool_size", 0))
    POOL.labels("idle").set(stats.get("pool_available", 0))
    POOL.labels("waiting").set(stats.get("requests_waiting", 0))


def metrics(request):
    """The text exposition format; every process's values when they share a directory."""
    if settings.METRICS_TOKEN_REQUIRED and not _signed_in(request):
        return HttpResponse("Authentication credentials were not provided.\n", status=403)
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    else:
        registry = REGISTRY
    return HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)


def _signed_in(request) -> bool:
    from rest.auth import AuthenticationFailed, authenticate
    from rest.throttle import Throttled

    try:
        user, _ = authenticate(request)
    except (AuthenticationFailed, Throttled):
        return False
    return user.is_authenticated
