import orjson
from django.contrib.contenttypes.models import ContentType
from django.db.models import Q

from queryengine.filters import parse_bool, parse_date_value, parse_uuid
from queryengine.objecttexts import object_texts
from queryengine.query import NOTHING
from queryengine.registry import Computed, CustomFilter, Display, Included, Resource, register, resource_for

from .approvals import (
    ApprovalWorkflow,
    ApprovalWorkflowDefinition,
    ApprovalWorkflowStage,
    ApprovalWorkflowStageDefinition,
    ApprovalWorkflowStageResponse,
    answered,
    awaiting,
    awaits,
    has_answered,
)
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

# A schedule's low-level message settings, which the reference's REST answers leave out.
MESSAGE_SETTINGS = ("exchange", "routing_key", "headers", "priority", "expires", "expire_seconds")

# The reference keeps a job's console output (stdout and stderr of a run with console logging) as
# entries of its own; jobs here run in the service and keep their log entries only.
NO_CONSOLE = CustomFilter(
    build=lambda values: Q(),
    parse=parse_bool,
    boolean=True,
    refusal="Job results keep no console entries here (jobs keep log entries only: has_job_log_entries).",
)
register(
    Resource(
        Job,
        "extras/jobs",
        search=("name", "grouping", "description", "module_name", "job_class_name"),
        # Jobs come from code: clients change their flags, never create them.
        creatable=False,
        paths_by_natural_key=True,  # run by name, as clients do (pynautobot's job_name=)
        lists={"jobbutton_set": "extras.JobButton.job"},  # the reference's name for job_buttons
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
        filters={"has_job_console_entries": NO_CONSOLE},
        writable=False,
        notes=False,
        contacts=False,  # as the reference's job results: no contacts, no groups
        static_groups=False,
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


def reviewing(model, ids) -> Q:
    """The approval workflows reviewing objects of `model` (those of `ids`, when given)."""
    kind = Q(object_under_review_content_type=ContentType.objects.get_for_model(model))
    return kind if ids is None else kind & Q(object_under_review_object_id__in=list(ids))


def load_workflows(resource: Resource, ids, base: str, depth: int, viewer=None) -> dict:
    """A page's approval workflows, each shown whole (as the reference nests them), those the
    reader may see: one query for the page's workflows, then their texts."""
    workflows = resource_for(ApprovalWorkflow)
    rows = ApprovalWorkflow.objects.filter(reviewing(resource.model, ids))
    subset = viewer.subset(workflows) if viewer is not None else None
    if subset is NOTHING:
        return {pk: [] for pk in ids}
    if subset is not None:
        rows = rows.filter(pk__in=subset)
    pairs = list(rows.order_by("created", "pk").values_list("pk", "object_under_review_object_id"))
    texts = object_texts(workflows, depth, [pk for pk, _ in pairs], base)
    found: dict[str, list] = {pk: [] for pk in ids}
    for pk, reviewed in pairs:
        found[str(reviewed)].append(orjson.Fragment(texts[str(pk)]))
    return found


register(
    Resource(
        ScheduledJob,
        "extras/scheduled-jobs",
        display=Display(("name", "interval"), lambda name, interval: f"{name}: {interval}"),
        search=("name", "task", "description"),
        # The queue's name, kept beside job_queue for clients of versions before 2.4.
        computed={"queue": Computed(("job_queue__name",), lambda name: name or "")},
        hidden=("next_run_at", *MESSAGE_SETTINGS),
        graphql_names={name: name for name in MESSAGE_SETTINGS},  # shown by GraphQL alone, as the reference
        loaded={
            "associated_approval_workflows": Included(
                applies=lambda resource: False,
                load=load_workflows,
                empty=list,
                schema={"type": "array", "items": {"type": "object", "additionalProperties": True}},
            )
        },
        # The state of the object's approval workflows, by the string lookups of the state's.
        relations={"approval_state": "associated_approval_workflows__current_state"},
        lists={"jobresult_set": "extras.JobResult.scheduled_job"},  # the reference's name for job_results
        # Schedules come from `jobs/<id>/run/`: clients pause (enabled), rename or delete them.
        creatable=False,
    )
)
register(Resource(JobButton, "extras/job-buttons", search=("name", "text"), notes=True))
register(
    Resource(
        FileProxy,
        "extras/file-proxies",
        search=("name", "job_result__job_model__name"),
        relations={"job": "job_result__job_model"},  # the job whose run stored it
        hidden=("content",),
        natural_key=None,
        writable=False,
        notes=False,
    )
)


def workflow_labels(ids) -> dict[str, str]:
    """'<definition>: <object under review> (<state>)' for a page, as the reference labels them."""
    from inventory.extras.contacts import object_labels

    rows = list(
        ApprovalWorkflow.objects.filter(pk__in=list(ids)).values_list(
            "pk",
            "approval_workflow_definition__name",
            "object_under_review_content_type",
            "object_under_review_object_id",
            "current_state",
        )
    )
    objects = object_labels((row[2], row[3]) for row in rows)
    return {
        str(pk): f"{name or 'Deleted workflow'}: {objects.get((kind, obj), 'None')} ({state})"
        for pk, name, kind, obj, state in rows
    }


def stage_label(definition: str | None, name: str | None, state: str) -> str:
    return f"{definition}: Stage {name}: {state}" if name is not None else f"None: {state}"


def workflow_definitions(ids):
    return ApprovalWorkflow.objects.filter(pk__in=ids).values("approval_workflow_definition")


# Stage definitions by the workflows made from their definition, as the reference filters them.
OF_WORKFLOW = CustomFilter(
    build=lambda ids: Q(approval_workflow_definition__in=workflow_definitions(ids)),
    parse=parse_uuid,
    oracle=lambda stage_definition, ids: any(
        row["approval_workflow_definition"] == stage_definition.approval_workflow_definition_id
        for row in workflow_definitions(ids)
    ),
    samples=lambda objects: [str(pk) for pk in ApprovalWorkflow.objects.values_list("pk", flat=True)[:3]],
)


def my_approvals(values: list[bool], user) -> Q:
    """Stages awaiting the reader's decision (true) or that the reader has decided (false). A
    stored filter has no reader: it does not apply, as the reference's without a request."""
    if user is None:
        return Q()
    return awaiting(user) if values[-1] else answered(user)


def in_my_approvals(stage: ApprovalWorkflowStage, values: list[bool], user) -> bool:
    if user is None:
        return True
    return awaits(stage, user) if values[-1] else has_answered(stage, user)


PENDING_MY_APPROVALS = CustomFilter(
    build=my_approvals,
    parse=parse_bool,
    oracle=in_my_approvals,
    samples=("true", "false"),
    reader=True,
    boolean=True,
)
# Stages decided on a day (the date of their decision, in UTC), one value, as the reference's.
DECISION_DAY = CustomFilter(
    build=lambda days: Q(decision_date__date=days[-1]),
    parse=parse_date_value,
    oracle=lambda stage, days: stage.decision_date is not None and stage.decision_date.date() == days[-1],
    samples=lambda stages: [s.decision_date.date().isoformat() for s in stages if s.decision_date][:2],
    argument="String",
)
STAGE = "approval_workflow_stage_definition__"
register(
    Resource(
        ApprovalWorkflowDefinition,
        "extras/approval-workflow-definitions",
        search=("name",),
        json_filters=("model_constraints",),
        notes=True,
    )
)
register(
    Resource(
        ApprovalWorkflowStageDefinition,
        "extras/approval-workflow-stage-definitions",
        display=Display(
            ("approval_workflow_definition__name", "name"),
            lambda definition, name: f"{definition}: Stage {name}",
        ),
        search=("name", "denial_message"),
        filters={"approval_workflow": OF_WORKFLOW},
        natural_key=None,
        notes=True,
    )
)
register(
    Resource(
        ApprovalWorkflow,
        "extras/approval-workflows",
        display=Display((), load=workflow_labels),
        search=("object_under_review_content_type__app_label", "object_under_review_content_type__model"),
        natural_key=None,
        notes=True,
    )
)
register(
    Resource(
        ApprovalWorkflowStage,
        "extras/approval-workflow-stages",
        display=Display((f"{STAGE}approval_workflow_definition__name", f"{STAGE}name", "state"), stage_label),
        search=(f"{STAGE}name", "approval_workflow__approval_workflow_definition__name"),
        filters={"pending_my_approvals": PENDING_MY_APPROVALS, "decision_date_day": DECISION_DAY},
        natural_key=None,
        notes=True,
    )
)
register(
    Resource(
        ApprovalWorkflowStageResponse,
        "extras/approval-workflow-stage-responses",
        display=Display(
            (
                f"approval_workflow_stage__{STAGE}approval_workflow_definition__name",
                f"approval_workflow_stage__{STAGE}name",
                "approval_workflow_stage__state",
                "user__username",
            ),
            lambda definition, name, state, user: f"{stage_label(definition, name, state)}: {user}",
        ),
        search=("comments", "state"),
        natural_key=None,
    )
)
