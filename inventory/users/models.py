import re
import secrets
import uuid
from itertools import pairwise

from django.contrib.auth.models import AbstractUser, Group
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models
from django.utils import timezone

from .sealing import SealedKeyField


class User(AbstractUser):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # Django's groups, integer-keyed as the reference's; they grant object permissions
    # (ObjectPermission.groups), not Django model permissions.
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


KEY_FORMAT = re.compile(r"^[0-9a-f]{40}$")
# Refused for any chosen key, and for a key that is already taken: the same answer both ways, so it
# never tells whether some user holds a key.
UNUSABLE_KEY = (
    "Choose another key: 40 lowercase hexadecimal characters as random as a generated one "
    "(or leave the key out to have one generated)."
)
# What 40 random hexadecimal characters show all but never (about one chance in 10^8 together):
# how many different digits, different pairs of neighbours, and the longest run of characters each
# a fixed step from the one before (0000…, 0123…, fedc…, 0246…).
KEY_DISTINCT_DIGITS = 8
KEY_DISTINCT_PAIRS = 21  # a pattern repeated (period of 20 or less) has no more than 20
KEY_LONGEST_RUN = 9

_NIBBLES = bytes.maketrans(b"0123456789abcdef", bytes(range(16)))
# KEY_LONGEST_RUN equal steps in a row: a run one character longer than allowed.
_LONG_RUN = re.compile(rb"(.)\1{%d}" % (KEY_LONGEST_RUN - 1), re.DOTALL)


def key_is_strong(key: str) -> bool:
    """Whether a key of 40 hexadecimal characters is as hard to guess as a generated one: few
    digits, a repeated short pattern or a long run give it away."""
    if len(set(key)) < KEY_DISTINCT_DIGITS or len(set(pairwise(key))) < KEY_DISTINCT_PAIRS:
        return False
    digits = key.encode().translate(_NIBBLES)
    steps = bytes([(b - a) & 15 for a, b in pairwise(digits)])
    return _LONG_RUN.search(steps) is None


def generate_key() -> str:
    while True:  # a random key that happens to look weak (about one in 10^8) is drawn again
        key = secrets.token_hex(20)
        if key_is_strong(key):
            return key


class Token(models.Model):
    """An API token (spec §5): 40 hexadecimal characters, optionally read-only or expiring."""

    natural_key_field_names = ("pk",)  # never the key: a secret

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="tokens")
    created = models.DateTimeField(auto_now_add=True)
    expires = models.DateTimeField(null=True, blank=True)
    key = SealedKeyField(
        max_length=128,  # the sealed form; the key itself is 40 hexadecimal characters
        unique=True,
        default=generate_key,
        validators=[RegexValidator(KEY_FORMAT.pattern, "Enter 40 lowercase hexadecimal characters.")],
    )
    write_enabled = models.BooleanField(
        default=True, help_text="Permit create/update/delete operations using this key"
    )
    description = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["created", "id"]

    def __str__(self) -> str:
        return f"{self.key[-6:]} ({self.user.username})"

    @property
    def is_expired(self) -> bool:
        return self.expires is not None and timezone.now() >= self.expires

    def clean(self):
        super().clean()
        if not isinstance(self.key, str) or not KEY_FORMAT.match(self.key) or key_is_strong(self.key):
            return  # the field's own check names a malformed key
        if not self._state.adding:
            stored = getattr(self, "stored_values", None)  # a bulk update read them already
            kept = (
                stored["key"]
                if stored is not None
                else Token.objects.filter(pk=self.pk).values_list("key", flat=True).first()
            )
            if kept == self.key:
                return  # a key from before keys were checked stays usable
        raise ValidationError({"key": [UNUSABLE_KEY]})

    def unique_error_message(self, model_class, unique_check):
        if tuple(unique_check) == ("key",):
            return ValidationError(UNUSABLE_KEY, code="unique")
        return super().unique_error_message(model_class, unique_check)


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

    ACTION_LENGTH = 30

    def clean(self):
        """Actions are names: the built-in ones (view, add, change, delete, run) and any other an
        application checks for itself (`my_custom_action`), as the reference takes them."""
        super().clean()
        actions = self.actions
        if not isinstance(actions, list) or not actions:
            raise ValidationError({"actions": ["At least one action must be selected."]})
        for index, action in enumerate(actions):
            if not isinstance(action, str) or not action.strip():
                raise ValidationError({"actions": [f"Item {index + 1} in the array is not an action name."]})
            if len(action) > self.ACTION_LENGTH:
                raise ValidationError(
                    {
                        "actions": [
                            f"Item {index + 1} in the array did not validate: Ensure this value has at most "
                            f"{self.ACTION_LENGTH} characters (it has {len(action)})."
                        ]
                    }
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
