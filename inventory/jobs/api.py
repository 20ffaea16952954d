"""`jobs/<id>/variables/`, `jobs/<id>/run/`, `job-results/<id>/logs/` and `.../cancel/`: the
paths beside the generated ones. Jobs, results and logs are read through the engine like every other object."""

from __future__ import annotations

import mimetypes
from copy import copy
from dataclasses import replace

from django.conf import settings
from django.core.exceptions import ValidationError
from django.http import HttpResponse

from queryengine.permissions import Everyone, allowed_rows, restricted
from queryengine.registry import resource_for
from rest.parameters import ACTION_SHAPE, UNORDERED_SORT, UNPAGED
from rest.views import (
    ApiError,
    Endpoint,
    ScopedListEndpoint,
    detail_error,
    json_body,
    not_an_object,
    not_found,
    object_pk,
    parse_depth,
    read_object,
    require_view,
)

from . import cancel
from .approval_api import SUB_ENDPOINTS as APPROVAL_SUB_ENDPOINTS
from .approval_api import held_for_approval
from .discovery import job_class
from .models import FileProxy, Job, JobLogEntry, JobQueue, JobResult, ScheduledJob
from .runs import QueueUnreachable, enqueue
from .scheduling import SENSITIVE_SCHEDULE, create_schedule, schedule_of
from .workers import no_worker_message, worker_count

QUEUE_UNREACHABLE = "The task queue could not be reached; the job was not started. Try again shortly."


def visible_job(request, key: str) -> tuple[Job, type]:
    resource = resource_for(Job)
    require_view(resource, request)
    pk = object_pk(request, resource, key)
    job = restricted(resource, request.context.user).filter(pk=pk).select_related("default_job_queue").first()
    if job is None:
        raise not_found(resource)
    klass = job_class(job)
    return job, klass


def started(request, model, pk) -> dict:
    """The result (or schedule) of a run the caller just started, shown to them whatever they
    may otherwise view, as the reference answers a run."""
    runner = copy(request)
    runner.context = replace(request.context, user=Everyone())
    return read_object(runner, resource_for(model), pk, parse_depth(request))


def may_run(job: Job, user) -> bool:
    """The `run` action on this job: Django's extras.run_job, or an object permission granting
    `run` on extras.job whose constraints the job meets."""
    rows = allowed_rows(resource_for(Job), user, "run")
    return rows is not None and (not rows or Job.objects.filter(rows, pk=job.pk).exists())


class JobVariablesEndpoint(Endpoint):
    """The form a run takes: one entry per variable (name, type, label, help text, required, …),
    every one in the job's order whatever the paging and `sort` the reference's document lists."""

    query_parameters = (*ACTION_SHAPE, *UNPAGED, UNORDERED_SORT)

    # What ScriptVariable.describe gives: the first five always, the others per kind of variable.
    response_schema = {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "type": {"type": "string"},
                "label": {"type": "string"},
                "help_text": {"type": "string"},
                "required": {"type": "boolean"},
                "default": {},
                "choices": {"type": "array", "items": {"type": "array", "items": {}}},
                "model": {"type": "string"},
                "min_length": {"type": "integer"},
                "max_length": {"type": "integer"},
                "min_value": {"type": "integer"},
                "max_value": {"type": "integer"},
            },
            "required": ["name", "type", "label", "help_text", "required"],
        },
    }

    def get(self, request, key: str):
        job, klass = visible_job(request, key)
        if klass is None:
            raise detail_error(404, "Not found.")
        return [variable.describe(name) for name, variable in klass.variables().items()], 200


class JobRunEndpoint(Endpoint):
    """Validate `data` against the job's variables, record a job result and enqueue it: 201
    `{"scheduled_job": null, "job_result": {…}}` as the reference answers; with a `schedule`
    (`{"name", "interval", "start_time", "crontab"}`) record a scheduled job instead: 201
    `{"scheduled_job": {…}, "job_result": null}`."""

    methods = ("POST",)

    def post(self, request, key: str):
        job, klass = visible_job(request, key)
        user = request.context.user
        if not may_run(job, user):
            raise detail_error(403, "This user does not have permission to run jobs.")
        if not request.context.write_enabled:
            raise detail_error(403, "You do not have permission to perform this action.")
        if not job.enabled:
            raise detail_error(403, "This job is not enabled to be run.")
        if not job.installed or klass is None:
            raise detail_error(405, "This job is not presently installed and cannot be run")
        body = json_body(request, empty=None) or {}
        if not isinstance(body, dict):
            raise not_an_object(body)
        queue = self.queue(job, body)
        schedule = schedule_of(body.get("schedule"))
        data = body.get("data") or {}
        if not isinstance(data, dict):
            raise ApiError(400, {"data": ["Job data needs to be a dict"]})
        if klass.supports_dryrun() and "dryrun" not in data:
            data = {**data, "dryrun": job.dryrun_default}
        try:
            cleaned = klass.clean_data(data, user)
        except ValidationError as exc:
            return {"errors": exc.message_dict}, 400
        if not worker_count(queue):  # scheduled runs too: nobody would ever pick them up
            raise detail_error(503, no_worker_message(queue))
        if schedule is not None:
            if job.has_sensitive_variables:
                raise ApiError(400, {"schedule": {"interval": [SENSITIVE_SCHEDULE]}})
            scheduled = create_schedule(job, queue, klass.serialize(cleaned), user, schedule)
            return {"scheduled_job": started(request, ScheduledJob, scheduled.pk), "job_result": None}, 201
        serialized = klass.serialize(cleaned)
        dryrun = klass.supports_dryrun() and bool(serialized.get("dryrun"))
        held = held_for_approval(job, queue, serialized, user, dryrun)
        if held is not None:  # it runs once its approval workflow is approved
            return {"scheduled_job": started(request, ScheduledJob, held.pk), "job_result": None}, 201
        try:
            job_result = enqueue(job, queue, serialized, user)
        except QueueUnreachable:
            raise ApiError(503, {"detail": QUEUE_UNREACHABLE}) from None
        return {"scheduled_job": None, "job_result": started(request, JobResult, job_result.pk)}, 201

    @staticmethod
    def queue(job: Job, body: dict) -> str:
        task_queue, job_queue = body.get("task_queue"), body.get("job_queue")
        if task_queue and job_queue:
            raise ApiError(
                400,
                {
                    "task_queue": [
                        "task_queue and job_queue are both specified. Please specify only one or another."
                    ]
                },
            )
        given = task_queue or job_queue
        if isinstance(given, dict):
            given = (
                given.get("name")
                or JobQueue.objects.filter(pk=given.get("id")).values_list("name", flat=True).first()
            )
        elif given and JobQueue.objects.filter(pk=_uuid_or_none(given)).exists():
            given = JobQueue.objects.get(pk=given).name
        if not given:
            return job.default_job_queue.name if job.default_job_queue else settings.CELERY_TASK_DEFAULT_QUEUE
        valid = job.task_queues or [settings.CELERY_TASK_DEFAULT_QUEUE]
        if given not in valid:
            raise ApiError(400, {"task_queue": [f'"{given}" is not a valid choice.']})
        return given


def _uuid_or_none(value):
    import uuid

    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None


class ScheduledDryRunEndpoint(Endpoint):
    """`scheduled-jobs/<id>/dry-run/`: run a schedule's job now with its data and `dryrun`, as the
    reference does, answering with the job result (200)."""

    methods = ("POST",)

    def post(self, request, key: str):
        resource = resource_for(ScheduledJob)
        require_view(resource, request)
        pk = object_pk(request, resource, key)
        scheduled = (
            restricted(resource, request.context.user).filter(pk=pk).select_related("job_model").first()
        )
        if scheduled is None:
            raise not_found(resource)
        job = scheduled.job_model
        klass = job_class(job) if job is not None else None
        if klass is None or not (job.installed and job.enabled):
            raise detail_error(405, "This job cannot be dry-run at this time.")
        if not klass.supports_dryrun():
            raise detail_error(405, "This job does not support dry-run.")
        user = request.context.user
        if not may_run(job, user) or not request.context.write_enabled:
            raise detail_error(403, "You do not have permission to run this job.")
        queue = scheduled.celery_kwargs.get("queue") or settings.CELERY_TASK_DEFAULT_QUEUE
        try:
            job_result = enqueue(job, queue, {**scheduled.kwargs, "dryrun": True}, user)
        except QueueUnreachable:
            raise ApiError(503, {"detail": QUEUE_UNREACHABLE}) from None
        return started(request, JobResult, job_result.pk), 200


class FileDownloadEndpoint(Endpoint):
    """`file-proxies/<id>/download/`: the file itself, as an attachment (the reference's
    FileResponse), to callers who may see the file proxy."""

    query_parameters = ACTION_SHAPE

    def get(self, request, key: str):
        resource = resource_for(FileProxy)
        require_view(resource, request)
        pk = object_pk(request, resource, key)
        found = (
            restricted(resource, request.context.user).filter(pk=pk).values_list("name", "content").first()
        )
        if found is None:
            raise not_found(resource)
        name, content = found
        kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
        response = HttpResponse(bytes(content), content_type=kind)
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response, 200


def result_logs(pk) -> tuple:
    return resource_for(JobLogEntry), {"job_result": [str(pk)]}


def job_result_logs_endpoint():
    return ScopedListEndpoint(resource_for(JobResult), result_logs)


class JobResultCancelEndpoint(Endpoint):
    """`job-results/<id>/cancel/`: GET previews the cancellation of a run (`cancel.preview`), POST
    cancels it and answers with the result (200); a finished run is a 400. Who started the run,
    superusers and holders of the change permission on job results may cancel it."""

    methods = ("GET", "POST")
    query_parameters = ACTION_SHAPE
    response_schema = {
        "type": "object",
        "properties": {
            "message": {"type": "string"},
            "job_status": {"type": "string"},
            "irreversible": {"type": "string"},
            "timestamp": {"type": "string", "format": "date-time"},
        },
        "required": ["job_status", "message", "timestamp"],
    }

    def visible(self, request, key: str) -> JobResult:
        resource = resource_for(JobResult)
        require_view(resource, request)
        pk = object_pk(request, resource, key)
        found = restricted(resource, request.context.user).filter(pk=pk).first()
        if found is None:
            raise not_found(resource)
        return found

    def get(self, request, key: str):
        return cancel.preview(self.visible(request, key)), 200

    def post(self, request, key: str):
        job_result = self.visible(request, key)
        user = request.context.user
        allowed = (
            user.is_superuser
            or (job_result.user_id is not None and job_result.user_id == user.pk)
            or user.has_perm("extras.change_jobresult")
        )
        if not allowed or not request.context.write_enabled:
            raise detail_error(403, "You do not have permission to cancel this job.")
        if not cancel.cancel(job_result, user):
            raise detail_error(400, f"This job has already finished ({job_result.status}).")
        return read_object(request, resource_for(JobResult), job_result.pk, parse_depth(request)), 200


SUB_ENDPOINTS = {
    "extras/jobs": {"variables": JobVariablesEndpoint, "run": JobRunEndpoint},
    "extras/job-results": {"logs": job_result_logs_endpoint, "cancel": JobResultCancelEndpoint},
    "extras/file-proxies": {"download": FileDownloadEndpoint},
    "extras/scheduled-jobs": {"dry-run": ScheduledDryRunEndpoint},
    **APPROVAL_SUB_ENDPOINTS,
}
