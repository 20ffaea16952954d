"""Mutations of the one schema, generated from the registry: create, update and delete for
every model, each taking a list (one item for single-object writes) and all-or-none."""

from __future__ import annotations

import graphene
from graphene.types.generic import GenericScalar

from .errors import PermissionDenied, ValidationFailed
from .registry import MUTATION_EXTENSIONS, Resource, resources
from .scalars import UUID
from .writes import Writer

ACTIONS = {"create": "add", "update": "change", "delete": "delete"}
NO_CREDENTIALS = "Authentication credentials were not provided."


def require_write(context, resource: Resource, action: str) -> None:
    user = context.user
    if user is None or not user.is_authenticated:
        raise PermissionDenied(NO_CREDENTIALS)
    if not getattr(context, "write_enabled", False):
        raise PermissionDenied()
    if resource.owner_field and resource.scope is not None:
        return  # objects a user owns (their tokens) are theirs to manage
    codename = f"{resource.app_label}.{ACTIONS[action]}_{resource.model_name}"
    if not (user.is_superuser or user.has_perm(codename)):
        raise PermissionDenied()


def perform(kind: str, resource: Resource, context, arguments: dict):
    """Run one mutation: the created or updated objects in input order, or the deleted count."""
    require_write(context, resource, kind)
    writer = Writer(resource, context.user)
    if kind == "delete":
        return writer.delete(arguments["ids"])
    items = arguments["data"]
    if not isinstance(items, list):
        raise ValidationFailed(
            {"non_field_errors": [f'Expected a list of items but got type "{type(items).__name__}".']}
        )
    if kind == "create":
        return writer.create(items)
    return writer.update(items, partial=arguments.get("partial", True))


def mutation_fields() -> dict[str, tuple[str, Resource]]:
    """Mutation field name -> (kind, resource), for the schema and the compiler alike."""
    return {f"{kind}_{r.list_field}": (kind, r) for r in resources() if r.writable for kind in ACTIONS}


def build_mutation() -> type:
    from .schema import TYPES

    fields = {}
    for name, (kind, resource) in mutation_fields().items():
        object_type = TYPES[resource.type_name]
        if kind == "delete":
            output, arguments = graphene.Int, {"ids": graphene.List(graphene.NonNull(UUID), required=True)}
        else:
            output = graphene.List(object_type)
            arguments = {"data": graphene.List(GenericScalar, required=True)}
            if kind == "update":
                arguments["partial"] = graphene.Boolean(default_value=True)
        fields[name] = graphene.Field(
            output,
            args=arguments,
            resolver=lambda root, info, _k=kind, _r=resource, **args: perform(_k, _r, info.context, args),
        )
    for extension in MUTATION_EXTENSIONS:
        fields.update(extension(TYPES))
    return type("Mutation", (graphene.ObjectType,), fields)
