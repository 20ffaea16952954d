import re

from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models

from inventory.base import BaseModel, OrganizationalModel, ValueChoiceField
from inventory.slugs import SlugModel

from .core import Role, Tag

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


ADVANCED_UI = 'Hide this field from the object\'s primary information tab. It will appear in the "Advanced" tab instead.'


class CustomField(BaseModel):
    """A field users add to chosen models; objects keep its value under `key` in their data."""

    is_contact_associable_model = True
    is_dynamic_group_associable_model = True

    key = models.CharField(
        max_length=50,
        unique=True,
        validators=[key_validator],
        help_text="Internal field name. Please use underscores rather than dashes in this key.",
    )
    label = models.CharField(max_length=50)
    type = models.CharField(max_length=50, choices=CUSTOM_FIELD_TYPES, default="text")
    content_types = models.ManyToManyField(ContentType, related_name="+", blank=True)
    grouping = models.CharField(
        max_length=255, blank=True, help_text="Human-readable grouping that this custom field belongs to."
    )
    description = models.CharField(
        max_length=200, blank=True, help_text="A helpful description for this field."
    )
    required = models.BooleanField(
        default=False,
        help_text="If true, this field is required when creating new objects or editing an existing object.",
    )
    default = models.JSONField(
        null=True,
        blank=True,
        help_text='Default value for the field (a JSON value: strings in double quotes, e.g. "Foo").',
    )
    weight = models.PositiveSmallIntegerField(
        default=100, help_text="Fields with higher weights appear lower in a form."
    )
    filter_logic = models.CharField(max_length=50, choices=FILTER_LOGIC, default="loose")
    validation_minimum = models.BigIntegerField(
        null=True,
        blank=True,
        help_text="Minimum allowed value (for numeric fields) or length (for text fields).",
    )
    validation_maximum = models.BigIntegerField(
        null=True,
        blank=True,
        help_text="Maximum allowed value (for numeric fields) or length (for text fields).",
    )
    validation_regex = models.CharField(
        max_length=500,
        blank=True,
        help_text="Regular expression text values must match (use ^ and $ to match the whole value, e.g. ^[A-Z]{3}$ for exactly three capital letters); for selections it applies to the choices.",
    )
    advanced_ui = models.BooleanField(
        default=False,
        help_text=ADVANCED_UI,
    )
    # Stored filter parameters (as a list request takes them) selecting the objects the field
    # applies to; the others keep null and get no default.
    scope_filter = models.JSONField(
        default=dict,
        blank=True,
        help_text="A JSON-encoded dictionary of filter parameters defining possible objects that can use this custom field.",
    )
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
            from ..customfields import validate_value

            try:
                validate_value(self, self.default, choices=())
            except ValidationError as exc:
                raise ValidationError({"default": [f"Invalid default value: {exc.messages[0]}"]}) from None
        if self.scope_filter is None:
            self.scope_filter = {}
        if self.required and self.scope_filter:
            raise ValidationError({"required": ["Scope filter can't be set, if field is required."]})

    def clean_related(self, many: dict) -> None:
        """A scope filter must be one every content type's list takes (checked as a dynamic
        group's filter is)."""
        from ..filtering import filter_errors
        from ..relationships import resource_of

        if not self.scope_filter:
            return
        kinds = (
            many["content_types"] if "content_types" in many else self.content_types.all() if self.pk else []
        )
        errors = []
        for kind in kinds:
            errors += filter_errors(resource_of(kind), kind.model_class(), self.scope_filter)
        if errors:
            raise ValidationError({"scope_filter": errors})


class CustomFieldChoice(BaseModel):
    custom_field = models.ForeignKey(
        CustomField, on_delete=models.CASCADE, related_name="custom_field_choices"
    )
    value = models.CharField(max_length=100)
    weight = models.PositiveSmallIntegerField(
        default=100, help_text="Higher weights appear later in the list"
    )
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


def key_from_label(label: str) -> str:
    """A key derived from a label as the reference does: lowercase words joined by underscores."""
    key = re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_")
    return key if key[:1].isalpha() else f"k_{key}"


RELATIONSHIP_TYPES = [
    ("one-to-one", "One to One"),
    ("symmetric-one-to-one", "Symmetric One to One"),
    ("one-to-many", "One to Many"),
    ("many-to-many", "Many to Many"),
    ("symmetric-many-to-many", "Symmetric Many to Many"),
]
SYMMETRIC_TYPES = ("symmetric-one-to-one", "symmetric-many-to-many")
REQUIRED_SIDES = [
    ("", "Neither side required"),
    ("source", "Source objects MUST implement this relationship"),
    ("destination", "Destination objects MUST implement this relationship"),
]
SIDES = ("source", "destination")


class Relationship(BaseModel):
    """A link users define between two object types (one-to-one, one-to-many, many-to-many,
    and the symmetric kinds between objects of one type); RelationshipAssociations hold its pairs."""

    is_contact_associable_model = True
    is_dynamic_group_associable_model = True

    natural_key_field_names = ("key",)

    label = models.CharField(
        max_length=255, unique=True, help_text="Label of the relationship as displayed to users"
    )
    key = models.CharField(
        max_length=100,
        unique=True,
        blank=True,
        validators=[key_validator],
        help_text="Internal relationship key. Please use underscores rather than dashes in this key.",
    )
    description = models.CharField(max_length=255, blank=True)
    type = ValueChoiceField(
        max_length=50,
        choices=RELATIONSHIP_TYPES,
        default="many-to-many",
        help_text="Cardinality of this relationship",
    )
    required_on = ValueChoiceField(
        max_length=12,
        choices=REQUIRED_SIDES,
        blank=True,
        default="",
        help_text="Objects on the specified side MUST implement this relationship. Not permitted for symmetric relationships.",
    )
    source_type = models.ForeignKey(ContentType, on_delete=models.CASCADE, related_name="+")
    source_label = models.CharField(
        max_length=255,
        blank=True,
        help_text="Label for related destination objects, as displayed on the source object.",
    )
    source_hidden = models.BooleanField(
        default=False, help_text="Hide this relationship on the source object."
    )
    source_filter = models.JSONField(
        null=True,
        blank=True,
        help_text="Filterset filter matching the applicable source objects of the selected type",
    )
    destination_type = models.ForeignKey(ContentType, on_delete=models.CASCADE, related_name="+")
    destination_label = models.CharField(
        max_length=255,
        blank=True,
        help_text="Label for related source objects, as displayed on the destination object.",
    )
    destination_hidden = models.BooleanField(
        default=False, help_text="Hide this relationship on the destination object."
    )
    destination_filter = models.JSONField(
        null=True,
        blank=True,
        help_text="Filterset filter matching the applicable destination objects of the selected type",
    )
    advanced_ui = models.BooleanField(
        default=False,
        help_text=ADVANCED_UI,
    )
    created = models.DateTimeField(auto_now_add=True, null=True)
    last_updated = models.DateTimeField(auto_now=True, null=True)

    class Meta:
        ordering = ["label"]

    def __str__(self) -> str:
        return self.label

    @property
    def symmetric(self) -> bool:
        return self.type in SYMMETRIC_TYPES

    def has_many(self, side: str) -> bool:
        """Whether the objects on `side` (source, destination, peer) may be several."""
        if self.type in ("many-to-many", "symmetric-many-to-many"):
            return True
        return self.type == "one-to-many" and side == "destination"

    def clean(self):
        super().clean()
        if not self.key and self.label:
            self.key = key_from_label(self.label)
        from ..relationships import check_definition

        check_definition(self)


class RelationshipAssociation(BaseModel):
    natural_key_field_names = ("relationship", "source_id", "destination_id")

    relationship = models.ForeignKey(
        Relationship, on_delete=models.CASCADE, related_name="relationship_associations"
    )
    source_type = models.ForeignKey(ContentType, on_delete=models.CASCADE, related_name="+")
    source_id = models.UUIDField(db_index=True)
    destination_type = models.ForeignKey(ContentType, on_delete=models.CASCADE, related_name="+")
    destination_id = models.UUIDField(db_index=True)

    class Meta:
        ordering = ["relationship", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["relationship", "source_type", "source_id", "destination_type", "destination_id"],
                name="extras_relationshipassociation_unique",
            )
        ]

    def __str__(self) -> str:
        return f"{self.source_id} -> {self.destination_id} - {self.relationship_id}"

    def clean(self):
        super().clean()
        from ..relationships import check_association

        check_association(self)


class ComputedField(BaseModel):
    """A read-only value rendered from a template over each object of one type (`include=computed_fields`)."""

    is_contact_associable_model = True
    is_dynamic_group_associable_model = True

    natural_key_field_names = ("key",)

    content_type = models.ForeignKey(ContentType, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(
        max_length=100,
        unique=True,
        blank=True,
        validators=[key_validator],
        help_text="Internal field name. Please use underscores rather than dashes in this key.",
    )
    grouping = models.CharField(
        max_length=255, blank=True, help_text="Human-readable grouping that this computed field belongs to."
    )
    label = models.CharField(max_length=255, help_text="Name of the field as displayed to users")
    description = models.CharField(max_length=255, blank=True)
    output_type = models.CharField(
        max_length=50,
        choices=[("text", "Text"), ("markdown", "Markdown")],
        default="text",
        help_text="How the rendered result is to be output, by default it is as Plain Text",
    )
    template = models.TextField(max_length=500, help_text="Jinja2 template code for the field's value")
    fallback_value = models.CharField(
        max_length=500, blank=True, help_text="Value shown for the field when its template fails to render"
    )
    weight = models.PositiveSmallIntegerField(default=100)
    advanced_ui = models.BooleanField(
        default=False,
        help_text=ADVANCED_UI,
    )
    created = models.DateTimeField(auto_now_add=True, null=True)
    last_updated = models.DateTimeField(auto_now=True, null=True)

    class Meta:
        ordering = ["weight", "key"]
        constraints = [
            models.UniqueConstraint(fields=["content_type", "label"], name="extras_computedfield_label")
        ]

    def __str__(self) -> str:
        return self.label

    def clean(self):
        super().clean()
        if not self.key and self.label:
            self.key = key_from_label(self.label)
        check_templates(self, "template")


class ConfigContextSchema(SlugModel, OrganizationalModel):
    """A JSON Schema that config context data (shared or an object's local data) must satisfy."""

    name = models.CharField(max_length=255, unique=True)
    description = models.CharField(max_length=255, blank=True)
    data_schema = models.JSONField(
        help_text="A JSON Schema document that config contexts are validated against."
    )
    owner_content_type = models.ForeignKey(
        ContentType, on_delete=models.CASCADE, null=True, blank=True, related_name="+", editable=False
    )
    owner_object_id = models.UUIDField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["name"]

    def clean(self):
        super().clean()
        from ..configcontexts import check_schema

        check_schema(self)


class ConfigContext(BaseModel):
    """Data merged into the rendered context of the devices and virtual machines it is assigned to
    (by location, role, type, platform, cluster, tenant, tag, ...; an empty assignment matches all)."""

    is_contact_associable_model = True

    name = models.CharField(max_length=255, unique=True)
    owner_content_type = models.ForeignKey(
        ContentType, on_delete=models.CASCADE, null=True, blank=True, related_name="+", editable=False
    )
    owner_object_id = models.UUIDField(null=True, blank=True, editable=False)
    weight = models.PositiveSmallIntegerField(default=1000)
    description = models.CharField(max_length=255, blank=True)
    is_active = models.BooleanField(default=True)
    config_context_schema = models.ForeignKey(
        ConfigContextSchema,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="config_contexts",
        help_text="Optional schema to validate the structure of the data",
    )
    locations = models.ManyToManyField("dcim.Location", related_name="+", blank=True)
    roles = models.ManyToManyField(Role, related_name="+", blank=True)
    device_types = models.ManyToManyField("dcim.DeviceType", related_name="+", blank=True)
    device_families = models.ManyToManyField("dcim.DeviceFamily", related_name="+", blank=True)
    device_redundancy_groups = models.ManyToManyField(
        "dcim.DeviceRedundancyGroup", related_name="+", blank=True
    )
    platforms = models.ManyToManyField("dcim.Platform", related_name="+", blank=True)
    cluster_groups = models.ManyToManyField("virtualization.ClusterGroup", related_name="+", blank=True)
    clusters = models.ManyToManyField("virtualization.Cluster", related_name="+", blank=True)
    tenant_groups = models.ManyToManyField("tenancy.TenantGroup", related_name="+", blank=True)
    tenants = models.ManyToManyField("tenancy.Tenant", related_name="+", blank=True)
    tags = models.ManyToManyField(Tag, related_name="+", blank=True)
    # Applies only to members of one of these groups (when any is given).
    dynamic_groups = models.ManyToManyField("extras.DynamicGroup", related_name="+", blank=True)
    data = models.JSONField()
    created = models.DateTimeField(auto_now_add=True, null=True)
    last_updated = models.DateTimeField(auto_now=True, null=True)

    class Meta:
        ordering = ["weight", "name"]

    def clean(self):
        super().clean()
        from ..configcontexts import check_context

        check_context(self)


BUTTON_CLASSES = [
    ("default", "Default"),
    ("primary", "Primary"),
    ("success", "Success"),
    ("info", "Info"),
    ("warning", "Warning"),
    ("danger", "Danger"),
    ("link", "Link"),
]


def check_templates(obj, *fields: str) -> None:
    """Each named field must hold a template that compiles (the message says where it fails)."""
    from ..templating import TemplateFailed, check

    errors = {}
    for name in fields:
        try:
            check(getattr(obj, name))
        except TemplateFailed as exc:
            errors[name] = [str(exc)]
    if errors:
        raise ValidationError(errors)


class CustomLink(BaseModel):
    """A link to an external system shown with objects of one type; its text and URL are
    templates over the object."""

    is_contact_associable_model = True
    is_dynamic_group_associable_model = True

    content_type = models.ForeignKey(ContentType, on_delete=models.CASCADE, related_name="+")
    name = models.CharField(max_length=255, unique=True)
    text = models.CharField(
        max_length=500,
        help_text="Jinja2 template code for the link text, with the object as obj (e.g. {{ obj.platform.name }}); links whose text renders empty are not shown.",
    )
    target_url = models.CharField(
        max_length=500,
        verbose_name="URL",
        help_text="Jinja2 template code for the link URL, with the object as obj (e.g. {{ obj.platform.name }}).",
    )
    weight = models.PositiveSmallIntegerField(default=100)
    group_name = models.CharField(
        max_length=255, blank=True, help_text="Links with the same group appear as a dropdown menu"
    )
    button_class = models.CharField(
        max_length=30,
        choices=BUTTON_CLASSES,
        default="default",
        help_text="The class of a group's first link is used for the dropdown button",
    )
    new_window = models.BooleanField(help_text="Force the link to open in a new window")
    created = models.DateTimeField(auto_now_add=True, null=True)
    last_updated = models.DateTimeField(auto_now=True, null=True)

    class Meta:
        ordering = ["group_name", "weight", "name"]

    def clean(self):
        super().clean()
        check_templates(self, "text", "target_url")


class ExportTemplate(BaseModel):
    """A template that renders a list of objects of one type as a file (`?export=<name>` on the list)."""

    is_contact_associable_model = True
    is_dynamic_group_associable_model = True

    content_type = models.ForeignKey(ContentType, on_delete=models.CASCADE, related_name="+")
    owner_content_type = models.ForeignKey(
        ContentType, on_delete=models.CASCADE, null=True, blank=True, related_name="+", editable=False
    )
    owner_object_id = models.UUIDField(null=True, blank=True, editable=False)
    name = models.CharField(max_length=255)
    description = models.CharField(max_length=255, blank=True)
    template_code = models.TextField(
        help_text="The list of objects being exported is passed to the template as queryset."
    )
    mime_type = models.CharField(
        max_length=255, blank=True, verbose_name="MIME type", help_text="Defaults to text/plain"
    )
    file_extension = models.CharField(
        max_length=255, blank=True, help_text="Extension to append to the rendered filename"
    )
    created = models.DateTimeField(auto_now_add=True, null=True)
    last_updated = models.DateTimeField(auto_now=True, null=True)

    class Meta:
        ordering = ["content_type", "name"]
        constraints = [
            models.UniqueConstraint(fields=["content_type", "name"], name="extras_exporttemplate_name")
        ]

    def __str__(self) -> str:
        return f"{self.content_type.app_label}.{self.content_type.model}: {self.name}"

    def clean(self):
        super().clean()
        self.file_extension = self.file_extension.removeprefix(".")
        check_templates(self, "template_code")
