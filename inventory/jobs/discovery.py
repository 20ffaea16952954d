"""Finding job classes in installed modules and keeping the `Job` rows in step with them.

Modules are the built-in ones plus the `JOBS_MODULES` setting (importable module names). Rows are
synchronised after `migrate` and when a worker starts; a class gone from its module leaves its row
with `installed` false (its results stay).
"""

from __future__ import annotations

import importlib
import inspect
import logging

from django.conf import settings
from django.db import transaction

from .base import Job as JobClass
from .base import JobButtonReceiver, JobHookReceiver

BUILT_IN_MODULES = (
    "inventory.jobs.builtin",
    "inventory.jobs.groups",
    "inventory.data_validation.jobs",
    "inventory.jobs.datasources",
)
DEFAULT_QUEUE = "default"
BASES = (JobClass, JobHookReceiver, JobButtonReceiver)
# Attributes copied from the class unless an administrator overrode them (`<name>_override`).
OVERRIDABLE = {
    "grouping": None,
    "name": None,
    "description": "",
    "dryrun_default": False,
    "hidden": False,
    "soft_time_limit": 0.0,
    "time_limit": 0.0,
    "has_sensitive_variables": True,
    "is_singleton": False,
    "console_log_default": False,
}
logger = logging.getLogger(__name__)


def job_modules() -> list[str]:
    return [*BUILT_IN_MODULES, *getattr(settings, "JOBS_MODULES", [])]


def job_classes() -> dict[str, type[JobClass]]:
    """{"module.Class": class} of every job class the modules define (a module that fails to
    import is logged and skipped: one broken module does not hide the others)."""
    found = {}
    for module_name in job_modules():
        try:
            module = importlib.import_module(module_name)
        except Exception:
            logger.exception("cannot import job module %s", module_name)
            continue
        for _, klass in inspect.getmembers(module, inspect.isclass):
            if issubclass(klass, JobClass) and klass not in BASES and klass.__module__ == module_name:
                found[f"{module_name}.{klass.__name__}"] = klass
    return found


def job_class(job) -> type[JobClass] | None:
    return job_classes().get(job.class_path)


def class_values(path: str, klass: type[JobClass]) -> dict:
    module_name = path.rsplit(".", 1)[0]
    module = importlib.import_module(module_name)
    values = {key: klass.meta(key, default) for key, default in OVERRIDABLE.items()}
    values["name"] = values["name"] or klass.__name__
    values["grouping"] = values["grouping"] or getattr(module, "name", module_name)
    values["description"] = values["description"] or inspect.getdoc(klass) or ""
    values["supports_dryrun"] = klass.supports_dryrun()
    values["read_only"] = bool(klass.meta("read_only", False))
    values["is_job_hook_receiver"] = issubclass(klass, JobHookReceiver)
    values["is_job_button_receiver"] = issubclass(klass, JobButtonReceiver)
    return values


@transaction.atomic
def sync_jobs() -> None:
    from .models import Job, JobQueue, JobQueueAssignment

    default_queue, _ = JobQueue.objects.get_or_create(
        name=DEFAULT_QUEUE, defaults={"description": "The queue every job may run on unless told otherwise."}
    )
    classes = job_classes()
    for path, klass in classes.items():
        module_name, class_name = path.rsplit(".", 1)
        values = class_values(path, klass)
        job = Job.objects.filter(module_name=module_name, job_class_name=class_name).first()
        if job is None:
            built_in = module_name in BUILT_IN_MODULES
            job = Job(module_name=module_name, job_class_name=class_name, enabled=built_in)
        for key, value in values.items():
            if not getattr(job, f"{key}_override", False):
                setattr(job, key, value)
        job.installed = True
        if not job.default_job_queue_override or job.default_job_queue_id is None:
            job.default_job_queue = default_queue
        job.save()
        if not job.job_queues_override:
            wanted = [default_queue.name, *klass.meta("task_queues", [])]
            for queue_name in dict.fromkeys(wanted):
                queue, _ = JobQueue.objects.get_or_create(name=queue_name)
                JobQueueAssignment.objects.get_or_create(job=job, job_queue=queue)
        refresh_task_queues(job)
    installed = {tuple(p.rsplit(".", 1)) for p in classes}
    for job in Job.objects.filter(installed=True):
        if (job.module_name, job.job_class_name) not in installed:
            job.installed = False
            job.save(update_fields=["installed"])


def refresh_task_queues(job) -> None:
    names = sorted(job.job_queues.values_list("name", flat=True))
    if names != job.task_queues:
        type(job).objects.filter(pk=job.pk).update(task_queues=names)


def sync_jobs_after_migrate(sender, app_config=None, **kwargs):
    if app_config is not None and app_config.label == "jobs":
        sync_jobs()


def queues_changed(sender, instance, **kwargs):
    """A job's `task_queues` lists the queues its assignments name."""
    from .models import Job

    job = Job.objects.filter(pk=instance.job_id).first()
    if job is not None:
        refresh_task_queues(job)
