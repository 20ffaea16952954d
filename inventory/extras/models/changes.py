"""The change log: one row per object a write created, updated or deleted."""

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.utils import timezone

from inventory.base import BaseModel, ValueChoiceField

ACTIONS = [("create", "Created"), ("update", "Updated"), ("delete", "Deleted")]
# As the reference's: its GraphQL enum (WEB ... JOB_HOOK, UNKNOWN) is named from these values.
CHANGE_CONTEXTS = [
    ("web", "Web"),
    ("job", "Job"),
    ("job-hook", "Job hook"),
    ("orm", "ORM"),
    ("unknown", "Unknown"),
]


def job_hook_contexts_renamed(apps, schema_editor):
    """Records of job hooks' changes stored as "jobhook" say "job-hook", as the reference's."""
    model = apps.get_model("extras", "ObjectChange")
    model.objects.filter(change_context="jobhook").update(change_context="job-hook")


class ObjectChange(BaseModel):
    """The references below are kept by the application, not by the database: every row's user
    and types are those of the write that stores it, in its transaction, and a user deleted
    through the application still leaves its records with no user (on_delete runs in the
    ORM). A database constraint would check each row again at commit, a quarter of what the
    change log costs a bulk write."""

    time = models.DateTimeField(default=timezone.now, editable=False, db_index=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        db_constraint=False,
    )
    # Kept when the user goes: the log still says who made the change.
    user_name = models.CharField(max_length=150, editable=False)
    request_id = models.UUIDField(editable=False, db_index=True)
    action = models.CharField(max_length=50, choices=ACTIONS, editable=False)
    change_context = ValueChoiceField(max_length=20, choices=CHANGE_CONTEXTS, editable=False)
    change_context_detail = models.CharField(max_length=400, blank=True, editable=False)
    # Indexes cost every write a little: an object's history is found by its id alone (ids
    # are unique enough), and types are never looked up on their own.
    changed_object_type = models.ForeignKey(
        ContentType, on_delete=models.PROTECT, related_name="+", db_index=False, db_constraint=False
    )
    changed_object_id = models.UUIDField(db_index=True)
    related_object_type = models.ForeignKey(
        ContentType,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        db_index=False,
        db_constraint=False,
    )
    related_object_id = models.UUIDField(null=True, blank=True)
    object_repr = models.CharField(max_length=200, editable=False)
    object_data = models.JSONField(null=True, editable=False)  # the object after (or, deleted, before)
    object_data_v2 = models.JSONField(null=True, editable=False)
    # What the change added and removed, key by key: {"added": {...}, "removed": {...}}.
    differences = models.JSONField(null=True, editable=False)

    class Meta:
        ordering = ["-time"]

    def __str__(self) -> str:
        return f"{self.changed_object_type} {self.object_repr} {self.get_action_display().lower()} by {self.user_name}"
