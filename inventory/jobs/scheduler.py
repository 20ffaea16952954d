"""The scheduler: Celery beat with its schedule read from the database.

`celery -A config beat` (or a worker started with `-B`) runs it. Each tick starts every enabled
scheduled job whose `next_run_at` has come, records the run on it (`last_run_at`,
`total_run_count`, the next time, a one-off disabled) in the same transaction as the job result,
and sleeps until the next run is due, waking at least every `SCHEDULER_INTERVAL` seconds to see
schedules created or changed meanwhile. On PostgreSQL the due rows are locked and skipped by
other schedulers (`SKIP LOCKED`), so running two beats (for availability) never runs a job twice.
"""

from __future__ import annotations

import logging

from celery.beat import Scheduler
from django.db import close_old_connections, transaction
from django.db.models import Min
from django.utils import timezone

log = logging.getLogger(__name__)


def start_due_jobs(now=None) -> int:
    """Start every scheduled job due by `now`; returns how many started."""
    from .models import ScheduledJob

    now = now or timezone.now()
    with transaction.atomic():
        due = _due(ScheduledJob.objects.all(), now).order_by("next_run_at")
        return sum(_start(scheduled, now) for scheduled in due)


def start_when_due(scheduled) -> bool:
    """Start one scheduled job now if it is due (an approved run whose start time has passed),
    locked as the scheduler locks it so that the two never both start it."""
    now = timezone.now()
    if scheduled.next_run_at is None or scheduled.next_run_at > now:
        return False
    with transaction.atomic():
        found = _due(type(scheduled).objects.filter(pk=scheduled.pk), now).first()
        return found is not None and _start(found, now)


def _due(queryset, now):
    return (
        queryset.select_for_update(skip_locked=True, of=("self",))
        .filter(enabled=True, state="active", next_run_at__lte=now)
        .select_related("job_model", "job_queue", "user")
    )


def _start(scheduled, now) -> bool:
    """Start one due scheduled job (or record why it cannot run) and record the run on it."""
    from django.conf import settings

    from .discovery import job_class
    from .runs import enqueue, failed

    job = scheduled.job_model
    started = False
    if job is None or not job.installed or not job.enabled or job_class(job) is None:
        reason = f"Scheduled job '{scheduled.name}' cannot run: its job is not installed and enabled."
        failed(job.name if job else scheduled.task, job, reason, scheduled)
    else:
        queue = scheduled.job_queue.name if scheduled.job_queue else settings.CELERY_TASK_DEFAULT_QUEUE
        enqueue(job, queue, scheduled.kwargs, scheduled.user, scheduled, when_committed=True)
        started = True
    scheduled.last_run_at, scheduled.total_run_count = now, scheduled.total_run_count + 1
    if scheduled.one_off:
        scheduled.enabled = False
    scheduled.save()
    return started


def seconds_to_next_run(now=None) -> float | None:
    from .models import ScheduledJob

    now = now or timezone.now()
    soonest = ScheduledJob.objects.filter(enabled=True, state="active").aggregate(at=Min("next_run_at"))["at"]
    return None if soonest is None else max(0.0, (soonest - now).total_seconds())


class DatabaseScheduler(Scheduler):
    """Beat's scheduler with no schedule of its own in memory or on disk: the database is it."""

    def setup_schedule(self):
        pass

    def tick(self, *args, **kwargs):
        close_old_connections()  # beat runs for months: a connection the server dropped is replaced
        try:
            if start_due_jobs():
                log.info("scheduled jobs started")
            wait = seconds_to_next_run()
        except Exception:  # the database is away: try again later, beat keeps running
            log.exception("scheduled jobs could not be read")
            return self.max_interval
        return self.max_interval if wait is None else min(self.max_interval, wait)
