"""Cloud accounts and the networks and services they hold, typed by cloud resource types."""

from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import models
from jsonschema import Draft7Validator
from jsonschema.exceptions import SchemaError
from jsonschema.exceptions import ValidationError as SchemaViolation

from inventory.base import BaseModel, PrimaryModel

PROVIDER_HELP = "The Manufacturer instance which represents the Cloud Provider"
# The models a cloud resource type may describe (those with `cloud_resource_type`).
RESOURCE_MODELS = ("cloud.cloudnetwork", "cloud.cloudservice")


class CloudAccount(PrimaryModel):
    name = models.CharField(max_length=255, unique=True, help_text="The name of this Cloud Account.")
    description = models.CharField(max_length=255, blank=True)
    account_number = models.CharField(
        max_length=255, help_text="The account identifier of this Cloud Account."
    )
    provider = models.ForeignKey(
        "dcim.Manufacturer", on_delete=models.PROTECT, related_name="cloud_accounts", help_text=PROVIDER_HELP
    )
    secrets_group = models.ForeignKey(
        "extras.SecretsGroup",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        default=None,
        related_name="+",
    )

    class Meta:
        ordering = ["name"]


class CloudResourceType(PrimaryModel):
    name = models.CharField(max_length=255, unique=True, help_text="Type of cloud objects")
    description = models.CharField(max_length=255, blank=True)
    provider = models.ForeignKey(
        "dcim.Manufacturer",
        on_delete=models.PROTECT,
        related_name="cloud_resource_types",
        help_text=PROVIDER_HELP,
    )
    config_schema = models.JSONField(null=True, blank=True)
    content_types = models.ManyToManyField(
        ContentType,
        related_name="cloud_resource_types",
        help_text="The content type(s) to which this model applies.",
    )

    class Meta:
        ordering = ["name"]

    def clean(self):
        super().clean()
        # Refused here rather than when an object is checked against it.
        if self.config_schema is not None:
            try:
                Draft7Validator.check_schema(self.config_schema)
            except SchemaError as exc:
                raise ValidationError({"config_schema": [f"Invalid JSON schema: {exc.message}"]}) from None

    def clean_related(self, many: dict) -> None:
        if "content_types" not in many:
            if self._state.adding:
                raise ValidationError({"content_types": ["This field is required."]})
            return
        for kind in many["content_types"]:
            label = f"{kind.app_label}.{kind.model}"
            if label not in RESOURCE_MODELS:
                raise ValidationError({"content_types": [f"Invalid content type: {label}"]})


def resource_type_field(related_name: str) -> models.ForeignKey:
    return models.ForeignKey(CloudResourceType, on_delete=models.PROTECT, related_name=related_name)


class CloudResourceTypeMixin(models.Model):
    """An object typed by a cloud resource type whose `config_schema` its `extra_config` obeys
    (both declared by each model, first: the type's reverse name is the model's own)."""

    class Meta:
        abstract = True

    def clean(self):
        super().clean()
        kind = self.cloud_resource_type if self.cloud_resource_type_id else None
        schema = kind.config_schema if kind else None
        if schema:
            try:
                Draft7Validator(schema, format_checker=Draft7Validator.FORMAT_CHECKER).validate(
                    self.extra_config
                )
            except SchemaViolation as exc:
                raise ValidationError(
                    {
                        "extra_config": [
                            f"Validation according to CloudResourceType {kind} config_schema failed.",
                            exc.message,
                        ]
                    }
                ) from None


class CloudNetwork(CloudResourceTypeMixin, PrimaryModel):
    cloud_resource_type = resource_type_field("cloud_networks")
    extra_config = models.JSONField(null=True, blank=True)
    name = models.CharField(max_length=255, unique=True)
    description = models.CharField(max_length=255, blank=True)
    cloud_account = models.ForeignKey(CloudAccount, on_delete=models.PROTECT, related_name="cloud_networks")
    # One level only: a child's parent has none (not a tree of any depth).
    parent = models.ForeignKey(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="children"
    )
    prefixes = models.ManyToManyField(
        "ipam.Prefix",
        through="cloud.CloudNetworkPrefixAssignment",
        related_name="cloud_networks",
        blank=True,
    )

    class Meta:
        ordering = ["name"]

    def clean(self):
        super().clean()
        if self.parent_id is not None:
            if self.parent.parent_id is not None:
                raise ValidationError(
                    {
                        "parent": "A CloudNetwork may not be the child of a CloudNetwork that itself has a parent."
                    }
                )
            if self.parent_id == self.pk:
                raise ValidationError({"parent": "A CloudNetwork may not be its own parent."})


class CloudNetworkPrefixAssignment(BaseModel):
    cloud_network = models.ForeignKey(
        CloudNetwork, on_delete=models.CASCADE, related_name="prefix_assignments"
    )
    prefix = models.ForeignKey(
        "ipam.Prefix", on_delete=models.CASCADE, related_name="cloud_network_assignments"
    )

    class Meta:
        ordering = ["cloud_network", "prefix"]
        constraints = [
            models.UniqueConstraint(fields=["cloud_network", "prefix"], name="cloud_network_prefix_once")
        ]

    def __str__(self) -> str:
        return f"{self.cloud_network}: {self.prefix}"


class CloudService(CloudResourceTypeMixin, PrimaryModel):
    cloud_resource_type = resource_type_field("cloud_services")
    extra_config = models.JSONField(null=True, blank=True)
    name = models.CharField(max_length=255, unique=True)
    description = models.CharField(max_length=255, blank=True)
    cloud_account = models.ForeignKey(
        CloudAccount,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        default=None,
        related_name="cloud_services",
    )
    cloud_networks = models.ManyToManyField(
        CloudNetwork,
        through="cloud.CloudServiceNetworkAssignment",
        through_fields=("cloud_service", "cloud_network"),
        related_name="cloud_services",
        blank=True,
    )

    class Meta:
        ordering = ["name"]


class CloudServiceNetworkAssignment(BaseModel):
    cloud_network = models.ForeignKey(
        CloudNetwork, on_delete=models.CASCADE, related_name="cloud_service_assignments"
    )
    cloud_service = models.ForeignKey(
        CloudService, on_delete=models.CASCADE, related_name="cloud_network_assignments"
    )

    class Meta:
        ordering = ["cloud_network", "cloud_service"]
        constraints = [
            models.UniqueConstraint(
                fields=["cloud_network", "cloud_service"], name="cloud_service_network_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.cloud_network}: {self.cloud_service}"
