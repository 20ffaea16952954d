import secrets
import uuid

from django.contrib.auth.models import AbstractUser
from django.core.validators import RegexValidator
from django.db import models
from django.utils import timezone

from .sealing import SealedKeyField


class User(AbstractUser):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # Accounts created through the API may have no password: they sign in with tokens only.
    password = models.CharField("password", max_length=128, blank=True)
    config_data = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["username"]

    def save(self, *args, **kwargs):
        if not self.password:
            self.set_unusable_password()
        super().save(*args, **kwargs)


def generate_key() -> str:
    return secrets.token_hex(20)


class Token(models.Model):
    """An API token (spec §5): 40 hexadecimal characters, optionally read-only or expiring."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="tokens")
    created = models.DateTimeField(auto_now_add=True)
    expires = models.DateTimeField(null=True, blank=True)
    key = SealedKeyField(
        max_length=128,  # the sealed form; the key itself is 40 hexadecimal characters
        unique=True,
        default=generate_key,
        validators=[RegexValidator(r"^[0-9a-f]{40}$", "Enter 40 lowercase hexadecimal characters.")],
    )
    write_enabled = models.BooleanField(default=True)
    description = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["created", "id"]

    def __str__(self) -> str:
        return f"{self.key[-6:]} ({self.user.username})"

    @property
    def is_expired(self) -> bool:
        return self.expires is not None and timezone.now() >= self.expires
