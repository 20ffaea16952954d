"""Stored filters (a relationship side's, a dynamic group's): REST filter parameters kept as JSON,
checked and applied with the same filter machinery a list request uses."""

from __future__ import annotations

from django.db.models import Q

from queryengine.filters import CUSTOM_FIELD_FILTER, CUSTOM_FIELD_PREFIX, FilterError, apply_filters
from queryengine.query import filters_of
from queryengine.registry import Resource


def _text(value) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def arguments(resource: Resource, given: dict) -> dict:
    """A stored filter as filter arguments: every value a list of strings, `cf_` ones together."""
    found = {}
    for key, value in given.items():
        values = [_text(v) for v in value] if isinstance(value, list) else [_text(value)]
        if key.startswith(CUSTOM_FIELD_PREFIX) and resource.has_custom_fields:
            found.setdefault(CUSTOM_FIELD_FILTER, {})[key] = values
        else:
            found[key] = values
    return found


def filter_errors(resource: Resource | None, model, given) -> list[str]:
    """What is wrong with a stored filter for `model` (the reference's messages); [] if nothing."""
    label = model._meta.label if model is not None else "this"
    if not isinstance(given, dict):
        return [f"Filter for {label} must be a dictionary"]
    if resource is None:
        return [f"Filters are not supported for {label} object (Unable to find a FilterSet)"]
    known = filters_of(resource)
    given_arguments = arguments(resource, given)
    messages = [
        f"'{key}' is not a valid filter parameter for {label} object"
        for key in given_arguments
        if key not in known
    ]
    try:
        apply_filters(
            resource,
            model._default_manager.none(),
            {k: v for k, v in given_arguments.items() if k in known},
            known,
        )
    except FilterError as exc:
        messages += [f"'{key}': {', '.join(map(str, errors))}" for key, errors in exc.errors.items()]
    return messages


def filtered(resource: Resource, queryset, given: dict):
    """`queryset` narrowed by a stored filter (one that no longer applies matches nothing)."""
    try:
        return apply_filters(resource, queryset, arguments(resource, given), filters_of(resource))
    except (FilterError, KeyError):
        return queryset.none()


def matching_ids(resource: Resource | None, model, given: dict, ids) -> list[str]:
    """Which of `ids` the stored filter selects."""
    if resource is None or model is None:
        return []
    found = filtered(resource, model._default_manager.filter(pk__in=list(ids)), given)
    return [str(pk) for pk in found.values_list("pk", flat=True)]


def selection_q(resource: Resource, given: dict) -> Q:
    """A stored filter as a condition on primary keys (a subquery): evaluated with the query it
    joins, so what it selects is never older than that query."""
    return Q(pk__in=filtered(resource, resource.model._default_manager.all(), given).values("pk"))
