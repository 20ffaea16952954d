"""Keeping the change log: the engine hands over what each write changed, and this module
stores it as `ObjectChange` rows, in bulk, inside the write's transaction. Changes made with
the ORM (the admin, jobs) are recorded while a change context is active (a request or a job
run), as the reference does: saves by the models' base class, deletions through a signal; the
engine's own writes are never recorded twice."""

from __future__ import annotations

import datetime
import logging
import os
import time
import uuid
from collections.abc import Callable
from functools import cache

import orjson
from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.db import DatabaseError, connection
from django.db.models import CharField, DateTimeField, JSONField, TextField
from django.db.models.signals import pre_delete
from django.utils import timezone
from psycopg.types.json import Jsonb

from queryengine import changes, storedshapes
from queryengine.prepared import run_deferred, run_later
from queryengine.registry import resource_for, resources

from . import webhooks
from .models import ObjectChange

# Called after each write's records are stored, inside its transaction, with (record rows,
# engine changes, {model: content type}, user): webhooks and job hooks act on them after commit.
RECORDED: list[Callable] = []


def on_recorded(listener: Callable) -> None:
    if listener not in RECORDED:
        RECORDED.append(listener)


log = logging.getLogger(__name__)
REPR_LENGTH = 200
DETAIL_LENGTH = 400


def store(records: list[changes.Change], user, context: changes.ChangeContext) -> None:
    signed_in = user if getattr(user, "is_authenticated", False) else None
    kinds = ContentType.objects.get_for_models(*{type(c.instance) for c in records})
    shared = {
        "time": timezone.now(),
        "user_id": signed_in.pk if signed_in is not None else None,
        "user_name": signed_in.get_username() if signed_in is not None else "",
        "request_id": context.request_id,
        "change_context": context.context,
        "change_context_detail": context.detail[:DETAIL_LENGTH],
    }
    shapes = api_shapes(records) if settings.CHANGELOG_OBJECT_DATA_V2 else {}
    rows = [
        {
            **shared,
            **related_object(change.instance),
            "object_data_v2": shapes.get(str(change.pk)),
            "id": record_id,
            "action": change.action,
            "changed_object_type_id": kinds[type(change.instance)].pk,
            "changed_object_id": change.pk,
            "object_repr": change.label[:REPR_LENGTH],
            "object_data": change.after if change.after is not None else change.before,
            # A create or a delete is the whole object, already in object_data.
            "differences": (
                changes.differences(before(change), change.after) if change.action == changes.UPDATE else None
            ),
        }
        for change, record_id in zip(records, record_ids(len(records)), strict=True)
    ]
    if connection.vendor == "postgresql" and len(rows) > 1:
        copy_rows(rows)
    elif connection.vendor == "postgresql":
        insert_row(rows[0])
    else:
        ObjectChange.objects.bulk_create([ObjectChange(**row) for row in rows], batch_size=500)
    for listener in RECORDED:
        listener(rows, records, kinds, signed_in)


def record_ids(count: int) -> list[uuid.UUID]:
    """Ids for new records, UUIDv7 (RFC 9562): the time in milliseconds leads, so the records of
    a write go together to the end of the id index, instead of each to a page of its own that
    the write then dirties (and logs whole after a checkpoint)."""
    leading = (time.time_ns() // 1_000_000) << 80 | 0x7 << 76 | 0b10 << 62
    random = os.urandom(10 * count)
    ids = []
    for start in range(0, 10 * count, 10):
        bits = int.from_bytes(random[start : start + 10])
        ids.append(uuid.UUID(int=leading | (bits >> 68) << 64 | bits & ((1 << 62) - 1)))
    return ids


# COPY's text format: backslash, tab, newline and carriage return are escaped; \N is null.
COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def copy_text(field):
    """How a column's values are written in COPY's text format."""
    if isinstance(field, JSONField):
        # JSON text holds no raw tab or line break (they are escaped inside strings): only its
        # backslashes need doubling.
        return lambda value: orjson.dumps(value).decode().replace("\\", "\\\\")
    if isinstance(field, DateTimeField):
        return datetime.datetime.isoformat
    if isinstance(field, CharField | TextField):
        return lambda value: str(value).translate(COPY_ESCAPES)
    return str  # ids and numbers


COPIED = [(f.attname, f.column, copy_text(f)) for f in ObjectChange._meta.concrete_fields]


def copy_rows(rows: list[dict]) -> None:
    """PostgreSQL's COPY: the rows travel as one text stream, built here with C-speed string
    operations, instead of as the quoted literals of an INSERT, which cost several times more
    for a thousand JSON documents."""
    table = ObjectChange._meta.db_table
    first = rows[0]
    # What every row of the write shares (its time, user, request) is written once, at the end.
    shared = [column for column in COPIED if all(row[column[0]] is first[column[0]] for row in rows)]
    varying = [column for column in COPIED if column not in shared]
    tail = "".join("\t" + _copy_value(first[name], text) for name, _, text in shared)
    lines = ["\t".join([_copy_value(row[name], text) for name, _, text in varying]) + tail for row in rows]
    columns = ", ".join(connection.ops.quote_name(column) for _, column, _ in varying + shared)
    run_deferred(connection)  # COPY is not a statement Django runs: records waiting go first
    with connection.cursor() as cursor, cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
        copy.write("\n".join(lines) + "\n")


INSERTED = [(f.attname, isinstance(f, JSONField)) for f in ObjectChange._meta.concrete_fields]
INSERT = "INSERT INTO {} ({}) VALUES ({})".format(
    ObjectChange._meta.db_table,
    ", ".join(f.column for f in ObjectChange._meta.concrete_fields),
    ", ".join(["%s"] * len(INSERTED)),
)


def json_text(value) -> str:
    return orjson.dumps(value).decode()


def insert_row(row: dict) -> None:
    """One write's record, its values bound by the server: the statement is planned once per
    connection rather than once per write, Django builds no INSERT, and it travels with the
    write's next statement (its read-back) instead of on a round trip of its own."""
    params = [
        Jsonb(row[name], dumps=json_text) if json and row[name] is not None else row[name]
        for name, json in INSERTED
    ]
    run_later(connection, INSERT, params, ObjectChange._meta.db_table)


@cache
def relating_fields(model) -> tuple[tuple[str, type], ...]:
    """(column, related model) of the foreign keys a model's change records relate to."""
    resource = resource_for(model)
    fields = [model._meta.get_field(name) for name in (resource.changes_relate_to if resource else ())]
    return tuple((f.attname, f.related_model) for f in fields)


def related_object(instance) -> dict:
    """The object a change relates to (an interface's module or device), from its columns. The
    content type comes from Django's cache of them, which a flush or migration clears (an id
    kept here could name a content type that no longer exists)."""
    for column, related_model in relating_fields(type(instance)):
        value = getattr(instance, column)
        if value is not None:
            kind = ContentType.objects.get_for_model(related_model).pk
            return {"related_object_type_id": kind, "related_object_id": value}
    return {"related_object_type_id": None, "related_object_id": None}


def api_shapes(records: list[changes.Change]) -> dict[str, dict]:
    """`object_data_v2` by object id: each created or updated object as the API shows it at
    depth 1 with its many-to-many lists and relative URLs, as the reference stores it: the
    shape the write read (Change.shape: its read-back, or one read beside it), else read here
    through the compiled plan of that shape once per model for the whole write. A deleted
    object keeps the shape of its last record (the state it was deleted in, unless it changed
    unrecorded)."""
    shapes = {str(c.pk): c.shape for c in records if c.shape is not None and c.action != changes.DELETE}
    by_model: dict = {}
    for change in records:
        if change.action != changes.DELETE and str(change.pk) not in shapes:
            by_model.setdefault(type(change.instance), set()).add(str(change.pk))
    for model, ids in by_model.items():
        resource = resource_for(model)
        try:
            shapes.update(storedshapes.read(resource, ids))
        except DatabaseError:
            # The write's own deferred statement failed here (a unique value taken): the write
            # fails with it, and its next attempt names the field.
            raise
        except Exception as exc:  # never fails the write: the record keeps the rest of its data
            log.warning("no API shape for %s changes: %s", resource.object_type, exc)
    deleted = [change.pk for change in records if change.action == changes.DELETE]
    if deleted:  # each object's latest record: found from the light columns, then read alone
        latest = {}
        found = ObjectChange.objects.filter(changed_object_id__in=deleted).order_by("time")
        for object_id, pk in found.values_list("changed_object_id", "pk"):
            latest[object_id] = pk
        kept = ObjectChange.objects.filter(pk__in=list(latest.values()))
        shapes.update((str(pk), data) for pk, data in kept.values_list("changed_object_id", "object_data_v2"))
    return shapes


def _copy_value(value, text) -> str:
    return "\\N" if value is None else text(value)


def before(change: changes.Change) -> dict | None:
    """The object's data before the change: an ORM save does not know it, so it is compared
    with the object's last record."""
    if change.before is not None or change.action != changes.UPDATE:
        return change.before
    kind = ContentType.objects.get_for_model(type(change.instance))
    return (
        ObjectChange.objects.filter(changed_object_type=kind, changed_object_id=change.pk)
        .order_by("-time")
        .values_list("object_data", flat=True)
        .first()
    )


def deleting(sender, instance, **kwargs) -> None:
    # Before the delete, while the object's many-to-many rows are still there to read.
    if changes.engine_writing() or changes.current_context_or_none() is None:
        return
    before = changes.snapshots(sender, [instance])[instance.pk]
    changes.record([changes.Change(changes.DELETE, instance, before, None)])


def connect() -> None:
    if not settings.CHANGELOG_ENABLED:
        return
    changes.record_changes_with(store, lambda: settings.CHANGELOG_OBJECT_DATA_V2)
    on_recorded(webhooks.enqueue)
    for resource in resources():
        if resource.writable and changes.logged(resource.model):
            uid = f"changelog.{resource.object_type}"
            pre_delete.connect(deleting, sender=resource.model, dispatch_uid=f"{uid}.deleting")


def purge(days: int | None = None, records=None) -> int:
    """Delete change records (of `records` when given: those a user may delete) older than the
    retention period; returns how many went."""
    days = settings.CHANGELOG_RETENTION_DAYS if days is None else days
    if not days:
        return 0  # 0 keeps the log forever
    cutoff = timezone.now() - datetime.timedelta(days=days)
    return (ObjectChange.objects.all() if records is None else records).filter(time__lt=cutoff).delete()[0]


class ChangeContextMiddleware:
    """Every request is one change context: one request id for everything it changes, the
    view that changed it, and its user (read when a change is recorded, after API
    authentication has named them)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        with changes.change_context("web", user=lambda: request_user(request)) as context:
            request.change_context = context
            return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        match = request.resolver_match
        if match is not None:
            request.change_context.detail = match.view_name or ""


def request_user(request):
    """The API's caller (token or session) once it has authenticated them, else Django's."""
    api = getattr(request, "context", None)
    return getattr(api, "user", None) or getattr(request, "user", None)
