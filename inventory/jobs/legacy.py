"""Jobs as API 1.x addressed them: by class path (`/api/extras/jobs/<module>/<Class>/` and
`.../run/`, the module optionally after a source such as `local/`). 2.0 addresses jobs by id
only (spec §9.5), so these paths answer at 1.x alone."""

from __future__ import annotations

import orjson
from django.urls import register_converter

from queryengine.permissions import restricted
from queryengine.registry import resource_for
from rest import legacy, versioning
from rest.views import Endpoint, not_found, read_object, require_view

from .api import JobRunEndpoint
from .models import Job, JobResult

SOURCES = ("local", "plugins")


class ClassPath:
    """A path converter: `<module>/<Class>`, `<source>/<module>/<Class>`."""

    regex = r"[^/]+(?:/[^/]+)+"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(ClassPath, "classpath")


def job_at(request, class_path: str) -> Job:
    resource = resource_for(Job)
    require_view(resource, request)
    *module, name = class_path.split("/")
    modules = {".".join(module)} | ({".".join(module[1:])} if module[0] in SOURCES else set())
    job = (
        restricted(resource, request.context.user)
        .filter(job_class_name=name, module_name__in=modules)
        .first()
    )
    if job is None:
        raise not_found(resource)
    return job


class LegacyEndpoint(Endpoint):
    def served_at(self, version: str) -> bool:
        return versioning.legacy(version)

    def versions_served(self) -> str:
        return 'This path is served at API 1.x only: ask for it with "Accept: application/json; version=1.3".'


class JobByClassPathEndpoint(LegacyEndpoint):
    """A job, found by its class path."""

    def get(self, request, class_path: str):
        job = job_at(request, class_path)
        return read_object(request, resource_for(Job), job.pk, legacy.shape(request, 0)), 200


class JobRunByClassPathEndpoint(LegacyEndpoint):
    """Run a job found by its class path: as `jobs/<id>/run/`, answered in 1.x terms
    (`schedule`, `job_result`)."""

    methods = ("POST",)

    def post(self, request, class_path: str):
        job = job_at(request, class_path)
        answer, status = JobRunEndpoint().post(request, str(job.pk))
        if status != 201:
            return answer, status
        result_id = orjson.loads(orjson.dumps(answer["job_result"]))["id"]  # a compiled row is JSON text
        result = read_object(request, resource_for(JobResult), result_id, legacy.shape(request, 0))
        return {"schedule": answer["scheduled_job"], "job_result": result}, status


ROUTES = {  # the run path first: a class path would also take its "run"
    "extras/jobs/<classpath:class_path>/run/": JobRunByClassPathEndpoint,
    "extras/jobs/<classpath:class_path>/": JobByClassPathEndpoint,
}
