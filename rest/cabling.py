"""Endpoints over cable paths: a path's trace, the paths crossing a patch panel port, the
connection lists and the connected-device lookup (as the reference serves them)."""

from __future__ import annotations

import uuid

import orjson

from queryengine.documents import selection, with_fragments
from queryengine.errors import PermissionDenied
from queryengine.filters import CONNECTION_SEARCH
from queryengine.query import filters_of
from queryengine.registry import Resource, resource_by_object_type
from queryengine.schema import generic_ref

from . import versioning
from .parameters import ACTION_SHAPE, UNPAGED
from .views import (
    RESERVED,
    ApiError,
    Endpoint,
    detail_error,
    envelope,
    known_filters,
    list_page,
    not_found,
    object_pk,
    parse_depth,
    parse_paging,
    read_object,
    require_view,
    run,
    shown_many,
)

# The filters of the connection lists (the reference's, no more).
CONNECTION_FILTERS = ("device", "device_id", "location")
# The console and power connection lists also take these filters of the ports' own list, each
# with its lookups, as the reference's (its port filter set's `id`, `name` and `tags`, and the
# contacts, teams and dynamic groups every filter set of such a model takes).
PORT_FILTERS = ("id", "name", "tags", "contacts", "teams", "dynamic_groups")
# The interface connection list's own: the path's id (and `id__n`) and a search of either end.
PATH_FILTERS = ("id", "id__n", "q")


def parsed(rows) -> list[dict]:
    """Rows a compiled plan wrote as JSON text, read back where a view needs their values."""
    return orjson.loads(orjson.dumps(rows))


# A cable in a trace, as the reference shows it there: its own values, no ends or connectors,
# its choices as their values.
TRACED_CABLE = (
    "id",
    "object_type",
    "display",
    "url",
    "natural_slug",
    "type",
    "label",
    "color",
    "length",
    "length_unit",
    "cable_type",
    "status",
    "created",
    "last_updated",
)
TRACED_CABLE_CHOICES = ("type", "length_unit")


class TraceEndpoint(Endpoint):
    """`<endpoint url>/trace/`: the segments of the object's cable path, [near end, cable, far
    end], ends shown at depth 0 without derived counts and cables in their traced form (null
    where the path stops or the caller may not see it); an object without a cable has none."""

    methods = ("GET",)
    query_parameters = ACTION_SHAPE  # the ends show their tags unless exclude_m2m says otherwise

    def __init__(self, resource: Resource):
        self.resource = resource

    def get(self, request, key: str):
        require_view(self.resource, request)
        pk = object_pk(request, self.resource, key)
        document = "query ($t: String!, $id: UUID!) { result: cable_trace(object_type: $t, id: $id) }"
        segments = run(document, {"t": self.resource.object_type, "id": str(pk)}, request)["result"]
        return [[self.traced(request, node) for node in segment] for segment in segments], 200

    @classmethod
    def traced(cls, request, node: str | None):
        shown = cls.shown(request, node, top=False)
        if shown is None or not node.startswith("dcim.cable:"):
            return shown
        cable = parsed(shown)
        for name in TRACED_CABLE_CHOICES:
            if isinstance(cable.get(name), dict):
                cable[name] = cable[name]["value"]
            elif cable.get(name) is None:
                cable[name] = ""
        return {name: cable[name] for name in TRACED_CABLE if name in cable}

    @staticmethod
    def shown(request, node: str | None, top: bool = True):
        """The object a path node names: its detail at depth 0, or (not `top`) its nested form
        with its tags."""
        if node is None:
            return None
        object_type, _, pk = node.partition(":")
        resource = resource_by_object_type(object_type)
        if resource is None:
            return None
        try:
            require_view(resource, request)
            if top:
                return read_object(request, resource, uuid.UUID(pk))
            fields = selection(resource, 0, top=False)
            tagged = any(spec.name == "tags" for spec in resource.current_fields)
            if tagged and "tags" in versioning.shown_many_to_many(
                request.api_version, ("tags",), request.GET.get("exclude_m2m")
            ):
                fields += " tags { id object_type url }"
            document = with_fragments(
                f"query ($id: UUID!) {{ object: {resource.single_field}(id: $id) {{ {fields} }} }}"
            )
            found = run(document, {"id": pk}, request)["object"]
            if found is None:
                raise not_found(resource)
            return found
        except (ApiError, PermissionDenied):
            return None


STRING, BOOLEAN, OBJECT = (
    {"type": "string"},
    {"type": "boolean"},
    {"type": "object", "additionalProperties": True},
)


def object_schema(**properties) -> dict:
    return {"type": "object", "properties": properties}


class PathsEndpoint(TraceEndpoint):
    """`<front or rear port url>/paths/`: the cable paths passing the port, with their origin and
    far end as references and the hops between as details: every path, as the reference lists
    them (its document's `limit` and `offset` are taken and page nothing)."""

    query_parameters = (*ACTION_SHAPE, *UNPAGED)
    item_schema = object_schema(
        id={"type": "string", "format": "uuid"},
        origin_type=STRING,
        origin=OBJECT,
        destination_type={**STRING, "nullable": True},
        destination={**OBJECT, "nullable": True},
        path={"type": "array", "items": OBJECT},
        origin_id={"type": "string", "format": "uuid"},
        destination_id={"type": "string", "format": "uuid", "nullable": True},
        is_active=BOOLEAN,
        is_split=BOOLEAN,
        peer_connector={**STRING, "nullable": True},
        origin_fans_out=BOOLEAN,
        destination_fans_out=BOOLEAN,
    )

    def get(self, request, key: str):
        require_view(self.resource, request)
        pk = object_pk(request, self.resource, key)
        document = "query ($t: String!, $id: UUID!) { result: cable_paths_passing(object_type: $t, id: $id) }"
        found = run(document, {"t": self.resource.object_type, "id": str(pk)}, request)["result"]
        return [
            {
                "id": path["id"],
                **self.end(request, "origin", path["origin"]),
                **self.end(request, "destination", path["destination"]),
                "path": [self.shown(request, node) for node in path["path"]],
                "origin_id": path["origin"].partition(":")[2],
                "destination_id": (path["destination"] or "").partition(":")[2] or None,
                "is_active": path["is_active"],
                "is_split": path["is_split"],
                "peer_connector": path["peer_connector"],
                "origin_fans_out": path["origin_fans_out"],
                "destination_fans_out": path["destination_fans_out"],
            }
            for path in found
        ], 200

    @staticmethod
    def end(request, name: str, node: str | None) -> dict:
        object_type, _, pk = (node or "").partition(":")
        return {
            f"{name}_type": object_type or None,
            name: generic_ref(request.context, object_type or None, pk),
        }


class ConnectionListEndpoint(Endpoint):
    """`dcim/console-connections/`, `dcim/power-connections/`: the ports whose path reaches a far
    end, each as the port itself."""

    methods = ("GET",)

    def __init__(self, resource: Resource):
        self.resource = resource

    def get(self, request):
        require_view(self.resource, request)
        reaching = {"has_connected_endpoint": ["true"]}
        # `q` searches as the connection list's search says (the port's or its device's name).
        searched = {"q": CONNECTION_SEARCH} if CONNECTION_SEARCH in filters_of(self.resource) else {}
        return list_page(request, self.resource, reaching, allowed=self.filters(), arguments=searched), 200

    def filters(self) -> tuple[str, ...]:
        port_filters = (name for name in filters_of(self.resource) if name.partition("__")[0] in PORT_FILTERS)
        return (*CONNECTION_FILTERS, "q", *port_filters)


class InterfaceConnectionsEndpoint(Endpoint):
    """`dcim/interface-connections/`: each path joining two interfaces once, as the reference
    lists them: the path's id, both interfaces and whether every cable on it is connected."""

    methods = ("GET",)
    # Each end is an interface as its own list shows it (rest.openapi refers to its schema).
    item_schema = object_schema(
        id={"type": "string", "format": "uuid"},
        object_type=STRING,
        display=STRING,
        interface_a=OBJECT,
        interface_b=OBJECT,
        connected_endpoint_reachable=BOOLEAN,
    )

    def __init__(self, interfaces: Resource):
        self.interfaces = interfaces

    def get(self, request):
        require_view(self.interfaces, request)
        params = {key: request.GET.getlist(key) for key in request.GET if key not in RESERVED}
        filters = known_filters(params, (*CONNECTION_FILTERS, *PATH_FILTERS))
        limit, offset = parse_paging(request)
        declared = "".join(f", ${name}: [String]" for name in filters)
        passed = "".join(f", {name}: ${name}" for name in filters)
        document = (
            f"query ($limit: Int, $offset: Int, $sort: [String]{declared}) "
            f"{{ result: interface_connections(limit: $limit, offset: $offset, sort: $sort{passed}) }}"
        )
        variables = {"limit": limit, "offset": offset, "sort": request.GET.getlist("sort") or None}
        found = run(document, {**variables, **filters}, request)["result"]
        ends = {pk for row in found["results"] for pk in (row["interface_a"], row["interface_b"])}
        shown = self.interfaces_by_id(request, ends)
        results = []
        for row in found["results"]:
            a, b = shown.get(row["interface_a"]), shown.get(row["interface_b"])
            state = " (active)" if row["is_active"] else " (split)" if row["is_split"] else ""
            results.append(
                {
                    "id": row["id"],
                    "object_type": "dcim.cablepath",
                    "display": f"Path #{row['id']}: {row['name_a']} to {row['name_b']} "
                    f"via {row['hops']} nodes{state}",
                    "interface_a": a,
                    "interface_b": b,
                    "connected_endpoint_reachable": row["is_active"],
                }
            )
        return envelope(request, found["count"], limit, offset, results), 200

    def interfaces_by_id(self, request, ids: set[str]) -> dict[str, dict]:
        if not ids:
            return {}
        # Each end as a top-level interface shows (its tags too), as the reference's.
        shown = shown_many(self.interfaces, request)  # tags, or as exclude_m2m says
        fields = selection(self.interfaces, parse_depth(request), shown, counts=False)
        document = with_fragments(
            f"query ($ids: [String], $limit: Int) "
            f"{{ rows: {self.interfaces.list_field}(id: $ids, limit: $limit) {{ {fields} }} }}"
        )
        rows = run(document, {"ids": sorted(ids), "limit": len(ids)}, request)["rows"]
        return {row["id"]: row for row in parsed(rows)}


class ConnectedDeviceEndpoint(Endpoint):
    """`dcim/connected-device/?peer_device=&peer_interface=`: the device at the far end of a
    named interface's path (a device booting without configuration finds itself by LLDP)."""

    methods = ("GET",)
    query_parameters = (
        ("peer_device", {"type": "string"}, "the device's name"),
        ("peer_interface", {"type": "string"}, "the interface's name"),
        *ACTION_SHAPE,
    )

    def __init__(self, interfaces: Resource, devices: Resource):
        self.interfaces, self.devices = interfaces, devices

    def get(self, request):
        require_view(self.interfaces, request)
        device, name = request.GET.get("peer_device"), request.GET.get("peer_interface")
        if not device or not name:
            raise detail_error(400, 'Request must include "peer_device" and "peer_interface" filters.')
        document = (
            "query ($d: [String], $n: [String]) "
            f"{{ rows: {self.interfaces.list_field}(device: $d, name: $n, limit: 2) "
            f"{{ connected_endpoint {{ ... on {self.interfaces.type_name} {{ device {{ id }} }} }} }} }}"
        )
        rows = parsed(run(document, {"d": [device], "n": [name]}, request)["rows"])
        if len(rows) != 1:
            raise not_found(self.interfaces)
        far = rows[0]["connected_endpoint"] or {}
        if not far.get("device"):
            return None, 200  # no far end: an empty answer, as the reference gives
        require_view(self.devices, request)
        return read_object(request, self.devices, uuid.UUID(far["device"]["id"]), parse_depth(request)), 200
