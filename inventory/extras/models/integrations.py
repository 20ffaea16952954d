"""External integrations: another system this inventory talks to (a controller's API, a file
server), with the credentials and HTTP settings to reach it."""

import re

from django.core.validators import MinValueValidator, URLValidator
from django.db import models
from django.utils.regex_helper import _lazy_re_compile

from inventory.base import PrimaryModel

from .webhooks import HTTP_METHODS

# The schemes the reference accepts in its URL fields by default (ALLOWED_URL_SCHEMES).
URL_SCHEMES = (
    "file",
    "ftp",
    "ftps",
    "http",
    "https",
    "irc",
    "mailto",
    "sftp",
    "ssh",
    "tel",
    "telnet",
    "tftp",
    "vnc",
    "xmpp",
)


class LaxURLValidator(URLValidator):
    """A URL whose host may also be a bare name without a domain (`https://controller:8443/`),
    as integrations inside a network are often reached."""

    regex = _lazy_re_compile(
        r"^(?:[a-z0-9.\-+]*)://"
        r"(?:\S+(?::\S*)?@)?"
        r"(?:"
        + "|".join(
            (
                URLValidator.ipv4_re,
                URLValidator.ipv6_re,
                URLValidator.hostname_re + URLValidator.domain_re + URLValidator.tld_re,
                URLValidator.hostname_re,
            )
        )
        + r")"
        r"(?::\d{1,5})?"
        r"(?:[/?#][^\s]*)?"
        r"\Z",
        re.IGNORECASE,
    )
    schemes = list(URL_SCHEMES)


class LaxURLField(models.URLField):
    default_validators = [LaxURLValidator()]


class ExternalIntegration(PrimaryModel):
    name = models.CharField(max_length=255, unique=True)
    remote_url = LaxURLField(max_length=500, verbose_name="Remote URL")
    secrets_group = models.ForeignKey(
        "extras.SecretsGroup",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="external_integrations",
        help_text="Credentials used for authenticating with the remote system",
    )
    verify_ssl = models.BooleanField(
        default=True,
        verbose_name="Verify SSL",
        help_text="Verify SSL certificates when connecting to the remote system",
    )
    timeout = models.IntegerField(
        default=30, validators=[MinValueValidator(0)], help_text="Number of seconds to wait for a response"
    )
    extra_config = models.JSONField(
        null=True, blank=True, help_text="Optional user-defined JSON data for this integration"
    )
    http_method = models.CharField(
        max_length=10, choices=HTTP_METHODS, blank=True, verbose_name="HTTP method"
    )
    headers = models.JSONField(null=True, blank=True, help_text="Headers for the HTTP request")
    ca_file_path = models.CharField(max_length=255, blank=True, verbose_name="CA file path")

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name} ({self.remote_url})"
