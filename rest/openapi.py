"""OpenAPI 3.0 documents of the API, one per version, derived from the registry and the routes.

Paths come from walking the URL patterns, so every route the server answers is described, and
each endpoint's operations from its class. Object schemas come from the resource's fields (the
same introspection the GraphQL types, filters and OPTIONS use), parameters from its filters, and
the version rows of `versioning.CHANGES` decide which parameters a version accepts.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import metadata

from queryengine.filters import (
    BOOLEAN_ARGUMENT,
    CUSTOM_FIELD_FILTER,
    SINGLE_ARGUMENTS,
    parse_bool,
    parse_date_value,
    parse_datetime_value,
    parse_decimal,
    parse_int,
    parse_uuid,
    related_model_at,
)
from queryengine.query import filters_of, sortable_fields
from queryengine.registry import Resource, resources

from . import versioning
from .openapi_schemas import (
    bulk_delete_schema,
    component_schemas,
    nullable,
    paginated,
    ref,
    schema_name,
    write_schema,
)
from .options import FORM
from .parameters import ACTION_SHAPE, PAGING

OPENAPI_VERSION = "3.0.3"

# What each lookup suffix of a filter means (spec §4.5).
LOOKUP_MEANINGS = {
    "": "equal to (repeat for OR)",
    "n": "not equal to",
    "ic": "contains, case-insensitive",
    "nic": "does not contain, case-insensitive",
    "isw": "starts with, case-insensitive",
    "nisw": "does not start with, case-insensitive",
    "iew": "ends with, case-insensitive",
    "niew": "does not end with, case-insensitive",
    "ie": "equal to, case-insensitive",
    "nie": "not equal to, case-insensitive",
    "re": "matches the regular expression",
    "nre": "does not match the regular expression",
    "ire": "matches the regular expression, case-insensitive",
    "nire": "does not match the regular expression, case-insensitive",
    "lt": "less than",
    "lte": "less than or equal to",
    "gt": "greater than",
    "gte": "greater than or equal to",
    "isnull": "is (true) or is not (false) empty",
}
PARSED_TYPES = {
    parse_bool: {"type": "boolean"},
    parse_int: {"type": "integer"},
    parse_decimal: {"type": "number"},
    parse_uuid: {"type": "string", "format": "uuid"},
    parse_datetime_value: {"type": "string", "format": "date-time"},
    parse_date_value: {"type": "string", "format": "date"},
}
# ---------------------------------------------------------------------------- parameters


def query(
    name: str, schema: dict, description: str = "", required: bool = False, repeat: bool = False
) -> dict:
    parameter = {"in": "query", "name": name, "schema": schema}
    if repeat:
        parameter.update(schema={"type": "array", "items": schema}, explode=True, style="form")
    if description:
        parameter["description"] = description
    if required:
        parameter["required"] = True
    return parameter


def filter_item_schema(resource: Resource, f) -> dict:
    if f.lookup == "isnull":  # one Boolean, or text such as "true" (an integer choice's, as the reference's)
        return {"type": "boolean"} if f.argument == BOOLEAN_ARGUMENT else {"type": "string"}
    if f.kind == "related":
        return {"type": "string", "description": "id or natural key"}
    if f.kind == "tags":
        return {"type": "string", "description": "tag name or id"}
    if f.parse in PARSED_TYPES:
        return dict(PARSED_TYPES[f.parse])
    if getattr(f.parse, "__name__", "") == "parse_choice":
        *parents, last = f.path.split("__")
        model_field = related_model_at(resource.model, "__".join(parents))._meta.get_field(last)
        return {"type": "string", "enum": [str(value) for value, _ in model_field.flatchoices]}
    return {"type": "string"}


def filter_parameters(resource: Resource, version: str) -> list[dict]:
    """The filters a version takes: at 1.x those of 1.x fields too, under their 1.x names."""
    found, old = [], versioning.legacy(version)
    for name, f in filters_of(resource).items():
        if name == CUSTOM_FIELD_FILTER or f.legacy and not old or not f.listed:
            continue
        if old:
            name = legacy_filter_name(resource, name)
        suffix = name.rsplit("__", 1)[1] if "__" in name else ""
        if f.refusal:
            description = f"refused: {f.refusal}"
        elif f.kind == "search":
            description = "free-text search"
        elif f.kind == "custom":
            description = "filter"
        else:
            description = LOOKUP_MEANINGS.get(suffix, LOOKUP_MEANINGS[""])
        # A Boolean filter takes one value (the last, when repeated), as the reference's.
        single = f.argument in SINGLE_ARGUMENTS
        found.append(query(name, filter_item_schema(resource, f), description, repeat=not single))
    return found


def legacy_filter_name(resource: Resource, name: str) -> str:
    """A filter's 1.x name (`tenant_group_id__n` -> `group_id__n`)."""
    shown_as = resource.legacy.shown_as
    base, separator, lookup = name.partition("__")
    suffix = "_id" if base not in shown_as and base.endswith("_id") else ""
    base = base.removesuffix(suffix)
    return f"{shown_as.get(base, base)}{suffix}{separator}{lookup}" if base in shown_as else name


def shared_parameters(version: str) -> dict:
    """Parameters many operations take, written once under components/parameters."""
    found = {
        # The shapes here are this version's; every other version has its own document.
        "api_version": query(
            "api_version",
            {"type": "string", "enum": [version]},
            f"API version: {version} is described here; the server also answers "
            f"{', '.join(v for v in versioning.SUPPORTED if v != version)}, each in its own document",
        ),
        "format": query(
            "format", {"type": "string", "enum": ["json", "api"]}, "json, or api for a readable page"
        ),
        # Operations that answer CSV too share their own `format` (same name, one more value).
        "format_csv": query(
            "format",
            {"type": "string", "enum": ["json", "csv", "api"]},
            "json, csv (as Accept: text/csv does), or api for a readable page",
        ),
        "limit": query(
            "limit", {"type": "integer", "minimum": 0}, "page size (0: every object, up to the maximum)"
        ),
        "offset": query("offset", {"type": "integer", "minimum": 0}, "position of the first object"),
        "depth": query(
            "depth",
            {"type": "integer", "minimum": 0, "maximum": 10, "default": 0},
            "nesting depth of related objects",
        ),
    }
    if versioning.has(version, "exclude_m2m_parameter"):
        default = versioning.has(version, "exclude_m2m_by_default")
        found["exclude_m2m"] = query(
            "exclude_m2m", {"type": "boolean", "default": default}, "leave out many-to-many fields"
        )
    return found


def shared(name: str) -> dict:
    return {"$ref": f"#/components/parameters/{name}"}


def inline(parameters, defined: dict) -> list[dict]:
    """Parameters written out where they are used, as the reference's document writes them:
    clients (Ansible's inventory plugin) read each one's `name` without following references."""
    prefix = "#/components/parameters/"
    return [defined[p["$ref"].removeprefix(prefix)] if "$ref" in p else p for p in parameters]


def declared_parameters(endpoint, version: str) -> list[dict]:
    """The query parameters an endpoint declares (rest.views.Endpoint.query_parameters): shared
    ones by reference (those this version has), its own written out."""
    defined = shared_parameters(version)
    return [
        (shared(p) if p in defined else None) if isinstance(p, str) else query(*p)
        for p in getattr(endpoint, "query_parameters", None) or ()
        if not isinstance(p, str) or p in defined
    ]


def version_parameters(csv: bool = False) -> list[dict]:
    return [shared("api_version"), shared("format_csv" if csv else "format")]


def shape_parameters(resource: Resource, version: str) -> list[dict]:
    """How a read shows objects: depth (brief and exclude at 1.x), include= values, many-to-many
    fields."""
    included = sorted(versioning.includes(version, resource.included))
    if versioning.legacy(version):
        found = [query("brief", {"type": "boolean"}, "objects in their nested form")]
        if "config_context" in included:
            found.append(
                query("exclude", {"type": "string", "enum": ["config_context"]}, "leave out a value")
            )
    else:
        found = [shared("depth")]
    if included:
        found.append(query("include", {"type": "string", "enum": included}, "add a value", repeat=True))
    if versioning.has(version, "exclude_m2m_parameter"):
        found.append(shared("exclude_m2m"))
    return found


def paging_parameters() -> list[dict]:
    return [shared("limit"), shared("offset")]


def sort_parameter(resource: Resource) -> dict:
    fields = sortable_fields(resource)
    sort = {"type": "string", "enum": [*fields, *(f"-{f}" for f in fields)]}
    return query("sort", sort, "order by a field, '-' for descending", repeat=True)


def list_parameters(resource: Resource, version: str) -> list[dict]:
    return [
        *paging_parameters(),
        sort_parameter(resource),
        query("export", {"type": "string"}, "render the list with the export template of this name"),
        *shape_parameters(resource, version),
        *filter_parameters(resource, version),
    ]


# ---------------------------------------------------------------------------- operations

ERROR_RESPONSES = {"400": "Invalid input", "403": "Not permitted", "404": "Not found"}
ERRORS = {status: {"$ref": f"#/components/responses/{status}"} for status in ERROR_RESPONSES}


CSV_CONTENT = {
    "text/csv": {"schema": {"type": "string", "description": "a header row, then one row per object"}}
}


def json_content(schema: dict) -> dict:
    return {"application/json": {"schema": schema}}


def response(status: int, schema: dict | None, description: str = "", csv: bool = False) -> dict:
    """An operation's responses; `csv`: the same rows are also served as text/csv (?format=csv)."""
    body = {"description": description or ("No content" if schema is None else "Success")}
    if schema is not None:
        body["content"] = json_content(schema)
        if csv:
            body["content"].update(CSV_CONTENT)
    return {str(status): body, **ERRORS}


def answers_csv(operation: dict) -> bool:
    return "text/csv" in operation["responses"].get("200", {}).get("content", {})


def operation(
    op_id: str, tag: str, description: str, responses: dict, parameters=(), body=None, form=None
) -> dict:
    """An operation; `form`: the one object its body may also be as a multipart/form-data form
    (objects holding stored files: the form carries the files)."""
    found = {"operationId": op_id, "tags": [tag], "description": description, "responses": responses}
    if parameters:
        found["parameters"] = list(parameters)
    if body is not None:
        found["requestBody"] = {"required": True, "content": json_content(body)}
    if form is not None:
        found["requestBody"]["content"][FORM] = {"schema": form}
    return found


def form_of(resource: Resource, name: str) -> dict | None:
    """The schema a form body of the resource's writes takes, where they take forms."""
    return ref(name) if resource.file_fields else None


def one_or_many(schema: dict) -> dict:
    return {"anyOf": [schema, {"type": "array", "items": schema}]}


def list_operations(resource: Resource, version: str, op: str, tag: str) -> dict:
    name, plural = schema_name(resource), resource.model._meta.verbose_name_plural
    bulk = {"type": "array", "items": ref(f"Bulk{name}Request")}
    many = {"type": "array", "items": ref(name)}
    return {
        "get": operation(
            f"{op}_list",
            tag,
            f"Retrieve a list of {plural}. Repeat a filter for OR; custom fields filter as "
            "cf_<key>[__<lookup>].",
            response(200, ref(f"Paginated{name}List"), csv=True),
            list_parameters(resource, version),
        ),
        "post": operation(
            f"{op}_create",
            tag,
            f"Create one {resource.model._meta.verbose_name} or, given an array, several (all or none).",
            response(201, one_or_many(ref(name))),
            body=one_or_many(ref(f"{name}Request")),
            form=form_of(resource, f"{name}Request"),
        ),
        "put": operation(
            f"{op}_bulk_update", tag, f"Replace several {plural}.", response(200, many), body=bulk
        ),
        "patch": operation(
            f"{op}_bulk_partial_update", tag, f"Change several {plural}.", response(200, many), body=bulk
        ),
        "delete": operation(
            f"{op}_bulk_destroy",
            tag,
            f"Delete several {plural}.",
            response(204, None),
            body=bulk_delete_schema(resource),
        ),
    }


def detail_operations(resource: Resource, version: str, op: str, tag: str) -> dict:
    name, single = schema_name(resource), resource.model._meta.verbose_name
    return {
        "parameters": [ID],
        "get": operation(
            f"{op}_retrieve",
            tag,
            f"Retrieve a {single}.",
            response(200, ref(name), csv=True),
            shape_parameters(resource, version),
        ),
        "put": operation(
            f"{op}_update",
            tag,
            f"Replace a {single}.",
            response(200, ref(name)),
            body=ref(f"{name}Request"),
            form=form_of(resource, f"{name}Request"),
        ),
        "patch": operation(
            f"{op}_partial_update",
            tag,
            f"Change a {single}.",
            response(200, ref(name)),
            body=ref(f"Patched{name}Request"),
            form=form_of(resource, f"Patched{name}Request"),
        ),
        "delete": operation(f"{op}_destroy", tag, f"Delete a {single}.", response(204, None)),
    }


ID = {
    "in": "path",
    "name": "id",
    "required": True,
    "schema": {"type": "string"},
    "description": "UUID or natural key",
}
ANY_OBJECT = {"type": "object", "additionalProperties": True}


def interface_connection(endpoint) -> dict:
    """An interface connection, each end as the interfaces' own list shows it."""
    interface = ref(schema_name(endpoint.interfaces))
    properties = {**endpoint.item_schema["properties"], "interface_a": interface, "interface_b": interface}
    return {**endpoint.item_schema, "properties": properties}


CLASS_PATH = {
    "in": "path",
    "name": "class_path",
    "required": True,
    "schema": {"type": "string"},
    "description": "<module>/<Class>, optionally after a source (local/)",
}
PATH_PARAMETER = re.compile(r"<(?:\w+:)?(\w+)>")


def openapi_path(route: str) -> str:
    """A route as an OpenAPI path: `<str:key>` is `{id}`, other parameters keep their names."""
    return "/" + PATH_PARAMETER.sub(lambda m: "{id}" if m.group(1) == "key" else f"{{{m.group(1)}}}", route)


def notes_operations(endpoint, version: str, op: str, tag: str) -> dict:
    notes = endpoint.notes
    body = write_schema(notes, partial=False)
    assigned = {"assigned_object_type", "assigned_object_id"}
    body["properties"] = {k: v for k, v in body["properties"].items() if k not in assigned}
    body["required"] = [k for k in body.get("required", []) if k not in assigned]
    return {
        "parameters": [ID],
        "get": operation(
            f"{op}_notes_list",
            tag,
            "The notes on this object.",
            response(200, ref(f"Paginated{schema_name(notes)}List"), csv=True),
            [*paging_parameters(), *shape_parameters(notes, version)],
        ),
        "post": operation(
            f"{op}_notes_create",
            tag,
            "Add a note to this object.",
            response(201, ref(schema_name(notes))),
            body=body,
        ),
    }


def endpoint_operations(endpoint, version: str, route: str) -> dict:
    """The operations of one routed endpoint, by its kind."""
    from . import cabling, objectviews, roots, views

    tag = route.split("/", 1)[0] or "api"
    op = re.sub(r"[^a-z0-9]+", "_", PATH_PARAMETER.sub("", route)).strip("_") or "api_root"
    if isinstance(endpoint, views.ListEndpoint):
        found = list_operations(endpoint.resource, version, op, tag)
        if not endpoint.resource.creatable:
            del found["post"]
        if isinstance(endpoint, views.TokenListEndpoint):
            found["post"]["security"] = [{"basicAuth": []}, {"tokenAuth": []}, {"cookieAuth": []}]
            found["post"]["description"] += (
                " With HTTP basic credentials and no body: a new token for that user."
            )
        return found
    if isinstance(endpoint, views.DetailEndpoint):
        return detail_operations(endpoint.resource, version, op, tag)
    if isinstance(endpoint, views.NotesEndpoint):
        return notes_operations(endpoint, version, op.removesuffix("_notes"), tag)
    if isinstance(endpoint, objectviews.AvailableVLANsEndpoint):
        created = ref(schema_name(endpoint.created))
        return {
            "parameters": [ID],
            "get": operation(
                f"{op}_list",
                tag,
                "The free VLAN ids of this group, `limit` of them (the page size by default).",
                response(200, paginated({"type": "integer"})),
                declared_parameters(endpoint, version),
            ),
            "post": operation(
                f"{op}_create",
                tag,
                "Allocate one VLAN (an object) or several (an array) atomically, each with the `vid` "
                "it asks for or the next free one.",
                response(201, paginated(created)),
                body=one_or_many(ref(f"{schema_name(endpoint.created)}Request")),
            ),
        }
    if isinstance(endpoint, objectviews.AvailableEndpoint):
        created = ref(schema_name(endpoint.created))
        parameters = declared_parameters(endpoint, version)
        return {
            "parameters": [ID],
            "get": operation(
                f"{op}_list",
                tag,
                "Free space in this prefix.",
                response(200, {"type": "array", "items": endpoint.item_schema}),
                parameters,
            ),
            "post": operation(
                f"{op}_create",
                tag,
                "Allocate one (an object) or several (an array) atomically.",
                response(201, one_or_many(created)),
                [query(*p) for p in endpoint.post_parameters],
                body=one_or_many(ANY_OBJECT),
            ),
        }
    if isinstance(endpoint, objectviews.ObjectListEndpoint):
        parameters = declared_parameters(endpoint, version)
        return {
            "parameters": [ID],
            "get": operation(
                f"{op}_list",
                tag,
                "A list computed for this object.",
                response(200, paginated(endpoint.item_schema or ANY_OBJECT), csv=True),
                parameters,
            ),
        }
    if isinstance(endpoint, cabling.PathsEndpoint):
        return {
            "parameters": [ID],
            "get": operation(
                op,
                tag,
                "The cable paths crossing this port.",
                response(200, {"type": "array", "items": endpoint.item_schema}),
                declared_parameters(endpoint, version),
            ),
        }
    if isinstance(endpoint, cabling.TraceEndpoint):
        hop = {"type": "array", "items": nullable(ANY_OBJECT)}
        return {
            "parameters": [ID],
            "get": operation(
                op,
                tag,
                "Each cable of the path with its ends.",
                response(200, {"type": "array", "items": hop}),
                declared_parameters(endpoint, version),
            ),
        }
    if isinstance(endpoint, cabling.ConnectionListEndpoint):
        listed = set(endpoint.filters())
        filters = [p for p in filter_parameters(endpoint.resource, version) if p["name"] in listed]
        page = ref(f"Paginated{schema_name(endpoint.resource)}List")
        return {
            "get": operation(
                f"{op}_list",
                tag,
                "The connected ports.",
                response(200, page, csv=True),
                [
                    *paging_parameters(),
                    sort_parameter(endpoint.resource),
                    *shape_parameters(endpoint.resource, version),
                    *filters,
                ],
            )
        }
    if isinstance(endpoint, cabling.InterfaceConnectionsEndpoint):
        names = (*cabling.CONNECTION_FILTERS, *cabling.PATH_FILTERS)
        from inventory.dcim.graphql import PATH_SORT

        by = {"type": "string", "enum": [*PATH_SORT, *(f"-{f}" for f in PATH_SORT)]}
        sort = query("sort", by, "order by a value of the path, '-' for descending", repeat=True)
        filters = [sort, *(query(n, {"type": "string"}, repeat=True) for n in names)]
        return {
            "get": operation(
                f"{op}_list",
                tag,
                "Each path joining two interfaces, once.",
                response(200, paginated(interface_connection(endpoint)), csv=True),
                [*paging_parameters(), *shape_parameters(endpoint.interfaces, version), *filters],
            )
        }
    if isinstance(endpoint, cabling.ConnectedDeviceEndpoint):
        parameters = [
            {**p, "required": True} if p.get("name", "").startswith("peer_") else p
            for p in declared_parameters(endpoint, version)
        ]
        return {
            "get": operation(
                op,
                tag,
                "The device at the far end of an interface's cable path.",
                response(200, ref(schema_name(endpoint.devices))),
                parameters,
            )
        }
    if isinstance(endpoint, roots.GraphQLEndpoint):
        body = {
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "variables": ANY_OBJECT,
                "operationName": {"type": "string"},
            },
            "required": ["query"],
        }
        return {
            "post": operation(
                "graphql",
                "graphql",
                "Run a GraphQL document (a browser's GET shows GraphiQL).",
                response(200, ANY_OBJECT),
                body=body,
            )
        }
    methods = getattr(endpoint, "methods", ("GET",))
    description = (type(endpoint).__doc__ or route or "The API root").strip().splitlines()[0]
    # An endpoint whose answer is not an object (a job's variables: a list) says so.
    answer = getattr(endpoint, "response_schema", ANY_OBJECT)
    body = getattr(endpoint, "request_schema", None)  # what its writes take (a user's preferences)
    # The query parameters its GETs take: (name, JSON schema, description) (a location's stats: paging).
    parameters = declared_parameters(endpoint, version)
    if isinstance(endpoint, views.ScopedListEndpoint):  # another list's page: its paging and shape
        defined = shared_parameters(version)
        parameters = [shared(n) for n in (*PAGING, *ACTION_SHAPE) if n in defined]
    found = {
        m.lower(): operation(
            f"{op}_{m.lower()}",
            tag,
            description,
            response(200, answer),
            parameters if m == "GET" else (),
            body=None if m == "GET" else body,
        )
        for m in methods
    }
    if "<str:key>" in route:  # an object's own endpoint (a group's members, a query's run)
        found["parameters"] = [ID]
    elif "<classpath:class_path>" in route:  # a job as 1.x addressed it
        found["parameters"] = [CLASS_PATH]
    return found


def routed_endpoints() -> list[tuple[str, object]]:
    """(OpenAPI path, endpoint) of every API route; catch-all patterns and the docs themselves left out."""
    from . import urls

    return [
        (route, endpoint)
        for route, endpoint in urls.ROUTES
        if getattr(endpoint, "documented", True) is not False
    ]


def by_natural_key(route: str, operations: dict) -> tuple[str, dict] | None:
    """(key, operations) of an object's path given by its natural key, where its resource says
    the reference documents that path too (a job's `{name}`); None otherwise."""
    routed = {r.route: r for r in resources()}
    resource = routed.get(route.split("/<str:key>/", 1)[0]) if "/<str:key>/" in route else None
    if resource is None or not resource.paths_by_natural_key or not resource.natural_key:
        return None
    key = resource.natural_key
    parameter = {**ID, "name": key, "description": f"The object's {key}"}
    named = {}
    for method, value in operations.items():
        if method == "parameters":
            named[method] = [parameter if p == ID else p for p in value]
        else:
            named[method] = {**value, "operationId": f"{value['operationId']}_by_{key}"}
    return key, named


@cache
def document(version: str) -> dict:
    """The OpenAPI document of one API version (built once per process)."""
    resource_list = [r for r in resources() if r.served_at(version)]
    paths = {}
    for route, endpoint in routed_endpoints():
        if hasattr(endpoint, "served_at") and not endpoint.served_at(version):
            continue
        operations = endpoint_operations(endpoint, version, route)
        defined = shared_parameters(version)
        for key, value in operations.items():
            if key == "parameters":  # the path's own
                operations[key] = inline(value, defined)
            else:
                value["parameters"] = inline(
                    [*value.get("parameters", ()), *version_parameters(answers_csv(value))], defined
                )
        paths[openapi_path(route)] = operations
        named = by_natural_key(route, operations)
        if named is not None:
            paths[openapi_path(route).replace("{id}", f"{{{named[0]}}}")] = named[1]
    try:
        release = metadata.version("netinventory")
    except metadata.PackageNotFoundError:
        release = "0.1.0"
    return {
        "openapi": OPENAPI_VERSION,
        "info": {
            "title": "NetInventory API",
            "version": f"{release} ({version})",
            "description": "Network source of truth: locations, devices, IP space, circuits and more. "
            f"This document describes API version {version}; ask for another with ?api_version=.",
        },
        "servers": [{"url": "/api"}],
        "paths": paths,
        "components": {
            "schemas": component_schemas(resource_list, version),
            "parameters": shared_parameters(version),
            "responses": {
                status: {"description": meaning, "content": json_content(ref("Error"))}
                for status, meaning in ERROR_RESPONSES.items()
            },
            "securitySchemes": {
                "tokenAuth": {
                    "type": "apiKey",
                    "in": "header",
                    "name": "Authorization",
                    "description": "`Token <40 hexadecimal characters>`",
                },
                "cookieAuth": {"type": "apiKey", "in": "cookie", "name": "sessionid"},
                "basicAuth": {"type": "http", "scheme": "basic"},
            },
        },
        "security": [{"tokenAuth": []}, {"cookieAuth": []}],
    }
