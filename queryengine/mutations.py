"""Mutations of the one schema, generated from the registry: create, update and delete for
every model, each taking a list (one item for single-object writes) and all-or-none."""

from __future__ import annotations

import graphene
from django.db.models import Q

from .errors import NotFound, PermissionDenied, ValidationFailed
from .permissions import allowed_rows, within
from .registry import MUTATION_EXTENSIONS, Resource, resources
from .scalars import UUID, GenericScalar
from .writes import Writer, moved_id_errors, pk_named

ACTIONS = {"create": "add", "update": "change", "delete": "delete"}
NO_CREDENTIALS = "Authentication credentials were not provided."


def require_write(context, resource: Resource, action: str) -> Q:
    """403 unless the caller may `action` some objects of the resource; the condition the
    objects must meet before and after the write (an empty Q: any object)."""
    user = context.user
    if user is None or not user.is_authenticated:
        raise PermissionDenied(NO_CREDENTIALS)
    if not getattr(context, "write_enabled", False):
        raise PermissionDenied()
    rows = allowed_rows(resource, user, ACTIONS[action])
    if rows is None:
        raise PermissionDenied()
    return rows


def perform(kind: str, resource: Resource, context, arguments: dict):
    """Run one mutation: the created or updated objects in input order, or the deleted count.

    Objects changed or deleted must meet the caller's constraints beforehand (others are not
    found), and objects created or changed must meet them afterwards, inside the write's
    transaction: nobody moves an object out of what they may manage."""
    return perform_with_writer(kind, resource, context, arguments)[0]


def perform_with_writer(kind: str, resource: Resource, context, arguments: dict) -> tuple:
    """`perform`'s result and the writer that wrote it (it knows which values the write set)."""
    rows = require_write(context, resource, kind)
    writer = Writer(resource, context.user, within=rows, optimistic=getattr(context, "first_attempt", False))
    if kind == "delete":
        return writer.delete(arguments["ids"]), writer
    items = arguments["data"]
    if not isinstance(items, list):
        raise ValidationFailed(
            {"non_field_errors": [f'Expected a list of items but got type "{type(items).__name__}".']}
        )
    written = (
        writer.create(items) if kind == "create" else writer.update(items, arguments.get("partial", True))
    )
    if rows:
        ids = {obj.pk for obj in written}
        if within(resource.model._default_manager.filter(pk__in=ids), rows).count() != len(ids):
            raise PermissionDenied()
    return written, writer


def check_same_id(context, resource: Resource, pk, given) -> None:
    """A write of one object by its path must not name another id in its data: refused (400) with
    the reference's errors, once the caller is known to be allowed to change the object."""
    if pk_named(resource.model, given) == pk:
        return
    rows = require_write(context, resource, "update")
    if rows and not within(resource.model._default_manager.filter(pk=pk), rows).exists():
        raise NotFound(f"No {resource.verbose_name} matches the given query.")
    raise ValidationFailed(moved_id_errors(resource, pk, given))


def mutation_fields() -> dict[str, tuple[str, Resource]]:
    """Mutation field name -> (kind, resource), for the schema and the compiler alike."""
    return {
        f"{kind}_{r.list_field}": (kind, r)
        for r in resources()
        if r.writable
        for kind in ACTIONS
        if kind != "create" or r.creatable
    }


def _answer(kind: str, result):
    """A mutation's result; created objects are marked so that their answer alone shows their
    shown-once secrets (a token's key)."""
    if kind == "create":
        from .schema import JUST_CREATED

        for obj in result:
            setattr(obj, JUST_CREATED, True)
    return result


def build_mutation() -> type:
    from .schema import TYPES

    fields = {}
    for name, (kind, resource) in mutation_fields().items():
        object_type = TYPES[resource.type_name]
        if kind == "delete":
            key = graphene.Int if resource.integer_pk else UUID
            output, arguments = graphene.Int, {"ids": graphene.List(graphene.NonNull(key), required=True)}
        else:
            output = graphene.List(object_type)
            arguments = {"data": graphene.List(GenericScalar, required=True)}
            if kind == "update":
                arguments["partial"] = graphene.Boolean(default_value=True)
        fields[name] = graphene.Field(
            output,
            args=arguments,
            resolver=lambda root, info, _k=kind, _r=resource, **args: _answer(
                _k, perform(_k, _r, info.context, args)
            ),
        )
    for extension in MUTATION_EXTENSIONS:
        fields.update(extension(TYPES))
    return type("Mutation", (graphene.ObjectType,), fields)
