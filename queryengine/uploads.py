"""Files written through the API: the values of a model's FileField (kind FILE).

A file is written only as an uploaded file (REST parses multipart/form-data bodies into them); a
string, whatever it names, is refused, so no client can point an object at a file it did not
upload (the URL a read shows of the object's own file, written back, keeps that file). The model
field checks the upload (`accept_upload(upload) -> (extension, {field: value})`: an image's
format, size in bytes and in pixels) and it is stored under a new name, a random id and that
extension below the field's `upload_to`, never a name the client chose: no path to traverse, no
file to overwrite.

Files and the database agree: a write that rolls back removes the files it stored
(`kept_if_committed` around each attempt of a mutation), and files an update replaces or a
deletion leaves behind are removed once the write commits (`remove_on_commit`). A file is shown
as the URL it is served at (MEDIA_URL beside the API), where rest/media.py hands it out to those
who may see it.
"""

from __future__ import annotations

import uuid
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from urllib.parse import quote, urlsplit

from django.conf import settings
from django.core.files.base import File
from django.db import models, transaction

NOT_A_FILE = "The submitted data was not a file. Check the encoding type on the form."


class Stored:
    """The files stored by one attempt of a write, removed if it fails."""

    def __init__(self):
        self.files: list[tuple[object, str]] = []

    def remove(self) -> None:
        for storage, name in self.files:
            storage.delete(name)
        self.files.clear()


_stored: ContextVar[Stored | None] = ContextVar("stored_files", default=None)


@contextmanager
def kept_if_committed():
    """Files stored inside the block (one attempt of a mutation) are removed if it raises or calls
    `remove()` (its transaction rolls back); kept otherwise, and handed to an enclosing block,
    whose failure removes them too."""
    stored, outer = Stored(), _stored.get()
    token = _stored.set(stored)
    try:
        yield stored
    except BaseException:
        stored.remove()
        raise
    finally:
        _stored.reset(token)
    if outer is not None:
        outer.files += stored.files


def url(base: str, value) -> str | None:
    """The absolute URL a stored file is served at, beside the API's base URL (`http://host/api/`
    -> `http://host/media/<name>`); None when there is no file."""
    name = getattr(value, "name", value)
    if not name:
        return None
    root = base.removesuffix("api/")
    return f"{root}{settings.MEDIA_URL.lstrip('/')}{quote(name)}"


def shown(instance: models.Model, model_field: models.FileField, value) -> bool:
    """Whether `value` is the URL reads show of the object's own stored file."""
    current = getattr(instance, model_field.attname)
    return (
        bool(current)
        and isinstance(value, str)
        and urlsplit(value).path == urlsplit(url("/api/", current)).path
    )


def store(instance: models.Model, model_field: models.FileField, value) -> None:
    """Set an uploaded file as the field's value: checked, stored under a new name, its derived
    values (an image's size) set beside it. ValueError (the client's message) when refused."""
    if not isinstance(value, File) and shown(instance, model_field, value):
        return  # what reads show of the stored file, written back (a PUT of a read): kept
    if not isinstance(value, File):
        raise ValueError(NOT_A_FILE)
    accept = getattr(model_field, "accept_upload", None)
    extension, derived = accept(value) if accept is not None else ("", {})
    name = model_field.generate_filename(instance, uuid.uuid4().hex + (f".{extension}" if extension else ""))
    value.seek(0)
    stored = model_field.storage.save(name, value, max_length=model_field.max_length)
    attempt = _stored.get()
    if attempt is not None:
        attempt.files.append((model_field.storage, stored))
    previous = getattr(instance, model_field.attname)
    if previous and not instance._state.adding:
        remove_on_commit([(model_field.storage, previous.name)])
    setattr(instance, model_field.attname, stored)
    for attname, derived_value in derived.items():
        setattr(instance, attname, derived_value)


@cache
def file_fields(model: type[models.Model]) -> tuple[models.FileField, ...]:
    return tuple(f for f in model._meta.concrete_fields if isinstance(f, models.FileField))


def files_of(model: type[models.Model], objects) -> list[tuple[object, str]]:
    """(storage, name) of the files of objects about to be deleted: instances, or a queryset
    (its rows read now, before they go)."""
    fields = file_fields(model)
    if not fields:
        return []
    if isinstance(objects, models.QuerySet):
        rows = objects.order_by().values_list(*(f.attname for f in fields))
    else:
        rows = [[getattr(obj, f.attname) for f in fields] for obj in objects]
    found = [
        (f.storage, getattr(value, "name", value))
        for row in rows
        for f, value in zip(fields, row, strict=True)
    ]
    return [(storage, name) for storage, name in found if name]


def discard_files(model: type[models.Model], deleted) -> None:
    """The files of deleted instances are removed once the deletion commits."""
    remove_on_commit(files_of(model, deleted))


def remove_on_commit(files: list[tuple[object, str]]) -> None:
    """Remove files once the current transaction commits (at once outside one)."""
    if not files:
        return

    def remove():
        for storage, name in files:
            storage.delete(name)

    transaction.on_commit(remove)
