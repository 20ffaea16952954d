from django.apps import AppConfig
from django.db.models.signals import post_delete, post_migrate, post_save


class JobsConfig(AppConfig):
    """Jobs: Python classes run on the task queue. Routes live under `extras/` as the reference's
    do; the models keep an application of their own."""

    name = "inventory.jobs"
    label = "jobs"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from inventory.extras.changelog import on_recorded

        from .discovery import queues_changed, sync_jobs_after_migrate
        from .hooks import connect, run_job_hooks
        from .models import JobQueueAssignment

        on_recorded(run_job_hooks)
        connect()
        post_migrate.connect(sync_jobs_after_migrate, dispatch_uid="jobs.sync_jobs")
        post_save.connect(queues_changed, sender=JobQueueAssignment, dispatch_uid="jobs.queues_saved")
        post_delete.connect(queues_changed, sender=JobQueueAssignment, dispatch_uid="jobs.queues_deleted")
