"""Mutations of the one schema. Each runs inside the engine's transaction (all-or-none)."""

from __future__ import annotations

import graphene
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError

from .errors import NotFound, PermissionDenied, ValidationFailed
from .query import single_queryset
from .registry import resource_by_object_type, resource_for
from .scalars import UUID


def require_write(context, model, action: str) -> None:
    user = context.user
    if user is None or not user.is_authenticated:
        raise PermissionDenied("Authentication credentials were not provided.")
    if not getattr(context, "write_enabled", False):
        raise PermissionDenied()
    opts = model._meta
    if not (user.is_superuser or user.has_perm(f"{opts.app_label}.{action}_{opts.model_name}")):
        raise PermissionDenied()


def validated_save(instance) -> None:
    try:
        instance.full_clean()
    except ValidationError as exc:
        raise ValidationFailed(exc.message_dict) from None
    instance.save()


def build_mutation() -> type:
    from inventory.extras.models import Note

    from .schema import TYPES

    note_type = TYPES[resource_for(Note).type_name]

    class CreateNote(graphene.Mutation):
        """Attach a note to any object the caller can see."""

        class Arguments:
            assigned_object_type = graphene.String(required=True)
            assigned_object_id = UUID(required=True)
            note = graphene.String(required=True)

        Output = note_type

        @staticmethod
        def mutate(root, info, assigned_object_type, assigned_object_id, note):
            context = info.context
            require_write(context, Note, "add")
            target = resource_by_object_type(assigned_object_type)
            if target is None:
                raise ValidationFailed(
                    {"assigned_object_type": [f"Unknown object type {assigned_object_type}."]}
                )
            if not single_queryset(target, context.user, assigned_object_id).exists():
                raise NotFound(f"No {target.verbose_name} matches the given query.")
            instance = Note(
                assigned_object_type=ContentType.objects.get_for_model(target.model),
                assigned_object_id=assigned_object_id,
                user=context.user,
                user_name=context.user.get_username(),
                note=note,
            )
            validated_save(instance)
            return instance

    return type("Mutation", (graphene.ObjectType,), {"create_note": CreateNote.Field()})
