"""GraphQL fields beside the generated ones for extras: whether a secret's value is reachable
(REST: secrets/<id>/check/; no field anywhere returns a secret's value), a user's template
rendered over their own data (core/render-jinja-template/), and a user's default saved views."""

from __future__ import annotations

import graphene

from queryengine.errors import NotFound, PermissionDenied, ValidationFailed
from queryengine.permissions import restricted
from queryengine.registry import resource_for
from queryengine.scalars import UUID, GenericScalar

from . import savedviews, secrets, templating
from .models import Secret


def resolve_secret_check(root, info, id):
    found = restricted(resource_for(Secret), info.context.user).filter(pk=id).first()
    if found is None:
        raise NotFound("No Secret matches the given query.")
    return secrets.check(found, info.context.user)


def resolve_render_template(root, info, template_code, context=None):
    """A user's template rendered over the data they sent: the one template engine's sandbox,
    allow-lists and bounds (time, iterations, output), and no object but that data in reach."""
    if not getattr(info.context.user, "is_authenticated", False):
        raise PermissionDenied()
    try:
        rendered = templating.render(template_code, dict(context or {}))
    except templating.TemplateFailed as exc:
        raise ValidationFailed({"detail": f"Failed to render Jinja template: {exc}"}) from None
    return {"rendered_template": rendered, "rendered_template_lines": rendered.split("\n")}


def query_fields(types) -> dict:
    return {
        "render_jinja_template": graphene.Field(
            GenericScalar,
            template_code=graphene.String(required=True),
            context=GenericScalar(),
            resolver=resolve_render_template,
        ),
        "secret_check": graphene.Field(
            GenericScalar, id=graphene.Argument(UUID, required=True), resolver=resolve_secret_check
        ),
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
