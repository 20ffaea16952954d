from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import models

from inventory.base import BaseModel, PrimaryModel

from .contacts import Contact, Team, check_assigned_object

METADATA_DATA_TYPES = [
    ("text", "Text"),
    ("integer", "Integer"),
    ("boolean", "Boolean (true/false)"),
    ("date", "Date"),
    ("datetime", "Date/time"),
    ("url", "URL"),
    ("select", "Selection"),
    ("multi-select", "Multiple selection"),
    ("json", "JSON"),
    ("markdown", "Markdown"),
    ("contact-or-team", "Contact or Team"),
    ("float", "Floating point number"),
]
SELECT_TYPES = ("select", "multi-select")
CONTACT_OR_TEAM = "contact-or-team"
# Metadata describes inventory objects, not other metadata.
NOT_DESCRIBED = ("extras.metadatachoice", "extras.objectmetadata")


def _unchanged(obj, *fields: str) -> None:
    """Fields that cannot change once the object exists (what is stored depends on them)."""
    if obj._state.adding:
        return
    stored = type(obj).objects.filter(pk=obj.pk).values(*fields).first() or {}
    for name in fields:
        if name in stored and stored[name] != getattr(obj, name):
            raise ValidationError({name.removesuffix("_id"): ["Cannot be changed once created"]})


class MetadataType(PrimaryModel):
    """A kind of data (an owner, a source, a contact) that objects of the chosen types may carry
    about themselves or some of their fields."""

    name = models.CharField(max_length=255, unique=True)
    description = models.CharField(max_length=255, blank=True)
    data_type = models.CharField(
        max_length=50,
        choices=METADATA_DATA_TYPES,
        help_text="The type of data allowed for any metadata of this type.",
    )
    content_types = models.ManyToManyField(ContentType, related_name="+", blank=True)

    class Meta:
        ordering = ["name"]

    def clean(self):
        super().clean()
        try:
            _unchanged(self, "data_type")
        except ValidationError:
            raise ValidationError({"data_type": ["Type cannot be changed once created"]}) from None
        if self.pk and self.data_type not in SELECT_TYPES and self.choices.exists():
            raise ValidationError("Choices may be set only for select/multi-select data_type.")

    def clean_related(self, many: dict) -> None:
        refused = [
            label
            for kind in many.get("content_types", ())
            if (label := f"{kind.app_label}.{kind.model}") in NOT_DESCRIBED
        ]
        if refused:
            raise ValidationError({"content_types": [f"Objects of type {refused[0]} cannot carry metadata."]})


class MetadataChoice(BaseModel):
    """One allowed value of a select or multi-select metadata type."""

    metadata_type = models.ForeignKey(MetadataType, on_delete=models.CASCADE, related_name="choices")
    value = models.CharField(max_length=255)
    weight = models.PositiveSmallIntegerField(
        default=100, help_text="Higher weights appear later in the list"
    )
    created = models.DateTimeField(auto_now_add=True, null=True)
    last_updated = models.DateTimeField(auto_now=True, null=True)

    class Meta:
        ordering = ["metadata_type", "weight", "value"]
        constraints = [
            models.UniqueConstraint(
                fields=["metadata_type", "value"],
                name="extras_metadatachoice_value",
                violation_error_message="The fields metadata_type, value must make a unique set.",
            )
        ]

    def __str__(self) -> str:
        return self.value

    def clean(self):
        super().clean()
        _unchanged(self, "metadata_type_id")
        if self.metadata_type_id and self.metadata_type.data_type not in SELECT_TYPES:
            raise ValidationError(
                {"metadata_type": ["Metadata choices can only be assigned to select/multiselect data_type."]}
            )


class ObjectMetadata(BaseModel):
    """A value of one metadata type about one object, or about some of its fields
    (`scoped_fields`; none listed means all of them)."""

    metadata_type = models.ForeignKey(MetadataType, on_delete=models.PROTECT, related_name="object_metadata")
    contact = models.ForeignKey(
        Contact, on_delete=models.PROTECT, null=True, blank=True, related_name="object_metadata"
    )
    team = models.ForeignKey(
        Team, on_delete=models.PROTECT, null=True, blank=True, related_name="object_metadata"
    )
    scoped_fields = models.JSONField(
        default=list, blank=True, help_text="List of scoped fields, only direct fields of the model"
    )
    value = models.JSONField(null=True, blank=True)
    assigned_object_type = models.ForeignKey(ContentType, on_delete=models.CASCADE, related_name="+")
    assigned_object_id = models.UUIDField(db_index=True)
    created = models.DateTimeField(auto_now_add=True, null=True)
    last_updated = models.DateTimeField(auto_now=True, null=True)

    class Meta:
        ordering = ["metadata_type", "id"]
        verbose_name_plural = "object metadata"
        indexes = [models.Index(fields=["assigned_object_type", "assigned_object_id"])]

    def __str__(self) -> str:
        return f"{self.metadata_type} - {self.assigned_object_id} - {self.value}"

    def clean(self):
        super().clean()
        if self.metadata_type_id is None or self.assigned_object_type_id is None:
            return  # the missing field has its own error
        _unchanged(self, "metadata_type_id")
        check_assigned_object(self, "assigned_object", NOT_DESCRIBED)
        kind = self.metadata_type
        if not kind.content_types.filter(pk=self.assigned_object_type_id).exists():
            target = self.assigned_object_type
            raise ValidationError(
                f"Assigned Object Type {target.app_label}.{target.model} is not allowed by Metadata Type {kind}"
            )
        from ..metadata import check_scoped_fields, clean_value

        if kind.data_type == CONTACT_OR_TEAM:
            if self.value is not None:
                raise ValidationError({"value": [f"A value cannot be specified for type {CONTACT_OR_TEAM}"]})
            if self.contact_id is None and self.team_id is None:
                raise ValidationError("Either a contact or a team must be specified")
            if self.contact_id is not None and self.team_id is not None:
                raise ValidationError("A contact and a team cannot be both specified at once")
        else:
            for name in ("contact", "team"):
                if getattr(self, f"{name}_id") is not None:
                    raise ValidationError(
                        {name: [f"A {name} can be given only for metadata of type {CONTACT_OR_TEAM}."]}
                    )
            self.value = clean_value(kind, self.value)
        check_scoped_fields(self)
