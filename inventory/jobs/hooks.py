"""Job hooks: each change to an object of a hook's types runs the hook's job once the write
has committed, with the change record as the job's input (a rolled-back write runs nothing)."""

from __future__ import annotations

import logging

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.db import transaction

from inventory.extras.webhooks import triggers
from queryengine import changes
from queryengine.definitions import watch

from .models import Job, JobHook

log = logging.getLogger(__name__)


def run_job_hooks(rows: list[dict], records: list[changes.Change], kinds: dict, user) -> None:
    hooks = triggers("job_hooks", lambda: JobHook.objects.filter(enabled=True, job__enabled=True))
    calls = [
        (hook.target, str(row["id"]))
        for row, change in zip(rows, records, strict=True)
        for hook in hooks
        if hook.fires(change.action, row["changed_object_type_id"])
    ]
    if calls:
        jobs = Job.objects.select_related("default_job_queue").in_bulk({job for job, _ in calls})
        runs = [(jobs[job], change) for job, change in calls if job in jobs]
        transaction.on_commit(lambda: start(runs, user))


def connect() -> None:
    watch(JobHook, Job)


def start(runs: list, user) -> None:
    """Enqueue each run; the write has committed, so a broker that is down is logged (the job
    result says so) and never fails the request."""
    from .runs import QueueUnreachable, enqueue

    for job, change_id in runs:
        queue = job.default_job_queue.name if job.default_job_queue else settings.CELERY_TASK_DEFAULT_QUEUE
        try:
            enqueue(job, queue, {"object_change": change_id}, user or AnonymousUser())
        except QueueUnreachable:
            log.warning("job hook run of %s could not be queued", job.name)
