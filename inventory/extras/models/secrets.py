"""Secrets (where a credential lives, never its value) and groups of them."""

from django.core.exceptions import ValidationError
from django.db import models

from inventory.base import BaseModel, OrganizationalModel, PrimaryModel, ValueChoiceField
from inventory.slugs import SlugModel

ACCESS_TYPES = [
    ("Generic", "Generic"),
    ("Console", "Console"),
    ("gNMI", "gNMI"),
    ("HTTP(S)", "HTTP(S)"),
    ("NETCONF", "NETCONF"),
    ("REST", "REST"),
    ("RESTCONF", "RESTCONF"),
    ("SNMP", "SNMP"),
    ("SSH", "SSH"),
]
SECRET_TYPES = [
    ("authentication-key", "Authentication Key"),
    ("authentication-protocol", "Authentication Protocol"),
    ("key", "Key"),
    ("notes", "Notes"),
    ("password", "Password"),
    ("private-algorithm", "Private Algorithm"),
    ("private-key", "Private Key"),
    ("secret", "Secret"),
    ("token", "Token"),
    ("url", "URL"),
    ("username", "Username"),
]


class Secret(SlugModel, PrimaryModel):
    """Access to a secret (a device credential, an integration token): the provider that holds
    its value and the parameters that find it there."""

    name = models.CharField(max_length=255, unique=True)
    description = models.CharField(max_length=255, blank=True)
    provider = models.CharField(max_length=255)
    parameters = models.JSONField(default=dict)

    class Meta:
        ordering = ["name"]

    def clean(self):
        from inventory.extras.secrets import PROVIDERS, parameter_errors, unknown_provider

        super().clean()
        if self.provider not in PROVIDERS:
            raise ValidationError({"provider": [unknown_provider(self.provider)]})
        problems = parameter_errors(self.provider, self.parameters)
        if problems:
            raise ValidationError({"parameters": problems})


class SecretsGroup(SlugModel, OrganizationalModel):
    """Secrets used together, each for one access type and secret type (SSH username, SSH password…)."""

    name = models.CharField(max_length=255, unique=True)
    description = models.CharField(max_length=255, blank=True)
    secrets = models.ManyToManyField(
        Secret, through="extras.SecretsGroupAssociation", related_name="secrets_groups", blank=True
    )

    class Meta:
        ordering = ["name"]


class SecretsGroupAssociation(BaseModel):
    natural_key_field_names = ("secrets_group", "access_type", "secret_type", "secret")

    secrets_group = models.ForeignKey(
        SecretsGroup, on_delete=models.CASCADE, related_name="secrets_group_associations"
    )
    secret = models.ForeignKey(Secret, on_delete=models.CASCADE, related_name="secrets_group_associations")
    access_type = ValueChoiceField(max_length=32, choices=ACCESS_TYPES)
    secret_type = ValueChoiceField(max_length=32, choices=SECRET_TYPES)

    class Meta:
        ordering = ["secrets_group", "access_type", "secret_type"]
        constraints = [
            models.UniqueConstraint(
                fields=["secrets_group", "access_type", "secret_type"],
                name="extras_secretsgroupassociation_once",
                violation_error_message=(
                    "The fields secrets_group, access_type, secret_type must make a unique set."
                ),
            )
        ]

    def __str__(self) -> str:
        return f"{self.secrets_group}: {self.access_type} {self.secret_type}: {self.secret}"
