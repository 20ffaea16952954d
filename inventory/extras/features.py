"""Content type filters: which model features a type has (`feature=`), whether the reader holds
a permission on it (`can_view`, `can_add`, `can_change`, `can_delete`) and whether REST serves
it (`has_serializer`).

A feature is a fact the registry already holds about a model, never a list kept by hand: what
reads the model's declaration (custom fields, notes), what the applications that give the
feature decide (dynamic groups, relationships, contacts, approval workflows, data validation),
or the fields the model has (a status, a role, a location, a cable). docs/api.md lists them."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.contenttypes.models import ContentType
from django.db.models import Q

from queryengine.filters import parse_bool
from queryengine.permissions import allowed_rows, visible_rows
from queryengine.registry import CustomFilter, Resource, resource_by_object_type, resources


def _points_at(*names: str, target: str) -> Callable[[Resource], bool]:
    """Models with a field of one of these names relating to the `target` model."""

    def has(resource: Resource) -> bool:
        return any(
            spec.name in names and spec.target is not None and spec.target._meta.label == target
            for spec in resource.fields
        )

    return has


def _owners(route: str) -> Callable[[Resource], bool]:
    """Models owning the objects of a route (Git repositories: config contexts, ...)."""

    def owns(resource: Resource) -> bool:
        owner = next((r for r in resources() if r.route == route), None)
        targets = owner.generic.get("owner", ((), (), ()))[2] if owner else ()
        return resource.object_type in targets

    return owns


def _dynamic_groups(resource: Resource) -> bool:
    from .groups import member_resource

    return member_resource(resource.model) is not None


def _relationships(resource: Resource) -> bool:
    from .relationships import applicable

    return applicable(resource)


def _approval_workflows(resource: Resource) -> bool:
    from inventory.jobs.approvals import APPROVABLE

    return resource.object_type in APPROVABLE


def _custom_validators(resource: Resource) -> bool:
    from inventory.data_validation.models import target_types

    return resource.object_type in target_types()


FEATURES: dict[str, Callable[[Resource], bool]] = {
    "approval_workflows": _approval_workflows,
    "cable_terminations": _points_at("cable", target="dcim.Cable"),
    "config_context_owners": _owners("extras/config-contexts"),
    "contacts": lambda r: getattr(r.model, "is_contact_associable_model", False),
    "custom_fields": lambda r: r.has_custom_fields,
    "custom_links": lambda r: r.has_custom_fields,
    "custom_validators": _custom_validators,
    "dynamic_groups": _dynamic_groups,
    "export_template_owners": _owners("extras/export-templates"),
    "export_templates": lambda r: r.routed,
    "graphql": lambda r: True,
    "graphql_query_owners": _owners("extras/graphql-queries"),
    "locations": _points_at("location", "locations", target="dcim.Location"),
    "metadata": lambda r: r.routed and not r.integer_pk and r.versions is None,
    "notes": lambda r: r.has_notes,
    "relationships": _relationships,
    "roles": _points_at("role", target="extras.Role"),
    "statuses": _points_at("status", target="extras.Status"),
    "webhooks": lambda r: r.writable and r.change_logged,
}


def _type_ids(chosen: Callable[[Resource], bool]) -> list[int]:
    """The content type ids of the registered models `chosen` selects."""
    return [
        ContentType.objects.get_for_model(r.model).pk for r in resources() if r.versions is None and chosen(r)
    ]


def parse_feature(value: str) -> str:
    if value not in FEATURES:
        raise ValueError(
            f"Select a valid choice. {value} is not one of the available choices: {', '.join(FEATURES)}."
        )
    return value


def _resource_of(kind: ContentType) -> Resource | None:
    return resource_by_object_type(f"{kind.app_label}.{kind.model}")


def _may(user, action: str, kind: ContentType) -> bool:
    """Whether `user` (None: no one reads) holds `action` on some objects of the type."""
    if user is None:
        return False
    resource = _resource_of(kind)
    if resource is None:  # a model without an API (sessions, permissions): Django's permission
        return user.is_active and user.has_perm(f"{kind.app_label}.{action}_{kind.model}")
    rows = visible_rows(resource, user) if action == "view" else allowed_rows(resource, user, action)
    return rows is not None


def _either(ids: list[int], wanted: bool) -> Q:
    return Q(pk__in=ids) if wanted else ~Q(pk__in=ids)


def permission_filter(action: str) -> CustomFilter:
    """`can_<action>=true`: the types whose objects the reader may `action` (some of them, by
    an object permission); false: the others."""

    def granted(user) -> list[int]:
        return [kind.pk for kind in ContentType.objects.all() if _may(user, action, kind)]

    return CustomFilter(
        build=lambda values, user: _either(granted(user), values[-1]),
        parse=parse_bool,
        oracle=lambda kind, values, user: _may(user, action, kind) == values[-1],
        samples=("true", "false"),
        reader=True,
        boolean=True,
    )


def _served(kind: ContentType) -> bool:
    resource = _resource_of(kind)
    return resource is not None and resource.routed


CONTENT_TYPE_FILTERS = {
    **{f"can_{action}": permission_filter(action) for action in ("add", "change", "delete", "view")},
    # The types of the models a REST route serves (the reference: those with a serializer).
    "has_serializer": CustomFilter(
        build=lambda values: _either([k.pk for k in ContentType.objects.all() if _served(k)], values[-1]),
        parse=parse_bool,
        oracle=lambda kind, values: _served(kind) == values[-1],
        samples=("true", "false"),
        boolean=True,
    ),
    # `feature=<name>`: the types of the models with that feature (one name).
    "feature": CustomFilter(
        build=lambda names: Q(pk__in=_type_ids(FEATURES[names[-1]])),
        parse=parse_feature,
        oracle=lambda kind, names: (
            (r := _resource_of(kind)) is not None and r.versions is None and FEATURES[names[-1]](r)
        ),
        samples=("custom_fields", "statuses", "dynamic_groups", "graphql"),
        argument="String",
    ),
}
