"""A list page seen through a saved view: `?saved_view=<id>`, or, on a page opened without
parameters, the user's default view of that list, else the list's global default. The view's
filters, sort and page size become the page's parameters (those the page names itself win), and
its columns the table's, as far as the list has them."""

from __future__ import annotations

from django.http import QueryDict

from queryengine.errors import NotFound, PermissionDenied, ValidationFailed
from queryengine.filters import FilterError
from queryengine.registry import Resource

from .api import graphql

SAVED_VIEW = "saved_view"
FIELDS = "id name view config"
# The user by id: one who may not view users still has views of their own.
DEFAULTS = (
    "query ($view: [String], $user: [String]) { "
    f"mine: user_saved_view_associations(view_name: $view, user_id: $user, limit: 1) {{ saved_view {{ {FIELDS} }} }} "
    f"everyone: saved_views(view: $view, is_global_default: true, limit: 1) {{ {FIELDS} }} }}"
)
CHOSEN = f"query ($id: [String]) {{ saved_views(id: $id, limit: 1) {{ {FIELDS} }} }}"


def view_name(resource: Resource) -> str:
    """The reference's name of a model's list page: `dcim:device_list`."""
    return f"{resource.app_label}:{resource.model_name}_list"


def find(request, resource: Resource) -> dict | None:
    """The saved view the page is seen through (only one the user may see), or None."""
    chosen = request.GET.get(SAVED_VIEW)
    try:
        if chosen:
            found = graphql(request, CHOSEN, {"id": [chosen]})["saved_views"]
            view = found[0] if found else None
        elif not request.GET:
            data = graphql(request, DEFAULTS, {"view": [view_name(resource)], "user": [str(request.user.pk)]})
            mine = data["mine"][0]["saved_view"] if data["mine"] else None
            view = mine or (data["everyone"][0] if data["everyone"] else None)
        else:
            return None
    except (FilterError, ValidationFailed, PermissionDenied, NotFound):
        return None  # not a saved view's id, or none the user may read: the plain list
    if view is None or view["view"] != view_name(resource):
        return None
    return view


def parameters(request, view: dict) -> QueryDict:
    """The page's query: the view's filters, sort and page size under the page's own."""
    config = view["config"] if isinstance(view.get("config"), dict) else {}
    query = QueryDict(mutable=True)
    filters = config.get("filter_params")
    for name, values in filters.items() if isinstance(filters, dict) else ():
        for value in values if isinstance(values, list) else [values]:
            if isinstance(value, str | int | float) and not isinstance(value, bool):
                query.appendlist(str(name), str(value))
    sort = config.get("sort_order")
    if isinstance(sort, list) and sort and isinstance(sort[0], str):
        query["sort"] = sort[0]  # the page sorts by one column
    if isinstance(config.get("pagination_count"), int) and not isinstance(config["pagination_count"], bool):
        query["limit"] = str(config["pagination_count"])
    for name in request.GET:
        query.setlist(name, request.GET.getlist(name))
    query[SAVED_VIEW] = view["id"]
    return query


def columns(view: dict | None) -> tuple[str, ...]:
    """The columns a view's table configuration names (its first table's), in its order."""
    config = view["config"] if view and isinstance(view.get("config"), dict) else {}
    tables = config.get("table_config")
    for table in tables.values() if isinstance(tables, dict) else ():
        named = table.get("columns") if isinstance(table, dict) else None
        if isinstance(named, list):
            return tuple(name for name in named if isinstance(name, str))
    return ()
