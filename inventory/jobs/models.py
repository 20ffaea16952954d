"""Jobs, their queues, results and log entries (shapes of the reference's `extras` models).

They belong to the `extras` application, as the reference's do, so their object types, content
types and permissions read `extras.job`, `extras.jobresult`, `extras.run_job`; their code lives
here and their tables keep the names they were created with (`jobs_*`)."""

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone

from inventory.base import BaseModel, PrimaryModel
from inventory.extras.models import BUTTON_CLASSES, check_templates
from inventory.extras.models.webhooks import ChangeTriggered


class JobQueue(PrimaryModel):
    """A named Celery queue workers listen on (`celery -A config worker -Q <name>`)."""

    name = models.CharField(max_length=255, unique=True)
    queue_type = models.CharField(
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


class Job(PrimaryModel):
    """A job class found in an installed module; the class's attributes are copied here at
    discovery unless the matching `*_override` flag says an administrator changed them."""

    # Names of the queues the job may run on, kept in step with its queue assignments.
    task_queues = models.JSONField(default=list, blank=True, editable=False)
    task_queues_override = models.BooleanField(default=False)
    module_name = models.CharField(max_length=255, editable=False)
    job_class_name = models.CharField(max_length=100, editable=False)
    grouping = models.CharField(max_length=255)
    name = models.CharField(max_length=255, unique=True)
    description = models.TextField(blank=True)
    installed = models.BooleanField(default=True, editable=False)
    enabled = models.BooleanField(default=False)
    is_job_hook_receiver = models.BooleanField(default=False, editable=False)
    is_job_button_receiver = models.BooleanField(default=False, editable=False)
    has_sensitive_variables = models.BooleanField(default=True)
    is_singleton = models.BooleanField(default=False)
    console_log_default = models.BooleanField(default=False)
    hidden = models.BooleanField(default=False)
    dryrun_default = models.BooleanField(default=False)
    read_only = models.BooleanField(default=False, editable=False)
    soft_time_limit = models.FloatField(default=0)
    time_limit = models.FloatField(default=0)
    supports_dryrun = models.BooleanField(default=False, editable=False)
    grouping_override = models.BooleanField(default=False)
    name_override = models.BooleanField(default=False)
    console_log_default_override = models.BooleanField(default=False)
    description_override = models.BooleanField(default=False)
    dryrun_default_override = models.BooleanField(default=False)
    hidden_override = models.BooleanField(default=False)
    soft_time_limit_override = models.BooleanField(default=False)
    time_limit_override = models.BooleanField(default=False)
    has_sensitive_variables_override = models.BooleanField(default=False)
    job_queues_override = models.BooleanField(default=False)
    default_job_queue_override = models.BooleanField(default=False)
    is_singleton_override = models.BooleanField(default=False)
    default_job_queue = models.ForeignKey(
        JobQueue, on_delete=models.PROTECT, null=True, blank=True, related_name="default_for_jobs"
    )
    job_queues = models.ManyToManyField(
        JobQueue, through="JobQueueAssignment", related_name="jobs", blank=True, editable=False
    )

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


# Celery task states, as the reference shows them (value and label alike).
STATUSES = [
    (state, state)
    for state in ("PENDING", "RECEIVED", "STARTED", "SUCCESS", "FAILURE", "REVOKED", "RETRY", "REJECTED")
]
DONE = ("SUCCESS", "FAILURE", "REVOKED", "REJECTED")


class JobResult(BaseModel):
    status = models.CharField(max_length=30, choices=STATUSES, default="PENDING", editable=False)
    name = models.CharField(max_length=255, editable=False)
    task_name = models.CharField(max_length=255, null=True, blank=True, editable=False)
    date_created = models.DateTimeField(default=timezone.now, editable=False, db_index=True)
    date_started = models.DateTimeField(null=True, blank=True, editable=False)
    date_done = models.DateTimeField(null=True, blank=True, editable=False)
    result = models.JSONField(null=True, blank=True, editable=False)
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
    cancel_type = models.CharField(max_length=50, blank=True, editable=False)
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
    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="job_hooks")
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


class ScheduledJob(BaseModel):
    """A job run later, once or on a recurring schedule, by the scheduler (`celery -A config
    beat`). Created by `jobs/<id>/run/` with a `schedule`; `next_run_at` is when the scheduler
    next starts it (null once a one-off has run or the schedule is disabled)."""

    name = models.CharField(max_length=255, unique=True)
    task = models.CharField(max_length=511, editable=False, db_index=True)
    interval = models.CharField(max_length=255, choices=INTERVALS, editable=False)
    crontab = models.CharField(max_length=255, blank=True, editable=False)
    args = models.JSONField(default=list, blank=True, editable=False)
    kwargs = models.JSONField(default=dict, blank=True, editable=False)
    celery_kwargs = models.JSONField(default=dict, blank=True, editable=False)
    one_off = models.BooleanField(default=False, editable=False)
    start_time = models.DateTimeField(editable=False)
    state = models.CharField(max_length=30, choices=SCHEDULE_STATES, default="active", editable=False)
    enabled = models.BooleanField(default=True)
    last_run_at = models.DateTimeField(null=True, blank=True, editable=False)
    total_run_count = models.PositiveIntegerField(default=0, editable=False)
    date_changed = models.DateTimeField(auto_now=True)
    description = models.TextField(blank=True)
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
    time_zone = models.CharField(max_length=63, default="UTC", editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        editable=False,
    )
    decision_date = models.DateTimeField(null=True, blank=True, editable=False)
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
        self.next_run_at = next_run(self) if self.enabled else None
        super().save(*args, **kwargs)


class JobButton(BaseModel):
    """A button on objects of its types that runs a job-button receiver job for the object
    (`jobs/<job>/run/` with `object_pk` and `object_model_name`)."""

    content_types = models.ManyToManyField(ContentType, related_name="job_buttons")
    name = models.CharField(max_length=255, unique=True)
    enabled = models.BooleanField(default=True)
    text = models.CharField(
        max_length=500, help_text="Template for the button's text, given the object as obj: {{ obj.name }}."
    )
    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="job_buttons")
    weight = models.PositiveSmallIntegerField(default=100)
    group_name = models.CharField(max_length=255, blank=True)
    button_class = models.CharField(max_length=30, choices=BUTTON_CLASSES, default="default")
    confirmation = models.BooleanField(default=True)
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
