"""Sample approval workflows: definitions for scheduled jobs with their stages, and schedules
held by them (one pending with responses, one denied, one approved)."""

from __future__ import annotations

import datetime

from django.contrib.contenttypes.models import ContentType
from django.utils import timezone

from inventory.jobs.approvals import (
    APPROVED,
    COMMENT,
    DENIED,
    ApprovalWorkflow,
    ApprovalWorkflowDefinition,
    ApprovalWorkflowStage,
    ApprovalWorkflowStageDefinition,
    ApprovalWorkflowStageResponse,
)
from inventory.jobs.models import Job, ScheduledJob
from tests.copies import copy_number


def build_approvals(s: str, owner, other, jobs: dict, groups: list) -> dict[type, list]:
    kind = ContentType.objects.get_for_model(ScheduledJob)
    base = 100 * copy_number(s)  # another sample's weights differ: one weight per content type
    audit = jobs[Job][0]
    definitions = [
        # Runs of the sample's reboot job: the other tests' runs need no approval.
        ApprovalWorkflowDefinition.objects.create(
            name=f"Change board{s}",
            model_content_type=kind,
            weight=base + 1,
            model_constraints={"job_model__name": jobs[Job][3].name},
        ),
        ApprovalWorkflowDefinition.objects.create(
            name=f"audits{s}",
            model_content_type=kind,
            weight=base + 5,
            model_constraints={"job_model__name": audit.name},
        ),
        ApprovalWorkflowDefinition.objects.create(
            name=f"Unused{s}", model_content_type=kind, weight=base, model_constraints={"name": "never"}
        ),
    ]
    stage_definitions = [
        ApprovalWorkflowStageDefinition.objects.create(
            approval_workflow_definition=definitions[1],
            sequence=10,
            name="Peer review",
            min_approvers=2,
            approver_group=groups[0],
        ),
        ApprovalWorkflowStageDefinition.objects.create(
            approval_workflow_definition=definitions[1],
            sequence=20,
            name="Change board",
            min_approvers=1,
            denial_message="Not in the change window",
            approver_group=groups[1],
        ),
        ApprovalWorkflowStageDefinition.objects.create(
            approval_workflow_definition=definitions[0],
            sequence=1,
            name="Sign-off",
            min_approvers=1,
            approver_group=groups[1],
        ),
    ]
    start = timezone.now() + datetime.timedelta(days=3)
    held = [
        ScheduledJob.objects.create(
            name=f"{name}{s}",
            task=audit.class_path,
            job_model=audit if constrained else jobs[Job][3],
            interval="future",
            one_off=True,
            start_time=start,
            user=owner,
        )
        for name, constrained in (("audit held", True), ("audit refused", True), ("reboot approved", False))
    ]
    workflows = [schedule.associated_approval_workflows.get() for schedule in held]

    def stage(workflow, definition):
        return ApprovalWorkflowStage.objects.get(
            approval_workflow=workflow, approval_workflow_stage_definition=definition
        )

    first, refused = stage(workflows[0], stage_definitions[0]), stage(workflows[1], stage_definitions[0])
    signoff = stage(workflows[2], stage_definitions[2])
    responses = [
        ApprovalWorkflowStageResponse.objects.create(
            approval_workflow_stage=first, user=other, state=APPROVED, comments="fine by me"
        ),
        ApprovalWorkflowStageResponse.objects.create(
            approval_workflow_stage=first, user=owner, state=COMMENT, comments="waiting for the window"
        ),
        ApprovalWorkflowStageResponse.objects.create(
            approval_workflow_stage=refused, user=other, state=DENIED
        ),
        ApprovalWorkflowStageResponse.objects.create(
            approval_workflow_stage=signoff, user=owner, state=APPROVED
        ),
    ]
    return {
        ApprovalWorkflowDefinition: definitions,
        ApprovalWorkflowStageDefinition: stage_definitions,
        ApprovalWorkflow: workflows,
        ApprovalWorkflowStage: list(ApprovalWorkflowStage.objects.filter(approval_workflow__in=workflows)),
        ApprovalWorkflowStageResponse: responses,
        ScheduledJob: jobs[ScheduledJob] + held,
    }
