"""Paths below an object's own (`<object url>/<name>/`) computed by GraphQL fields: free space
in a prefix, a rack's elevation, a secret's check, a saved query's run."""

from __future__ import annotations

import orjson

from queryengine import engine
from queryengine.documents import selection_of, with_fragments
from queryengine.errors import Conflict, ValidationFailed
from queryengine.permissions import restricted
from queryengine.query import argument_type
from queryengine.registry import Resource

from . import legacy, versioning
from .parameters import ACTION_SHAPE, PAGING, UNORDERED_SORT, UNPAGED
from .views import (
    ApiError,
    Endpoint,
    envelope,
    json_body,
    json_type,
    not_an_object,
    not_found,
    object_pk,
    parse_paging,
    require_view,
    run,
    shown_many,
)

ADDRESS_SPAN = tuple(
    (name, {"type": "string"}, f"IP address from which enumeration or allocation should {verb} (inclusive)")
    for name, verb in (("range_start", "start"), ("range_end", "stop"))
)


def span_arguments(request) -> tuple[str, str, dict]:
    """The address span a request gives (`range_start`, `range_end`): the document's variable
    declarations, the field's arguments and their values, for those given."""
    spans = {name: request.GET[name] for name, _, _ in ADDRESS_SPAN if name in request.GET}
    declared = "".join(f", ${name}: String" for name in spans)
    passed = "".join(f", {name}: ${name}" for name in spans)
    return declared, passed, spans


class AvailableEndpoint(Endpoint):
    """`<prefix>/available-prefixes/` and `<prefix>/available-ips/`: GET lists free space; POST
    (one object or a list) allocates from it atomically."""

    methods = ("GET", "POST")

    def __init__(
        self,
        parent: Resource,
        query_field: str,
        mutation_field: str,
        created: Resource,
        limit: bool,
        value: str = "",
    ):
        self.parent, self.created, self.value = parent, created, value  # value: "address", "prefix"
        self.query_field, self.mutation_field, self.limit = query_field, mutation_field, limit
        # The reference's document lists paging and `sort`; its answer is the first free values
        # (`limit` of them, where taken), in order, and addresses may be narrowed to a span.
        taken = ("limit",) if limit else UNPAGED[:1]  # a bad limit means the page size, as there
        spans = ADDRESS_SPAN if value == "address" else ()
        self.query_parameters = (*ACTION_SHAPE, *taken, *UNPAGED[1:], UNORDERED_SORT, *spans)
        self.post_parameters = spans  # addresses are allocated within the span too

    @property
    def item_schema(self) -> dict:
        """One free value as 2.x shows it (1.x: with `family` and `vrf`)."""
        properties = {"ip_version": {"type": "integer"}, self.value: {"type": "string"}}
        return {"type": "object", "properties": properties, "required": list(properties)}

    def get(self, request, key: str):
        require_view(self.parent, request)
        pk = object_pk(request, self.parent, key)
        if self.limit:
            limit, _ = parse_paging(request)
            declared, passed, spans = span_arguments(request)
            document = (
                f"query ($p: UUID!, $limit: Int{declared}) "
                f"{{ result: {self.query_field}(parent: $p, limit: $limit{passed}) }}"
            )
            free = run(document, {"p": str(pk), "limit": limit, **spans}, request)["result"]
        else:
            document = f"query ($p: UUID!) {{ result: {self.query_field}(parent: $p) }}"
            free = run(document, {"p": str(pk)}, request)["result"]
        if versioning.legacy(request.api_version):
            return free, 200
        # From 2.0 on the reference shows the IP version and the value only.
        return [{"ip_version": item["family"], self.value: item[self.value]} for item in free], 200

    def post(self, request, key: str):
        require_view(self.parent, request)
        pk = object_pk(request, self.parent, key)
        body = json_body(request)
        items = body if isinstance(body, list) else [body]
        if not all(isinstance(item, dict) for item in items):
            raise not_an_object(next(item for item in items if not isinstance(item, dict)))
        # Addresses are allocated within the span the query gives, as the reference's.
        declared, passed, spans = span_arguments(request) if self.post_parameters else ("", "", {})
        document = with_fragments(
            f"mutation ($p: UUID!, $data: [GenericScalar]!{declared}) "
            f"{{ result: {self.mutation_field}(parent: $p, data: $data{passed}) "
            f"{{ {selection_of(self.created, legacy.write_shape(request), shown_many(self.created, request))} }} }}"
        )
        try:
            created = run(document, {"p": str(pk), "data": items, **spans}, request)["result"]
        except ValidationFailed as exc:
            if isinstance(exc.errors, dict):  # the request's own (a bad span), not an item's
                raise
            raise ValidationFailed(exc.errors if isinstance(body, list) else exc.errors[0]) from None
        except Conflict as exc:
            # Not enough free space: 204 with the reason, as the reference answers (pynautobot
            # raises its AllocationError on exactly this); nothing was allocated.
            return {"detail": exc.detail}, 204
        return (created if isinstance(body, list) else created[0]), 201


class AvailableVLANsEndpoint(AvailableEndpoint):
    """`<VLAN group>/available-vlans/`: GET lists the group's free VLAN ids (`limit` of them, the
    page size by default); POST (one object or a list) allocates VLANs from them atomically,
    each with the id it asks for or the next free one. Both answer in the list envelope with
    every item on one page, as the reference does."""

    def get(self, request, key: str):
        require_view(self.parent, request)
        require_view(self.created, request)
        pk = object_pk(request, self.parent, key)
        limit = free_limit(request)
        document = (
            f"query ($p: UUID!, $limit: Int) {{ result: {self.query_field}(parent: $p, limit: $limit) }}"
        )
        vids = run(document, {"p": str(pk), "limit": limit}, request)["result"]
        return {"count": len(vids), "next": None, "previous": None, "results": vids}, 200

    def post(self, request, key: str):
        answer, status = super().post(request, key)
        if status != 201:
            return answer, status
        created = answer if isinstance(answer, list) else [answer]
        return {"count": len(created), "next": None, "previous": None, "results": created}, 201


def free_limit(request) -> int | None:
    """How many free values a GET lists: `limit` (a bad one is ignored, a negative one means all),
    the page size by default, at most the largest page."""
    from django.conf import settings

    try:
        limit = int(request.GET.get("limit", settings.PAGINATE_COUNT))
    except ValueError:
        limit = settings.PAGINATE_COUNT
    if settings.MAX_PAGE_SIZE:
        limit = min(limit, settings.MAX_PAGE_SIZE)
    return limit if limit >= 0 else None


# The GraphQL type of an argument, by its JSON schema's type.
ARGUMENT_TYPES = {"boolean": "Boolean", "integer": "Int"}


class ObjectListEndpoint(Endpoint):
    """`<object url>/<name>/`: a list a GraphQL field computes for one object (a rack's elevation),
    its `arguments` ((name, JSON schema, description), read by their schema) taken from the query
    and passed on, paged with the list envelope. `taken`: parameters read and checked but shaping
    nothing the list shows (a drawing's sizes)."""

    methods = ("GET",)

    def __init__(
        self,
        parent: Resource,
        query_field: str,
        parent_argument: str,
        arguments: tuple[tuple[str, dict, str], ...],
        item_schema: dict | None = None,
        taken: tuple[tuple[str, dict, str], ...] = (),
    ):
        self.parent, self.query_field = parent, query_field
        self.parent_argument, self.arguments = parent_argument, arguments
        self.item_schema = item_schema  # the JSON schema of one item (its OpenAPI answer)
        self.query_parameters = (*PAGING, *ACTION_SHAPE, *arguments, *taken)

    def get(self, request, key: str):
        require_view(self.parent, request)
        pk = object_pk(request, self.parent, key)
        given = {
            name: (request.parameters[name], schema)
            for name, schema, _ in self.arguments
            if name in request.parameters
        }
        declared = "".join(
            f", ${name}: {ARGUMENT_TYPES.get(schema.get('type'), 'String')}"
            for name, (_, schema) in given.items()
        )
        passed = "".join(f", {name}: ${name}" for name in given)
        document = f"query ($p: UUID!{declared}) {{ result: {self.query_field}({self.parent_argument}: $p{passed}) }}"
        items = run(document, {"p": str(pk), **{name: value for name, (value, _) in given.items()}}, request)[
            "result"
        ]
        limit, offset = parse_paging(request)
        page = items[offset:] if limit is None else items[offset : offset + limit]
        return envelope(request, len(items), limit, offset, page), 200


class ObjectValueEndpoint(Endpoint):
    """`<object url>/<name>/`: a value a GraphQL field computes for one object (a secret's check)."""

    methods = ("GET",)
    query_parameters = ACTION_SHAPE

    def __init__(self, parent: Resource, query_field: str, response_schema: dict | None = None):
        self.parent, self.query_field = parent, query_field
        if response_schema is not None:  # its OpenAPI answer
            self.response_schema = response_schema

    def get(self, request, key: str):
        require_view(self.parent, request)
        pk = object_pk(request, self.parent, key)
        document = f"query ($p: UUID!) {{ result: {self.query_field}(id: $p) }}"
        return run(document, {"p": str(pk)}, request)["result"], 200


class RunQueryEndpoint(Endpoint):
    """`<saved query url>/run/`: runs a saved GraphQL document with the given variables, on the
    same schema, engine and permissions as `/api/graphql/`; answers as the reference does."""

    methods = ("POST",)

    def __init__(self, resource: Resource, text_field: str):
        self.resource, self.text_field = resource, text_field

    def post(self, request, key: str):
        require_view(self.resource, request)
        pk = object_pk(request, self.resource, key)
        body = json_body(request, empty=None)
        if body is not None and not isinstance(body, dict):
            raise not_an_object(body)
        variables = (body or {}).get("variables") or {}
        if not isinstance(variables, dict):
            raise ApiError(
                400,
                {"variables": [f'Expected a dictionary of items but got type "{json_type(variables)}".']},
            )
        document = (
            f"query ($id: UUID!) {{ object: {self.resource.single_field}(id: $id) {{ {self.text_field} }} }}"
        )
        saved = run(document, {"id": str(pk)}, request)["object"]
        if saved is None:
            raise not_found(self.resource)
        text = orjson.loads(orjson.dumps(saved))[self.text_field]  # a compiled row is JSON text
        result = engine.run(text, variables, request.context, supplied=True)
        errors = [error.formatted for error in result.errors] if result.errors else None
        if result.data is None:
            return {"errors": errors}, 400
        return {"data": result.data, "errors": errors}, 200


class SavedViewDefaultEndpoint(Endpoint):
    """`<saved view>/set-default/`: POST makes the saved view the requesting user's default for its
    list (201, the association); DELETE clears it (204)."""

    methods = ("POST", "DELETE")

    def __init__(self, saved_views: Resource, associations: Resource):
        self.saved_views, self.associations = saved_views, associations

    def post(self, request, key: str):
        pk = object_pk(request, self.saved_views, key)
        fields = selection_of(self.associations, 0)
        document = with_fragments(
            f"mutation ($id: UUID!) {{ result: set_default_saved_view(id: $id) {{ {fields} }} }}"
        )
        return run(document, {"id": str(pk)}, request)["result"], 201

    def delete(self, request, key: str):
        pk = object_pk(request, self.saved_views, key)
        run("mutation ($id: UUID!) { result: clear_default_saved_view(id: $id) }", {"id": str(pk)}, request)
        return None, 204


class NapalmEndpoint(Endpoint):
    """`<device>/napalm/?method=...`: NAPALM is not part of this service, so after the reference's
    own checks of the device (a primary IP, a platform with a NAPALM driver) the answer is the
    reference's when NAPALM is not installed: 503 naming what is missing."""

    methods = ("GET",)
    query_parameters = (
        *ACTION_SHAPE,
        ("method", {"type": "string"}, "The NAPALM getter to run (get_facts, ...)"),
    )
    response_schema = {
        "type": "object",
        "properties": {"method": {"type": "object", "additionalProperties": True}},
    }
    DOCUMENT = (
        "query ($id: UUID!) { object: device(id: $id) { primary_ip4 { id } primary_ip6 { id } "
        "platform { name napalm_driver } } }"
    )

    def __init__(self, devices: Resource):
        self.devices = devices

    def get(self, request, key: str):
        require_view(self.devices, request)
        pk = object_pk(request, self.devices, key)
        device = run(self.DOCUMENT, {"id": str(pk)}, request)["object"]
        if device is None:
            raise not_found(self.devices)
        device = orjson.loads(orjson.dumps(device))  # a compiled row is JSON text
        platform = device["platform"]
        if device["primary_ip4"] is None and device["primary_ip6"] is None:
            detail = "This device does not have a primary IP address configured."
        elif platform is None:
            detail = "No platform is configured for this device."
        elif not platform["napalm_driver"]:
            detail = f"No NAPALM driver is configured for this device's platform: {platform['name']}."
        else:
            detail = "NAPALM is not installed. Please see the documentation for instructions."
        raise ApiError(503, {"detail": detail})


class ObjectStatsEndpoint(Endpoint):
    """`<object url>/stats/`: how many objects of other lists relate to this one (a location's
    racks, devices, prefixes, ...), each counted by that list's filter naming the object, with
    the list's API and page URLs so filtered; the reader's permissions apply to each count."""

    methods = ("GET",)
    STAT = {
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "count": {"type": "integer"},
            "ui_url": {"type": "string", "format": "uri"},
            "api_url": {"type": "string", "format": "uri"},
        },
        "required": ["title", "count", "ui_url", "api_url"],
    }
    response_schema = {
        "type": "object",
        "properties": {
            "count": {"type": "integer"},
            "next": {"type": "string", "format": "uri", "nullable": True},
            "previous": {"type": "string", "format": "uri", "nullable": True},
            "results": {"type": "array", "items": STAT},
        },
        "required": ["count", "next", "previous", "results"],
    }
    query_parameters = (*PAGING, *ACTION_SHAPE)

    def __init__(self, parent: Resource, counted: list[Resource], filter_name: str):
        self.parent, self.counted, self.filter_name = parent, counted, filter_name
        # Each filter's argument as its own variable, declared in the argument's type.
        declared = ", ".join(f"$k{i}: {argument_type(r, filter_name)}" for i, r in enumerate(counted))
        fields = " ".join(f"c{i}: {r.list_field}_count({filter_name}: $k{i})" for i, r in enumerate(counted))
        self.document = f"query ({declared}) {{ {fields} }}"

    def get(self, request, key: str):
        require_view(self.parent, request)
        pk = object_pk(request, self.parent, key)
        if not restricted(self.parent, request.context.user).filter(pk=pk).exists():
            raise not_found(self.parent)
        counts = run(self.document, {f"k{i}": [str(pk)] for i in range(len(self.counted))}, request)
        site = request.build_absolute_uri("/")
        query = f"?{self.filter_name}={pk}"
        stats = [
            {
                "title": title_of(resource),
                "count": counts[f"c{i}"],
                "ui_url": f"{site}{resource.route}/{query}",
                "api_url": f"{request.context.base_url}{resource.route}/{query}",
            }
            for i, resource in enumerate(self.counted)
        ]
        limit, offset = parse_paging(request)
        page = stats[offset:] if limit is None else stats[offset : offset + limit]
        return envelope(request, len(stats), limit, offset, page), 200


def title_of(resource: Resource) -> str:
    plural = str(resource.model._meta.verbose_name_plural)
    return plural[:1].upper() + plural[1:]
