"""GraphQL fields beside the generated ones for extras: whether a secret's value is reachable
(REST: secrets/<id>/check/; no field anywhere returns a secret's value), a user's template
rendered over their own data (core/render-jinja-template/), a user's default saved views, and the
dynamic groups an object belongs to."""

from __future__ import annotations

import graphene
from django.contrib.contenttypes.models import ContentType

from queryengine.errors import NotFound, PermissionDenied, ValidationFailed
from queryengine.permissions import restricted
from queryengine.registry import ExtensionList, resource_for
from queryengine.scalars import UUID, GenericScalar

from . import savedviews, secrets, templating
from .groups import groups_of_page, member_resource
from .models import DynamicGroup, Secret


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


def groups_holding(model, ids: list, user) -> dict[str, list[str]]:
    """{object id: ids of the groups `user` may view (every group: None) that hold it, by
    name}: one query for the groups and one for the page's memberships."""
    if member_resource(model) is None or not ids:
        return {}
    groups = DynamicGroup.objects.all() if user is None else restricted(resource_for(DynamicGroup), user)
    groups = groups.filter(content_type=ContentType.objects.get_for_model(model)).order_by("name", "pk")
    ordered = [str(pk) for pk in groups.values_list("pk", flat=True)]
    member_of = groups_of_page(model, ids, ordered)
    return {pk: [g for g in ordered if g in found] for pk, found in member_of.items()}


def resolve_dynamic_groups(root, info) -> list:
    """The groups the reader may view that hold the object, by name."""
    held = groups_holding(type(root), [root.pk], info.context.user).get(str(root.pk), [])
    found = {str(g.pk): g for g in DynamicGroup.objects.filter(pk__in=held)}
    return [found[pk] for pk in held if pk in found]


def type_fields(resource, types) -> dict:
    """`dynamic_groups` on every object groups may hold, and, always empty, on those declared
    held by static groups alone (data compliance), as the reference's types show it."""
    if member_resource(resource.model) is None and not resource.static_groups:
        return {}
    group_type = resource_for(DynamicGroup).type_name
    return {
        "dynamic_groups": ExtensionList(
            field=lambda types: graphene.List(lambda: types[group_type], resolver=resolve_dynamic_groups),
            target="extras.DynamicGroup",
            members=lambda model, ids, viewer: groups_holding(
                model, ids, None if viewer is None else viewer.user
            ),
        )
    }
