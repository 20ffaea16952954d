"""The jobs section of the benchmarks: how long a job waits between being enqueued and starting.

    DATABASE_URL=postgres://…/netinventory_bench BENCH_REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python benchmarks/bench.py jobs

A Celery worker (prefork, one process, as `celery -A config worker` starts it) consumes from Redis;
this process records a job result and sends its message a few hundred times, one at a time, and
reads when the worker marked each one STARTED. The latency is `date_started - date_created`: the
message through the broker, the worker taking it, loading the job result and recording the start.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

RUNS = 300


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def bench_jobs() -> None:
    from bench import ROOT, row

    broker = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
    os.environ["CELERY_BROKER_URL"] = broker
    from config.celery import app

    app.conf.broker_url = broker
    from django.test import override_settings

    from inventory.jobs.discovery import sync_jobs
    from inventory.jobs.models import Job, JobResult
    from inventory.jobs.runs import enqueue
    from inventory.users.models import User

    with override_settings(JOBS_MODULES=["tests.sample_jobs"]):
        sync_jobs()
    job = Job.objects.get(module_name="tests.sample_jobs", job_class_name="Greet")
    Job.objects.filter(pk=job.pk).update(enabled=True)
    user = User.objects.get(username="bench")
    environment = {**os.environ, "CELERY_BROKER_URL": broker, "JOBS_MODULES": "tests.sample_jobs"}
    command = [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", "default", "-c", "1"]
    worker = subprocess.Popen(
        [*command, "--loglevel", "WARNING"], cwd=ROOT, env=environment, stdout=subprocess.DEVNULL
    )
    try:
        data = {"who": "bench", "times": 1, "loud": False}
        latencies = []
        for attempt in range(RUNS + 10):  # the first ten warm the worker up
            result = enqueue(job, "default", data, user)
            deadline = time.monotonic() + 60
            while True:
                started = (
                    JobResult.objects.filter(pk=result.pk).values_list("date_started", "date_done").first()
                )
                if started[1] is not None or time.monotonic() > deadline:
                    break
                time.sleep(0.002)
            if started[0] is None:
                raise RuntimeError("the worker did not start the job")
            if attempt >= 10:
                latencies.append((started[0] - result.date_created).total_seconds() * 1000)
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    print(f"jobs: enqueue to start on Redis ({broker.rsplit('/', 1)[0]}/…), {RUNS} runs one at a time")
    median = statistics.median(latencies)
    row("job enqueue to start, p50", median, min(latencies))
    row(
        "job enqueue to start, p99",
        percentile(latencies, 0.99),
        min(latencies),
        f"max {max(latencies):.1f} ms",
    )
