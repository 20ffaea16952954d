"""Jobs, their queues, results and log entries (shapes of the reference's `extras` models).

They belong to the `extras` application, as the reference's do, so their object types, content
types and permissions read `extras.job`, `extras.jobresult`, `extras.run_job`; their code lives
here and their tables keep the names they were created with (`jobs_*`)."""

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone

from inventory.base import BaseModel, PrimaryModel, ValueChoiceField, graphql_choices, time_zone_choices
from inventory.extras.models import BUTTON_CLASSES, check_templates
from inventory.extras.models.webhooks import ChangeTriggered

from .approvals import ApprovableMixin


class JobQueue(PrimaryModel):
    """A named Celery queue workers listen on (`celery -A config worker -Q <name>`)."""

    name = models.CharField(max_length=255, unique=True)
    queue_type = ValueChoiceField(
        max_length=50, choices=[("celery", "Celery"), ("kubernetes", "Kubernetes")], default="celery"
    )
    description = models.CharField(max_length=255, blank=True)
    tenant = models.ForeignKey(
        "tenancy.Tenant", on_delete=models.PROTECT, null=True, blank=True, related_name="job_queues"
    )

    class Meta:
        app_label = "extras"
        db_table = "jobs_jobqueue"
        ordering = ["name"]


def override_flag(what: str = "value") -> models.BooleanField:
    """Whether a job's configured attribute outlives changes to its source code."""
    return models.BooleanField(
        default=False,
        help_text=f"If set, the configured {what} is kept even when the job's source code changes",
    )


class Job(PrimaryModel):
    """A job class found in an installed module; the class's attributes are copied here at
    discovery unless the matching `*_override` flag says an administrator changed them."""

    # Names of the queues the job may run on, kept in step with its queue assignments.
    task_queues = models.JSONField(default=list, blank=True, editable=False)
    task_queues_override = models.BooleanField(default=False)
    module_name = models.CharField(
        max_length=255, editable=False, help_text="Dotted name of the Python module providing this job"
    )
    job_class_name = models.CharField(
        max_length=100, editable=False, help_text="Name of the Python class providing this job"
    )
    grouping = models.CharField(max_length=255, help_text="Human-readable grouping that this job belongs to")
    name = models.CharField(max_length=255, unique=True, help_text="Human-readable name of this job")
    description = models.TextField(
        blank=True, help_text="Markdown formatting and a limited subset of HTML are supported"
    )
    installed = models.BooleanField(
        default=True,
        editable=False,
        help_text="Whether the Python module and class providing this job are presently installed and loadable",
    )
    enabled = models.BooleanField(default=False, help_text="Whether this job can be executed by users")
    is_job_hook_receiver = models.BooleanField(
        default=False, editable=False, help_text="Whether this job is a job hook receiver"
    )
    is_job_button_receiver = models.BooleanField(
        default=False, editable=False, help_text="Whether this job is a job button receiver"
    )
    has_sensitive_variables = models.BooleanField(
        default=True, help_text="Whether this job contains sensitive variables"
    )
    is_singleton = models.BooleanField(
        default=False, help_text="Whether this job should fail to run while another instance of it is running"
    )
    console_log_default = models.BooleanField(
        default=False, help_text="Whether the job runs with the console log argument set to true by default"
    )
    hidden = models.BooleanField(
        default=False, help_text="Whether the job is hidden from listings by default"
    )
    dryrun_default = models.BooleanField(
        default=False, help_text="Whether the job runs with the dryrun argument set to true by default"
    )
    read_only = models.BooleanField(
        default=False,
        editable=False,
        help_text="Set to true if the job does not make any changes to the environment",
    )
    soft_time_limit = models.FloatField(
        default=0,
        help_text="Maximum runtime in seconds before the job receives a SoftTimeLimitExceeded exception; 0 uses the system default",
    )
    time_limit = models.FloatField(
        default=0,
        help_text="Maximum runtime in seconds before the job is forcibly terminated; 0 uses the system default",
    )
    supports_dryrun = models.BooleanField(
        default=False,
        editable=False,
        help_text="If supported, allows the job to bypass approval when running with the dryrun argument set to true",
    )
    grouping_override = override_flag("grouping")
    name_override = override_flag("name")
    console_log_default_override = override_flag("console log default")
    description_override = override_flag("description")
    dryrun_default_override = override_flag()
    hidden_override = override_flag()
    soft_time_limit_override = override_flag()
    time_limit_override = override_flag()
    has_sensitive_variables_override = override_flag()
    job_queues_override = override_flag()
    default_job_queue_override = override_flag()
    is_singleton_override = override_flag()
    default_job_queue = models.ForeignKey(
        JobQueue, on_delete=models.PROTECT, null=True, blank=True, related_name="default_for_jobs"
    )
    job_queues = models.ManyToManyField(
        JobQueue,
        through="JobQueueAssignment",
        related_name="jobs",
        blank=True,
        editable=False,
        help_text="The job queues that this job can be run on",
    )
    # A Git repository's job: its variables as its last sync found them (inventory/jobs/gitcode.py),
    # so the web process cleans and describes a run without importing the repository's code.
    _variables = models.JSONField(default=list, blank=True, editable=False)

    class Meta:
        app_label = "extras"
        db_table = "jobs_job"
        ordering = ["grouping", "name"]
        permissions = [("run_job", "Can run jobs")]
        constraints = [
            models.UniqueConstraint(fields=["module_name", "job_class_name"], name="jobs_job_class_path")
        ]

    @property
    def class_path(self) -> str:
        return f"{self.module_name}.{self.job_class_name}"


class JobQueueAssignment(BaseModel):
    """A queue a job may run on (spec §4.8: an association with its own route)."""

    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="job_queue_assignments")
    job_queue = models.ForeignKey(JobQueue, on_delete=models.CASCADE, related_name="job_assignments")

    class Meta:
        app_label = "extras"
        db_table = "jobs_jobqueueassignment"
        ordering = ["job", "job_queue"]
        constraints = [models.UniqueConstraint(fields=["job", "job_queue"], name="jobs_queue_assignment")]


# Celery task states, as the reference shows them (value and label alike): celery's ALL_STATES,
# which leave out REJECTED (never stored).
STATUSES = [
    (state, state) for state in ("PENDING", "RECEIVED", "STARTED", "SUCCESS", "FAILURE", "REVOKED", "RETRY")
]
DONE = ("SUCCESS", "FAILURE", "REVOKED")
# How a run was canceled (cancel.py), as the reference's choices; shown as the bare value.
CANCEL_TYPES = [("terminated", "Terminated"), ("reaped", "Reaped"), ("abandoned", "Abandoned")]


class JobResult(BaseModel):
    status = models.CharField(max_length=30, choices=STATUSES, default="PENDING", editable=False)
    name = models.CharField(max_length=255, editable=False)
    task_name = models.CharField(
        max_length=255,
        null=True,
        blank=True,
        editable=False,
        help_text="Registered name of the task that runs this job. Internal use only.",
    )
    date_created = models.DateTimeField(default=timezone.now, editable=False, db_index=True)
    date_started = models.DateTimeField(null=True, blank=True, editable=False)
    date_done = models.DateTimeField(null=True, blank=True, editable=False)
    result = models.JSONField(
        null=True, blank=True, editable=False, help_text="The data returned by the task"
    )
    worker = models.CharField(max_length=100, null=True, blank=True, editable=False)
    task_args = models.JSONField(default=list, blank=True, editable=False)
    task_kwargs = models.JSONField(default=dict, blank=True, editable=False)
    celery_kwargs = models.JSONField(default=dict, blank=True, editable=False)
    traceback = models.TextField(null=True, blank=True, editable=False)
    meta = models.JSONField(null=True, blank=True, editable=False)
    debug_log_count = models.PositiveIntegerField(null=True, blank=True, editable=False)
    success_log_count = models.PositiveIntegerField(null=True, blank=True, editable=False)
    info_log_count = models.PositiveIntegerField(null=True, blank=True, editable=False)
    warning_log_count = models.PositiveIntegerField(null=True, blank=True, editable=False)
    error_log_count = models.PositiveIntegerField(null=True, blank=True, editable=False)
    canceled_by_user_name = models.CharField(max_length=150, blank=True, editable=False)
    cancel_type = ValueChoiceField(max_length=50, choices=CANCEL_TYPES, blank=True, editable=False)
    date_canceled = models.DateTimeField(null=True, blank=True, editable=False)
    job_model = models.ForeignKey(
        Job, on_delete=models.SET_NULL, null=True, blank=True, related_name="job_results", editable=False
    )
    scheduled_job = models.ForeignKey(
        "ScheduledJob",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="job_results",
        editable=False,
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        editable=False,
    )
    canceled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        editable=False,
    )
    _custom_field_data = models.JSONField(default=dict, blank=True)

    class Meta:
        app_label = "extras"
        db_table = "jobs_jobresult"
        ordering = ["-date_created"]


LOG_LEVELS = [
    (level, level.capitalize())
    for level in ("debug", "info", "success", "warning", "failure", "error", "critical")
]


class JobLogEntry(BaseModel):
    """One message a running job logged; written at once, so it is readable while the job runs."""

    natural_key_field_names = ()  # none: its natural slug is "unknown", as the reference's

    job_result = models.ForeignKey(JobResult, on_delete=models.CASCADE, related_name="job_log_entries")
    log_level = models.CharField(max_length=32, choices=LOG_LEVELS, default="info", db_index=True)
    grouping = models.CharField(max_length=100, default="main")
    message = models.TextField(blank=True)
    created = models.DateTimeField(default=timezone.now, db_index=True)
    log_object = models.CharField(max_length=200, blank=True, default="")
    absolute_url = models.CharField(max_length=255, blank=True, default="")

    class Meta:
        app_label = "extras"
        db_table = "jobs_joblogentry"
        ordering = ["created"]
        verbose_name_plural = "job log entries"


class JobHook(ChangeTriggered, PrimaryModel):
    """Runs a job-hook receiver job whenever objects of the chosen types change, after the
    change commits, with the change record as its input."""

    name = models.CharField(max_length=100, unique=True)
    content_types = models.ManyToManyField(ContentType, related_name="+")
    job = models.ForeignKey(
        Job,
        on_delete=models.CASCADE,
        related_name="job_hooks",
        help_text="The job that this job hook will initiate",
    )
    enabled = models.BooleanField(default=True)
    type_create = models.BooleanField(
        default=False, help_text="Call this job hook when a matching object is created."
    )
    type_update = models.BooleanField(
        default=False, help_text="Call this job hook when a matching object is updated."
    )
    type_delete = models.BooleanField(
        default=False, help_text="Call this job hook when a matching object is deleted."
    )

    class Meta:
        app_label = "extras"
        db_table = "jobs_jobhook"
        ordering = ["name"]

    def clean(self):
        super().clean()
        self.check_events()
        if self.job_id and not self.job.is_job_hook_receiver:
            raise ValidationError({"job": ["A job hook runs job hook receivers only."]})


# How a job is scheduled, as the reference names the choices.
INTERVALS = [
    ("immediately", "Once immediately"),
    ("future", "Once in the future"),
    ("hourly", "Recurring hourly"),
    ("daily", "Recurring daily"),
    ("weekly", "Recurring weekly"),
    ("custom", "Recurring custom"),
]
SCHEDULE_STATES = [
    ("active", "Active"),
    ("pending", "Pending Approval"),
    ("denied", "Approval Denied"),
    ("canceled", "Approval Canceled"),
    ("completed", "Completed"),
    ("errored", "Errored"),
]


class ScheduledJob(ApprovableMixin, BaseModel):
    """A job run later, once or on a recurring schedule, by the scheduler (`celery -A config
    beat`). Created by `jobs/<id>/run/` with a `schedule`, or for a run that needs approval;
    `next_run_at` is when the scheduler next starts it (null once a one-off has run, while the
    schedule is disabled or awaits approval)."""

    name = models.CharField(
        max_length=255, unique=True, help_text="Human-readable description of this scheduled task"
    )
    task = models.CharField(
        max_length=511, editable=False, db_index=True, help_text="The name of the task that should be run"
    )
    interval = models.CharField(max_length=255, choices=INTERVALS, editable=False)
    crontab = models.CharField(
        max_length=255, blank=True, editable=False, help_text="Cronjob syntax string for custom scheduling"
    )
    args = models.JSONField(default=list, blank=True, editable=False)
    kwargs = models.JSONField(default=dict, blank=True, editable=False)
    celery_kwargs = models.JSONField(default=dict, blank=True, editable=False)
    # Low-level message settings the reference's schedules keep (as its scheduler's periodic
    # tasks), unused here as there: never shown by REST, read through GraphQL.
    exchange = models.CharField(max_length=255, blank=True, null=True, default=None, editable=False)  # noqa: DJ001
    routing_key = models.CharField(max_length=255, blank=True, null=True, default=None, editable=False)  # noqa: DJ001
    headers = models.TextField(blank=True, default="{}", editable=False)
    priority = models.PositiveIntegerField(blank=True, null=True, default=None, editable=False)
    expires = models.DateTimeField(blank=True, null=True, editable=False)
    expire_seconds = models.PositiveIntegerField(blank=True, null=True, editable=False)
    one_off = models.BooleanField(
        default=False, editable=False, help_text="If true, the schedule runs the task a single time"
    )
    start_time = models.DateTimeField(
        editable=False, help_text="Datetime when the schedule should begin triggering the task to run"
    )
    state = models.CharField(max_length=30, choices=SCHEDULE_STATES, default="active", editable=False)
    enabled = models.BooleanField(default=True, help_text="Set to false to disable the schedule")
    last_run_at = models.DateTimeField(
        null=True,
        blank=True,
        editable=False,
        help_text="Datetime that the schedule last triggered the task to run; reset to null when enabled is set to false.",
    )
    total_run_count = models.PositiveIntegerField(
        default=0,
        editable=False,
        help_text="Running count of how many times the schedule has triggered the task",
    )
    date_changed = models.DateTimeField(
        auto_now=True, help_text="Datetime that this scheduled job was last modified"
    )
    description = models.TextField(blank=True, help_text="Detailed description of this scheduled job")
    job_model = models.ForeignKey(
        Job, on_delete=models.SET_NULL, null=True, blank=True, related_name="scheduled_jobs", editable=False
    )
    job_queue = models.ForeignKey(
        JobQueue,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="scheduled_jobs",
        editable=False,
    )
    time_zone = graphql_choices(
        models.CharField(max_length=63, default="UTC", editable=False), time_zone_choices
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        editable=False,
        help_text="User that requested the schedule",
    )
    decision_date = models.DateTimeField(
        null=True, blank=True, editable=False, help_text="Datetime that the schedule was approved or denied"
    )
    next_run_at = models.DateTimeField(null=True, blank=True, editable=False, db_index=True)

    class Meta:
        app_label = "extras"
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name}: {self.interval}"

    def save(self, *args, **kwargs):
        from .scheduling import next_run

        # As the reference: a schedule turned off (or a one-off that ran) is completed and forgets
        # its last run; turned on again it is active and runs from now on.
        if not self.enabled:
            self.state = "completed" if self.state == "active" else self.state
            self.last_run_at = None
        elif self.state == "completed":
            self.state = "active"
        # Only an active schedule runs: one awaiting approval, denied or canceled never does.
        self.next_run_at = next_run(self) if self.enabled and self.state == "active" else None
        adding = self._state.adding
        super().save(*args, **kwargs)
        if adding:
            self.begin_approval_workflow()

    def on_workflow_initiated(self, workflow):
        self.state, self.enabled = "pending", False
        self.save()

    def on_workflow_approved(self, workflow):
        from .scheduler import start_when_due

        self.decision_date, self.state, self.enabled = workflow.decision_date, "active", True
        self.save()
        start_when_due(self)  # a run approved after its start time runs now, not at the next tick

    def on_workflow_denied(self, workflow):
        self.decision_date, self.state, self.enabled = workflow.decision_date, "denied", False
        self.save()

    def on_workflow_canceled(self, workflow):
        self.decision_date, self.state, self.enabled = workflow.decision_date, "canceled", False
        self.save()


class JobButton(BaseModel):
    """A button on objects of its types that runs a job-button receiver job for the object
    (`jobs/<job>/run/` with `object_pk` and `object_model_name`)."""

    is_contact_associable_model = True
    is_dynamic_group_associable_model = True

    content_types = models.ManyToManyField(ContentType, related_name="job_buttons")
    name = models.CharField(max_length=255, unique=True)
    enabled = models.BooleanField(default=True)
    text = models.CharField(
        max_length=500, help_text="Template for the button's text, given the object as obj: {{ obj.name }}."
    )
    job = models.ForeignKey(
        Job, on_delete=models.CASCADE, related_name="job_buttons", help_text="Job this button will run"
    )
    weight = models.PositiveSmallIntegerField(default=100)
    group_name = models.CharField(
        max_length=255,
        blank=True,
        help_text="Buttons with the same group appear as a dropdown menu, styled after the group's lowest-weight button.",
    )
    button_class = models.CharField(max_length=30, choices=BUTTON_CLASSES, default="default")
    confirmation = models.BooleanField(
        default=True,
        help_text="Ask for confirmation before running the job (without it, one click runs the job and commits its changes).",
    )
    created = models.DateTimeField(auto_now_add=True, null=True)
    last_updated = models.DateTimeField(auto_now=True, null=True)

    class Meta:
        app_label = "extras"
        ordering = ["group_name", "weight", "name"]

    def clean(self):
        super().clean()
        check_templates(self, "text")
        if self.job_id is None:
            return
        if not self.job.is_job_button_receiver:
            raise ValidationError({"job": ["A job button runs job button receivers only."]})
        if self.enabled and not (self.job.installed and self.job.enabled):
            raise ValidationError({"enabled": ["The selected Job is not installed and enabled"]})


class FileProxy(BaseModel):
    """A file a job wrote (an export), kept in the database so that any server can hand it out
    (`file-proxies/<id>/download/`) whichever worker made it."""

    natural_key_field_names = ("name", "uploaded_at")

    name = models.CharField(max_length=255)
    uploaded_at = models.DateTimeField(auto_now_add=True)
    job_result = models.ForeignKey(
        JobResult, on_delete=models.CASCADE, null=True, blank=True, related_name="files", editable=False
    )
    content = models.BinaryField(editable=False)

    class Meta:
        app_label = "extras"
        ordering = ["name"]
        get_latest_by = "uploaded_at"
        verbose_name_plural = "file proxies"
