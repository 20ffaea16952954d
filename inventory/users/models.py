import secrets
import uuid

from django.contrib.auth.models import AbstractUser
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models
from django.utils import timezone

from .sealing import SealedKeyField


class Group(models.Model):
    """A named set of users; object permissions granted to a group apply to its members."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(max_length=150, unique=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class User(AbstractUser):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # Groups grant object permissions (ObjectPermission.groups), not Django model permissions.
    groups = models.ManyToManyField(Group, blank=True, related_name="users")
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


class ObjectPermission(models.Model):
    """Actions (view, add, change, delete) on the objects of some types that match constraints,
    granted to users and groups (spec §5; Nautobot's model)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    created = models.DateTimeField(auto_now_add=True, null=True)
    last_updated = models.DateTimeField(auto_now=True, null=True)
    name = models.CharField(max_length=255, unique=True)
    description = models.CharField(max_length=255, blank=True)
    enabled = models.BooleanField(default=True)
    object_types = models.ManyToManyField(ContentType, related_name="object_permissions")
    groups = models.ManyToManyField(Group, blank=True, related_name="object_permissions")
    users = models.ManyToManyField(User, blank=True, related_name="object_permissions")
    actions = models.JSONField(help_text="The list of actions granted by this permission")
    constraints = models.JSONField(
        blank=True,
        null=True,
        help_text="Queryset filter matching the applicable objects of the selected type(s)",
    )

    class Meta:
        ordering = ["name"]
        verbose_name = "permission"

    def __str__(self) -> str:
        return self.name

    def list_constraints(self) -> list:
        """Every constraint set (None: all objects); several sets mean any of them."""
        if isinstance(self.constraints, list):
            return self.constraints or [None]
        return [self.constraints]

    def clean(self):
        super().clean()
        from queryengine.permissions import ACTIONS

        actions = self.actions
        if not isinstance(actions, list) or not actions:
            raise ValidationError({"actions": ["At least one action must be selected."]})
        unknown = [a for a in actions if a not in ACTIONS]
        if unknown:
            raise ValidationError(
                {"actions": [f'"{unknown[0]}" is not a valid action. Choose from: {", ".join(ACTIONS)}.']}
            )
        self.actions = list(dict.fromkeys(actions))

    def clean_related(self, many: dict) -> None:
        """Constraints must be lookups that every chosen object type can filter by."""
        from queryengine.permissions import invalid_constraint

        if "object_types" in many:
            types = many["object_types"]
        else:
            types = list(self.object_types.all()) if not self._state.adding else []
        if "object_types" in many and not types:
            raise ValidationError({"object_types": ["This list may not be empty."]})
        for kind in types:
            model = kind.model_class()
            problem = "Unknown object type." if model is None else invalid_constraint(model, self.constraints)
            if problem:
                raise ValidationError(
                    {"constraints": [f"Invalid filter for {kind.app_label}.{kind.model}: {problem}"]}
                )
