"""Turning request data into saved objects: field conversion, related-object resolution,
validation and the all-or-none bulk operations behind every mutation."""

from __future__ import annotations

import difflib
import uuid
from contextlib import nullcontext
from dataclasses import dataclass
from functools import cache

from django.contrib.contenttypes.models import ContentType
from django.contrib.postgres.expressions import ArraySubquery
from django.core.exceptions import ValidationError
from django.db import connections, models
from django.db.models import F, OuterRef, ProtectedError, RestrictedError
from django.db.models.deletion import Collector

from . import uploads
from .batches import Batch, batchable, constraint_key, prepare_batch
from .changes import (
    CREATE,
    DELETE,
    UPDATE,
    Change,
    json_value,
    logged,
    record,
    recording,
    snapshots,
    writing_through_engine,
)
from .errors import Conflict, NotFound, PermissionDenied, ReferenceNotFound, ValidationFailed
from .jsondepth import too_deep, too_deep_message
from .jsonsql import IdIn
from .naming import REFERENCE_KEYS, one_of, pk_named, resolve_related
from .permissions import restricted, visible_rows
from .permissions import within as narrowed
from .prepared import PreparedQuery, stored_columns
from .registry import (
    COMPUTED,
    CONTENT_TYPE,
    CONTENT_TYPES,
    FILE,
    FOREIGN_KEY,
    GENERIC,
    MANY_TO_MANY,
    REVERSE,
    SCALAR,
    Resource,
    custom_field_support,
    deletion_hooks,
    resource_by_object_type,
    resource_for,
)

NON_FIELD = "non_field_errors"


@dataclass(frozen=True)
class WritableField:
    """A field a client may write, with what OPTIONS says about it."""

    name: str
    kind: str
    model_field: models.Field | None  # None for computed fields
    required: bool
    target: type[models.Model] | None = None


@cache
def writable_fields(resource: Resource, legacy: bool = False) -> tuple[WritableField, ...]:
    """The fields clients write (`legacy`: those only API 1.x shows too, such as slugs); worked
    out once per resource, as every write asks for them."""
    found = []
    for spec in resource.fields if legacy else resource.current_fields:
        f = spec.model_field
        if spec.kind == COMPUTED and spec.computed.write is not None and spec.name not in resource.read_only:
            found.append(WritableField(spec.name, COMPUTED, None, spec.computed.required))
            continue
        if (
            spec.kind in (GENERIC, COMPUTED, REVERSE)
            or f is None
            or not f.editable
            or spec.name in resource.read_only
        ):
            continue
        if spec.kind in (FOREIGN_KEY, MANY_TO_MANY) and resource_for(spec.target) is None:
            continue
        if spec.name == resource.owner_field:
            continue
        required = spec.kind in (SCALAR, FOREIGN_KEY, CONTENT_TYPE, FILE) and not (
            f.blank or f.null or f.has_default() or spec.name == resource.owner_default
        )
        found.append(WritableField(spec.name, spec.kind, f, required, spec.target))
    return tuple(found)


@cache
def object_references(resource: Resource) -> tuple[tuple[str, str], ...]:
    """The (type field, id field) pairs through which a client names any object (a note's
    `assigned_object_type` and `assigned_object_id`): a content type `<name>_type` written
    beside `<name>_id`, or the written columns of a declared generic relation (an image's
    `content_type` and `object_id`)."""
    names = {f.name: f.kind for f in writable_fields(resource)}
    pairs = [
        (name, f"{name[: -len('_type')]}_id")
        for name, kind in names.items()
        if kind == CONTENT_TYPE and name.endswith("_type") and f"{name[: -len('_type')]}_id" in names
    ]
    for type_field, id_field, *_targets in resource.generic.values():
        if names.get(type_field) == CONTENT_TYPE and id_field in names:
            pairs.append((type_field, id_field))
    return tuple(dict.fromkeys(pairs))


def choice_error(value, choices: list[str]) -> ValueError:
    """The reference's message, with the valid values: all of a short list, the closest of a
    long one (interface types)."""
    message = f'"{value}" is not a valid choice.'
    if len(choices) <= 20:
        return ValueError(f"{message} Valid choices: {', '.join(choices)}.")
    close = difflib.get_close_matches(str(value), choices, n=3, cutoff=0.6)
    hint = f" Did you mean {' or '.join(close)}?" if close else ""
    return ValueError(f"{message}{hint} OPTIONS on this endpoint lists all {len(choices)}.")


ID_FIXED = "The id of an existing object cannot be changed."


def moved_id_errors(resource: Resource, pk, given) -> dict:
    """Why a write of one object (`pk`) whose data names another id is refused. The reference
    validates the object as saved under that id, so its unique values clash with the object
    itself ("Tenant with this Name already exists."): those errors, or, for an object whose values
    clash with nothing (the reference would copy it there), that ids do not change."""
    model = resource.model
    other = pk_named(model, given)
    if other is None:
        return {"id": ["A valid integer is required." if resource.integer_pk else "Must be a valid UUID."]}
    instance = model._default_manager.get(pk=pk)
    instance.pk = other
    shown = {f.name for f in writable_fields(resource)} | {NON_FIELD}  # not 1.x's slugs
    errors: dict = {}
    for check in (instance.validate_unique, instance.validate_constraints):
        try:
            check()
        except ValidationError as exc:
            for key, messages in exc.message_dict.items():
                key = NON_FIELD if key == "__all__" else key
                if key in shown:
                    errors.setdefault(key, []).extend(messages)
    return errors or {"id": [ID_FIXED]}


def content_type_of(value) -> ContentType:
    if isinstance(value, str) and "." in value:
        app_label, _, model = value.partition(".")
        try:
            return ContentType.objects.get_by_natural_key(app_label, model)
        except ContentType.DoesNotExist:
            pass
    raise ValueError(f"Invalid content type: {value}")


class Writer:
    """Applies request data to objects of one resource inside the caller's transaction."""

    def __init__(self, resource: Resource, user, within=None, optimistic: bool = False):
        self.resource = resource
        # Unique values may be left to the database's indexes (a bulk write's first attempt).
        self.optimistic = optimistic
        self.user = user
        self.within = within  # a Q: objects outside it cannot be changed or deleted (not found)
        self.fields = writable_fields(resource, legacy=True)
        self.custom_fields = None  # the model's custom field definitions, once needed
        self.included_state: dict = {"user": user}  # what `include=` writers keep across one write
        self.lookups = None  # related objects a batch names, fetched together (batches.RelatedLookups)
        self.many_written: set[str] = set()  # the many-to-many fields this write set

    def apply(self, instance: models.Model, data, partial: bool) -> tuple[dict, dict]:
        """Set `data` on `instance`; returns (many-to-many values to set, errors)."""
        if not isinstance(data, dict):
            return {}, {NON_FIELD: [f"Invalid data. Expected a dictionary, but got {type(data).__name__}."]}
        errors: dict[str, list[str]] = {}
        many: dict = {}
        kept = self.superuser_values(instance, data)
        for field in self.fields:
            if field.name not in data:
                if field.required and not partial:
                    errors[field.name] = ["This field is required."]
                continue
            value = data[field.name]
            if value in (None, "") and field.name in self.resource.shown_once:
                continue  # what reads show of a secret: written back, it stays (or is generated)
            try:
                if field.kind == COMPUTED:
                    next(s for s in self.resource.fields if s.name == field.name).computed.write(
                        instance, value
                    )
                elif value is None and field.kind not in (MANY_TO_MANY, CONTENT_TYPES):
                    f = field.model_field
                    if not f.null and not (f.blank and (f.choices or f.is_relation)):
                        raise ValueError("This field may not be null.")
                    # An unset choice reads as null: writing the null back unsets it. A related
                    # object that may be left out (blank) is the model's default once null.
                    setattr(instance, field.name, None if f.null or f.is_relation else "")
                elif field.kind == FOREIGN_KEY:
                    if not self.holds(instance, field, value):
                        setattr(instance, field.name, self.related(field, value))
                elif field.kind == CONTENT_TYPE:
                    setattr(instance, field.name, content_type_of(value))
                elif field.kind == MANY_TO_MANY:
                    many[field.name] = self.members(instance, field, _as_list(value))
                elif field.kind == CONTENT_TYPES:
                    many[field.name] = [content_type_of(v) for v in _as_list(value)]
                elif field.kind == FILE:
                    uploads.store(instance, field.model_field, value)
                else:
                    setattr(instance, field.name, self.scalar(field, value))
            except ValueError as exc:
                errors[field.name] = [str(exc)]
            except ValidationError as exc:
                # By item where the value says which (a list's items: {"0": [...]}).
                errors[field.name] = exc.message_dict if hasattr(exc, "error_dict") else list(exc.messages)
        if self.resource.has_custom_fields:
            self.apply_custom_fields(instance, data.get("custom_fields"), errors)
        self.check_references(instance, data, errors)
        self.refuse_superuser_changes(instance, kept, many, errors)
        return many, errors

    @staticmethod
    def held_id(field: WritableField, value):
        """The id a value names the way reads show a related object (its id, or its reference)."""
        given = (
            value["id"]
            if isinstance(value, dict) and "id" in value and value.keys() <= REFERENCE_KEYS
            else value
        )
        return pk_named(field.target, given)

    def holds(self, instance: models.Model, field: WritableField, value) -> bool:
        """Whether `value` names, by id, the related object `instance` holds already: kept as it
        is, even one the writer may not view (its reference is what reads show them), so what a
        read showed can be written back."""
        if instance._state.adding:
            return False
        pk = self.held_id(field, value)
        return pk is not None and pk == getattr(instance, field.model_field.attname)

    def members(self, instance: models.Model, field: WritableField, values: list) -> list:
        """The objects a many-to-many value names; a stored member named by id is kept even
        where the writer may not view it (as `holds`)."""
        found, stored = [], None
        for value in values:
            try:
                found.append(self.related(field, value))
            except ValueError:
                pk = self.held_id(field, value)
                if stored is None:
                    stored = {str(member) for member in self.field_value(instance, field.name)}
                if pk is None or str(pk) not in stored:
                    raise
                found.append(field.target._default_manager.get(pk=pk))
        return found

    def superuser_values(self, instance: models.Model, data: dict) -> dict:
        """The stored values (a new object's defaults) of the fields only superusers set that
        `data` names, when the writer is not one: the write may give them back unchanged."""
        if getattr(self.user, "is_superuser", False):
            return {}
        names = [name for name in self.resource.superuser_fields if name in data]
        return {name: self.field_value(instance, name) for name in names}

    def refuse_superuser_changes(self, instance: models.Model, kept: dict, many: dict, errors: dict) -> None:
        """403 naming the fields only superusers set whose written values differ from `kept` (a
        value naming what cannot be found is no stored value either)."""
        changed = [
            name
            for name, value in kept.items()
            if name in errors or self.field_value(instance, name, many) != value
        ]
        if changed:
            raise PermissionDenied(f"Only superusers may set {', '.join(changed)}.")

    @staticmethod
    def field_value(instance: models.Model, name: str, many: dict | None = None):
        """A field's value on `instance`: a many-to-many field's as a set of ids, those in `many`
        (about to be set) when given there, else the stored ones (read with the lock where it
        read them)."""
        field = instance._meta.get_field(name)
        if not field.many_to_many:
            return getattr(instance, field.attname)
        if many is not None and name in many:
            return {obj.pk for obj in many[name]}
        if instance._state.adding:
            return set()
        locked = getattr(instance, LOCKED_MANY + name, None)
        return set(locked) if locked is not None else {obj.pk for obj in getattr(instance, name).all()}

    def check_references(self, instance: models.Model, data: dict, errors: dict) -> None:
        """An object the write names by type and id (a note's, an association's) must be one the
        writer may view; any other, hidden or absent, is not found, as the object itself is."""
        for type_field, id_field in object_references(self.resource):
            written = type_field in data or id_field in data
            if not written or type_field in errors or id_field in errors:
                continue
            type_id, pk = getattr(instance, f"{type_field}_id"), getattr(instance, id_field)
            if type_id is None or pk is None:
                continue
            content_type = ContentType.objects.get_for_id(type_id)
            target = resource_by_object_type(f"{content_type.app_label}.{content_type.model}")
            if target is None:
                continue
            rows = visible_rows(target, self.user)
            if rows is not None and not rows and target.scope is None:
                continue  # the writer sees them all: an absent one is the model's own error
            if rows is None or not restricted(target, self.user).filter(pk=pk).exists():
                raise ReferenceNotFound(f"No {target.verbose_name} matches the given query.")

    def related(self, field: WritableField, value) -> models.Model:
        """The object `value` names: from the batch's lookups when it made them."""
        found = self.lookups.get(field, value) if self.lookups is not None else None
        if found is None:
            return resolve_related(field.target, self.resource, value, self.user, field.name)
        attrs, objects = found
        return one_of(objects, field.target, self.resource, field.name, attrs, self.user)

    def apply_custom_fields(self, instance: models.Model, given, errors: dict) -> None:
        """Given keys merge into the stored ones; every defined key is kept present (its default
        when unset) and unknown keys are dropped, as the reference does."""
        if given is not None and not isinstance(given, dict):
            errors["custom_fields"] = [
                f'Expected a dictionary of items but got type "{type(given).__name__}".'
            ]
            return
        support = custom_field_support()
        if support is None:
            instance._custom_field_data = {**instance._custom_field_data, **(given or {})}
            return
        if self.custom_fields is None:  # read once per write, however many objects it has
            self.custom_fields = support.definitions(self.resource.model)
        try:
            instance._custom_field_data = support.clean(
                self.custom_fields, instance._custom_field_data, given or {}
            )
        except ValidationError as exc:
            errors.setdefault("__all__", []).extend(exc.messages)

    @staticmethod
    def scalar(field: WritableField, value):
        f = field.model_field
        if f.choices:
            return Writer.choice(f, value)
        if isinstance(value, dict | list) and not isinstance(f, models.JSONField):
            raise ValueError("Not a valid value.")
        if isinstance(f, models.BooleanField) and not isinstance(value, bool):
            raise ValueError("Must be a valid boolean.")
        if isinstance(f, models.CharField | models.TextField) and not isinstance(value, str):
            raise ValueError("Not a valid string.")
        if isinstance(f, models.DecimalField) and isinstance(value, float):
            value = repr(value)  # 4.94, not the binary float's 4.9400000000000003908...
        return f.to_python(value)

    @staticmethod
    def choice(f: models.Field, value):
        """A choice by its value; the {value, label} form reads give is accepted back."""
        if isinstance(value, dict) and "value" in value:
            value = value["value"]
        if value == "" and f.blank:
            return value
        if not isinstance(value, dict | list | bool):
            for allowed, _ in f.flatchoices:
                if value == allowed or str(value) == str(allowed):
                    return allowed
        raise choice_error(value, [str(allowed) for allowed, _ in f.flatchoices])

    def validate(self, instance: models.Model, errors: dict, many: dict) -> None:
        exclude = set(errors)
        found: dict = {}
        try:
            # Unique fields are checked for the whole batch at once (check_unique), not per object.
            instance.full_clean(exclude=exclude, validate_unique=False, validate_constraints=False)
        except ValidationError as exc:
            found = exc.update_error_dict(found)
        try:
            instance.validate_constraints(exclude=exclude | found.keys())
        except ValidationError as exc:
            for key, messages in exc.message_dict.items():
                for message in messages:
                    errors.setdefault(constraint_key(key, message), []).append(message)
        try:
            if found:
                raise ValidationError(found)
            prepare_batch(type(instance), [instance])
            # Rules over many-to-many values about to be set (a model may also adjust them).
            if hasattr(instance, "clean_related") and not errors:
                instance.clean_related(many)
        except ValidationError as exc:
            # A model may state its errors in the API's own shape (nested, as the reference does).
            shaped = getattr(instance, "api_errors", None)
            if shaped:
                errors.update(shaped)
            else:
                for key, messages in exc.message_dict.items():
                    errors.setdefault(key, []).extend(messages)
        self.check_unique(instance, errors)
        if errors:
            raise ValidationFailed(errors)

    def unique_fields(self) -> list[models.Field]:
        return [f for f in self.resource.model._meta.concrete_fields if f.unique]

    def prefetch_unique(self, items: list) -> None:
        """Owners of the unique values a batch names, with one query per unique field."""
        self.known: dict[str, dict] = {}
        self.seen: dict[str, set] = {}
        manager = self.resource.model._default_manager
        for field in self.unique_fields():
            key = "id" if field.primary_key else field.name
            values = {d[key] for d in items if isinstance(d, dict) and isinstance(d.get(key), str) and d[key]}
            try:
                found = (
                    manager.filter(**{f"{field.name}__in": values}).values_list(field.name, "pk")
                    if values
                    else []
                )
                self.known[field.name] = {field.to_python(v): pk for v, pk in found}
            except (ValidationError, ValueError):
                self.known[field.name] = {}
            self.seen[field.name] = set()

    def check_unique(self, instance: models.Model, errors: dict) -> None:
        """Unique values must belong to no other object, in the database or earlier in the batch."""
        manager = self.resource.model._default_manager
        for field in self.unique_fields():
            value = getattr(instance, field.attname)
            if (
                field.name in errors
                or value is None
                or value == ""
                or field.primary_key
                and not instance._state.adding
            ):
                continue
            known, seen = self.known.setdefault(field.name, {}), self.seen.setdefault(field.name, set())
            if value in known:
                taken = known[value] != instance.pk or field.primary_key
            elif field.primary_key:
                taken = False  # a generated or supplied id no batch query found
            else:
                taken = manager.filter(**{field.name: value}).exclude(pk=instance.pk).exists()
            if taken or value in seen:
                errors[field.name] = instance.unique_error_message(type(instance), (field.name,)).messages
            seen.add(value)

    def save(self, instance: models.Model, data, partial: bool) -> models.Model:
        adding = instance._state.adding
        if adding:
            self.set_owner(instance)
        many, errors = self.apply(instance, data, partial)
        self.validate(instance, errors, many)
        instance.save()
        for name, values in many.items():
            getattr(instance, name).set(values)
        self.many_written |= many.keys()
        self.write_included(instance, data, adding)
        if many and not adding:
            instance.save(
                update_fields=["last_updated"] if self.resource.timestamps[-1:] == ["last_updated"] else None
            )
        return instance

    def set_owner(self, instance: models.Model) -> None:
        """A new object's owner is the requesting user (a given `owner_default` replaces it)."""
        for name in (self.resource.owner_field, self.resource.owner_default):
            if name and getattr(self.user, "pk", None) is not None:
                setattr(instance, name, self.user)

    def write_included(self, instance: models.Model, data: dict, adding: bool) -> None:
        """`include=` values written with the object (relationships), once it has its id."""
        errors = {}
        for name, included in self.resource.written_included.items():
            if not (adding or name in data):
                continue
            try:
                included.write(self.resource, instance, data.get(name), adding, self.included_state)
            except ValidationError as exc:
                errors[name] = exc.message_dict if hasattr(exc, "error_dict") else exc.messages
        if errors:
            raise ValidationFailed(errors)

    def batch(self):
        """The model's context around a whole write (`write_batch`): work it defers to the end
        of the batch, such as tracing the cable paths of a thousand new cables together."""
        hook = getattr(self.resource.model, "write_batch", None)
        return hook() if hook is not None else nullcontext()

    def create(self, items: list) -> list[models.Model]:
        refuse_deep(items)
        with self.batch(), writing_through_engine():
            created = self._create(items)
            self.log(CREATE, created, {}, self.many_written)
            return created

    def update(self, items: list, partial: bool) -> list[models.Model]:
        refuse_deep(items)
        with self.batch(), writing_through_engine():
            return self._update(items, partial)

    def delete(self, ids: list) -> int:
        with self.batch(), writing_through_engine():
            return self._delete(ids)

    def known_empty(self, names, instances: list, created: bool) -> set[str]:
        """Of the many-to-many fields `names`, those with no members on any of `instances`, as
        far as the write knows: those it did not set, for new objects, or for locked objects
        that had none when locked."""
        names = set(names) - self.many_written
        if created:
            return names
        return {
            name for name in names if all(getattr(obj, LOCKED_MANY + name, None) == [] for obj in instances)
        }

    def logging(self) -> bool:
        return recording() and logged(self.resource.model)

    def snapshots(self, instances, many: set | None = None, earlier: dict | None = None) -> dict:
        """The objects' data for the change log, when one is kept."""
        return snapshots(self.resource.model, instances, many, earlier) if self.logging() else {}

    def log(self, action: str, instances: list, before: dict, written: set) -> None:
        """Record the change; of the many-to-many values only those `written` are read again (the
        others are as `before`, or empty for new objects)."""
        after = self.snapshots(instances, written, before)
        if after:
            record([Change(action, obj, before.get(obj.pk), after[obj.pk]) for obj in instances], self.user)

    def _create(self, items: list) -> list[models.Model]:
        """All or none: errors come back per item, in input order (empty for good items)."""
        if batchable(self, items):
            return Batch(self).create(items)
        created, errors, failed = [], [], False
        self.prefetch_unique(items)
        for data in items:
            instance = self.resource.model()
            if isinstance(data, dict) and data.get("id") and not self.resource.integer_pk:
                try:
                    instance.pk = uuid.UUID(str(data["id"]))
                except ValueError:
                    errors.append({"id": ["Must be a valid UUID."]})
                    failed = True
                    continue
            try:
                # Validation runs before anything is written, so a failed item leaves no trace
                # and the caller's transaction still rolls back the good ones.
                created.append(self.save(instance, data, partial=False))
                errors.append({})
            except ValidationFailed as exc:
                errors.append(exc.errors)
                failed = True
        if failed:
            raise ValidationFailed(errors)
        return created

    def _update(self, items: list, partial: bool) -> list[models.Model]:
        """All or none: a missing id, an unknown id or an invalid item fails the whole batch."""
        ids, missing = [], []
        for data in items:
            if not isinstance(data, dict) or not data.get("id"):
                missing.append(data)
            else:
                ids.append(data["id"])
        if missing:
            raise ValidationFailed([{"id": ["This field is required."]} for _ in missing])
        found = self.existing(ids)
        before = locked_snapshots(self.resource.model, found.values()) if self.logging() else {}
        if batchable(self, items) and len(found) == len(items):  # each object once
            updated = Batch(self).update(items, found, partial)
        else:
            updated = self.save_each(items, found, partial)
        self.log(UPDATE, updated, before, self.many_written)
        return updated

    def save_each(self, items: list, found: dict, partial: bool) -> list[models.Model]:
        self.prefetch_unique(items)
        # The first invalid object stops the update (all or none) with its errors, as the
        # reference answers a bulk update.
        return [
            self.save(found[str(self.resource.parse_pk(str(data["id"])))], data, partial=partial)
            for data in items
        ]

    def _delete(self, ids: list) -> int:
        found = self.existing(ids)
        try:
            # One deletion for the whole set: dependencies are collected once, not per object.
            # The objects as locked and read above: not read a second time.
            delete_reporting(list(found.values()), self.user)
        except (ProtectedError, RestrictedError) as exc:
            dependents = list(
                exc.protected_objects if isinstance(exc, ProtectedError) else exc.restricted_objects
            )
            listing = ", ".join(f"{obj} ({obj.pk})" for obj in dependents)
            blocked = self.blocked(found, dependents) if len(found) > 1 else ""
            raise Conflict(
                f"Unable to delete object{blocked}. {len(dependents)} dependent objects were found: {listing}"
            ) from None
        return len(found)

    @staticmethod
    def blocked(found: dict, dependents: list) -> str:
        """Which of the requested objects the dependents hold on to, for a bulk request's error."""
        held = {
            str(value)
            for obj in dependents
            for field in obj._meta.concrete_fields
            if field.is_relation and (value := getattr(obj, field.attname)) is not None
        }
        named = [f"{instance} ({pk})" for pk, instance in found.items() if pk in held]
        return f" {', '.join(named)}" if named else ""

    def existing(self, ids: list) -> dict[str, models.Model]:
        """The objects named by `ids` (the caller's scope applies); unknown ids are an error."""
        parsed, bad = [], []
        for value in ids:
            try:
                parsed.append(self.resource.parse_pk(str(value)))
            except ValueError:
                bad.append(str(value))
        model = self.resource.model
        scoped = None
        if self.resource.scope is not None or self.within:
            scoped = model._default_manager.all()
            if self.resource.scope is not None:
                scoped = self.resource.scope(scoped, self.user)
            if self.within:
                scoped = narrowed(scoped, self.within)
        logging = self.logging()
        locking = lock_query(model, logging)
        if scoped is not None:  # this caller's scope: compiled for this request alone
            scoped = locked_rows(scoped, logging)
        rows = locking.rows([str(pk) for pk in parsed], scoped) if parsed else []
        found = {str(obj.pk): obj for obj in locked_objects(model, rows)}
        unknown = bad + [str(pk) for pk in parsed if str(pk) not in found]
        if unknown:
            raise NotFound(f"No {self.resource.verbose_name} matches the given query: {', '.join(unknown)}")
        return found


LOCKED_MANY = "_locked_many_"


def refuse_deep(items: list) -> None:
    """Every client's data passes here (REST bodies, GraphQL variables and literals, CSV), so
    JSON values nested past MAX_JSON_DEPTH are refused here, item by item."""
    errors = [{NON_FIELD: [too_deep_message()]} if too_deep(item) else {} for item in items]
    if any(errors):
        raise ValidationFailed(errors)


@cache
def lock_query(model, with_many: bool) -> PreparedQuery:
    """The rows an update or delete locks, by id: compiled once per model, since every single
    write runs it. Read in text format, which Django's converters expect."""
    return PreparedQuery(model, lambda: locked_rows(model._default_manager.all(), with_many), binary=False)


def locked_rows(queryset, with_many: bool):
    """Every column of the rows with ids in the prepared slot, locked (and, `with_many`, their
    many-to-many ids). Only the rows themselves are locked, in no order: a default ordering may
    join nullable relations, which PostgreSQL cannot lock."""
    locking = queryset.select_for_update(of=("self",)).order_by().filter(IdIn(F("pk")))
    many = []
    if with_many:
        locking = with_many_values(locking)
        many = [name for name in locking.query.annotations if name.startswith(LOCKED_MANY)]
    return locking.values_list(*stored_columns(queryset.model), *many)


def locked_objects(model, rows: list) -> list:
    """Instances built from `locked_rows`, with the many-to-many ids where they were read beside."""
    names = stored_columns(model)
    arrays = [LOCKED_MANY + field.name for field in model._meta.many_to_many]
    objects = []
    for row in rows:
        obj = model.from_db(model._default_manager.db, names, row[: len(names)])
        for name, values in zip(arrays, row[len(names) :], strict=False):  # none where not gathered
            setattr(obj, name, values)
        objects.append(obj)
    return objects


def with_many_values(queryset):
    """The rows with their many-to-many ids, read in the same statement where the database
    can gather them into an array (PostgreSQL): the change log's snapshot before an update
    costs no query of its own."""
    if connections[queryset.db].vendor != "postgresql":
        return queryset
    model = queryset.model
    arrays = {}
    for field in model._meta.many_to_many:
        source, target = f"{field.m2m_field_name()}_id", f"{field.m2m_reverse_field_name()}_id"
        members = field.remote_field.through._default_manager.filter(**{source: OuterRef("pk")})
        arrays[LOCKED_MANY + field.name] = ArraySubquery(members.order_by().values(target))
    return queryset.annotate(**arrays) if arrays else queryset


def locked_snapshots(model, instances) -> dict:
    """`snapshots` of objects, with the many-to-many ids `with_many_values` read beside them
    where it did (else read now)."""
    instances = list(instances)
    earlier = {}
    for obj in instances:
        found = {
            name[len(LOCKED_MANY) :]: [json_value(value) for value in values]
            for name, values in vars(obj).items()
            if name.startswith(LOCKED_MANY)
        }
        if not found and model._meta.many_to_many:
            return snapshots(model, instances)
        earlier[obj.pk] = found
    return snapshots(model, instances, set(), earlier)


def delete_reporting(objects: list, user=None) -> None:
    """Delete the objects of one model (cascades included), record each in the change log, and
    tell the deletion hooks which went, by model, so what refers to them by generic relation
    goes too."""
    if not objects:
        return
    using = objects[0]._state.db
    collector = Collector(using=using, origin=objects[0] if len(objects) == 1 else None)
    collector.collect(objects)
    # Stored files of deleted objects (an image's) go once the deletion commits.
    files = [
        *(
            found
            for model, instances in collector.data.items()
            for found in uploads.files_of(model, instances)
        ),
        *(found for fast in collector.fast_deletes for found in uploads.files_of(fast.model, fast)),
    ]
    hooks = deletion_hooks()
    if not hooks and not recording():
        collector.delete()
        uploads.remove_on_commit(files)
        return
    deleted: dict = {}
    changes = []
    for model, instances in collector.data.items():
        deleted.setdefault(model, []).extend(obj.pk for obj in instances)
        if recording() and logged(model):  # read before the rows go
            data = locked_snapshots(model, instances)
            changes += [Change(DELETE, obj, data[obj.pk], None) for obj in instances]
    for fast in collector.fast_deletes:  # deleted in bulk, unseen: only registered models matter
        if resource_for(fast.model) is not None:
            deleted.setdefault(fast.model, []).extend(fast.values_list("pk", flat=True))
    collector.delete()
    uploads.remove_on_commit(files)
    for hook in hooks:
        hook(deleted)
    record(changes, user)


def _as_list(value) -> list:
    if not isinstance(value, list):
        raise ValueError(f'Expected a list of items but got type "{type(value).__name__}".')
    return value
