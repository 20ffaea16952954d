"""Data validation rules users write (a pattern, a range, a required or unique value on one field
of one type of object), enforced on every write of that type, and the results of audits of the
stored objects against them (data compliance)."""

from __future__ import annotations

import re

from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import FieldDoesNotExist, ValidationError
from django.core.validators import MinValueValidator
from django.db import models

from inventory.base import BaseModel, PrimaryModel


def validate_regex(value: str) -> None:
    """A pattern that compiles (the reference's message)."""
    try:
        re.compile(value)
    except (re.error, TypeError, ValueError, OverflowError, RecursionError):
        raise ValidationError(f"{value} is not a valid regular expression.") from None


def target_types() -> set[str]:
    """The object types rules may target: those clients write, with a UUID (the reference's
    `custom_validators` feature), besides the rules and results themselves."""
    from queryengine.registry import resources

    return {
        r.object_type
        for r in resources()
        if r.writable and r.creatable and not r.integer_pk and r.app_label not in ("data_validation", "users")
    }


def rule_unique_together(model_name: str) -> models.UniqueConstraint:
    return models.UniqueConstraint(
        fields=["content_type", "field"],
        name=f"data_validation_{model_name}_once_per_field",
        violation_error_message="The fields content_type, field must make a unique set.",
    )


class ValidationRule(PrimaryModel):
    """What every kind of rule has: a name, the field of a type of object it checks, whether it
    is enforced and the message a failing write gets (else the kind's own)."""

    name = models.CharField(max_length=255, unique=True)
    field = models.CharField(max_length=255)
    content_type = models.ForeignKey(ContentType, on_delete=models.CASCADE, related_name="+")
    enabled = models.BooleanField(default=True)
    error_message = models.CharField(
        max_length=255,
        blank=True,
        default="",
        help_text="Optional error message to display when validation fails.",
    )

    # What the rule's field must be: refused field types, or (`allowed`) the only ones accepted.
    refused: tuple = ()
    allowed: tuple = ()
    unsupported = ""  # the message for a field of another type

    class Meta:
        abstract = True
        ordering = ("name",)

    def __str__(self) -> str:
        return self.name

    @property
    def object_type(self) -> str:
        return f"{self.content_type.app_label}.{self.content_type.model}"

    @classmethod
    def supports(cls, model_field) -> bool:
        """Whether rules of this kind may check `model_field` (a model's field or relation)."""
        if model_field.name.startswith("_") or not getattr(model_field, "editable", False):
            return False
        if not isinstance(model_field, models.Field):  # a reverse relation
            return False
        if cls.allowed and not isinstance(model_field, cls.allowed):
            return False
        return not isinstance(model_field, cls.refused)

    def clean(self):
        super().clean()
        if self.content_type_id is None:
            return
        if self.object_type not in target_types():
            raise ValidationError({"content_type": [f"Invalid content type: {self.object_type}"]})
        model = self.content_type.model_class()
        names = {f.name for f in model._meta.get_fields()}
        if self.field not in names:
            raise ValidationError({"field": [f"Not a valid field for content type {self.object_type}."]})
        try:
            model_field = model._meta.get_field(self.field)
        except FieldDoesNotExist:  # pragma: no cover - listed above
            model_field = None
        if model_field is None or not self.supports(model_field):
            raise ValidationError({"field": [self.unsupported]})
        self.clean_rule(model_field)

    def clean_rule(self, model_field) -> None:
        """The kind's own checks of a rule on a supported field."""


class RegularExpressionValidationRule(ValidationRule):
    """A field's value (as text) must match a regular expression."""

    regular_expression = models.TextField()
    context_processing = models.BooleanField(
        default=False,
        help_text="When enabled, the regular expression value is first processed as a Jinja2 template with "
        "access to the object being validated in a variable named <code>obj</code>.",
    )

    refused = (
        models.AutoField,
        models.BigAutoField,
        models.SmallAutoField,
        models.BooleanField,
        models.FileField,
        models.FilePathField,
        models.JSONField,
        models.UUIDField,
        models.ManyToManyField,
        models.ForeignKey,
        models.OneToOneField,
        models.fields.related.RelatedField,
    )
    unsupported = "This field's type does not support regular expression validation."

    class Meta(ValidationRule.Meta):
        verbose_name = "regular expression validation rule"
        db_table = "data_validation_regexrule"
        constraints = [rule_unique_together("regexrule")]

    def clean(self):
        # The pattern first, as the reference checks it; a template is checked when rendered.
        if not self.context_processing:
            validate_regex(self.regular_expression)
        super().clean()


class MinMaxValidationRule(ValidationRule):
    """A numeric field's value must lie between a minimum and a maximum (either may be left out)."""

    min = models.FloatField(
        null=True,
        blank=True,
        help_text="When set, apply a minimum value contraint to the value of the model field.",
    )
    max = models.FloatField(
        null=True,
        blank=True,
        help_text="When set, apply a maximum value contraint to the value of the model field.",
    )

    allowed = (models.DecimalField, models.FloatField, models.IntegerField)
    refused = (models.AutoField, models.BigAutoField, models.SmallAutoField)
    unsupported = "This field's type does not support min/max validation."

    class Meta(ValidationRule.Meta):
        verbose_name = "min max validation rule"
        db_table = "data_validation_minmaxrule"
        constraints = [rule_unique_together("minmaxrule")]

    def clean_rule(self, model_field) -> None:
        if self.min is None and self.max is None:
            raise ValidationError("At least a minimum or maximum value must be specified.")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValidationError(
                {
                    "min": ["Minimum value cannot be more than the maximum value."],
                    "max": ["Maximum value cannot be less than the minimum value."],
                }
            )


class RequiredValidationRule(ValidationRule):
    """A field that may be left empty must be given."""

    refused = (
        models.AutoField,
        models.BigAutoField,
        models.SmallAutoField,
        models.ManyToManyField,
        models.fields.related.RelatedField,
    )
    unsupported = "This field's type does not support required validation."

    class Meta(ValidationRule.Meta):
        verbose_name = "required validation rule"
        db_table = "data_validation_requiredrule"
        constraints = [rule_unique_together("requiredrule")]

    def clean_rule(self, model_field) -> None:
        # A text field that may be blank (stored as "") counts as optional even when not null.
        if not model_field.null and not model_field.blank:
            raise ValidationError({"field": ["This field is already required by default."]})


class UniqueValidationRule(ValidationRule):
    """At most `max_instances` objects of the type may share a (non-empty) value of the field."""

    max_instances = models.PositiveIntegerField(default=1, validators=[MinValueValidator(1)])

    refused = (models.ManyToManyField, models.fields.related.RelatedField)
    unsupported = "This field's type does not support uniqueness validation."

    class Meta(ValidationRule.Meta):
        verbose_name = "unique validation rule"
        db_table = "data_validation_uniquerule"
        constraints = [rule_unique_together("uniquerule")]

    def clean_rule(self, model_field) -> None:
        if model_field.unique:
            raise ValidationError({"field": ["This field is already unique by default."]})


RULE_MODELS = (
    RegularExpressionValidationRule,
    MinMaxValidationRule,
    RequiredValidationRule,
    UniqueValidationRule,
)


class DataCompliance(BaseModel):
    """One audit's finding on one attribute of one object (`__all__`: the object as a whole)."""

    is_dynamic_group_associable_model = True  # as the reference's: groups may hold findings

    compliance_class_name = models.CharField(max_length=255)
    last_validation_date = models.DateTimeField(auto_now=True)
    content_type = models.ForeignKey(ContentType, on_delete=models.PROTECT, related_name="+")
    object_id = models.UUIDField()
    validated_object_str = models.CharField(max_length=255, blank=True, default="")
    validated_attribute = models.CharField(max_length=255, blank=True, default="")
    validated_attribute_value = models.CharField(max_length=255, blank=True, default="")
    valid = models.BooleanField()
    message = models.TextField(blank=True, default="")

    class Meta:
        verbose_name = "data compliance"
        verbose_name_plural = "Data Compliance"
        ordering = ("compliance_class_name", "validated_object_str", "validated_attribute")
        constraints = [
            models.UniqueConstraint(
                fields=["compliance_class_name", "content_type", "object_id", "validated_attribute"],
                name="data_validation_datacompliance_once",
                violation_error_message="The fields compliance_class_name, content_type, object_id, "
                "validated_attribute must make a unique set.",
            )
        ]

    def __str__(self) -> str:
        return f"{self.compliance_class_name}: {self.validated_attribute} compliance for {self.validated_object_str}"
