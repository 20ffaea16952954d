"""Work done for a user outside a request (a job run): it reads and writes what they may.

`readable` and `may_view` are the reads the API would make for the user. `write_as` is the
API's own write: permissions checked before and after, all or none, change-logged. Inside
`acting_as(user)`, a save or delete the work makes through the ORM of an object clients write is
held to the same permissions (`write_guard`, `guarded`), so code that saves objects itself
cannot change what the user could not change through the API.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager
from contextvars import ContextVar

from django.db import transaction
from django.db.models import Q

from .changes import engine_writing
from .errors import PermissionDenied
from .permissions import allowed_rows, restricted, visible_rows, within
from .registry import Resource, resource_for

_actor: ContextVar = ContextVar("acting_user", default=None)
WRITE_KINDS = ("create", "update", "delete")


@contextmanager
def acting_as(user):
    token = _actor.set(user)
    try:
        yield
    finally:
        _actor.reset(token)


def readable(model, user):
    """The objects of `model` that `user` may view; every object of a model the API does not
    serve (no permission names it)."""
    resource = resource_for(model)
    return model._default_manager.all() if resource is None else restricted(resource, user)


def may_view(obj, user) -> bool:
    """Whether `user` may view `obj`; no query when they may view every object of its type."""
    resource = resource_for(type(obj))
    if resource is None:
        return True
    rows = visible_rows(resource, user)
    if rows is None:
        return False
    if not rows and resource.scope is None:
        return True
    return restricted(resource, user).filter(pk=obj.pk).exists()


def write_as(user, kind: str, model, arguments: dict):
    """A write of the API (`kind`: create, update or delete; `arguments` as its mutation's:
    `data` items, or `ids`) made for `user`, in a transaction of its own: PermissionDenied,
    NotFound or ValidationFailed when the API would refuse it, and then nothing is written."""
    from .mutations import perform
    from .schema import RequestContext

    resource = resource_for(model)
    if kind not in WRITE_KINDS or resource is None or not resource.writable:
        raise ValueError(f"{model.__name__} objects cannot be written through the API ({kind})")
    if kind == "create" and not resource.creatable:
        raise ValueError(f"{model.__name__} objects cannot be created through the API")
    context = RequestContext(user=user, base_url="/api/", write_enabled=True)
    with transaction.atomic():
        return perform(kind, resource, context, arguments)


def write_guard(model) -> object | None:
    """The user a save or delete of a `model` object must be allowed to, or None: outside
    `acting_as`, inside the engine's own writes (it checks them) and for objects no client writes."""
    user = _actor.get()
    if user is None or engine_writing():
        return None
    resource = resource_for(model)
    return user if resource is not None and resource.writable else None


def guarded(instance, action: str, user, write: Callable):
    """Run `write` (the model's own save or delete of `instance`; `action` add, change or
    delete) as the API would for `user`: the stored object must be one they may change or
    delete, and the saved one one they may add or change. It runs in a savepoint, so a refused
    save leaves nothing. What the write does in consequence (the model's saves of other objects)
    is not checked again, as the API does not check it either."""
    resource = resource_for(type(instance))
    rows = allowed_rows(resource, user, action)
    if rows is None:
        raise refused(resource, action)
    with transaction.atomic():
        if action != "add" and not _holds(resource, user, rows, instance.pk):
            raise refused(resource, action)
        token = _actor.set(None)
        try:
            result = write()
        finally:
            _actor.reset(token)
        if action != "delete" and not _holds(resource, user, rows, instance.pk):
            raise refused(resource, action)
    return result


def _holds(resource: Resource, user, rows: Q, pk) -> bool:
    if not rows and resource.scope is None:
        return True
    queryset = resource.model._default_manager.filter(pk=pk)
    if resource.scope is not None:
        queryset = resource.scope(queryset, user)
    return within(queryset, rows).exists()


def refused(resource: Resource, action: str) -> PermissionDenied:
    return PermissionDenied(f"This user may not {action} this {resource.model._meta.verbose_name}.")
