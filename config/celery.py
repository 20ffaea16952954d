"""The Celery application jobs run on: `celery -A config worker` starts a worker.

The broker is `CELERY_BROKER_URL` (Redis in production). Without one, kombu's filesystem
transport passes messages through files under `DATA_DIR/celery/`: no broker server, and workers
on the same machine (or sharing that folder) consume them with the same time limits and queues
as on Redis. `CELERY_TASK_ALWAYS_EAGER` runs tasks in the requesting process instead (tests).
"""

import os

from celery import Celery
from celery.signals import beat_init, celeryd_init, worker_ready

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("netinventory", include=["inventory.jobs.tasks", "inventory.extras.webhooks"])
app.config_from_object("django.conf:settings", namespace="CELERY")


@celeryd_init.connect
@beat_init.connect
def refuse_without_secret_key(**kwargs):
    """Celery logs and carries on past an exception in a signal handler: SystemExit stops it."""
    from config.startup import secret_key_refusal

    if refusal := secret_key_refusal("Celery"):
        raise SystemExit(refusal)


@worker_ready.connect
def sync_jobs_on_start(**kwargs):
    """A worker knows the job classes of its own code: their rows follow it."""
    from inventory.jobs.discovery import sync_jobs

    sync_jobs()
