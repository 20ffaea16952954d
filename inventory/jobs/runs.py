"""Starting a job: one job result recorded and one message on the task queue, whether a client
asked (`jobs/<id>/run/`, a job button), a change called a job hook or a schedule fell due."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from .models import Job, JobResult, ScheduledJob
from .tasks import run_job


class QueueUnreachable(Exception):
    """The broker did not take the message; the job result says so."""


def limits(job: Job) -> dict:
    return {"time_limit": job.time_limit or None, "soft_time_limit": job.soft_time_limit or None}


def celery_kwargs(job: Job, queue: str, user) -> dict:
    return {
        "queue": queue,
        "time_limit": job.time_limit,
        "soft_time_limit": job.soft_time_limit,
        "nautobot_job_user_id": str(user.pk) if user is not None and user.is_authenticated else None,
        "nautobot_job_job_model_id": str(job.pk),
    }


def enqueue(
    job: Job, queue: str, data: dict, user, scheduled_job: ScheduledJob | None = None, when_committed=False
) -> JobResult:
    """Record a job result and send its message, at once or, `when_committed`, once the
    surrounding transaction commits (the worker then always finds the result, and a rolled-back
    transaction starts nothing)."""
    signed_in = user if user is not None and user.is_authenticated else None
    job_result = JobResult.objects.create(
        name=job.name,
        job_model=job,
        scheduled_job=scheduled_job,
        user=signed_in,
        # A sensitive value (a password the job needs) travels with the message, never stored.
        task_kwargs={} if job.has_sensitive_variables else data,
        celery_kwargs=celery_kwargs(job, queue, signed_in),
    )

    def send():
        try:
            run_job.apply_async(
                args=[str(job_result.pk), data], task_id=str(job_result.pk), queue=queue, **limits(job)
            )
        except Exception as exc:  # the broker is down: the result says so, the caller may retry
            JobResult.objects.filter(pk=job_result.pk).update(
                status="FAILURE", traceback=repr(exc), date_done=timezone.now()
            )
            raise QueueUnreachable(str(exc)) from None

    if when_committed:
        transaction.on_commit(send, robust=True)
    else:
        send()
    return job_result


def failed(job_name: str, job: Job | None, reason: str, scheduled_job=None) -> JobResult:
    """A run that could not start (its job is gone or disabled), recorded as a failed result."""
    now = timezone.now()
    return JobResult.objects.create(
        name=job_name,
        job_model=job,
        scheduled_job=scheduled_job,
        user=getattr(scheduled_job, "user", None),
        status="FAILURE",
        date_started=now,
        date_done=now,
        traceback=reason,
        result={"exc_type": "RuntimeError", "exc_message": [reason]},
    )
