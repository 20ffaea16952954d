"""The approval actions beside the generated routes, as the reference's API has them:
`approval-workflow-stages/<id>/approve/`, `.../deny/` and `.../comment/` for approvers, and
`approval-workflows/<id>/cancel/` for the submitter. Each answers with the stage or workflow."""

from __future__ import annotations

from django.contrib.contenttypes.models import ContentType
from django.db import transaction
from django.utils import timezone

from queryengine.permissions import allowed_rows, within
from queryengine.registry import resource_by_object_type, resource_for
from rest.auth import no_credentials
from rest.views import ApiError, Endpoint, detail_error, json_body, not_found, object_pk

from .approvals import (
    APPROVED,
    COMMENT,
    DENIED,
    PENDING,
    ApprovalWorkflow,
    ApprovalWorkflowDefinition,
    ApprovalWorkflowStage,
    ApprovalWorkflowStageResponse,
)

NO_PERMISSION = "You do not have permission to perform this action."
SENSITIVE_WITH_APPROVAL = (
    "Unable to run or schedule job: This job is flagged as possibly having sensitive variables but also has "
    "an applicable approval workflow definition.Modify or remove the approval workflow definition or modify "
    "the job to set `has_sensitive_variables` to False."
)


def acted_on(request, model, key: str, action: str):
    """The object of the path that the caller may `action` (the reference's permission for the
    POST, then its object permissions' constraints: an object outside them is not found)."""
    user = request.context.user
    resource = resource_for(model)
    if not user.is_authenticated:
        raise detail_error(403, no_credentials(request))
    rows = allowed_rows(resource, user, action)
    if rows is None or not request.context.write_enabled:
        raise detail_error(403, NO_PERMISSION)
    pk = object_pk(request, resource, key)
    found = within(model._default_manager.filter(pk=pk), rows).first()
    if found is None:
        raise not_found(resource)
    return found


def answer(request, model, pk) -> dict:
    """The stage or workflow acted on, shown to the caller whatever else they may view."""
    from .api import started

    return started(request, model, pk)


def comments_of(request) -> str:
    body = json_body(request, empty=None) or {}
    comments = body.get("comments", "") if isinstance(body, dict) else ""
    if not isinstance(comments, str):
        raise ApiError(400, {"comments": ["Not a valid string."]})
    return comments


class StageDecisionEndpoint(Endpoint):
    """Approve or deny a stage: the caller needs `change` on stages and on the object under
    review, and must be in the stage's approver group; the stage must be the workflow's active
    one. A stage is approved once enough approvers approved it, denied by one denial."""

    methods = ("POST",)

    def __init__(self, decision: str):
        self.decision = decision  # "approve" or "deny"

    def post(self, request, key: str):
        stage = acted_on(request, ApprovalWorkflowStage, key, "change")
        user = request.context.user
        comments = comments_of(request)
        with transaction.atomic():
            stage = ApprovalWorkflowStage.objects.select_for_update().get(pk=stage.pk)
            workflow = stage.approval_workflow
            if stage.state != PENDING or not stage.is_active_stage:
                raise detail_error(400, "Approval workflow stage is not active.")
            kind = workflow.object_under_review_content_type
            reviewed = resource_by_object_type(f"{kind.app_label}.{kind.model}")
            if reviewed is None or allowed_rows(reviewed, user, "change") is None:
                raise detail_error(
                    403, f"You do not have 'change' permission on {kind.app_label}.{kind.model}."
                )
            definition = stage.approval_workflow_stage_definition
            if definition is None or not definition.approver_group.users.filter(pk=user.pk).exists():
                raise detail_error(403, "You do not have permission to approve this stage.")
            state = APPROVED if self.decision == "approve" else DENIED
            if stage.approval_workflow_stage_responses.filter(user=user, state=state).exists():
                past = {"approve": "approved", "deny": "denied"}[self.decision]
                raise detail_error(400, f"You have already {past} to this stage.")
            response = stage.approval_workflow_stage_responses.filter(user=user).first()
            if response is None:
                response = ApprovalWorkflowStageResponse(approval_workflow_stage=stage, user=user)
            response.state, response.comments = state, comments or response.comments
            response.save()
        return answer(request, ApprovalWorkflowStage, stage.pk), 200


class StageCommentEndpoint(Endpoint):
    """A comment on a stage still being decided, without approving or denying it."""

    methods = ("POST",)

    def post(self, request, key: str):
        stage = acted_on(request, ApprovalWorkflowStage, key, "change")
        if stage.state != PENDING:
            raise detail_error(
                400, f"This stage is in {stage.state} state. Can't comment approved or denied stage."
            )
        comments = comments_of(request)
        if not comments:
            raise detail_error(400, "Comment cannot be empty.")
        response, _ = ApprovalWorkflowStageResponse.objects.get_or_create(
            approval_workflow_stage=stage, user=request.context.user
        )
        if response.state == PENDING:
            response.state = COMMENT
        response.comments = comments
        response.save()
        return answer(request, ApprovalWorkflowStage, stage.pk), 200


class WorkflowCancelEndpoint(Endpoint):
    """The submitter (or a superuser) withdraws a workflow still pending: what it reviews is
    canceled (a job run never runs)."""

    methods = ("POST",)

    def post(self, request, key: str):
        workflow = acted_on(request, ApprovalWorkflow, key, "view")
        user = request.context.user
        if workflow.is_active and not (user.is_superuser or workflow.user_id == user.pk):
            raise detail_error(
                403,
                "You are not permitted to cancel this workflow. This workflow can be only canceled by submitter.",
            )
        if not workflow.is_active:
            raise detail_error(400, "Can't cancel finished approval workflow.")
        with transaction.atomic():
            workflow.cancel(user, comments_of(request))
        return answer(request, ApprovalWorkflow, workflow.pk), 200


def held_for_approval(job, queue: str, data: dict, user, dryrun: bool):
    """An immediate run that an approval workflow definition matches, recorded as a one-off
    schedule awaiting approval (None: the run goes ahead now). A dry run needs no approval."""
    from .models import ScheduledJob
    from .scheduling import create_schedule

    kind = ContentType.objects.get_for_model(ScheduledJob)
    if dryrun or not ApprovalWorkflowDefinition.objects.filter(model_content_type=kind).exists():
        return None
    now = timezone.now()
    when = {"name": f"{job.name} - {now.isoformat()}", "interval": "future", "start_time": now, "crontab": ""}
    try:
        with transaction.atomic():  # the schedule stays only if a workflow holds it
            scheduled = create_schedule(job, queue, data, user, when)
            if scheduled.state != "pending":
                raise _GoesAhead
            if job.has_sensitive_variables:
                raise ApiError(400, [SENSITIVE_WITH_APPROVAL])
    except _GoesAhead:
        return None
    return scheduled


class _GoesAhead(Exception):
    """No definition matched the run: its schedule is rolled back."""


SUB_ENDPOINTS = {
    "extras/approval-workflow-stages": {
        "approve": lambda: StageDecisionEndpoint("approve"),
        "deny": lambda: StageDecisionEndpoint("deny"),
        "comment": StageCommentEndpoint,
    },
    "extras/approval-workflows": {"cancel": WorkflowCancelEndpoint},
}
