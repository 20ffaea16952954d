"""Git repositories in the API: `provided_contents` as the reference's multiple choice, its
filter, `extras/git-repositories/<id>/sync/`, and what goes when a repository is deleted."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q, TextField
from django.db.models.functions import Cast

from queryengine.permissions import allowed_rows, restricted
from queryengine.registry import Computed, CustomFilter, resource_for

from .models import PROVIDED_CONTENTS, GitRepository

CONTENT_VALUES = [value for value, _ in PROVIDED_CONTENTS]


def write_contents(instance, value) -> None:
    """A list of choices, stored sorted and once each (the reference's MultipleChoiceJSONField)."""
    if value is None:
        raise ValueError("This field may not be null.")
    if isinstance(value, str) or not isinstance(value, list):
        raise ValueError(f'Expected a list of items but got type "{type(value).__name__}".')
    errors = [f'"{item}" is not a valid choice.' for item in value if item not in CONTENT_VALUES]
    if errors:
        raise ValidationError(errors)
    instance.provided_contents = sorted(set(value))


PROVIDED = Computed(
    ("provided_contents",),
    lambda stored: stored or [],
    output="object",
    write=write_contents,
    options={
        "type": "multiple choice",
        "choices": [{"value": v, "display": label} for v, label in PROVIDED_CONTENTS],
    },
    read_schema={"type": "array", "items": {"type": "string", "enum": CONTENT_VALUES}},
    write_schema={"type": "array", "items": {"type": "string", "enum": CONTENT_VALUES}},
)


def _parse_content(value: str) -> str:
    if value not in CONTENT_VALUES:
        raise ValueError(f"Select a valid choice. {value} is not one of the available choices.")
    return value


def _providing(wanted) -> Q:
    texts = GitRepository.objects.annotate(_text=Cast("provided_contents", TextField()))
    pattern = "|".join(f'"{v}"' for v in wanted)
    return Q(pk__in=texts.filter(_text__regex=pattern).values("pk"))


PROVIDING = CustomFilter(
    _providing,
    _parse_content,
    lambda repository, wanted: any(v in (repository.provided_contents or []) for v in wanted),
    lambda objects: [v for o in objects for v in o.provided_contents or []][:1],
)


def forget_deleted(deleted: dict) -> None:
    """Deleted repositories' contents go with them (a few statements whatever their number),
    and their clones once the deletion is committed, as at the reference (whatever the deleting
    user may otherwise change)."""
    from .gitcli import discard
    from .gitcontents import unload
    from .gitjobs import uninstall_orphans

    pks = deleted.get(GitRepository)
    if not pks:
        return
    unload(pks)
    uninstall_orphans()
    for pk in pks:
        transaction.on_commit(lambda pk=pk: discard(settings.GIT_ROOT / str(pk)))


def sync_endpoint():
    from inventory.jobs.api import QUEUE_UNREACHABLE, started
    from inventory.jobs.models import Job, JobResult
    from inventory.jobs.runs import QueueUnreachable, enqueue
    from inventory.jobs.workers import no_worker_message, worker_count
    from rest.views import ApiError, Endpoint, detail_error, not_found, object_pk

    class GitSyncEndpoint(Endpoint):
        """Enqueue a sync of the repository (fetch, then refresh its data) as the caller: 200
        `{"message": "Repository <name> sync job added to queue.", "job_result": {...}}`."""

        methods = ("POST",)
        response_schema = {
            "type": "object",
            "properties": {"message": {"type": "string"}, "job_result": {"type": "object"}},
        }

        def post(self, request, key: str):
            resource = resource_for(GitRepository)
            user = request.context.user
            rows = allowed_rows(resource, user, "change")
            if rows is None or not request.context.write_enabled:
                raise detail_error(
                    403, "This user does not have permission to make changes to Git repositories."
                )
            queue = settings.CELERY_TASK_DEFAULT_QUEUE
            if not worker_count(queue):
                raise detail_error(503, no_worker_message(queue))
            pk = object_pk(request, resource, key)
            repository = restricted(resource, user).filter(rows, pk=pk).first()
            if repository is None:
                raise not_found(resource)
            job = Job.objects.filter(
                module_name="inventory.jobs.datasources", job_class_name="GitRepositorySync"
            ).first()
            if job is None:
                raise detail_error(405, "This job is not presently installed and cannot be run")
            try:
                job_result = enqueue(job, queue, {"repository": str(repository.pk)}, user)
            except QueueUnreachable:
                raise ApiError(503, {"detail": QUEUE_UNREACHABLE}) from None
            return {
                "message": f"Repository {repository} sync job added to queue.",
                "job_result": started(request, JobResult, job_result.pk),
            }, 200

    return GitSyncEndpoint()
