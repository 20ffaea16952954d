"""Shared model bases: every inventory object has a UUID, timestamps, custom field data and tags."""

import uuid
import zoneinfo
from collections.abc import Callable

from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import DEFAULT_DB_ALIAS, models

from queryengine.acting import guarded, write_guard
from queryengine.changes import saved_outside_engine


class ValueChoiceField(models.CharField):
    """A choice the API shows as its bare value, not {value, label}, as the reference does for a
    few (a relationship's type)."""

    shown_as_value = True


class TextDecimalField(models.DecimalField):
    """A decimal the API shows as a string ("0.95"), as the reference shows a power factor."""

    shown_as_text = True


def shown_as_text(model_field: models.DecimalField) -> models.DecimalField:
    """A decimal field the API shows as a string with its places ("10.100000"), as the
    reference shows it; the column is unchanged (no migration, unlike TextDecimalField)."""
    model_field.shown_as_text = True
    return model_field


def graphql_as_rest(model_field: models.Field) -> models.Field:
    """A field GraphQL shows as REST does, as the reference's schema shows it (a cable's
    termination types as "dcim.interface", not content type objects); no migration."""
    model_field.graphql_as_rest = True
    return model_field


def graphql_choices(model_field: models.Field, choices: Callable) -> models.Field:
    """A text field GraphQL shows as the enum of `choices()` ((value, label) pairs), as the
    reference's schema does (a location's time zone: DcimLocationTimeZoneChoices); REST and the
    column keep the text (no migration)."""
    model_field.graphql_choices = choices
    return model_field


def time_zone_choices() -> list[tuple[str, str]]:
    """Every time zone the system knows by name, sorted, as the reference's time zone fields
    offer them (not "Factory" nor "localtime", which are no place)."""
    return [(name, name) for name in sorted(zoneinfo.available_timezones() - {"Factory", "localtime"})]


class UniqueWhere(models.UniqueConstraint):
    """A unique constraint over fields, for the rows its condition matches, whose clash is told
    with the model's unique message (Django tells an unconditional one's so, a conditional one's
    with the constraint's own message)."""

    def validate(self, model, instance, exclude=None, using=DEFAULT_DB_ALIAS):
        try:
            super().validate(model, instance, exclude=exclude, using=using)
        except ValidationError:
            if self.violation_error_message != self.default_violation_error_message:
                raise
            raise instance.unique_error_message(model, self.fields) from None


def described_without_limits(model_field: models.Field) -> models.Field:
    """A field OPTIONS describes without its length or range, as the reference does for a few
    (an interface's speed and MAC address, a time zone)."""
    model_field.described_limits = False
    return model_field


class BaseModel(models.Model):
    # Whether contacts and teams are associated with its objects, and dynamic groups hold them
    # (their `contacts`, `teams` and `dynamic_groups` filters): as the reference's models.
    is_contact_associable_model = False
    is_dynamic_group_associable_model = False

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        # A save outside the engine's writes (the admin, a job) is change-logged here; the
        # engine logs its own writes, single and bulk, itself.
        adding = self._state.adding
        user = write_guard(type(self))
        if user is None:
            super().save(*args, **kwargs)
        else:  # a job's own save: held to the permissions of the user it runs for
            guarded(
                self,
                "add" if adding else "change",
                user,
                lambda: super(BaseModel, self).save(*args, **kwargs),
            )
        saved_outside_engine(self, adding)

    def delete(self, *args, **kwargs):
        user = write_guard(type(self))
        if user is None:
            return super().delete(*args, **kwargs)
        return guarded(self, "delete", user, lambda: super(BaseModel, self).delete(*args, **kwargs))

    def full_clean(self, exclude=None, validate_unique=True, validate_constraints=True):
        """Django's checks, then the rules users keep for the model's objects (data validation)
        on the fields that passed: the one object's share of what bulk writes check per batch."""
        from queryengine.batches import check_rules

        errors: dict = {}
        try:
            super().full_clean(exclude, validate_unique, validate_constraints)
        except ValidationError as exc:
            errors = exc.update_error_dict(errors)
        skipped = {name: [] for name in exclude or ()}
        found = {**skipped, **errors}
        check_rules(type(self), [self], [found])
        errors = {name: messages for name, messages in found.items() if messages}
        if errors:
            raise ValidationError(errors)

    def validated_save(self, *args, **kwargs):
        """Save after every check a write through the API makes of the object itself (its
        fields, its rules, unique values): for jobs that write through the ORM."""
        self.full_clean()
        self.save(*args, **kwargs)

    def prepare_for_bulk(self):
        """Nothing to derive: the save above only adds change logging, which bulk writes do."""

    def __str__(self) -> str:
        return str(getattr(self, "name", self.pk))


class OrganizationalModel(BaseModel):
    """An object with timestamps and custom fields but no tags (statuses, roles, tags, types)."""

    is_contact_associable_model = True
    is_dynamic_group_associable_model = True

    created = models.DateTimeField(auto_now_add=True, null=True)
    last_updated = models.DateTimeField(auto_now=True, null=True)
    _custom_field_data = models.JSONField(default=dict, blank=True)

    class Meta:
        abstract = True


class PrimaryModel(OrganizationalModel):
    """A first-class inventory object: everything above plus tags."""

    tags = models.ManyToManyField("extras.Tag", related_name="+", blank=True)

    class Meta:
        abstract = True


class TreeModel(models.Model):
    """An object in a tree through a nullable `parent`; cycles are refused on save."""

    parent = models.ForeignKey(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="children"
    )

    class Meta:
        abstract = True

    def clean(self):
        super().clean()
        node, seen = self.parent, set()
        while node is not None and node.pk not in seen:
            if node.pk == self.pk:
                raise ValidationError(
                    {"parent": [f"A {self._meta.verbose_name} cannot be its own ancestor."]}
                )
            seen.add(node.pk)
            node = node.parent

    @classmethod
    def lineages(cls, pks) -> dict:
        """{pk: the ids of the node and of every node above it} (what `lineage()` gives one
        node) for many nodes, with one query per level of the tree."""
        parents: dict = {}
        frontier = set(pks) - {None}
        while frontier:
            found = dict(
                cls._default_manager.filter(pk__in=frontier).order_by().values_list("pk", "parent_id")
            )
            parents.update(found)
            frontier = {p for p in found.values() if p is not None and p not in parents}
        result = {}
        for pk in pks:
            chain, node = set(), pk
            while node is not None and node not in chain:
                chain.add(node)
                node = parents.get(node)
            result[pk] = chain
        return result

    def ancestors(self) -> list:
        chain, node, seen = [], self.parent, {self.pk}
        while node is not None and node.pk not in seen:
            seen.add(node.pk)
            chain.append(node)
            node = node.parent
        return chain[::-1]


class ConfigContextModel(models.Model):
    """An object that receives config contexts (devices, virtual machines): its own local data,
    optionally held to a schema, is merged over the contexts assigned to it."""

    local_config_context_data = models.JSONField(null=True, blank=True)
    local_config_context_schema = models.ForeignKey(
        "extras.ConfigContextSchema",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="Optional schema to validate the structure of the data",
    )
    local_config_context_data_owner_content_type = models.ForeignKey(
        ContentType, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    local_config_context_data_owner_object_id = models.UUIDField(null=True, blank=True)

    class Meta:
        abstract = True

    def clean(self):
        super().clean()
        from inventory.extras.configcontexts import check_local_data

        check_local_data(self)
