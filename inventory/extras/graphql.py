"""GraphQL fields beside the generated ones for extras: whether a secret's value is reachable
(REST: secrets/<id>/check/). No field anywhere returns a secret's value."""

from __future__ import annotations

import graphene

from queryengine.errors import NotFound
from queryengine.permissions import restricted
from queryengine.registry import resource_for
from queryengine.scalars import UUID, GenericScalar

from . import savedviews, secrets
from .models import Secret


def resolve_secret_check(root, info, id):
    found = restricted(resource_for(Secret), info.context.user).filter(pk=id).first()
    if found is None:
        raise NotFound("No Secret matches the given query.")
    return secrets.check(found, info.context.user)


def query_fields(types) -> dict:
    return {
        "secret_check": graphene.Field(
            GenericScalar, id=graphene.Argument(UUID, required=True), resolver=resolve_secret_check
        )
    }


def mutation_fields(types) -> dict:
    """A user's default saved view of a list, set or cleared (REST: saved-views/<id>/set-default/)."""
    from .models import UserSavedViewAssociation

    association = types[resource_for(UserSavedViewAssociation).type_name]
    return {
        "set_default_saved_view": graphene.Field(
            association,
            id=graphene.Argument(UUID, required=True),
            resolver=lambda root, info, id: savedviews.set_default(info.context.user, id),
        ),
        "clear_default_saved_view": graphene.Field(
            graphene.Boolean,
            id=graphene.Argument(UUID, required=True),
            resolver=lambda root, info, id: savedviews.clear_default(info.context.user, id),
        ),
    }
