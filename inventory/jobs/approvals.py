"""Approval workflows (the reference's `extras` approval models): a change awaiting approval is
held until every stage of its workflow has been approved.

A definition says which objects need approval (a content type, optionally narrowed by
`model_constraints`; of several that match, the highest weight wins) and its stages, each with
a group of approvers and the number of approvals it needs. An object of that type created by a
user starts a workflow with one stage per stage definition. Stages are decided in sequence
order; a stage is approved once its minimum number of approvers approved it and denied by a
single denial. The workflow is approved when every stage is, denied when one is, or canceled by
its submitter; the object under review is told each outcome (`on_workflow_approved`, ...).

Today a scheduled job is the one kind of object that asks (`ApprovableMixin`): a job run or a
schedule matched by a definition waits, disabled, until approved, and never runs if denied.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import Group
from django.contrib.contenttypes.fields import GenericRelation
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import FieldError, ValidationError
from django.db import models
from django.utils import timezone

from inventory.base import BaseModel, OrganizationalModel, PrimaryModel

PENDING, APPROVED, DENIED, CANCELED, COMMENT = "Pending", "Approved", "Denied", "Canceled", "Comment"
STATES = [(state, state) for state in (PENDING, APPROVED, DENIED, CANCELED, COMMENT)]
# The order in which a workflow's stages are decided (its active stage: the first not approved).
ACTIVE_ORDER = ("approval_workflow_stage_definition__sequence", "pk")
# The object types that ask for approval (the reference's `approval_workflows` feature).
APPROVABLE = ("extras.scheduledjob",)


def approvable_content_types():
    return ContentType.objects.filter(
        *[models.Q(app_label=a, model=m) for a, m in (t.split(".") for t in APPROVABLE)]
    )


def check_approvable(content_type, field: str) -> None:
    if content_type is not None and f"{content_type.app_label}.{content_type.model}" not in APPROVABLE:
        raise ValidationError(
            {field: [f"Approval workflows apply to these object types only: {', '.join(APPROVABLE)}."]}
        )


def unique(name: str, *fields: str) -> models.UniqueConstraint:
    return models.UniqueConstraint(fields=list(fields), name=f"extras_approval_{name}")


def kept_while_pending(state_field: str):
    """An on_delete rule: a definition is not deleted while an object made from it is pending
    (ProtectedError: 409 naming them); decided ones keep their history, the reference null."""

    def on_delete(collector, field, sub_objs, using):
        pending = [obj for obj in sub_objs if getattr(obj, state_field) == PENDING]
        if pending:
            raise models.ProtectedError(
                "Cannot delete a definition while approval workflows using it are pending: "
                "approve, deny or cancel them first.",
                pending,
            )
        models.SET_NULL(collector, field, sub_objs, using)

    return on_delete


def workflows_kept_while_pending(collector, field, sub_objs, using):
    return kept_while_pending("current_state")(collector, field, sub_objs, using)


def stages_kept_while_pending(collector, field, sub_objs, using):
    return kept_while_pending("state")(collector, field, sub_objs, using)


class DefinitionManager(models.Manager):
    def find_for_model(self, instance: models.Model) -> ApprovalWorkflowDefinition | None:
        """The definition that applies to `instance`: of those of its type, by weight (highest
        first), the first without constraints or whose constraints the object meets."""
        content_type = ContentType.objects.get_for_model(instance)
        model = type(instance)
        for definition in self.filter(model_content_type=content_type).order_by("-weight"):
            constraints = definition.model_constraints
            if not constraints:
                return definition
            try:
                if model._default_manager.filter(**constraints).filter(pk=instance.pk).exists():
                    return definition
            except (FieldError, ValueError, TypeError, ValidationError):
                continue  # constraints that no longer fit the model match nothing
        return None


class ApprovalWorkflowDefinition(PrimaryModel):
    name = models.CharField(max_length=255, unique=True)
    model_content_type = models.ForeignKey(ContentType, on_delete=models.PROTECT, related_name="+")
    model_constraints = models.JSONField(
        blank=True,
        default=dict,
        help_text="Constraints to filter the objects that can be approved using this workflow.",
    )
    weight = models.IntegerField(
        default=0, help_text="Determines workflow relevance when multiple apply. Higher weight wins."
    )

    objects = DefinitionManager()

    class Meta:
        app_label = "extras"
        ordering = ["name"]
        constraints = [unique("definition_weight", "model_content_type", "weight")]
        verbose_name = "approval workflow definition"

    def __str__(self) -> str:
        return self.name

    def clean(self):
        super().clean()
        if self.model_content_type_id is None:
            return
        check_approvable(self.model_content_type, "model_content_type")
        model = self.model_content_type.model_class()
        if model is None:
            raise ValidationError(
                {"model_content_type": ["Couldn't find corresponding model class. Is it installed?"]}
            )
        if not isinstance(self.model_constraints, dict):
            raise ValidationError({"model_constraints": ["Constraints must be a JSON object."]})
        try:
            model._default_manager.filter(**self.model_constraints).exists()
        except (FieldError, ValueError, TypeError, ValidationError) as exc:
            raise ValidationError({"model_constraints": [f"Invalid query filter: {exc}"]}) from None


class ApprovalWorkflowStageDefinition(OrganizationalModel):
    approval_workflow_definition = models.ForeignKey(
        ApprovalWorkflowDefinition,
        on_delete=models.CASCADE,
        related_name="approval_workflow_stage_definitions",
        help_text="Approval workflow definition to which this stage belongs.",
    )
    sequence = models.PositiveIntegerField(
        help_text="The sequence dictates the order in which this stage will need to be approved. "
        "The lower the number, the earlier it will be.",
    )
    name = models.CharField(max_length=255)
    min_approvers = models.PositiveIntegerField(
        verbose_name="Minimum approvers",
        help_text="Minimum number of approvers required to approve this stage.",
    )
    denial_message = models.CharField(
        max_length=255, blank=True, help_text="Message to show when the stage is denied."
    )
    approver_group = models.ForeignKey(
        Group,
        on_delete=models.PROTECT,
        related_name="approval_workflow_stage_definitions",
        verbose_name="Group",
        help_text="Group of users who are eligible to approve this stage.",
    )

    class Meta:
        app_label = "extras"
        ordering = ["approval_workflow_definition", "sequence"]
        constraints = [
            unique("stage_definition_name", "approval_workflow_definition", "name"),
            unique("stage_definition_sequence", "approval_workflow_definition", "sequence"),
        ]
        verbose_name = "approval workflow stage definition"

    def __str__(self) -> str:
        return f"{self.approval_workflow_definition}: Stage {self.name}"


class ApprovalWorkflow(OrganizationalModel):
    approval_workflow_definition = models.ForeignKey(
        ApprovalWorkflowDefinition,
        on_delete=workflows_kept_while_pending,
        null=True,
        blank=True,
        related_name="approval_workflows",
        help_text="Approval workflow definition to which this approval workflow belongs.",
    )
    object_under_review_content_type = models.ForeignKey(
        ContentType, on_delete=models.PROTECT, related_name="+"
    )
    object_under_review_object_id = models.UUIDField(db_index=True)
    current_state = models.CharField(
        max_length=255,
        choices=STATES,
        default=PENDING,
        help_text="Current state of the approval workflow. Eligible values are: Pending, Approved, Denied, Canceled.",
    )
    decision_date = models.DateTimeField(
        null=True,
        blank=True,
        editable=False,
        help_text="Date and time when the decision of approval/denial was made.",
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="approval_workflows",
    )
    user_name = models.CharField(max_length=150, editable=False, db_index=True)

    class Meta:
        app_label = "extras"
        ordering = ["approval_workflow_definition"]
        constraints = [
            unique(
                "workflow_object",
                "approval_workflow_definition",
                "object_under_review_content_type",
                "object_under_review_object_id",
            )
        ]
        verbose_name = "approval workflow"

    def __str__(self) -> str:
        name = getattr(self.approval_workflow_definition, "name", "Deleted workflow")
        return f"{name}: {self.object_under_review} ({self.current_state})"

    @property
    def object_under_review(self):
        model = self.object_under_review_content_type.model_class()
        return model._default_manager.filter(pk=self.object_under_review_object_id).first() if model else None

    @property
    def active_stage(self) -> ApprovalWorkflowStage | None:
        """The first stage, in sequence order, not yet approved (None: all are)."""
        return self.approval_workflow_stages.exclude(state=APPROVED).order_by(*ACTIVE_ORDER).first()

    @property
    def is_active(self) -> bool:
        return self.current_state == PENDING

    def clean(self):
        super().clean()
        if self.object_under_review_content_type_id is None:
            return
        check_approvable(self.object_under_review_content_type, "object_under_review_content_type")
        definition = self.approval_workflow_definition
        kind = self.object_under_review_content_type_id
        if definition is not None and kind is not None and definition.model_content_type_id != kind:
            raise ValidationError(
                {
                    "object_under_review_content_type": [
                        f"The content type {self.object_under_review_content_type} of the object under "
                        f"review does not match the content type {definition.model_content_type} of the "
                        "approval workflow definition."
                    ]
                }
            )

    def save(self, *args, **kwargs):
        if self.user_id is not None:
            self.user_name = self.user.username
        previous = self.current_state
        if not self._state.adding and self.current_state == PENDING:
            self.current_state = self.decided_state()
        if previous != self.current_state or (self.current_state != PENDING and self.decision_date is None):
            self.decision_date = timezone.now()
        super().save(*args, **kwargs)
        if previous != self.current_state:
            self.tell_object()

    def decided_state(self) -> str:
        """What the stages say: denied when one is, approved when all the definition's are."""
        stages = self.approval_workflow_stages
        if stages.filter(state=DENIED).exists():
            return DENIED
        definition = self.approval_workflow_definition
        needed = definition.approval_workflow_stage_definitions.count() if definition else 0
        if needed and stages.filter(state=APPROVED).count() >= needed:
            return APPROVED
        return PENDING

    def tell_object(self) -> None:
        target = self.object_under_review
        handler = getattr(target, f"on_workflow_{self.current_state.lower()}", None)
        if handler is not None:
            handler(self)

    def cancel(self, user, comments: str = "") -> None:
        """Canceled by its submitter: their response on the active stage says so, every stage
        still pending is canceled, and the object under review is told."""
        now = timezone.now()
        stage = self.active_stage
        if stage is not None:
            response, _ = ApprovalWorkflowStageResponse.objects.get_or_create(
                approval_workflow_stage=stage, user=user
            )
            response.state = CANCELED
            if comments:
                response.comments = comments
            response.save()
        for pending in self.approval_workflow_stages.filter(state=PENDING):
            pending.state, pending.decision_date = CANCELED, now
            pending.save()
        self.current_state, self.decision_date = CANCELED, now
        self.save()
        self.tell_object()


class ApprovalWorkflowStage(OrganizationalModel):
    approval_workflow = models.ForeignKey(
        ApprovalWorkflow,
        on_delete=models.CASCADE,
        related_name="approval_workflow_stages",
        help_text="Approval workflow to which this stage belongs.",
    )
    approval_workflow_stage_definition = models.ForeignKey(
        ApprovalWorkflowStageDefinition,
        on_delete=stages_kept_while_pending,
        null=True,
        blank=True,
        related_name="approval_workflow_stages",
        help_text="Approval workflow stage definition to which this stage belongs.",
    )
    state = models.CharField(
        max_length=255,
        choices=STATES,
        default=PENDING,
        help_text="State of the approval workflow stage instance. Eligible values are: Pending, Approved, Denied.",
    )
    decision_date = models.DateTimeField(
        null=True,
        blank=True,
        editable=False,
        help_text="Date and time when the decision of approval/denial was made.",
    )

    class Meta:
        app_label = "extras"
        ordering = ["approval_workflow", "approval_workflow_stage_definition__sequence"]
        constraints = [unique("stage", "approval_workflow", "approval_workflow_stage_definition")]
        verbose_name = "approval workflow stage"

    def __str__(self) -> str:
        return f"{self.approval_workflow_stage_definition}: {self.state}"

    @property
    def is_active_stage(self) -> bool:
        active = self.approval_workflow.active_stage
        return active is not None and active.pk == self.pk and self.state == PENDING

    def responders(self, state: str):
        return self.approval_workflow_stage_responses.filter(state=state).values_list("user_id", flat=True)

    def save(self, *args, **kwargs):
        previous = self.state
        if not self._state.adding and self.state == PENDING:
            if self.responders(DENIED).exists():
                self.state = DENIED
            elif self.approval_workflow_stage_definition_id is not None and (
                self.responders(APPROVED).count() >= self.approval_workflow_stage_definition.min_approvers
            ):
                self.state = APPROVED
        decided = self.state in (APPROVED, DENIED) and (previous != self.state or self.decision_date is None)
        if decided:
            self.decision_date = timezone.now()
        super().save(*args, **kwargs)
        workflow = self.approval_workflow
        if decided and workflow.current_state == PENDING:
            workflow.save()  # the workflow may be decided now


def awaiting(user) -> models.Q:
    """The stages awaiting `user`'s decision, as the reference's `pending_my_approvals` finds
    them: pending, each the active stage of its pending workflow, their approver group holds the
    user and the user has not approved them yet. Nothing for a reader who has not signed in."""
    if user is None or not user.is_authenticated:
        return models.Q(pk__in=[])
    active = (  # the workflow's first stage not yet approved, as ApprovalWorkflow.active_stage
        ApprovalWorkflowStage.objects.filter(approval_workflow=models.OuterRef("approval_workflow"))
        .exclude(state=APPROVED)
        .order_by(*ACTIVE_ORDER)
        .values("pk")[:1]
    )
    approved = ApprovalWorkflowStageResponse.objects.filter(user=user, state=APPROVED)
    return models.Q(
        models.Q(pk=models.Subquery(active)),
        state=PENDING,
        approval_workflow__current_state=PENDING,
        approval_workflow_stage_definition__approver_group__in=user.groups.values("pk"),
    ) & ~models.Q(pk__in=approved.values("approval_workflow_stage"))


def awaits(stage: ApprovalWorkflowStage, user) -> bool:
    """`awaiting` for one stage, worked out in Python from the models."""
    definition = stage.approval_workflow_stage_definition
    return (
        user is not None
        and user.is_authenticated
        and stage.is_active_stage
        and stage.approval_workflow.is_active
        and definition is not None
        and user.groups.filter(pk=definition.approver_group_id).exists()
        and not stage.approval_workflow_stage_responses.filter(user=user, state=APPROVED).exists()
    )


def answered(user) -> models.Q:
    """The stages `user` has responded to that no longer await their decision (the reference's
    `pending_my_approvals=false`). Nothing for a reader who has not signed in."""
    if user is None or not user.is_authenticated:
        return models.Q(pk__in=[])
    responded = ApprovalWorkflowStageResponse.objects.filter(user=user).values("approval_workflow_stage")
    pending = ApprovalWorkflowStage.objects.filter(awaiting(user)).values("pk")
    return models.Q(pk__in=responded) & ~models.Q(pk__in=pending)


def has_answered(stage: ApprovalWorkflowStage, user) -> bool:
    """`answered` for one stage, worked out in Python from the models."""
    return (
        user is not None
        and user.is_authenticated
        and stage.approval_workflow_stage_responses.filter(user=user).exists()
        and not awaits(stage, user)
    )


class ApprovalWorkflowStageResponse(BaseModel):
    natural_key_field_names = ("pk",)

    approval_workflow_stage = models.ForeignKey(
        ApprovalWorkflowStage,
        on_delete=models.CASCADE,
        related_name="approval_workflow_stage_responses",
        verbose_name="Approval Workflow Stage",
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="approval_workflow_stage_responses",
        verbose_name="User",
    )
    comments = models.CharField(
        max_length=255, blank=True, help_text="User comments to explain the decision that he/she made"
    )
    state = models.CharField(
        max_length=255,
        choices=STATES,
        default=PENDING,
        help_text="User response to this approval workflow stage instance. Eligible values are: Pending, Comment, Approved, Denied.",
    )
    last_updated = models.DateTimeField(auto_now=True, null=True, blank=True)

    class Meta:
        app_label = "extras"
        db_table = "extras_approvaluserresponse"
        ordering = ["approval_workflow_stage", "last_updated"]
        verbose_name = "approval workflow stage response"

    def __str__(self) -> str:
        return f"{self.approval_workflow_stage}: {self.user}"

    def save(self, *args, **kwargs):
        super().save(*args, **kwargs)
        stage = self.approval_workflow_stage
        if self.state in (APPROVED, DENIED) and stage.state == PENDING:
            stage.save()  # the stage may be decided now


class ApprovableMixin(models.Model):
    """An object that may need approval: created, it starts the workflow a definition names."""

    associated_approval_workflows = GenericRelation(
        ApprovalWorkflow,
        content_type_field="object_under_review_content_type",
        object_id_field="object_under_review_object_id",
        related_query_name="associated_approval_workflows_%(app_label)s_%(class)s",
    )

    class Meta:
        abstract = True

    def begin_approval_workflow(self) -> ApprovalWorkflow | None:
        pending = self.associated_approval_workflows.filter(current_state=PENDING).first()
        if pending is not None:
            return pending
        definition = ApprovalWorkflowDefinition.objects.find_for_model(self)
        if definition is None:
            return None
        workflow = ApprovalWorkflow.objects.create(
            approval_workflow_definition=definition,
            object_under_review_content_type=ContentType.objects.get_for_model(self),
            object_under_review_object_id=self.pk,
            user=getattr(self, "user", None),
        )
        for stage_definition in definition.approval_workflow_stage_definitions.all():
            ApprovalWorkflowStage.objects.create(
                approval_workflow=workflow, approval_workflow_stage_definition=stage_definition
            )
        self.on_workflow_initiated(workflow)
        return workflow

    def has_approval_workflow_definition(self) -> bool:
        return ApprovalWorkflowDefinition.objects.find_for_model(self) is not None
