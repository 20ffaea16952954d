"""Saved views: a user's named configuration of an object list (its filters, sort, columns and
page size), shared with others or kept private, and each user's default view of a list."""

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models

from inventory.base import BaseModel


class SavedView(BaseModel):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="saved_views",
        help_text="The user that created this view",
    )
    name = models.CharField(max_length=255, help_text="The name of this view")
    view = models.CharField(
        max_length=255,
        help_text="The name of the list view that the saved view is derived from, e.g. dcim:device_list",
    )
    config = models.JSONField(
        encoder=DjangoJSONEncoder, blank=True, default=dict, help_text="Saved Configuration on this view"
    )
    is_global_default = models.BooleanField(default=False)
    is_shared = models.BooleanField(default=True)
    created = models.DateTimeField(auto_now_add=True, null=True)
    last_updated = models.DateTimeField(auto_now=True, null=True)

    class Meta:
        ordering = ["owner", "view", "name"]
        verbose_name = "saved view"
        verbose_name_plural = "saved views"
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "name", "view"],
                name="extras_savedview_once",
                violation_error_message="The fields owner, name, view must make a unique set.",
            )
        ]

    def __str__(self) -> str:
        return f"{self.owner.username} - {self.view} - {self.name}"

    def clean(self):
        super().clean()
        if self.is_global_default:
            self.is_shared = True  # everyone's default is seen by everyone

    def save(self, *args, **kwargs):
        if self.is_global_default:
            # One global default per list: this one takes over from any other.
            self.is_shared = True
            SavedView.objects.filter(view=self.view, is_global_default=True).exclude(pk=self.pk).update(
                is_global_default=False
            )
        super().save(*args, **kwargs)


class UserSavedViewAssociation(BaseModel):
    """The saved view a user sees first on one list (their default), one per user and list."""

    saved_view = models.ForeignKey(SavedView, on_delete=models.CASCADE, related_name="user_assignments")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="saved_view_assignments"
    )
    view_name = models.CharField(max_length=255, editable=False)

    class Meta:
        ordering = ["user", "view_name"]
        constraints = [
            models.UniqueConstraint(fields=["user", "view_name"], name="extras_usersavedview_once")
        ]

    def __str__(self) -> str:
        return f"{self.user}: {self.saved_view} - {self.view_name}"

    def derive_view_name(self) -> None:
        """Always the list its saved view is of: whatever a client says is not kept."""
        if self.saved_view_id is not None:
            self.view_name = self.saved_view.view

    def clean_fields(self, exclude=None):
        self.derive_view_name()  # before the field is checked as required
        super().clean_fields(exclude)

    def prepare_for_bulk(self):
        self.derive_view_name()

    def save(self, *args, **kwargs):
        self.derive_view_name()
        super().save(*args, **kwargs)
