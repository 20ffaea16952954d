"""Job hooks run their receiver job after a matching change commits, given the change record."""

from __future__ import annotations

import pytest
from django.test import override_settings

from inventory.jobs.discovery import sync_jobs
from inventory.jobs.models import Job, JobLogEntry, JobResult

from .conftest import send
from .test_jobs import TEST_MODULES, eager  # noqa: F401 (fixture)


@pytest.fixture
def receiver_job(api, eager):  # noqa: F811
    with override_settings(JOBS_MODULES=TEST_MODULES):
        sync_jobs()
        Job.objects.filter(module_name="tests.sample_jobs").update(enabled=True)
        yield Job.objects.get(job_class_name="AuditTenants")


def test_a_job_hook_runs_its_receiver_after_commit(api, receiver_job, django_capture_on_commit_callbacks):
    assert receiver_job.is_job_hook_receiver
    hook = {"name": "audit tenants", "content_types": ["tenancy.tenant"], "job": str(receiver_job.pk)}
    status, body = send(
        api, "post", "/api/extras/job-hooks/", {**hook, "type_update": True, "type_delete": True}
    )
    assert status == 201, body
    with django_capture_on_commit_callbacks(execute=True):
        status, tenant = send(api, "post", "/api/tenancy/tenants/", {"name": "hooked-tenant"})
    assert (
        status == 201 and not JobResult.objects.filter(job_model=receiver_job).exists()
    )  # creates not chosen
    with django_capture_on_commit_callbacks(execute=True):
        send(api, "patch", f"/api/tenancy/tenants/{tenant['id']}/", {"description": "x"})
        send(api, "delete", f"/api/tenancy/tenants/{tenant['id']}/")
    results = JobResult.objects.filter(job_model=receiver_job).order_by("date_created")
    assert [r.status for r in results] == ["SUCCESS", "SUCCESS"]
    messages = list(JobLogEntry.objects.filter(job_result__in=results).values_list("message", flat=True))
    assert "update hooked-tenant by admin" in messages and "delete hooked-tenant by admin" in messages


def test_only_receivers_may_be_hooked_and_an_event_is_required(api, receiver_job):
    greet = Job.objects.get(job_class_name="Greet")
    status, body = send(
        api,
        "post",
        "/api/extras/job-hooks/",
        {"name": "bad", "content_types": ["tenancy.tenant"], "job": str(greet.pk), "type_create": True},
    )
    assert status == 400 and "job" in body
    status, body = send(
        api,
        "post",
        "/api/extras/job-hooks/",
        {"name": "none", "content_types": ["tenancy.tenant"], "job": str(receiver_job.pk)},
    )
    assert status == 400 and "type_create" in body
