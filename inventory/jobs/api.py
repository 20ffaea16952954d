"""`jobs/<id>/variables/`, `jobs/<id>/run/` and `job-results/<id>/logs/`: the paths beside the
generated ones. Jobs, results and logs are read through the engine like every other object."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError

from queryengine.query import restricted
from queryengine.registry import resource_for
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

from .discovery import job_class
from .models import Job, JobLogEntry, JobQueue, JobResult
from .tasks import run_job

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


class JobVariablesEndpoint(Endpoint):
    """The form a run takes: one entry per variable (name, type, label, help text, required, …)."""

    def get(self, request, key: str):
        job, klass = visible_job(request, key)
        if klass is None:
            raise detail_error(404, "Not found.")
        return [variable.describe(name) for name, variable in klass.variables().items()], 200


class JobRunEndpoint(Endpoint):
    """Validate `data` against the job's variables, record a job result and enqueue it: 201
    `{"scheduled_job": null, "job_result": {…}}` as the reference answers."""

    methods = ("POST",)

    def post(self, request, key: str):
        job, klass = visible_job(request, key)
        user = request.context.user
        if not (user.is_superuser or user.has_perm("jobs.run_job")):
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
        if body.get("schedule") and (body["schedule"].get("interval") or "immediately") != "immediately":
            raise ApiError(400, {"schedule": {"interval": ["Scheduled runs are not offered yet."]}})
        data = body.get("data") or {}
        if not isinstance(data, dict):
            raise ApiError(400, {"data": ["Job data needs to be a dict"]})
        if klass.supports_dryrun() and "dryrun" not in data:
            data = {**data, "dryrun": job.dryrun_default}
        try:
            cleaned = klass.clean_data(data)
        except ValidationError as exc:
            return {"errors": exc.message_dict}, 400
        job_result = self.enqueue(job, queue, klass.serialize(cleaned), user)
        shown = read_object(request, resource_for(JobResult), job_result.pk, parse_depth(request))
        return {"scheduled_job": None, "job_result": shown}, 201

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

    @staticmethod
    def enqueue(job: Job, queue: str, data: dict, user) -> JobResult:
        limits = {
            "time_limit": job.time_limit or None,
            "soft_time_limit": job.soft_time_limit or None,
        }
        job_result = JobResult.objects.create(
            name=job.name,
            job_model=job,
            user=user if user.is_authenticated else None,
            # A sensitive value (a password the job needs) travels with the message, never stored.
            task_kwargs={} if job.has_sensitive_variables else data,
            celery_kwargs={
                "queue": queue,
                "time_limit": job.time_limit,
                "soft_time_limit": job.soft_time_limit,
                "nautobot_job_user_id": str(user.pk) if user.is_authenticated else None,
                "nautobot_job_job_model_id": str(job.pk),
            },
        )
        try:
            run_job.apply_async(
                args=[str(job_result.pk), data], task_id=str(job_result.pk), queue=queue, **limits
            )
        except Exception as exc:  # the broker is down: the result says so, the client may retry
            JobResult.objects.filter(pk=job_result.pk).update(status="FAILURE", traceback=repr(exc))
            raise ApiError(503, {"detail": QUEUE_UNREACHABLE}) from None
        return job_result


def _uuid_or_none(value):
    import uuid

    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None


def result_logs(pk) -> tuple:
    return resource_for(JobLogEntry), {"job_result": [str(pk)]}


def job_result_logs_endpoint():
    return ScopedListEndpoint(resource_for(JobResult), result_logs)


SUB_ENDPOINTS = {
    "extras/jobs": {"variables": JobVariablesEndpoint, "run": JobRunEndpoint},
    "extras/job-results": {"logs": job_result_logs_endpoint},
}
