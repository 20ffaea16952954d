"""Sample jobs, queues, results and log entries (rows only: no job code runs to build them)."""

from __future__ import annotations

import datetime

from django.contrib.contenttypes.models import ContentType
from django.utils import timezone

from inventory.jobs.models import (
    FileProxy,
    Job,
    JobButton,
    JobHook,
    JobLogEntry,
    JobQueue,
    JobQueueAssignment,
    JobResult,
    ScheduledJob,
)


def build_jobs(s: str, owner, tenants) -> dict[type, list]:
    k = s.replace("-", "_")
    queues = [
        JobQueue.objects.create(name=f"bulk{s}", description="long jobs", tenant=tenants[0]),
        JobQueue.objects.create(name=f"checks{s}"),
        JobQueue.objects.create(name=f"Edge{s}", queue_type="kubernetes", description="edge cluster"),
    ]
    jobs = [
        Job.objects.create(
            module_name=f"site_jobs{k}.audits",
            job_class_name="AuditNames",
            grouping="Audits",
            name=f"Audit names{s}",
            description="checks naming rules",
            enabled=True,
            soft_time_limit=60,
            time_limit=90,
            default_job_queue=queues[1],
        ),
        Job.objects.create(
            module_name=f"site_jobs{k}.changes",
            job_class_name="Renumber",
            grouping="Changes",
            name=f"Renumber{s}",
            has_sensitive_variables=False,
            dryrun_default=True,
            installed=False,
            default_job_queue=queues[0],
        ),
        Job.objects.create(
            module_name=f"site_jobs{k}.changes",
            job_class_name="Cleanup",
            grouping="Changes",
            name=f"cleanup{s}",
            hidden=True,
            is_job_hook_receiver=True,
        ),
        Job.objects.create(
            module_name=f"site_jobs{k}.buttons",
            job_class_name="Reboot",
            grouping="Buttons",
            name=f"Reboot{s}",
            enabled=True,
            has_sensitive_variables=False,
            is_job_button_receiver=True,
        ),
    ]
    assignments = [
        JobQueueAssignment.objects.create(job=jobs[0], job_queue=queues[1]),
        JobQueueAssignment.objects.create(job=jobs[0], job_queue=queues[0]),
        JobQueueAssignment.objects.create(job=jobs[1], job_queue=queues[0]),
    ]
    start = timezone.now() - datetime.timedelta(hours=1)
    results = [
        JobResult.objects.create(
            name=jobs[0].name,
            job_model=jobs[0],
            user=owner,
            status="SUCCESS",
            date_created=start,
            date_started=start + datetime.timedelta(seconds=1),
            date_done=start + datetime.timedelta(seconds=5),
            result={"checked": 12},
            worker="celery@alpha",
            task_kwargs={"pattern": "^leaf"},
            celery_kwargs={"queue": queues[1].name},
            info_log_count=2,
        ),
        JobResult.objects.create(
            name=jobs[1].name,
            job_model=jobs[1],
            user=None,
            status="FAILURE",
            date_created=start + datetime.timedelta(minutes=1),
            traceback="Traceback (most recent call last):\nRuntimeError: boom",
        ),
        JobResult.objects.create(name=jobs[0].name, job_model=jobs[0], user=owner),
    ]
    logs = [
        JobLogEntry.objects.create(job_result=results[0], message="started", grouping="run"),
        JobLogEntry.objects.create(
            job_result=results[0], log_level="success", message="all names fine", log_object="leaf1"
        ),
        JobLogEntry.objects.create(job_result=results[1], log_level="error", message="RuntimeError: boom"),
    ]
    hooks = [
        JobHook.objects.create(name=f"cleanup on delete{s}", job=jobs[2], type_delete=True),
        JobHook.objects.create(
            name=f"Audit{s}", job=jobs[2], type_create=True, type_update=True, enabled=False
        ),
        JobHook.objects.create(
            name=f"every change{s}", job=jobs[2], type_create=True, type_update=True, type_delete=True
        ),
    ]
    kinds = [ContentType.objects.get_for_model(m) for m in (JobQueue, JobQueueAssignment, JobLogEntry)]
    for hook, kind in zip(hooks, kinds, strict=True):
        hook.content_types.set([kind])
    schedules = [
        ScheduledJob.objects.create(
            name=f"nightly audit{s}",
            task=jobs[0].class_path,
            job_model=jobs[0],
            interval="daily",
            start_time=start + datetime.timedelta(days=1),
            kwargs={"pattern": "^leaf"},
            celery_kwargs={"queue": queues[1].name},
            job_queue=queues[1],
            user=owner,
            description="names every night",
        ),
        ScheduledJob.objects.create(
            name=f"Renumber once{s}",
            task=jobs[1].class_path,
            job_model=jobs[1],
            interval="future",
            one_off=True,
            start_time=start - datetime.timedelta(days=2),
            last_run_at=start - datetime.timedelta(days=2),
            total_run_count=1,
            enabled=False,
        ),
        ScheduledJob.objects.create(
            name=f"quarter-hourly{s}",
            task=jobs[0].class_path,
            job_model=None,
            interval="custom",
            crontab="*/15 * * * 1-5",
            start_time=start,
            time_zone="Europe/Amsterdam",
        ),
    ]
    results[2].scheduled_job = schedules[0]
    results[2].save()
    buttons = [
        JobButton.objects.create(name=f"Reboot{s}", text="Reboot {{ obj.name }}", job=jobs[3], weight=50),
        JobButton.objects.create(
            name=f"Drain{s}",
            text="Drain",
            job=jobs[3],
            group_name="Maintenance",
            button_class="warning",
            confirmation=False,
        ),
        JobButton.objects.create(name=f"old button{s}", text="Old", job=jobs[3], enabled=False),
    ]
    device_types = [
        ContentType.objects.get_by_natural_key(*pair) for pair in (("dcim", "device"), ("dcim", "interface"))
    ]
    buttons[0].content_types.set(device_types)
    buttons[1].content_types.set(device_types[:1])
    buttons[2].content_types.set(device_types[1:])
    files = [
        FileProxy.objects.create(
            name=f"netinventory_devices{k}.csv", job_result=results[0], content=b"name\nleaf1\n"
        ),
        FileProxy.objects.create(name=f"report{k}.txt", job_result=results[0], content=b"all fine"),
        FileProxy.objects.create(name=f"orphan{k}.json", content=b"{}"),
    ]
    return {
        ScheduledJob: schedules,
        JobButton: buttons,
        FileProxy: files,
        JobHook: hooks,
        JobQueue: queues,
        Job: jobs,
        JobQueueAssignment: assignments,
        JobResult: results,
        JobLogEntry: logs,
    }
