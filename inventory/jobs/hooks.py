"""Job hooks: each change to an object of a hook's types runs the hook's job once the write
has committed, with the change record as the job's input (a rolled-back write runs nothing)."""

from __future__ import annotations

import logging

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.db import transaction

from queryengine import changes

from .models import JobHook

log = logging.getLogger(__name__)


def run_job_hooks(rows: list[dict], records: list[changes.Change], kinds: dict, user) -> None:
    hooks = list(
        JobHook.objects.filter(
            enabled=True, job__enabled=True, content_types__in=[k.pk for k in kinds.values()]
        )
        .select_related("job", "job__default_job_queue")
        .prefetch_related("content_types")
        .distinct()
    )
    if not hooks:
        return
    wanted = {
        changes.CREATE: lambda hook: hook.type_create,
        changes.UPDATE: lambda hook: hook.type_update,
        changes.DELETE: lambda hook: hook.type_delete,
    }
    runs = [
        (hook.job, str(row["id"]))
        for row, change in zip(rows, records, strict=True)
        for hook in hooks
        if wanted[change.action](hook)
        and row["changed_object_type_id"] in {k.pk for k in hook.content_types.all()}
    ]
    if runs:
        transaction.on_commit(lambda: start(runs, user))


def start(runs: list, user) -> None:
    """Enqueue each run; the write has committed, so a broker that is down is logged (the job
    result says so) and never fails the request."""
    from rest.views import ApiError

    from .api import JobRunEndpoint

    for job, change_id in runs:
        queue = job.default_job_queue.name if job.default_job_queue else settings.CELERY_TASK_DEFAULT_QUEUE
        try:
            JobRunEndpoint.enqueue(job, queue, {"object_change": change_id}, user or AnonymousUser())
        except ApiError:
            log.warning("job hook run of %s could not be queued", job.name)
