from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models

from inventory.base import BaseModel, OrganizationalModel

color_validator = RegexValidator(r"^[0-9a-f]{6}$", "Enter a valid hexadecimal RGB color code (e.g. 4caf50).")


class ContentTypeScoped(OrganizationalModel):
    """A name that applies to a chosen set of models (statuses, roles, tags)."""

    name = models.CharField(max_length=100, unique=True)
    color = models.CharField(max_length=6, default="9e9e9e", validators=[color_validator])
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


CUSTOM_FIELD_TYPES = [
    ("text", "Text"),
    ("integer", "Integer"),
    ("boolean", "Boolean (true/false)"),
    ("date", "Date"),
    ("url", "URL"),
    ("select", "Selection"),
    ("multi-select", "Multiple selection"),
    ("json", "JSON"),
    ("markdown", "Markdown"),
]
FILTER_LOGIC = [("disabled", "Disabled"), ("loose", "Loose"), ("exact", "Exact")]
key_validator = RegexValidator(
    r"^[a-z][a-z0-9_]*$",
    "Key must be a valid identifier: lowercase letters, digits and underscores, starting with a letter.",
)


class CustomField(BaseModel):
    """A field users add to chosen models; objects keep its value under `key` in their data."""

    key = models.CharField(max_length=50, unique=True, validators=[key_validator])
    label = models.CharField(max_length=50)
    type = models.CharField(max_length=50, choices=CUSTOM_FIELD_TYPES, default="text")
    content_types = models.ManyToManyField(ContentType, related_name="+", blank=True)
    grouping = models.CharField(max_length=255, blank=True)
    description = models.CharField(max_length=200, blank=True)
    required = models.BooleanField(default=False)
    default = models.JSONField(null=True, blank=True)
    weight = models.PositiveSmallIntegerField(default=100)
    filter_logic = models.CharField(max_length=50, choices=FILTER_LOGIC, default="loose")
    validation_minimum = models.BigIntegerField(null=True, blank=True)
    validation_maximum = models.BigIntegerField(null=True, blank=True)
    validation_regex = models.CharField(max_length=500, blank=True)
    advanced_ui = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True, null=True)
    last_updated = models.DateTimeField(auto_now=True, null=True)

    class Meta:
        ordering = ["weight", "label"]

    def __str__(self) -> str:
        return self.label

    def clean(self):
        super().clean()
        if not self.label:
            self.label = self.key
        if self.validation_regex and self.type not in ("text", "url", "markdown"):
            raise ValidationError(
                {"validation_regex": ["Regular expression validation applies to text fields."]}
            )
        if self.default is not None and self.type not in ("select", "multi-select"):
            from .customfields import validate_value

            try:
                validate_value(self, self.default, choices=())
            except ValidationError as exc:
                raise ValidationError({"default": [f"Invalid default value: {exc.messages[0]}"]}) from None


class CustomFieldChoice(BaseModel):
    custom_field = models.ForeignKey(
        CustomField, on_delete=models.CASCADE, related_name="custom_field_choices"
    )
    value = models.CharField(max_length=100)
    weight = models.PositiveSmallIntegerField(default=100)
    created = models.DateTimeField(auto_now_add=True, null=True)
    last_updated = models.DateTimeField(auto_now=True, null=True)

    class Meta:
        ordering = ["custom_field", "weight", "value"]
        constraints = [
            models.UniqueConstraint(fields=["custom_field", "value"], name="extras_customfieldchoice_value")
        ]

    def __str__(self) -> str:
        return self.value

    def clean(self):
        super().clean()
        if self.custom_field_id and self.custom_field.type not in ("select", "multi-select"):
            raise ValidationError({"custom_field": ["Choices apply to selection fields only."]})
