"""The REST layer: negotiate, authenticate, translate each request into a generated GraphQL
document, run it on the one schema, and reshape the result into the versioned envelope."""

from __future__ import annotations

import io
import logging
import uuid
from contextlib import contextmanager
from dataclasses import replace

import orjson
from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
from django.db import DataError, IntegrityError, InternalError, OperationalError
from django.http import HttpResponse
from django.http.multipartparser import MultiPartParserError
from django.views.decorators.csrf import csrf_exempt
from graphql import GraphQLError

from queryengine import engine, jsondepth
from queryengine.documents import (
    detail_document,
    list_document,
    many_to_many_fields,
    write_document,
)
from queryengine.errors import (
    Conflict,
    NotFound,
    PermissionDenied,
    ReferenceNotFound,
    StatementTimeout,
    ValidationFailed,
)
from queryengine.filters import (
    CUSTOM_FIELD_FILTER,
    CUSTOM_FIELD_PREFIX,
    FilterError,
    unknown_filters,
)
from queryengine.mutations import check_same_id
from queryengine.permissions import can_view, restricted, visible_rows
from queryengine.query import argument_values, filters_of
from queryengine.registry import CONTENT_TYPES, MANY_TO_MANY, Resource
from queryengine.schema import RequestContext
from queryengine.timeouts import timed_out
from queryengine.writes import writable_fields

from . import csvformat, etags, exports, legacy, throttle, versioning
from .auth import AuthenticationFailed, authenticate, no_credentials
from .options import FORM, describe
from .parameters import check_parameters
from .render import render

# Query parameters that shape the response rather than filter it.
RESERVED = frozenset(
    {"limit", "offset", "depth", "sort", "format", "api_version", "include", "exclude_m2m", "brief", "export"}
)
# Parameters of 1.x requests that shape the response (`exclude=config_context`).
LEGACY_RESERVED = frozenset({"exclude"})
CONFIG_CONTEXT = "config_context"
NO_CREDENTIALS = "Authentication credentials were not provided."
DATABASE_UNAVAILABLE = "The database is busy or unavailable; nothing was changed. Try again shortly."
RETRY_AFTER_SECONDS = "2"
READ_ONLY = "25006"  # PostgreSQL: read_only_sql_transaction (a standby, or a database set read-only)
BODY_TOO_LARGE = "The request body is larger than the {} bytes allowed (MAX_REQUEST_BODY_BYTES)."
TOO_MANY_PARAMETERS = "The query string has more than {} parameters (DATA_UPLOAD_MAX_NUMBER_FIELDS)."
TOO_MANY_OBJECTS = "A bulk request takes at most {} objects (MAX_BULK_OBJECTS); this one has {}."
WRITE_CONFLICT = "The change conflicts with a concurrent change to the same objects; nothing was changed."
logger = logging.getLogger(__name__)
API_APPS = (
    "circuits",
    "cloud",
    "data-validation",
    "dcim",
    "extras",
    "ipam",
    "load-balancers",
    "tenancy",
    "users",
    "virtualization",
    "vpn",
    "wireless",
)
# Roots of installed add-on applications (none run here), each listing its installed ones.
ADD_ON_ROOTS = {"apps": "installed-apps", "plugins": "installed-plugins"}


class ApiError(Exception):
    def __init__(self, status: int, body):
        super().__init__(body)
        self.status = status
        self.body = body


def detail_error(status: int, detail: str) -> ApiError:
    return ApiError(status, {"detail": detail})


def response_format(request) -> str:
    """json, html or csv, from ?format= or the Accept header; anything else cannot be served."""
    requested = request.GET.get("format")
    if requested in ("json", "api", "csv"):
        return {"api": "html"}.get(requested, requested)
    accept = request.META.get("HTTP_ACCEPT", "")
    media = [entry.split(";")[0].strip().lower() for entry in accept.split(",") if entry.strip()]
    if not media:
        return "json"
    if media[0] in ("text/html", "application/xhtml+xml"):
        return "html"
    if media[0] == csvformat.MEDIA_TYPE:
        return "csv"
    if any(m in ("application/json", "*/*", "application/*") for m in media):
        return "json"
    raise detail_error(406, "Could not satisfy the request Accept header.")


class Endpoint:
    """One API path: method dispatch, negotiation, authentication and error rendering."""

    methods: tuple[str, ...] = ("GET",)
    # HTTP basic credentials sign in as their user (the token paths, as the reference's).
    accepts_basic = False
    # The query parameters a GET takes beside `format` and `api_version`: names of the shared ones
    # (ACTION_SHAPE, PAGING) or (name, JSON schema, description). Checked before the GET runs
    # (another is a 400 naming these) and listed by the OpenAPI document. None: the endpoint
    # checks its own (a list's filters).
    query_parameters: tuple | None = None

    def served_at(self, version: str) -> bool:
        """Whether the path answers at an API version (1.x views: sites, jobs by class path)."""
        resource = getattr(self, "resource", None)
        return resource is None or resource.served_at(version)

    def versions_served(self) -> str:
        resource = getattr(self, "resource", None)
        if resource is None or resource.versions is None:
            return "This path is not served at the API version asked for."
        first, last = resource.versions
        return (
            f"/api/{self.resource.route}/ is served at API versions {first} to {last}: ask for one "
            f'with "Accept: application/json; version={last}" or "?api_version={last}".'
        )

    def allow(self) -> str:
        methods = list(self.methods)
        if "GET" in methods:
            methods.append("HEAD")
        if hasattr(self, "options"):
            methods.append("OPTIONS")
        return ", ".join(methods)

    @csrf_exempt
    def __call__(self, request, **kwargs) -> HttpResponse:
        headers = {"Allow": self.allow(), "Vary": "Accept"}
        fmt = "json"
        try:
            fmt = response_format(request)
            version = versioning.negotiate(
                request.META.get("HTTP_ACCEPT", ""), request.GET.get("api_version")
            )
        except versioning.VersionError as exc:
            return render(request, {"detail": exc.detail}, exc.status, fmt, headers)
        except ApiError as exc:
            return render(request, exc.body, exc.status, "json", headers)
        except TooManyFieldsSent:  # the query string, read first here
            detail = TOO_MANY_PARAMETERS.format(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS)
            return render(request, {"detail": detail}, 400, "json", headers)
        headers["API-Version"] = version
        request.response_format = fmt
        try:
            if not self.served_at(version):  # a 1.x view (sites, regions) at 2.x
                raise detail_error(404, f"Not found. {self.versions_served()}")
            method = "GET" if request.method == "HEAD" else request.method
            if method not in self.methods and not (method == "OPTIONS" and hasattr(self, "options")):
                raise detail_error(405, f'Method "{request.method}" not allowed.')
            user, token = authenticate(request, session=True)
            # A signed-in browser writes as its user; a token only when write-enabled.
            write_enabled = token.write_enabled if token else user.is_authenticated
            if self.accepts_basic and (credentials := basic_credentials(request)) is not None:
                user, write_enabled = password_user(request, credentials), True
            request.context = RequestContext(
                user=user, base_url=request.build_absolute_uri("/api/"), write_enabled=write_enabled
            )
            request.api_version = version
            request.response_headers = headers
            if method == "GET" and self.query_parameters is not None:
                request.parameters = check_parameters(request, self.query_parameters)
                if "depth" in self.query_parameters:
                    parse_depth(request)
            data, status = getattr(self, method.lower())(request, **kwargs)
            if fmt == "csv" and status == 200 and isinstance(data, dict) and "results" in data:
                data = csvformat.response(request, data["results"], None, "object")  # lists beyond models
        except ApiError as exc:
            data, status = exc.body, exc.status
        except AuthenticationFailed as exc:
            data, status = {"detail": exc.detail}, 403
        except (FilterError, ValidationFailed) as exc:
            data, status = exc.errors, 400
        except csvformat.CSVInvalid as exc:
            data, status = {"detail": exc.detail}, 400
        except PermissionDenied as exc:
            data, status = {"detail": exc.detail}, 403
        except NotFound as exc:
            data, status = {"detail": exc.detail}, 404
        except Conflict as exc:
            data, status = {"detail": exc.detail}, 409
        except throttle.Throttled as exc:
            data, status = {"detail": exc.detail}, 429
            headers["Retry-After"] = str(exc.retry_after)
        except RequestDataTooBig:
            data, status = {"detail": BODY_TOO_LARGE.format(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)}, 413
        except versioning.SeveralValues as exc:
            data, status = {"detail": exc.detail}, 412
        except etags.PreconditionFailed as exc:
            data, status = {"detail": etags.STALE}, 412
            if exc.tag:
                headers["ETag"] = exc.tag
        except DataError as exc:  # a value the database itself refuses (e.g. its regex dialect)
            data, status = {"detail": f"Invalid value: {str(exc).strip().splitlines()[0]}"}, 400
        except IntegrityError as exc:  # still racing a concurrent writer after the engine's retries
            logger.warning("write conflict on %s %s: %s", request.method, request.path, exc)
            data, status = {"detail": WRITE_CONFLICT}, 409
        except (OperationalError, InternalError, StatementTimeout) as exc:
            if (timeout := timed_out(exc)) is not None:
                # No Retry-After: the same request would run as long again.
                logger.warning("statement timeout on %s %s", request.method, request.path)
                data, status = {"detail": timeout.detail}, 503
            elif isinstance(exc, InternalError) and getattr(exc.__cause__, "sqlstate", None) != READ_ONLY:
                raise  # other internal errors are bugs
            else:
                # Locked past the busy timeout, unreachable, out of disk or switched to read-only:
                # nothing was written and a later try may succeed.
                logger.warning("database unavailable for %s %s: %s", request.method, request.path, exc)
                data, status = {"detail": DATABASE_UNAVAILABLE}, 503
                headers["Retry-After"] = RETRY_AFTER_SECONDS
        response = render(request, data, status, fmt, headers, getattr(self, "resource", None))
        if request.method == "HEAD":  # the headers of a GET, its length included, and no body
            response["Content-Length"] = str(len(response.content))
            response.content = b""
        return response


def require_view(resource: Resource | None, request) -> None:
    """403 unless the caller may read the resource (or, without one, the API at all)."""
    user = request.context.user
    if resource is not None and can_view(resource, user):
        return
    if resource is None and (user.is_authenticated or "*" in settings.EXEMPT_VIEW_PERMISSIONS):
        return
    raise detail_error(
        403, no_credentials(request) if not user.is_authenticated else PermissionDenied().detail
    )


def run(document: str, variables: dict, request) -> dict:
    """Execute a generated document; a resolver's own error surfaces as itself. A related object
    the caller may not see shows as its reference, as at depth 0."""
    result = engine.run(document, variables, replace(request.context, references_for_hidden=True))
    if result.errors:
        original = result.errors[0].original_error
        # A value the schema cannot coerce (GraphQLError) is the client's mistake: a 400 below.
        if original is not None and not isinstance(original, GraphQLError):
            raise original
        raise detail_error(400, result.errors[0].message)
    return result.data


def parse_depth(request) -> int:
    raw = request.GET.get("depth")
    try:
        depth = int(raw) if raw is not None else 0
    except ValueError:
        return 0  # like the reference server: a non-integer depth means the default
    if not 0 <= depth <= settings.MAX_DEPTH:
        raise detail_error(400, f"The depth parameter must be an integer between 0 and {settings.MAX_DEPTH}")
    return depth


# Paging values travel as GraphQL Int (32-bit): anything larger is past every page anyway.
LARGEST_PAGE_VALUE = 2**31 - 1


def parse_paging(request) -> tuple[int | None, int]:
    """The page size actually served (None = everything) and the offset."""
    maximum = settings.MAX_PAGE_SIZE
    try:
        limit = int(request.GET["limit"])
        if limit < 0:
            raise ValueError
    except (KeyError, ValueError):
        limit = settings.PAGINATE_COUNT
    if limit == 0:
        limit = maximum or None
    elif maximum:
        limit = min(limit, maximum)
    try:
        offset = max(int(request.GET.get("offset", 0)), 0)
    except ValueError:
        offset = 0
    if limit is not None:
        limit = min(limit, LARGEST_PAGE_VALUE)
    return limit, min(offset, LARGEST_PAGE_VALUE)


def page_link(request, limit: int, offset: int) -> str:
    """An absolute URL for another page, keeping every parameter (sorted, as the reference does)."""
    params = request.GET.copy()
    params["limit"] = str(limit)
    if offset > 0:
        params["offset"] = str(offset)
    else:
        params.pop("offset", None)
    query = "&".join(
        sorted(
            f"{key}={value}"
            for key, values in params.lists()
            for value in (_quote(v) for v in values)
            for key in [_quote(key)]
        )
    )
    return f"{request.build_absolute_uri(request.path)}?{query}"


def _quote(text: str) -> str:
    from urllib.parse import quote

    return quote(text, safe="/:,")


def shown_many(resource: Resource, request) -> frozenset[str]:
    """The optional fields a response shows: many-to-many lists by version, and `include=` ones
    (a write's response shows every one, as the reference's does). At 1.x config contexts are
    shown unless `exclude=config_context` says otherwise."""
    version = request.api_version
    shown = versioning.shown_many_to_many(
        version, many_to_many_fields(resource), request.GET.get("exclude_m2m")
    )
    included = versioning.includes(version, resource.included)
    if request.method not in ("GET", "HEAD"):
        return versioning.versioned_fields(version, resource, shown | included)
    asked = {name for value in request.GET.getlist("include") for name in value.split(",")}
    if versioning.legacy(version):
        asked |= {CONFIG_CONTEXT} - legacy.excluded(request)
    return versioning.versioned_fields(version, resource, shown | frozenset(asked & included))


def list_page(
    request,
    resource: Resource,
    scope_filters: dict | None = None,
    allowed: tuple[str, ...] | None = None,
    arguments: dict[str, str] | None = None,
) -> dict:
    """One page of a resource's list; `allowed` narrows the filters a client may give,
    `arguments` names the list's arguments some of them are given as (parameter -> argument)."""
    params = request.GET
    filters = list_filters(request, resource, allowed)
    for parameter, argument in (arguments or {}).items():
        if parameter in filters:
            filters[argument] = filters.pop(parameter)
    filters.update(scope_filters or {})
    filters = argument_values(resource, request.context.user, filters)
    shape = legacy.shape(request, parse_depth(request))
    limit, offset = parse_paging(request)
    if getattr(request, "response_format", None) == "csv":  # every row, at depth 0, as the reference
        shape = 0
        limit = limit if "limit" in params else None
    names = tuple(sorted(filters))
    document = list_document(resource, shape, shown_many(resource, request), names)
    variables = {"limit": limit, "offset": offset, "order_by": params.getlist("sort") or None}
    variables.update({f"f{i}": filters[name] for i, name in enumerate(names)})
    data = run(document, variables, request)
    results = versioning.single_values(request.api_version, resource, data["results"])
    return envelope(request, data["count"], limit, offset, results)


def list_filters(request, resource: Resource, allowed: tuple[str, ...] | None = None) -> dict:
    """The filter arguments a list request gives (`cf_` parameters together), checked."""
    params = request.GET
    old = versioning.legacy(request.api_version)
    reserved = RESERVED | LEGACY_RESERVED if old else RESERVED
    filters = {key: params.getlist(key) for key in params if key not in reserved}
    custom = {key: filters.pop(key) for key in list(filters) if key.startswith(CUSTOM_FIELD_PREFIX)}
    if custom and resource.has_custom_fields and allowed is None:
        filters[CUSTOM_FIELD_FILTER] = custom
    elif custom:
        filters.update(custom)  # no custom fields here: unknown below
    if allowed is None:  # filters of 1.x fields (slugs, sites) are unknown from 2.0 on
        allowed = tuple(
            name for name, f in filters_of(resource).items() if (old or not f.legacy) and f.listed
        )
    if old:
        filters = legacy.filter_names(resource, filters, allowed)
    return known_filters(filters, allowed)


def known_filters(filters: dict, known) -> dict:
    """The filters a view knows; others are a 400 (or, without strict filtering, ignored)."""
    unknown = [key for key in filters if key not in known]
    if unknown and settings.STRICT_FILTERING:
        raise FilterError(unknown_filters(unknown, known))
    return {key: values for key, values in filters.items() if key in known}


def envelope(request, count: int, limit: int | None, offset: int, results) -> dict:
    """The list envelope (spec §4.4) of one page, with links to the pages beside it."""
    next_url = previous_url = None
    if limit is not None:
        if offset + limit < count:
            next_url = page_link(request, limit, offset + limit)
        if offset > 0:
            previous_url = page_link(request, limit, offset - limit)
    return {"count": count, "next": next_url, "previous": previous_url, "results": results}


def read_object(request, resource: Resource, pk, depth=0) -> dict:
    """One object at a depth or in a 1.x shape (documents.LegacyShape)."""
    document = detail_document(resource, depth, shown_many(resource, request))
    found = run(document, {"id": resource.id_value(pk)}, request)["object"]
    if found is None:
        raise not_found(resource)
    return versioning.single_values(request.api_version, resource, [found])[0]


def not_found(resource: Resource) -> ApiError:
    return detail_error(404, f"No {resource.verbose_name} matches the given query.")


def object_pk(request, resource: Resource, key: str):
    """The primary key in the path or, for models with a unique natural key, the object it names."""
    try:
        return resource.parse_pk(key)
    except ValueError:
        pass
    if resource.natural_key:
        pk = (
            restricted(resource, request.context.user)
            .filter(**{resource.natural_key: key})
            .values_list("pk", flat=True)
        )
        found = list(pk[:2])
        if len(found) == 1:
            return found[0]
    raise not_found(resource)


def write(request, resource: Resource, kind: str, variables: dict):
    """A REST write as its mutation; a 1.x client's bodies and errors in its own terms."""
    document = write_document(
        resource, kind, shown_many(resource, request), legacy.write_shape(request, kind == "create")
    )
    if "data" not in variables:
        return run(document, variables, request)["result"]
    if not versioning.legacy(request.api_version):
        variables = {**variables, "data": [legacy.current_body(resource, item) for item in variables["data"]]}
        result = run(document, variables, request)["result"]
        return versioning.single_values(request.api_version, resource, result)
    translation = legacy.Translation(resource)
    bodies = [translation.body(item, creating=kind == "create") for item in variables["data"]]
    variables = {**variables, "data": bodies}
    try:
        return run(document, variables, request)["result"]
    except ValidationFailed as exc:
        raise ValidationFailed(translation.errors(exc.errors)) from None


def create_one(request, resource: Resource, body: dict) -> dict:
    """Create one object through the list mutation; its errors come back unwrapped."""
    try:
        return write(request, resource, "create", {"data": [body]})[0]
    except ValidationFailed as exc:
        raise ValidationFailed(exc.errors[0]) from None


def not_a_list(body) -> ApiError:
    return ApiError(
        400, {"non_field_errors": [f'Expected a list of items but got type "{json_type(body)}".']}
    )


def not_an_object(body) -> ApiError:
    return ApiError(
        400, {"non_field_errors": [f"Invalid data. Expected a dictionary, but got {json_type(body)}."]}
    )


def json_type(value) -> str:
    return {dict: "dict", list: "list", str: "str", int: "int", float: "float", bool: "bool"}.get(
        type(value), "null"
    )


class ListEndpoint(Endpoint):
    """`/api/<app>/<model>/`: list and create; update and delete in bulk (JSON arrays)."""

    methods = ("GET", "POST", "PUT", "PATCH", "DELETE")

    def __init__(self, resource: Resource):
        self.resource = resource
        if not resource.writable:
            self.methods = ("GET",)
        elif not resource.creatable:
            self.methods = ("GET", "PUT", "PATCH", "DELETE")

    def get(self, request):
        require_view(self.resource, request)
        if "export" in request.GET:
            return exports.export(request, self.resource, list_filters(request, self.resource)), 200
        page = list_page(request, self.resource)
        if request.response_format == "csv":
            model_name = self.resource.model_name
            return csvformat.response(request, page["results"], self.resource, model_name), 200
        return page, 200

    def options(self, request):
        require_view(self.resource, request)
        return describe(self.resource, request.context, False, versioning.legacy(request.api_version)), 200

    def post(self, request):
        body = self.body(request)
        if isinstance(body, list):
            return write(request, self.resource, "create", {"data": body}), 201
        if not isinstance(body, dict):
            raise not_an_object(body)
        return create_one(request, self.resource, body), 201

    def put(self, request):
        return self.update(request, partial=False)

    def patch(self, request):
        return self.update(request, partial=True)

    def update(self, request, partial: bool):
        body = self.body(request)
        if not isinstance(body, list):
            raise not_a_list(body)
        return write(request, self.resource, "update", {"data": body, "partial": partial}), 200

    def body(self, request):
        """JSON, a form (objects with stored files), or CSV rows (always a list: CSV cannot tell
        one object from a list of one)."""
        if media_type(request) != csvformat.MEDIA_TYPE:
            return write_body(request, self.resource)
        try:
            text = request.body.decode(request.encoding or "utf-8")
        except UnicodeDecodeError:
            raise detail_error(400, "CSV parse error - the body is not UTF-8 text.") from None
        rows = csvformat.parse(text, self.resource)
        if len(rows) > settings.MAX_BULK_OBJECTS:
            raise detail_error(400, TOO_MANY_OBJECTS.format(settings.MAX_BULK_OBJECTS, len(rows)))
        return rows

    def delete(self, request):
        body = json_body(request, empty=None)
        if not isinstance(body, list):
            raise not_a_list(body if body is not None else {})
        errors = [delete_item_errors(self.resource, item) for item in body]
        if any(errors):
            raise ApiError(400, errors)
        ids = [self.resource.id_value(item["id"]) for item in body]
        write(request, self.resource, "delete", {"ids": ids})
        return None, 204


def delete_item_errors(resource: Resource, item) -> dict:
    """What is wrong with one `{"id": ...}` of a bulk delete ({} when nothing is)."""
    if not isinstance(item, dict) or not item.get("id"):
        return {"id": ["This field is required."]}
    try:
        resource.parse_pk(str(item["id"]))
    except ValueError:
        return {"id": ["A valid integer is required." if resource.integer_pk else "Must be a valid UUID."]}
    return {}


class DetailEndpoint(Endpoint):
    """`/api/<app>/<model>/<id>/`: read, replace (PUT), change (PATCH) and delete one object."""

    methods = ("GET", "PUT", "PATCH", "DELETE")

    def __init__(self, resource: Resource):
        self.resource = resource
        if not resource.writable:
            self.methods = ("GET",)

    def get(self, request, key: str):
        require_view(self.resource, request)
        pk = object_pk(request, self.resource, key)
        depth = parse_depth(request)
        tag = etags.current_tag(self.resource, pk)
        if etags.not_modified(request, tag):
            self.visible(request, key)
            request.response_headers["ETag"] = tag
            return None, 304
        csv = request.response_format == "csv"
        shape = 0 if csv else legacy.shape(request, depth)  # CSV at depth 0, as lists
        found = read_object(request, self.resource, pk, shape)
        if tag:
            request.response_headers["ETag"] = tag
        if csv:  # the list's columns, one row
            return csvformat.response(request, [found], self.resource, self.resource.model_name), 200
        return found, 200

    def options(self, request, key: str):
        require_view(self.resource, request)
        return describe(self.resource, request.context, True, versioning.legacy(request.api_version)), 200

    def put(self, request, key: str):
        return self.update(request, key, partial=False)

    def patch(self, request, key: str):
        return self.update(request, key, partial=True)

    def update(self, request, key: str, partial: bool):
        pk = self.visible(request, key, writing=True)
        try:
            body = write_body(request, self.resource)
            if not isinstance(body, dict):
                raise not_an_object(body)
        except ApiError:
            self.visible(request, key)  # a missing object is a 404 before its body is a 400
            raise
        with etags.matching(request, self.resource, pk), self.found_by_write():
            if "id" in body:  # naming the object's own id is no change; another is refused
                check_same_id(request.context, self.resource, pk, body["id"])
            changed = write(
                request, self.resource, "update", {"data": [{**body, "id": str(pk)}], "partial": partial}
            )[0]
        request.response_headers["ETag"] = etags.current_tag(self.resource, pk, context=request.context)
        return changed, 200

    def delete(self, request, key: str):
        if request.body:
            self.visible(request, key)
            raise detail_error(400, "A DELETE of one object takes no request body.")
        pk = self.visible(request, key, writing=True)
        with etags.matching(request, self.resource, pk), self.found_by_write():
            write(request, self.resource, "delete", {"ids": [self.resource.id_value(pk)]})
        return None, 204

    def visible(self, request, key: str, writing: bool = False) -> uuid.UUID | int:
        """The object's id if the caller can see it: writing needs no less than reading. A write
        by a caller who may read every object (and names no If-Match) finds the object itself."""
        pk = object_pk(request, self.resource, key)
        user = request.context.user
        if writing and user.is_authenticated and "HTTP_IF_MATCH" not in request.META:
            rows = visible_rows(self.resource, user)
            if rows is not None and not rows and self.resource.scope is None:
                return pk
        if not restricted(self.resource, user).filter(pk=pk).exists():
            if not user.is_authenticated:
                raise detail_error(403, no_credentials(request))
            raise not_found(self.resource)
        return pk

    @contextmanager
    def found_by_write(self):
        try:
            yield
        except ReferenceNotFound:
            raise  # another object the body names: its own message
        except NotFound:
            raise not_found(self.resource) from None


class NotesEndpoint(Endpoint):
    """`<object url>/notes/`: the notes attached to one object; POST adds one."""

    methods = ("GET", "POST")

    def __init__(self, resource: Resource, notes: Resource):
        self.resource = resource
        self.notes = notes

    def get(self, request, key: str):
        require_view(self.resource, request)
        require_view(self.notes, request)
        pk = self.existing(request, key)
        scope = {"assigned_object_type": [self.resource.object_type], "assigned_object_id": [str(pk)]}
        return list_page(request, self.notes, scope), 200

    def post(self, request, key: str):
        require_view(self.resource, request)
        pk = self.existing(request, key)
        body = json_body(request)
        if not isinstance(body, dict):
            raise not_an_object(body)
        note = {**body, "assigned_object_type": self.resource.object_type, "assigned_object_id": str(pk)}
        return create_one(request, self.notes, note), 201

    def existing(self, request, key: str) -> uuid.UUID | int:
        pk = object_pk(request, self.resource, key)
        if not restricted(self.resource, request.context.user).filter(pk=pk).exists():
            raise not_found(self.resource)
        return pk


class ScopedListEndpoint(Endpoint):
    """`<object url>/<name>/`: a list of another resource narrowed by one object (a dynamic group's
    members), served by that resource's own list machinery: its shape, depth, filters and paging.
    `scope(pk) -> (resource, filter arguments)` says which list and how it is narrowed."""

    methods = ("GET",)

    def __init__(self, resource: Resource, scope):
        self.resource = resource
        self.scope = scope

    def get(self, request, key: str):
        require_view(self.resource, request)
        pk = object_pk(request, self.resource, key)
        if not restricted(self.resource, request.context.user).filter(pk=pk).exists():
            raise not_found(self.resource)
        target, scope_filters = self.scope(pk)
        if target is None:
            return envelope(request, 0, None, 0, []), 200
        require_view(target, request)
        return list_page(request, target, scope_filters), 200


def media_type(request) -> str:
    """The request body's media type, without its parameters."""
    return request.META.get("CONTENT_TYPE", "").split(";")[0].strip().lower()


def write_body(request, resource: Resource):
    """A write's body: JSON or, for objects holding stored files (an image's), a multipart form
    (options.parses lists both)."""
    if media_type(request) == FORM and resource.file_fields:
        return form_body(request, resource)
    return json_body(request)


def form_body(request, resource: Resource) -> dict:
    """A multipart/form-data body as one object: each field's text (a repeated field's, and a
    list field's however many, a list of them) and each file as the upload itself, which only a
    file field takes. The whole request is held to MAX_REQUEST_BODY_BYTES, files included (413)."""
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if length > settings.DATA_UPLOAD_MAX_MEMORY_SIZE:
        raise RequestDataTooBig()
    try:
        if request.method == "POST" or hasattr(request, "_files"):  # parsed by Django (or a page)
            fields, files = request.POST, request.FILES
        else:  # Django parses the forms of POSTs alone
            stream = io.BytesIO(request._body) if hasattr(request, "_body") else request
            fields, files = request.parse_file_upload(request.META, stream)
    except MultiPartParserError as exc:
        raise detail_error(400, f"Multipart form parse error - {exc}") from None
    lists = {f.name for f in writable_fields(resource) if f.kind in (MANY_TO_MANY, CONTENT_TYPES)}
    body = {
        key: values[0] if len(values) == 1 and key not in lists else values for key, values in fields.lists()
    }
    body.update({key: uploaded[0] if len(uploaded) == 1 else uploaded for key, uploaded in files.lists()})
    return body


def json_body(request, empty: object = b"null"):
    """The request's JSON body; writes must say `Content-Type: application/json`."""
    if not request.body and empty is None:
        return None
    content_type = request.META.get("CONTENT_TYPE", "").split(";")[0].strip()
    if content_type != "application/json":
        raise detail_error(415, f'Unsupported media type "{content_type}" in request.')
    try:
        body = orjson.loads(request.body or b"null")
    except orjson.JSONDecodeError as exc:
        raise detail_error(400, f"JSON parse error - {exc}") from None
    if jsondepth.text_too_deep(request.body, body):
        raise detail_error(400, jsondepth.too_deep_message())
    if isinstance(body, list) and len(body) > settings.MAX_BULK_OBJECTS:
        raise detail_error(400, TOO_MANY_OBJECTS.format(settings.MAX_BULK_OBJECTS, len(body)))
    return body


class TokenListEndpoint(ListEndpoint):
    """Tokens also accept HTTP basic credentials: a user lists and manages their tokens, and a
    POST with no body provisions one (spec §5)."""

    accepts_basic = True

    def post(self, request):
        if basic_credentials(request) is None:
            return super().post(request)
        body = json_body(request) if request.body else {}
        if not isinstance(body, dict):
            raise not_an_object(body)
        return create_one(request, self.resource, body), 201


class TokenDetailEndpoint(DetailEndpoint):
    accepts_basic = True


def password_user(request, credentials: tuple[str, str]):
    """The active user whose username and password these are (403 otherwise), throttled as
    sign-ins are."""
    from django.contrib.auth import authenticate as check_password

    throttle.check(request, credentials[0])
    user = check_password(request, username=credentials[0], password=credentials[1])
    if user is None or not user.is_active:
        throttle.failed(request, credentials[0])
        raise detail_error(403, "Invalid username/password.")
    throttle.succeeded(request, credentials[0])
    return user


def basic_credentials(request) -> tuple[str, str] | None:
    import base64
    import binascii

    scheme, _, encoded = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        username, separator, password = base64.b64decode(encoded.strip()).decode().partition(":")
    except (binascii.Error, UnicodeDecodeError):
        raise detail_error(403, "Invalid basic header. Credentials not correctly base64 encoded.") from None
    if not separator:
        raise detail_error(403, "Invalid username/password.")
    return username, password
