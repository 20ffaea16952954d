"""Object pages, one set per registered model: its list (columns, filters, search, paging, CSV
export), each object's page (fields, related objects, custom fields, relationships, config
context, notes, change log) and a search across models. Everything is read through the public
API as the signed-in user (web.api), so a page shows what the API would answer them."""

from __future__ import annotations

from functools import lru_cache
from html import escape
from urllib.parse import urlencode

import orjson
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET

from queryengine import twins
from queryengine.errors import NotFound, PermissionDenied, StatementTimeout, ValidationFailed
from queryengine.filters import CUSTOM_FIELD_FILTER, CUSTOM_FIELD_PREFIX, FilterError
from queryengine.permissions import allowed_rows, can_view
from queryengine.query import argument_type, argument_values, filters_of
from queryengine.registry import FILE, SCALAR, Resource, resource_by_object_type

from . import savedviews, shown
from .api import graphql, rest

PAGE_SIZES = (25, 50, 100, 250, 1000)
PAGING = ("limit", "offset", "sort", savedviews.SAVED_VIEW)
ROOT_FIELDS_PER_QUERY = 40  # the API takes at most 50 root fields in one document
SEARCH_HITS = 5  # objects shown per model in a global search
CHANGES_SHOWN = 50


def may(resource: Resource, user, action: str) -> bool:
    """Whether the user may `action` some objects of the resource, as the API decides."""
    if not user.is_authenticated:
        return False
    if action == "view":
        return can_view(resource, user)
    if not resource.writable or (action == "add" and not resource.creatable):
        return False
    return allowed_rows(resource, user, action) is not None


def refused(request, resource: Resource | None, message: str, status: int):
    context = {"resource": resource, "message": message, "status": status}
    if resource is not None:
        context["plural"] = shown.plural(resource)
    return render(request, "web/object_error.html", context, status=status)


def messages_of(exc: Exception) -> list[str]:
    return error_messages(getattr(exc, "errors", None)) or [getattr(exc, "detail", None) or str(exc)]


def error_messages(errors) -> list[str]:
    """The API's error body as lines: `field: message`, or the message alone for `detail`."""
    if isinstance(errors, list) and errors:
        errors = errors[0]
    if isinstance(errors, dict):
        return [
            f"{name}: {' '.join(map(str, m if isinstance(m, list) else [m]))}"
            if name not in ("detail", "non_field_errors")
            else " ".join(map(str, m if isinstance(m, list) else [m]))
            for name, m in errors.items()
        ]
    return [str(errors)] if errors else []


@lru_cache(maxsize=2048)
def list_document(resource: Resource, filter_names: tuple[str, ...], named: tuple[str, ...] = ()) -> str:
    """`count` and `results` of one page of a list, with the list's columns."""
    declared = "".join(f", $f{i}: {argument_type(resource, name)}" for i, name in enumerate(filter_names))
    arguments = "".join(f", {name}: $f{i}" for i, name in enumerate(filter_names))
    count_arguments = f"({arguments[2:]})" if arguments else ""
    columns = " ".join(shown.selection(spec) for spec in shown.list_columns(resource, named))
    field = resource.list_field
    return (
        f"query ($limit: Int, $offset: Int, $order_by: [String]{declared}) {{ "
        f"count: {field}_count{count_arguments} "
        f"results: {field}(limit: $limit, offset: $offset, order_by: $order_by{arguments}) "
        f"{{ id display {columns} }} }}"
    )


def page_filters(request, resource: Resource) -> dict:
    """The list's filters from the page's query (those the API takes; others are refused)."""
    known = filters_of(resource)
    filters, custom, unknown = {}, {}, []
    for key in request.GET:
        values = [v for v in request.GET.getlist(key) if v != ""]
        if key in PAGING or not values:
            continue
        if key.startswith(CUSTOM_FIELD_PREFIX) and resource.has_custom_fields:
            custom[key] = values
        elif key in known and not known[key].legacy and known[key].listed and key != CUSTOM_FIELD_FILTER:
            filters[key] = values
        else:
            unknown.append(key)
    if unknown:
        raise FilterError({name: ["Unknown filter field"] for name in unknown})
    if custom:
        filters[CUSTOM_FIELD_FILTER] = custom
    return filters


def paging(request) -> tuple[int, int]:
    try:
        limit = int(request.GET.get("limit") or settings.PAGINATE_COUNT)
    except ValueError:
        limit = settings.PAGINATE_COUNT
    limit = max(1, min(limit, settings.MAX_PAGE_SIZE or 1000, 1000))
    try:
        offset = max(0, int(request.GET.get("offset") or 0))
    except ValueError:
        offset = 0
    return limit, offset


def rows_html(resource: Resource, results: list[dict], named: tuple[str, ...] = ()) -> str:
    columns = [spec.name for spec in shown.list_columns(resource, named)]
    base, cell = shown.list_url(resource), shown.cell
    out = []
    for row in results:
        cells = "".join(f"<td>{cell(row.get(name))}</td>" for name in columns)
        out.append(f'<tr><td><a href="{base}{row["id"]}/">{escape(str(row["display"]))}</a></td>{cells}</tr>')
    return "".join(out)


def with_params(request, **changes) -> str:
    """This page's query with some parameters changed (None: removed)."""
    params = request.GET.copy()
    for key, value in changes.items():
        params.pop(key, None)
        if value is not None:
            params[key] = str(value)
    return f"?{params.urlencode()}" if params else "?"


@login_required
@require_GET
def object_list(request, resource: Resource):
    if not may(resource, request.user, "view"):
        return refused(request, resource, f"You may not view {shown.plural(resource).lower()}.", 403)
    view = savedviews.find(request, resource)
    if view is not None:  # the page is the view's parameters under its own
        request.GET = savedviews.parameters(request, view)
    named = savedviews.columns(view)
    limit, offset = paging(request)
    sort = request.GET.get("sort") or None
    errors, count, results, status = [], 0, [], 200
    try:
        filters = argument_values(resource, request.user, page_filters(request, resource))
        names = tuple(sorted(filters))
        variables = {"limit": limit, "offset": offset, "order_by": [sort] if sort else None}
        variables.update({f"f{i}": filters[name] for i, name in enumerate(names)})
        data = graphql(request, list_document(resource, names, named), variables)
        count, results = data["count"], data["results"]
    except (FilterError, ValidationFailed, PermissionDenied, NotFound) as exc:
        errors, status = messages_of(exc), 400
    except StatementTimeout as exc:
        errors, status = [exc.detail], 503
    columns = []
    for spec in shown.list_columns(resource, named):
        heading = {"name": spec.name, "label": shown.field_label(spec.name), "sort": None}
        if shown.sortable(resource, spec):
            heading["sort"] = with_params(
                request, sort=f"-{spec.name}" if sort == spec.name else spec.name, offset=None
            )
        columns.append(heading)
    exported = [
        (k, v)
        for k in request.GET
        if k not in ("limit", "offset", savedviews.SAVED_VIEW)
        for v in request.GET.getlist(k)
        if v
    ]
    context = {
        "resource": resource,
        "label": shown.label(resource),
        "plural": shown.plural(resource),
        "columns": columns,
        "rows": mark_safe(rows_html(resource, results, named)),  # noqa: S308 - every value escaped in shown.cell
        "count": count,
        "first": offset + 1 if results else 0,
        "last": offset + len(results),
        "previous": with_params(request, offset=max(0, offset - limit) or None) if offset > 0 else None,
        "next": with_params(request, offset=offset + limit) if offset + limit < count else None,
        "sizes": [
            (size, with_params(request, limit=size, offset=None), size == limit) for size in PAGE_SIZES
        ],
        "q": request.GET.get("q", ""),
        "search": "q" in filters_of(resource),
        "filters": filter_inputs(request, resource),
        "applied": [(k, v) for k, v in exported if k not in ("q", "sort")],
        "csv": f"/api/{resource.route}/?{urlencode([*exported, ('format', 'csv')])}",
        "errors": errors,
        "can_add": may(resource, request.user, "add"),
        "saved_view": view,
    }
    return render(request, "web/object_list.html", context, status=status)


def filter_inputs(request, resource: Resource) -> list[dict]:
    inputs = []
    for name, spec in shown.filter_fields(resource):
        choices = spec.choices if spec is not None else None
        inputs.append(
            {
                "name": name,
                "label": shown.field_label(name),
                "value": request.GET.get(name, ""),
                "choices": sorted(choices.items(), key=lambda c: c[1]) if choices else None,
            }
        )
    return inputs


def counts(request, wanted: list[tuple[str, str, dict]]) -> dict:
    """{key: count} of (key, list field, {argument: values}) in as few documents as the API takes."""
    found = {}
    for start in range(0, len(wanted), ROOT_FIELDS_PER_QUERY):
        chunk = wanted[start : start + ROOT_FIELDS_PER_QUERY]
        declared, selections, variables = [], [], {}
        for i, (_key, field, arguments) in enumerate(chunk):
            parts = []
            for j, (name, values) in enumerate(arguments.items()):
                declared.append(f"$v{i}_{j}: [String]")
                variables[f"v{i}_{j}"] = values
                parts.append(f"{name}: $v{i}_{j}")
            selections.append(f"c{i}: {field}_count{'(' + ', '.join(parts) + ')' if parts else ''}")
        head = f"query ({', '.join(declared)})" if declared else "query"
        data = graphql(request, f"{head} {{ {' '.join(selections)} }}", variables)
        found.update({key: data[f"c{i}"] for i, (key, _f, _a) in enumerate(chunk)})
    return found


def detail_rows(resource: Resource, found: dict) -> list[tuple[str, str]]:
    rows = []
    for spec in shown.detail_fields(resource):
        if spec.name not in found:
            continue
        value = found[spec.name]
        if spec.kind == SCALAR and spec.choices is None and isinstance(value, dict | list):
            html = f"<pre>{escape(orjson.dumps(value, option=orjson.OPT_INDENT_2).decode())}</pre>"
        elif spec.kind == FILE and value:
            html = shown.image(value, str(found.get("display") or spec.name))
        else:
            html = shown.cell(value)
        rows.append((shown.field_label(spec.name), mark_safe(html)))  # noqa: S308 - escaped in shown.cell
    for name in [*resource.derived, *resource.timestamps]:
        if name in found:
            rows.append((shown.field_label(name), shown.cell(found[name])))
    return rows


def relationship_rows(value: dict) -> list[tuple[str, str]]:
    rows = []
    for key, relationship in (value or {}).items():
        for side in ("source", "destination", "peer"):
            part = relationship.get(side) if isinstance(relationship, dict) else None
            if part and part.get("objects"):
                title = (
                    f"{relationship.get('label') or key} ({shown.object_type_label(part.get('object_type'))})"
                )
                rows.append((title, mark_safe(shown.cell(part["objects"]))))  # noqa: S308
    return rows


@login_required
@require_GET
def object_detail(request, resource: Resource, key: str):
    if not may(resource, request.user, "view"):
        return refused(request, resource, f"You may not view {shown.plural(resource).lower()}.", 403)
    params = {"depth": 1, "exclude_m2m": "false"}
    if resource.included:
        params["include"] = ",".join(name for name in resource.included if name not in resource.loaded)
    status, found = rest(request, "GET", f"/api/{resource.route}/{key}/", params)
    if status != 200:
        return refused(request, resource, (found or {}).get("detail", "Not found."), status)
    pk = found["id"]
    related = []
    relations = [
        (other, name, field)
        for other, name, field in shown.reverse_relations(resource)
        if may(other, request.user, "view")
    ]
    wanted = [(f"{other.route}?{name}", other.list_field, {name: [str(pk)]}) for other, name, _f in relations]
    generic = [
        (other, by_type, by_id, name)
        for other, by_type, by_id, name in shown.generic_relations()
        if may(other, request.user, "view") and not resource.integer_pk  # generic ids are UUIDs
    ]
    object_type = resource.object_type
    wanted += [
        (f"{other.route}?{by_id}", other.list_field, {by_type: [object_type], by_id: [str(pk)]})
        for other, by_type, by_id, _name in generic
    ]
    numbers = counts(request, wanted)
    for other, name, field in relations:
        number = numbers[f"{other.route}?{name}"]
        if number:
            title = shown.plural(other) + (
                f" ({shown.field_label(field).lower()})" if field != resource.model_name else ""
            )
            related.append(
                {"label": title, "count": number, "url": f"{shown.list_url(other)}?{urlencode({name: pk})}"}
            )
    for other, by_type, by_id, name in generic:
        number = numbers[f"{other.route}?{by_id}"]
        if number:
            query = urlencode({by_type: object_type, by_id: pk})
            title = shown.plural(other) + (
                f" ({shown.field_label(name).lower()})" if other.model_name not in name else ""
            )
            related.append({"label": title, "count": number, "url": f"{shown.list_url(other)}?{query}"})
    context = {
        "resource": resource,
        "label": shown.label(resource),
        "plural": shown.plural(resource),
        "object": found,
        "fields": detail_rows(resource, found),
        "related": related,
        "custom_fields": sorted((found.get("custom_fields") or {}).items()),
        "computed_fields": sorted((found.get("computed_fields") or {}).items()),
        "relationships": relationship_rows(found.get("relationships")),
        "config_context": pretty(found["config_context"]) if "config_context" in found else None,
        "notes": notes_of(request, resource, pk),
        "images": images_of(request, resource, pk),
        "changes": changes_of(request, pk) if resource.change_logged and not resource.integer_pk else None,
        "changes_url": f"/extras/object-changes/?{urlencode({'changed_object_id': pk})}",
        "api_url": f"/api/{resource.route}/{pk}/",
        "can_change": may(resource, request.user, "change"),
        "can_delete": may(resource, request.user, "delete"),
    }
    return render(request, "web/object_detail.html", context)


IMAGES_SHOWN = 50


def images_of(request, resource: Resource, pk) -> dict | None:
    """The stored images belonging to the object (a device's image attachments) as the user may
    see them, each linked to its page, and where another is added; None where none belong."""
    found, add = [], None
    for other, type_filter, id_filter in shown.attached_files(resource):
        if not may(other, request.user, "view"):
            continue
        if may(other, request.user, "add"):
            query = urlencode({type_filter: resource.object_type, id_filter: pk})
            add = f"{shown.list_url(other)}add/?{query}"
        document = (
            f"query ($t: [String], $i: [String]) {{ found: {other.list_field}({type_filter}: $t, "
            f"{id_filter}: $i, limit: {IMAGES_SHOWN}) {{ id display {' '.join(other.file_fields)} }} }}"
        )
        for row in graphql(request, document, {"t": [resource.object_type], "i": [str(pk)]})["found"]:
            page = shown.object_url(other, row["id"])
            found += [
                shown.image(row[name], row["display"], page) for name in other.file_fields if row.get(name)
            ]
    if not found and add is None:
        return None
    return {"shown": mark_safe("".join(found)), "add": add}  # noqa: S308 - escaped in shown.image


def pretty(value) -> str:
    return orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode()


def notes_of(request, resource: Resource, pk) -> list | None:
    if not resource.has_notes:
        return None
    status, body = rest(request, "GET", f"/api/{resource.route}/{pk}/notes/", {"limit": 50})
    return body["results"] if status == 200 else None


def changes_of(request, pk) -> list | None:
    changes = resource_by_object_type("extras.objectchange")
    if changes is None or not may(changes, request.user, "view"):
        return None
    document = (
        f"query ($id: [String]) {{ object_changes(changed_object_id: $id, limit: {CHANGES_SHOWN}) "
        f"{{ id time user_name {twins.selected_named(changes, 'action')} request_id object_repr }} }}"
    )
    return graphql(request, document, {"id": [str(pk)]})["object_changes"]


@login_required
@require_GET
def search(request):
    """Every model's objects matching `q` (the lists' own search), a few of each."""
    q = request.GET.get("q", "").strip()
    groups = []
    if q:
        searchable = [
            r for r in shown.served().values() if "q" in filters_of(r) and may(r, request.user, "view")
        ]
        per_query = ROOT_FIELDS_PER_QUERY // 2
        for start in range(0, len(searchable), per_query):
            chunk = searchable[start : start + per_query]
            selections = " ".join(
                f"c{i}: {r.list_field}_count(q: $q) r{i}: {r.list_field}(q: $q, limit: {SEARCH_HITS}) {{ id display }}"
                for i, r in enumerate(chunk)
            )
            data = graphql(request, f"query ($q: [String]) {{ {selections} }}", {"q": [q]})
            for i, r in enumerate(chunk):
                if data[f"c{i}"]:
                    groups.append(
                        {
                            "label": shown.plural(r),
                            "count": data[f"c{i}"],
                            "url": f"{shown.list_url(r)}?{urlencode({'q': q})}",
                            "objects": [(shown.object_url(r, o["id"]), o["display"]) for o in data[f"r{i}"]],
                        }
                    )
    return render(request, "web/search.html", {"q": q, "groups": groups, "searched": bool(q)})
