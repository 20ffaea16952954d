"""The one Celery task: run a job class for a job result, recording its logs and outcome."""

from __future__ import annotations

import json
import logging
import traceback

from celery import Task, shared_task
from django.contrib.auth.models import AnonymousUser
from django.db import models
from django.utils import timezone

from queryengine.acting import acting_as, may_view
from queryengine.changes import change_context
from queryengine.timeouts import timed_out

SUCCESS, FAILURE = 25, 35  # levels between INFO/WARNING and WARNING/ERROR, as the reference's
logging.addLevelName(SUCCESS, "SUCCESS")
logging.addLevelName(FAILURE, "FAILURE")
LEVEL_NAMES = {
    logging.DEBUG: "debug",
    logging.INFO: "info",
    SUCCESS: "success",
    logging.WARNING: "warning",
    FAILURE: "failure",
    logging.ERROR: "error",
    logging.CRITICAL: "critical",
}


class JobLogger(logging.Logger):
    """A job's `self.logger`: the standard methods plus `success` and `failure`. `extra=
    {"object": obj, "grouping": "name"}` ties an entry to an object and a group."""

    def success(self, msg, *args, **kwargs):
        self.log(SUCCESS, msg, *args, **kwargs)

    def failure(self, msg, *args, **kwargs):
        self.log(FAILURE, msg, *args, **kwargs)


class JobLogHandler(logging.Handler):
    """Writes each record as a log entry at once (autocommit): readable while the job runs. An
    entry about an object the job's user may not view is left out: its message names it."""

    def __init__(self, job_result, user=None):
        super().__init__(logging.DEBUG)
        self.job_result = job_result
        self.user = user or AnonymousUser()

    def emit(self, record):
        from .models import JobLogEntry

        obj = getattr(record, "object", None)
        if isinstance(obj, models.Model) and not may_view(obj, self.user):
            return
        url = ""
        if obj is not None and getattr(obj, "pk", None) is not None:
            from queryengine.registry import resource_for

            resource = resource_for(type(obj))
            url = f"/api/{resource.route}/{obj.pk}/" if resource else ""
        JobLogEntry.objects.create(
            job_result=self.job_result,
            log_level=LEVEL_NAMES.get(record.levelno, "info"),
            grouping=str(getattr(record, "grouping", "main"))[:100],
            message=record.getMessage(),
            log_object="" if obj is None else str(obj)[:200],
            absolute_url=url[:255],
        )


def json_ready(value, user):
    """A job's return value as stored: JSON as is, anything else through str(); an object the
    job's user may not view becomes null."""

    def shown(item):
        if isinstance(item, models.Model) and not may_view(item, user):
            return None
        if isinstance(item, set | frozenset | models.QuerySet):  # their text would name each object
            return list(item)
        return str(item)

    return json.loads(json.dumps(value, default=shown))


def runner(job_result):
    """The user a run acts for, as they are now: who started it (or scheduled it; a job hook's
    change: who made it). A deactivated or deleted one runs nothing."""
    user = job_result.user
    if user is None:
        if job_result.scheduled_job_id is not None:
            raise PermissionError("The user who scheduled this job no longer exists; the job did not run.")
        return AnonymousUser()
    if not user.is_active:
        raise PermissionError(f"The user {user.get_username()} is deactivated; the job did not run.")
    return user


class JobTask(Task):
    """Hooks the worker calls outside the job's own code."""

    def on_failure(self, exc, task_id, args, kwargs, einfo):
        """The worker's parent process reports a hard time limit (the job's process was killed,
        so `run_job` could not record it): the result is marked failed here."""
        from .models import JobResult

        JobResult.objects.filter(pk=args[0], date_done__isnull=True).update(
            status="FAILURE",
            date_done=timezone.now(),
            result={"exc_type": type(exc).__name__, "exc_message": [str(exc)]},
            traceback=str(einfo) if einfo else f"{type(exc).__name__}: {exc}",
        )


@shared_task(bind=True, base=JobTask, name="inventory.jobs.run_job")
def run_job(self, job_result_id: str, data: dict):
    from . import cancel
    from .discovery import runnable_class
    from .models import JobResult

    if cancel.canceled_before_start(job_result_id):
        return "REVOKED"
    job_result = JobResult.objects.select_related("job_model", "user").get(pk=job_result_id)
    job_result.status, job_result.date_started = "STARTED", timezone.now()
    job_result.worker = getattr(self.request, "hostname", None)
    job_result.task_name = self.name
    job_result.save(update_fields=["status", "date_started", "worker", "task_name"])
    logger = JobLogger(f"inventory.jobs.run.{job_result_id}")
    handler = JobLogHandler(job_result)
    logger.addHandler(handler)
    try:
        user = handler.user = runner(job_result)
        with acting_as(user):  # a repository's job is imported here: its module code acts as the user too
            klass = runnable_class(job_result.job_model, user) if job_result.job_model else None
        if klass is None:
            raise RuntimeError("The job's code is not installed on this worker.")
        job = klass(job_result=job_result, logger=logger, user=user)
        # What the job changes is logged as the job's, under its result's id; it reads and
        # writes as its user.
        detail = f"{job_result.job_model.module_name}.{job_result.job_model.job_class_name}"
        with change_context("job", detail, job_result.user, job_result.pk), acting_as(user):
            output = job.run(**klass.deserialize(data, user))
        job_result.result, job_result.status = json_ready(output, user), "SUCCESS"
    except Exception as exc:  # the job's own failure is its result, never the worker's
        job_result.status, job_result.traceback = "FAILURE", traceback.format_exc()
        failure = timed_out(exc) or exc  # a statement stopped by the database: the limit it passed
        job_result.result = {"exc_type": type(failure).__name__, "exc_message": [str(failure)]}
        logger.error("%s: %s", type(failure).__name__, failure)
    finally:
        logger.handlers.clear()
    job_result.date_done = timezone.now()
    counts = dict.fromkeys(("debug", "success", "info", "warning", "error"), 0)
    for level in job_result.job_log_entries.values_list("log_level", flat=True):
        key = {"failure": "error", "critical": "error"}.get(level, level)
        counts[key] += 1
    for key, count in counts.items():
        setattr(job_result, f"{key}_log_count", count)
    cancel.keep_cancellation(job_result)
    job_result.save()
    return job_result.status
