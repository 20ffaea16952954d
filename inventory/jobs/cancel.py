"""Cancelling a job run (REST: `job-results/<id>/cancel/`), as the reference does: GET says what
a cancellation would do, POST does it. A pending run is marked revoked and never starts; a
running one is revoked and its worker told to stop it; either way the result records who
canceled it and when. A run whose worker is gone is reaped (marked revoked) the same way."""

from __future__ import annotations

import logging

from django.utils import timezone

from .models import DONE, JobResult

logger = logging.getLogger(__name__)

# The reference's job statuses of an unfinished run, as a preview names them.
RUNNING, NOT_RUNNING = "RUNNING", "NOT RUNNING"
IRREVERSIBLE = "This action cannot be undone."


def preview(job_result: JobResult) -> dict:
    """What canceling the run would do, at this moment."""
    now = timezone.now()
    if job_result.status in DONE:
        return {
            "message": f"This job has already finished ({job_result.status}); there is nothing to cancel.",
            "job_status": job_result.status,
            "timestamp": now,
        }
    running = job_result.status == "STARTED"
    return {
        "message": (
            "Cancel this running job? Its worker is told to stop it."
            if running
            else "Cancel this job? It will not be started."
        ),
        "job_status": RUNNING if running else NOT_RUNNING,
        "irreversible": IRREVERSIBLE,
        "timestamp": now,
    }


def cancel(job_result: JobResult, user) -> bool:
    """Revoke an unfinished run; False when it had already finished (nothing changes)."""
    now = timezone.now()
    running = job_result.status == "STARTED"
    changed = (
        JobResult.objects.filter(pk=job_result.pk)
        .exclude(status__in=DONE)
        .update(
            status="REVOKED",
            date_done=now,
            date_canceled=now,
            canceled_by=user if getattr(user, "pk", None) else None,
            canceled_by_user_name=getattr(user, "username", "") or "",
            cancel_type="terminated" if running else "abandoned",
        )
    )
    if changed:
        _revoke(str(job_result.pk), terminate=running)
    return bool(changed)


def _revoke(task_id: str, terminate: bool) -> None:
    """Tell the workers (best effort: the stored status already keeps a pending run from starting)."""
    from config.celery import app as celery_app

    if celery_app.conf.task_always_eager:
        return
    try:
        celery_app.control.revoke(task_id, terminate=terminate)
    except Exception as exc:  # the broker is unreachable: the run is canceled all the same
        logger.warning("Could not tell the workers to revoke %s: %s", task_id, exc)


def canceled_before_start(job_result_id) -> bool:
    """Whether a run was canceled while it waited (its worker then leaves it as it is)."""
    return JobResult.objects.filter(pk=job_result_id, status="REVOKED").exists()


def keep_cancellation(job_result: JobResult) -> None:
    """A run canceled while it ran keeps its cancellation when its worker records the end."""
    stored = (
        JobResult.objects.filter(pk=job_result.pk, status="REVOKED")
        .values("status", "date_canceled", "canceled_by", "canceled_by_user_name", "cancel_type")
        .first()
    )
    if stored is not None:
        job_result.status = "REVOKED"
        job_result.date_canceled, job_result.canceled_by_id = stored["date_canceled"], stored["canceled_by"]
        job_result.canceled_by_user_name, job_result.cancel_type = (
            stored["canceled_by_user_name"],
            stored["cancel_type"],
        )
