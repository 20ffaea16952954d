from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models

from inventory.base import BaseModel, OrganizationalModel
from inventory.slugs import SlugModel

color_validator = RegexValidator(r"^[0-9a-f]{6}$", "Enter a valid hexadecimal RGB color code (e.g. 4caf50).")


class ContentTypeScoped(SlugModel, OrganizationalModel):
    """A name that applies to a chosen set of models (statuses, roles, tags)."""

    name = models.CharField(max_length=100, unique=True)
    color = models.CharField(
        max_length=6,
        default="9e9e9e",
        validators=[color_validator],
        help_text="RGB color in hexadecimal (e.g. 00ff00)",
    )
    description = models.CharField(max_length=200, blank=True)
    content_types = models.ManyToManyField(ContentType, related_name="+", blank=True)

    class Meta:
        abstract = True
        ordering = ["name"]


class Status(ContentTypeScoped):
    class Meta(ContentTypeScoped.Meta):
        verbose_name_plural = "statuses"


class Role(ContentTypeScoped):
    weight = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta(ContentTypeScoped.Meta):
        ordering = ["weight", "name"]


class Tag(ContentTypeScoped):
    pass


class Note(BaseModel):
    """A free-text note attached to any object."""

    natural_key_field_names = ("assigned_object_type", "assigned_object_id", "user_name", "created")

    assigned_object_type = models.ForeignKey(ContentType, on_delete=models.CASCADE, related_name="+")
    assigned_object_id = models.UUIDField(db_index=True)
    user = models.ForeignKey(
        "users.User", on_delete=models.SET_NULL, null=True, blank=True, related_name="notes"
    )
    user_name = models.CharField(max_length=150, editable=False)
    note = models.TextField()
    created = models.DateTimeField(auto_now_add=True, null=True)
    last_updated = models.DateTimeField(auto_now=True, null=True)

    class Meta:
        ordering = ["created", "id"]
        indexes = [models.Index(fields=["assigned_object_type", "assigned_object_id"])]

    def __str__(self) -> str:
        return self.note[:50]

    def clean(self):
        model = self.assigned_object_type.model_class() if self.assigned_object_type_id else None
        exists = model is not None and model._default_manager.filter(pk=self.assigned_object_id).exists()
        if model is not None and self.assigned_object_id is not None and not exists:
            raise ValidationError({"assigned_object_id": [f"No {model._meta.object_name} has this id."]})

    def save(self, *args, **kwargs):
        if self.user is not None and not self.user_name:
            self.user_name = self.user.get_username()
        super().save(*args, **kwargs)
