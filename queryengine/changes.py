"""What every write changed, for the application that keeps the change log.

The engine knows the objects a write created, updated or deleted, and their data before and
after; an application installs a recorder (`record_changes_with`) that stores them. A whole
write is handed over at once, so the recorder can store a thousand changes with one INSERT.
The request, job or shell a change comes from is the ambient `ChangeContext`.
"""

from __future__ import annotations

import datetime
import decimal
import uuid
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from django.db import models

from .registry import resource_for

CREATE, UPDATE, DELETE = "create", "update", "delete"


@dataclass
class ChangeContext:
    """Where changes come from: one request id is shared by everything one request changed."""

    context: str = "orm"  # web | job | orm
    detail: str = ""  # the view or job that made the change
    # The signed-in user, when the writer does not name one; a callable is asked when a change
    # is recorded (a request's user is known only once the API has authenticated it).
    user: object = None
    request_id: uuid.UUID = field(default_factory=uuid.uuid4)


@dataclass
class Change:
    action: str
    instance: models.Model
    before: dict | None  # the object's data before the change (None for a new object)
    after: dict | None  # and after it (None for a deleted one)
    # Taken when the change is seen: a deleted instance loses its primary key.
    pk: object = field(init=False)
    label: str = field(init=False)

    # The object as the change log keeps its API shape, where the write read it (storedshapes).
    shape: dict | None = field(init=False, default=None)

    def __post_init__(self):
        self.pk = self.instance.pk
        self.label = str(self.instance)


_context: ContextVar[ChangeContext | None] = ContextVar("change_context", default=None)
# Set while the engine records a write itself, so model signals do not record it twice.
_engine_writing: ContextVar[bool] = ContextVar("engine_writing", default=False)
RECORDERS: list[Callable] = []  # (changes, user, context) -> None
# Whether the recorder keeps each object's API shape (Change.shape): asked at each write.
SHAPES_WANTED: list[Callable[[], bool]] = []
# Changes recorded inside `holding`, with their user and context, waiting to be handed over.
_held: ContextVar[list | None] = ContextVar("held_changes", default=None)


def record_changes_with(recorder: Callable, shapes_wanted: Callable[[], bool] = lambda: False) -> None:
    RECORDERS[:] = [recorder]
    SHAPES_WANTED[:] = [shapes_wanted]


def recording() -> bool:
    return bool(RECORDERS)


def shapes_wanted() -> bool:
    return bool(RECORDERS) and SHAPES_WANTED[0]()


@contextmanager
def holding():
    """Inside, recorded changes wait in the list yielded until `release`: a write hands them
    over once it has read its objects back, with the shapes it read (Change.shape)."""
    token = _held.set([])
    try:
        yield _held.get()
    finally:
        _held.reset(token)


def release(held: list) -> None:
    while held:
        changes, user, context = held.pop(0)
        RECORDERS[0](changes, user, context)


@contextmanager
def change_context(context: str = "web", detail: str = "", user=None, request_id: uuid.UUID | None = None):
    """Everything changed inside shares one request id (a request, a job run)."""
    token = _context.set(ChangeContext(context, detail, user, request_id or uuid.uuid4()))
    try:
        yield _context.get()
    finally:
        _context.reset(token)


def current_context() -> ChangeContext:
    """The ambient context; a write outside any (a shell) gets its own request id."""
    return _context.get() or ChangeContext()


def current_context_or_none() -> ChangeContext | None:
    return _context.get()


def engine_writing() -> bool:
    return _engine_writing.get()


@contextmanager
def writing_through_engine():
    token = _engine_writing.set(True)
    try:
        yield
    finally:
        _engine_writing.reset(token)


def record(changes: list[Change], user=None) -> None:
    if changes and RECORDERS:
        context = current_context()
        if user is None:
            user = context.user() if callable(context.user) else context.user
        held = _held.get()
        if held is not None:
            held.append((changes, user, context))
            return
        RECORDERS[0](changes, user, context)


def saved_outside_engine(instance: models.Model, created: bool) -> None:
    """Record an ORM save made inside a change context (a request, a job) but not through the
    engine; outside any context (a shell, a migration, fixtures) nothing is recorded, as the
    reference does. Its earlier data is left for the recorder to find (its last record)."""
    if _engine_writing.get() or _context.get() is None or not RECORDERS or not logged(type(instance)):
        return
    after = snapshots(type(instance), [instance])[instance.pk]
    record([Change(CREATE if created else UPDATE, instance, None, after)])


def logged(model: type[models.Model]) -> bool:
    """Objects clients write, of UUID-keyed models, are change-logged (not Django's own models,
    nor records the service writes itself, such as job results and the log itself)."""
    resource = resource_for(model)
    return (
        resource is not None
        and resource.writable
        and resource.change_logged
        and isinstance(model._meta.pk, models.UUIDField)
    )


def snapshots(
    model: type[models.Model], instances: Iterable[models.Model], many: set | None = None, earlier=None
) -> dict:
    """{pk: data} for objects of one model: their columns as JSON values (foreign keys by id,
    custom fields under `custom_fields`), computed values such as a prefix's CIDR, and
    many-to-many ids, read with one query per many-to-many field for all of them (only the
    `many` fields when given: the others hold what the `earlier` snapshots of the same objects
    hold, and are empty without them, as for new objects)."""
    instances = list(instances)
    resource = resource_for(model)
    hidden = set(resource.hidden) if resource else set()
    computed = {
        name: spec
        for name, spec in (resource.computed.items() if resource else ())
        if not any("__" in column for column in spec.columns)
    }
    columns = [
        ("custom_fields" if f.name == "_custom_field_data" else f.name, f.attname, json_for(f))
        for f in model._meta.concrete_fields
        if f.name not in hidden
    ]
    result = {}
    for obj in instances:
        data = {name: convert(getattr(obj, attname)) for name, attname, convert in columns}
        for name, spec in computed.items():
            try:
                data[name] = json_value(spec.render(*(getattr(obj, c) for c in spec.columns)))
            except (AttributeError, TypeError, ValueError):
                data[name] = None
        result[obj.pk] = data
    if result:
        for f in model._meta.many_to_many:
            if f.name in hidden:
                continue
            source, target = f"{f.m2m_field_name()}_id", f"{f.m2m_reverse_field_name()}_id"
            for pk, data in result.items():
                data[f.name] = list((earlier or {}).get(pk, {}).get(f.name, ()))
            if many is not None and f.name not in many:
                continue
            for data in result.values():
                data[f.name] = []
            rows = f.remote_field.through._default_manager.filter(**{f"{source}__in": list(result)})
            for owner, value in rows.order_by().values_list(source, target):
                result[owner][f.name].append(json_value(value))
    return result


def json_for(field: models.Field):
    """json_value for the values of one column, chosen once: ids and times need no checks."""
    target = field.target_field if field.is_relation else field
    if isinstance(target, models.UUIDField):
        return lambda value: None if value is None else str(value)
    if isinstance(target, models.DateTimeField):
        return lambda value: None if value is None else value.isoformat()
    return json_value


def json_value(value):
    if value is None or isinstance(value, str | int | float | bool | list | dict):
        return value
    if isinstance(value, uuid.UUID | decimal.Decimal):
        return str(value)
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, bytes | memoryview):
        return bytes(value).hex()
    return str(value)


def differences(before: dict | None, after: dict | None) -> dict:
    """What a change added and removed, key by key (as the object's history shows it)."""
    before, after = before or {}, after or {}
    keys = [k for k in after.keys() | before.keys() if before.get(k, ...) != after.get(k, ...)]
    return {
        "added": {k: after[k] for k in sorted(keys) if k in after} or None,
        "removed": {k: before[k] for k in sorted(keys) if k in before} or None,
    }
