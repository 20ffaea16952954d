from queryengine.registry import Computed, Display, Resource, register

from .models import (
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

register(
    Resource(
        Job,
        "extras/jobs",
        search=("name", "grouping", "description", "module_name", "job_class_name"),
        # Jobs come from code: clients change their flags, never create them.
        creatable=False,
    )
)
register(Resource(JobQueue, "extras/job-queues"))
register(
    Resource(
        JobQueueAssignment,
        "extras/job-queue-assignments",
        display=Display(("job__name", "job_queue__name"), lambda job, queue: f"{job}: {queue}"),
        search=("job__name", "job_queue__name"),
        natural_key=None,
    )
)
register(
    Resource(
        JobResult,
        "extras/job-results",
        display=Display(
            ("name", "date_created", "status"),
            lambda name, created, status: f"{name} created at {created} ({status})",
        ),
        search=("name", "status"),
        natural_key=None,
        writable=False,
        notes=False,
    )
)
register(
    Resource(
        JobLogEntry,
        "extras/job-logs",
        display=Display(("message",), lambda message: message[:50]),
        search=("message", "log_object", "grouping"),
        natural_key=None,
        writable=False,
    )
)
register(Resource(JobHook, "extras/job-hooks", search=("name",)))
register(
    Resource(
        ScheduledJob,
        "extras/scheduled-jobs",
        display=Display(("name", "interval"), lambda name, interval: f"{name}: {interval}"),
        search=("name", "task", "description"),
        # The queue's name, kept beside job_queue for clients of versions before 2.4.
        computed={"queue": Computed(("job_queue__name",), lambda name: name or "")},
        hidden=("next_run_at",),
        # Schedules come from `jobs/<id>/run/`: clients pause (enabled), rename or delete them.
        creatable=False,
    )
)
register(Resource(JobButton, "extras/job-buttons", search=("name", "text"), notes=True))
register(
    Resource(
        FileProxy,
        "extras/file-proxies",
        search=("name",),
        hidden=("content",),
        natural_key=None,
        writable=False,
        notes=False,
    )
)
