"""Webhooks: an HTTP request to another system whenever objects of chosen types change."""

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import models

from inventory.base import BaseModel

from .. import serverfiles
from ..outbound import check_payload_url
from .data import check_templates

HTTP_METHODS = [(method, method) for method in ("GET", "POST", "PUT", "PATCH", "DELETE")]


class ChangeTriggered:
    """Something called when objects of its types are created, updated or deleted (webhooks,
    job hooks), as its `type_create`, `type_update` and `type_delete` flags say."""

    def fires_on(self, action: str) -> bool:
        """Whether a change of `action` (create, update, delete) calls it."""
        return getattr(self, f"type_{action}")

    def check_events(self) -> None:
        if not (self.type_create or self.type_update or self.type_delete):
            raise ValidationError(
                {"type_create": ["You must select at least one type: create, update, and/or delete."]}
            )


class Webhook(ChangeTriggered, BaseModel):
    is_contact_associable_model = True
    is_dynamic_group_associable_model = True

    name = models.CharField(max_length=150, unique=True)
    content_types = models.ManyToManyField(ContentType, related_name="+")
    type_create = models.BooleanField(
        default=False, help_text="Call this webhook when a matching object is created."
    )
    type_update = models.BooleanField(
        default=False, help_text="Call this webhook when a matching object is updated."
    )
    type_delete = models.BooleanField(
        default=False, help_text="Call this webhook when a matching object is deleted."
    )
    payload_url = models.CharField(
        max_length=500,
        validators=[check_payload_url],
        help_text="A POST will be sent to this URL when the webhook is called.",
    )
    enabled = models.BooleanField(default=True)
    http_method = models.CharField(max_length=30, choices=HTTP_METHODS, default="POST")
    http_content_type = models.CharField(
        max_length=100,
        default="application/json",
        help_text="The media type of the request body (IANA media types).",
    )
    additional_headers = models.TextField(
        blank=True,
        help_text="Headers, one per line as Name: Value; a template over the same context as the body.",
    )
    body_template = models.TextField(
        blank=True, help_text="A template for the request body; blank sends the default JSON payload."
    )
    secret = models.CharField(
        max_length=255,
        blank=True,
        help_text="Signs the body: X-Hook-Signature is its HMAC-SHA512 hex digest.",
    )
    ssl_verification = models.BooleanField(
        default=True, help_text="Enable SSL certificate verification. Disable with caution!"
    )
    ca_file_path = models.CharField(
        max_length=4096,
        null=True,
        blank=True,
        help_text="The specific CA certificate file to use for SSL verification. Leave blank to use the system defaults.",
    )
    created = models.DateTimeField(auto_now_add=True, null=True)
    last_updated = models.DateTimeField(auto_now=True, null=True)

    class Meta:
        ordering = ["name"]

    def clean(self):
        super().clean()
        self.check_events()
        if not self.ssl_verification and self.ca_file_path:
            raise ValidationError(
                {"ca_file_path": ["Do not specify a CA certificate file if SSL verification is disabled."]}
            )
        if self.ca_file_path:
            problem = serverfiles.path_error(
                self.ca_file_path, settings.WEBHOOK_CA_FILE_DIRECTORIES, "WEBHOOK_CA_FILE_DIRECTORIES"
            )
            if problem:
                raise ValidationError({"ca_file_path": [problem]})
        check_templates(self, "additional_headers", "body_template")
        for line in filter(None, (line.strip() for line in self.additional_headers.splitlines())):
            if ":" not in line and "{" not in line:
                raise ValidationError(
                    {"additional_headers": [f'Headers are "Name: Value" lines, not "{line}".']}
                )
