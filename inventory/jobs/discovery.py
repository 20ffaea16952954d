"""Finding job classes in installed modules and keeping the `Job` rows in step with them.

Modules are the built-in ones plus the `JOBS_MODULES` setting (importable module names). Rows are
synchronised after `migrate` and when a worker starts; a class gone from its module leaves its row
with `installed` false (its results stay). A Git repository's jobs follow its syncs instead
(inventory/extras/gitjobs.py).
"""

from __future__ import annotations

import importlib
import inspect
import logging
import sys

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
    """The class that cleans and describes a run of `job`: its own for an installed module; for
    a Git repository's job, one rebuilt from its stored form (the web process imports no
    repository code)."""
    found = job_classes().get(job.class_path)
    if found is None and job.module_name not in job_modules():
        from inventory.extras.gitjobs import form_class

        return form_class(job)
    return found


def runnable_class(job, user) -> type[JobClass] | None:
    """The class a worker runs for `job` run by `user`: a Git repository's is imported from its
    synced commit (fetched for that user when the worker's clone is elsewhere)."""
    if job.module_name in job_modules():
        return job_classes().get(job.class_path)
    from inventory.extras.gitjobs import code_class

    return code_class(job, user)


def class_values(path: str, klass: type[JobClass]) -> dict:
    module_name = path.rsplit(".", 1)[0]
    module = sys.modules.get(module_name) or importlib.import_module(module_name)
    values = {key: klass.meta(key, default) for key, default in OVERRIDABLE.items()}
    values["name"] = values["name"] or klass.__name__
    values["grouping"] = values["grouping"] or getattr(module, "name", module_name)
    values["description"] = values["description"] or inspect.getdoc(klass) or ""
    values["supports_dryrun"] = klass.supports_dryrun()
    values["read_only"] = bool(klass.meta("read_only", False))
    values["is_job_hook_receiver"] = issubclass(klass, JobHookReceiver)
    values["is_job_button_receiver"] = issubclass(klass, JobButtonReceiver)
    return values


def default_queue():
    from .models import JobQueue

    queue, _ = JobQueue.objects.get_or_create(
        name=DEFAULT_QUEUE, defaults={"description": "The queue every job may run on unless told otherwise."}
    )
    return queue


def install(path: str, klass: type[JobClass], queue, enabled: bool, form=None):
    """The row of a job class, created (`enabled` as given) or refreshed from the class; a
    repository's job keeps its `form` for the web process. (job, created)."""
    from .models import Job, JobQueue, JobQueueAssignment

    module_name, class_name = path.rsplit(".", 1)
    values = class_values(path, klass)
    job = Job.objects.filter(module_name=module_name, job_class_name=class_name).first()
    created = job is None
    if created:
        job = Job(module_name=module_name, job_class_name=class_name, enabled=enabled)
    for key, value in values.items():
        if not getattr(job, f"{key}_override", False):
            setattr(job, key, value)
    if not job.name_override:
        job.name = unique_name(job)
    if form is not None:
        job._variables = form
    job.installed = True
    if not job.default_job_queue_override or job.default_job_queue_id is None:
        job.default_job_queue = queue
    job.save()
    if not job.job_queues_override:
        wanted = [queue.name, *klass.meta("task_queues", [])]
        for queue_name in dict.fromkeys(wanted):
            found, _ = JobQueue.objects.get_or_create(name=queue_name)
            JobQueueAssignment.objects.get_or_create(job=job, job_queue=found)
    refresh_task_queues(job)
    return job, created


def unique_name(job) -> str:
    """The class's name for its row, numbered (" (2)") when another job has it, as the reference."""
    from .models import Job

    wanted = job.name[:255]
    taken = set(
        Job.objects.filter(name__startswith=wanted[:200])
        .exclude(module_name=job.module_name, job_class_name=job.job_class_name)
        .values_list("name", flat=True)
    )
    name, counter = wanted, 2
    while name in taken:
        suffix = f" ({counter})"
        name, counter = wanted[: 255 - len(suffix)] + suffix, counter + 1
    return name


@transaction.atomic
def sync_jobs() -> None:
    """Rows of the installed modules' classes; those gone are no longer installed (a Git
    repository's jobs follow its syncs instead, inventory/extras/gitjobs.py)."""
    from inventory.extras.gitjobs import repository_jobs

    from .models import Job

    queue = default_queue()
    classes = job_classes()
    for path, klass in classes.items():
        install(path, klass, queue, enabled=path.rsplit(".", 1)[0] in BUILT_IN_MODULES)
    installed = {tuple(p.rsplit(".", 1)) for p in classes}
    for job in Job.objects.filter(installed=True).exclude(repository_jobs()):
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
