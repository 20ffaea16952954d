"""Dynamic groups: which objects belong to a group, checked writes of groups, their set members
and static members, the `dynamic_groups` filter every member model takes, and a group's
`members/` list.

Membership is never stored for filter-defined and set groups: a group becomes a condition on
primary keys (subqueries over the member model and the static associations), built when a query
runs, so it always reflects the data of that moment."""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Callable
from functools import reduce

from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db.models import Q

from queryengine.filters import parse_uuid
from queryengine.registry import CustomFilter, Resource, resource_for

from .deletions import forget_with_objects
from .filtering import filter_errors, matching_ids, selection_q
from .models import DynamicGroup, DynamicGroupMembership, StaticGroupAssociation

FILTER, SET, STATIC = "dynamic-filter", "dynamic-set", "static"
NOTHING = Q(pk__in=[])
EVERYTHING = Q(pk__isnull=False)


def member_resource(model) -> Resource | None:
    """The resource of a model whose objects groups may hold: the reference's dynamic group
    associable models (those with custom fields and a few definitions, not groups themselves)."""
    resource = resource_for(model) if model is not None else None
    if resource is None or not getattr(model, "is_dynamic_group_associable_model", False):
        return None
    return resource


def takes_static_groups(resource) -> bool:
    """Whether static groups may hold the objects (their `static_group_association_set`), as
    with the reference's models mixing dynamic groups in: as declared (Resource.static_groups),
    else those with custom fields or groups may hold."""
    if resource.static_groups is not None:
        return resource.static_groups
    return resource.has_custom_fields or member_resource(resource.model) is not None


def _label(content_type: ContentType) -> str:
    return f"{content_type.app_label}.{content_type.model}"


# -- validation -------------------------------------------------------------------------------


def check_group(group: DynamicGroup) -> None:
    if not group.content_type_id:
        return  # reported as a required field
    resource = member_resource(group.content_type.model_class())
    if resource is None:
        raise ValidationError(
            {"content_type": [f"Dynamic groups cannot hold {_label(group.content_type)} objects."]}
        )
    before = DynamicGroup.objects.filter(pk=group.pk).values_list("content_type_id", "group_type").first()
    if before and before[0] != group.content_type_id:
        raise ValidationError({"content_type": ["ContentType cannot be changed once created"]})
    if not isinstance(group.filter, dict):
        raise ValidationError({"filter": ["Filter must be a dict"]})
    if group.group_type != FILTER and group.filter:
        raise ValidationError({"filter": ["Filter can only be set for groups of type `dynamic-filter`."]})
    messages = filter_errors(resource, resource.model, group.filter) if group.group_type == FILTER else []
    if messages:
        raise ValidationError({"filter": messages})
    if before and before[1] != group.group_type:
        if group.group_type == STATIC and DynamicGroupMembership.objects.filter(group=group).exists():
            raise ValidationError(
                {"group_type": ['Groups of `group_type` `"static"` may not be child groups at this time.']}
            )
        if before[1] == STATIC and group.static_group_associations.exists():
            raise ValidationError({"group_type": ["Remove the group's static members first."]})
        if before[1] == SET and group.dynamic_group_memberships.exists():
            raise ValidationError({"group_type": ["Remove the group's child groups first."]})


def _parents_of() -> dict:
    """{group id: ids of the groups it is a child of}, every membership in one query."""
    parents = defaultdict(set)
    for child, parent in DynamicGroupMembership.objects.values_list("group_id", "parent_group_id"):
        parents[child].add(parent)
    return parents


def ancestors(group_id, parents: dict) -> set:
    found, todo = set(), [group_id]
    while todo:
        for parent in parents.get(todo.pop(), ()):
            if parent not in found:
                found.add(parent)
                todo.append(parent)
    return found


def check_membership(membership: DynamicGroupMembership) -> None:
    if not membership.group_id or not membership.parent_group_id:
        return  # reported as required fields
    parent, child = membership.parent_group, membership.group
    if parent.group_type != SET:
        raise ValidationError({"parent_group": ['A parent group must be of `group_type` `"dynamic-set"`.']})
    if child.group_type == STATIC:
        raise ValidationError(
            {"group": ['Groups of `group_type` `"static"` may not be child groups at this time.']}
        )
    if parent.content_type_id != child.content_type_id:
        raise ValidationError({"group": ["ContentType for group and parent_group must match"]})
    if parent.pk == child.pk:
        raise ValidationError({"group": ["Cannot add group as a child of itself"]})
    parents = _parents_of()
    if membership.pk is not None:  # an update: the membership's old edge no longer holds
        old = DynamicGroupMembership.objects.filter(pk=membership.pk).values_list(
            "group_id", "parent_group_id"
        )
        for old_child, old_parent in old:
            parents[old_child].discard(old_parent)
    if child.pk in ancestors(parent.pk, parents):
        raise ValidationError({"group": ["Cannot add ancestor as a child"]})


def check_association(association: StaticGroupAssociation) -> None:
    if not association.dynamic_group_id or not association.associated_object_type_id:
        return  # reported as required fields
    group = association.dynamic_group
    if group.group_type != STATIC:
        raise ValidationError(
            {"dynamic_group": ['Only groups of `group_type` `"static"` take static members.']}
        )
    if association.associated_object_type_id != group.content_type_id:
        raise ValidationError({"associated_object_type": ["Must match the dynamic_group.content_type"]})
    model = association.associated_object_type.model_class()
    if not model._default_manager.filter(pk=association.associated_object_id).exists():
        raise ValidationError({"associated_object_id": [f"No {model._meta.object_name} has this id."]})


# -- membership -------------------------------------------------------------------------------


def _combine(operator: str, so_far: Q | None, members: Q) -> Q:
    """The reference's set operations, children in weight order; a first `difference` excludes
    from everything."""
    if so_far is None:
        return ~members if operator == "difference" else members
    if operator == "union":
        return so_far | members
    if operator == "intersection":
        return so_far & members
    return so_far & ~members


def members_q(group: DynamicGroup, seen: frozenset = frozenset()) -> Q:
    """The condition an object of the group's type meets when it is a member."""
    resource = member_resource(group.content_type.model_class())
    if resource is None or group.pk in seen:  # a cycle (refused when written) selects nothing
        return NOTHING
    if group.group_type == FILTER:
        return selection_q(resource, group.filter or {})
    if group.group_type == STATIC:
        static = StaticGroupAssociation.objects.filter(
            dynamic_group_id=group.pk, associated_object_type_id=group.content_type_id
        )
        return Q(pk__in=static.values("associated_object_id"))
    so_far = None
    for membership in group.dynamic_group_memberships.select_related("group__content_type"):
        so_far = _combine(membership.operator, so_far, members_q(membership.group, seen | {group.pk}))
    return EVERYTHING if so_far is None else so_far  # no children: the reference's empty condition


def any_members_q(groups) -> Q:
    return reduce(lambda a, b: a | b, (members_q(g) for g in groups), NOTHING)


def member_ids(group: DynamicGroup, ids, seen: frozenset = frozenset()) -> set[str]:
    """Which of `ids` are members, the set operations done in Python: the filter's oracle."""
    resource = member_resource(group.content_type.model_class())
    ids = {str(i) for i in ids}
    if resource is None or group.pk in seen:
        return set()
    if group.group_type == FILTER:
        return set(matching_ids(resource, resource.model, group.filter or {}, ids))
    if group.group_type == STATIC:
        listed = group.static_group_associations.values_list("associated_object_id", flat=True)
        return ids & {str(pk) for pk in listed}
    so_far = None
    for membership in group.dynamic_group_memberships.select_related("group__content_type"):
        members = member_ids(membership.group, ids, seen | {group.pk})
        if so_far is None:
            so_far = ids - members if membership.operator == "difference" else members
        else:
            so_far = {"union": so_far | members, "intersection": so_far & members}.get(
                membership.operator, so_far - members
            )
    return ids if so_far is None else so_far


def groups_of_page(model, ids: list[str], group_ids) -> dict[str, set[str]]:
    """{object id: ids of the given groups it belongs to} for a page of objects: one query for
    every group together, whatever the page's size."""
    groups = list(
        DynamicGroup.objects.filter(
            pk__in=list(group_ids), content_type=ContentType.objects.get_for_model(model)
        )
    )
    found: dict[str, set[str]] = defaultdict(set)
    if not groups or not ids:
        return found
    from django.db.models import CharField, Value

    page = model._default_manager.filter(pk__in=ids).order_by()
    parts = [
        page.filter(members_q(g)).annotate(_group=Value(str(g.pk), CharField())).values_list("pk", "_group")
        for g in groups
    ]
    for pk, group in parts[0].union(*parts[1:], all=True):
        found[str(pk)].add(group)
    return found


# -- the `dynamic_groups` filter ----------------------------------------------------------------


def _group_parser(resource: Resource):
    def parse_dynamic_group(value: str) -> DynamicGroup:
        content_type = ContentType.objects.get_for_model(resource.model)
        try:
            named = Q(pk=uuid.UUID(value))
        except ValueError:
            named = Q(name=value)
        found = DynamicGroup.objects.filter(named, content_type=content_type).select_related("content_type")
        group = found.first()
        if group is None:
            raise ValueError(f"Select a valid choice. {value} is not one of the available choices.")
        return group

    return parse_dynamic_group


def group_filters(resource: Resource) -> dict[str, CustomFilter]:
    """`dynamic_groups=<group id or name>` (repeat for OR) on every model groups may hold."""
    if member_resource(resource.model) is None:
        return {}

    def samples(objects) -> list:
        kind = ContentType.objects.get_for_model(resource.model)
        names = list(
            DynamicGroup.objects.filter(content_type=kind).order_by("name").values_list("name", flat=True)
        )
        return [*names, names[:2]] if names else []

    return {
        "dynamic_groups": CustomFilter(
            build=any_members_q,
            parse=_group_parser(resource),
            oracle=lambda obj, groups: any(member_ids(g, [obj.pk]) for g in groups),
            samples=samples,
            negated=True,
        )
    }


def members_scope(pk) -> tuple[Resource | None, dict]:
    """A group's `members/` list: its member model's list narrowed to the group."""
    group = DynamicGroup.objects.select_related("content_type").get(pk=pk)
    return member_resource(group.content_type.model_class()), {"dynamic_groups": [str(pk)]}


def static_member_labels(ids) -> dict:
    """{association id: "<object> as a member of <group>"}: one query per type of object."""
    rows = list(
        StaticGroupAssociation.objects.filter(pk__in=list(ids)).values_list(
            "pk", "associated_object_type_id", "associated_object_id", "dynamic_group__name"
        )
    )
    by_type = defaultdict(set)
    for _, kind, pk, _ in rows:
        by_type[kind].add(pk)
    names = {}
    for kind, pks in by_type.items():
        model = ContentType.objects.get_for_id(kind).model_class()
        names.update((obj.pk, str(obj)) for obj in model._default_manager.filter(pk__in=pks))
    return {str(pk): f"{names.get(obj, obj)} as a member of {group}" for pk, _, obj, group in rows}


# -- objects deleted --------------------------------------------------------------------------


forget_deleted = forget_with_objects(
    StaticGroupAssociation, ("associated_object_type", "associated_object_id")
)


# -- a group's `ancestors`, `descendants` and `member_id` filters ---------------------------------


def _children_of() -> dict:
    """{group id: ids of its child groups}, every membership in one query."""
    children = defaultdict(set)
    for child, parent in DynamicGroupMembership.objects.values_list("group_id", "parent_group_id"):
        children[parent].add(child)
    return children


def _any_group(value: str) -> uuid.UUID:
    """A group of any type named by id or name."""
    try:
        named = Q(pk=uuid.UUID(value))
    except ValueError:
        named = Q(name=value)
    found = DynamicGroup.objects.filter(named).values_list("pk", flat=True).first()
    if found is None:
        raise ValueError(f"Select a valid choice. {value} is not one of the available choices.")
    return found


def nested_filter(related: Callable) -> CustomFilter:
    """The groups nested above (`_parents_of`: `ancestors`) or below (`_children_of`:
    `descendants`) any of the given groups through group memberships, the groups aside."""

    def found(groups) -> set:
        links = related()
        return {pk for group in groups for pk in ancestors(group, links)}

    def samples(objects) -> list:
        return [str(group.pk) for group in objects if group.pk in related()][:2]

    return CustomFilter(
        build=lambda groups: Q(pk__in=found(groups)),
        parse=_any_group,
        oracle=lambda group, groups: group.pk in found(groups),
        samples=samples,
    )


def _holding(object_ids) -> set:
    """The groups any object of those ids belongs to (each group's members read by id)."""
    groups = DynamicGroup.objects.select_related("content_type")
    return {group.pk for group in groups if member_ids(group, object_ids)}


MEMBER_ID = CustomFilter(
    build=lambda ids: Q(pk__in=_holding(ids)),
    parse=lambda value: str(parse_uuid(value)),
    oracle=lambda group, ids: bool(member_ids(group, ids)),
    samples=lambda groups: [
        str(pk) for pk in StaticGroupAssociation.objects.values_list("associated_object_id", flat=True)[:2]
    ],
    negated=True,
)
GROUP_FILTERS = {
    "ancestors": nested_filter(_parents_of),
    "descendants": nested_filter(_children_of),
    "member_id": MEMBER_ID,
}
