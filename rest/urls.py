"""Routes, generated from the registry: every resource gets list, detail and notes paths."""

from collections import defaultdict

from django.urls import include, path, re_path

from queryengine.registry import resource_for, resources

from . import cabling, docs, fallbacks, objectviews, rendering, roots, status, views

# Endpoints whose list path does more than the generic one.
LIST_ENDPOINTS = {"users/tokens": views.TokenListEndpoint}
DETAIL_ENDPOINTS = {"users/tokens": views.TokenDetailEndpoint}


# A secret's check: whether its value could be read, and why not.
SECRET_CHECK = {
    "type": "object",
    "properties": {"result": {"type": "boolean"}, "message": {"type": "string"}},
    "required": ["result", "message"],
}


def _allocation(query_field: str, mutation_field: str, created_model: str, value: str, limit: bool):
    from django.apps import apps

    from inventory.ipam.models import Prefix

    return lambda: objectviews.AvailableEndpoint(
        resource_for(Prefix),
        query_field,
        mutation_field,
        resource_for(apps.get_model(created_model)),
        limit,
        value=value,
    )


def _available_vlans():
    from inventory.ipam.models import VLAN, VLANGroup

    return objectviews.AvailableVLANsEndpoint(
        resource_for(VLANGroup), "available_vlan_ids", "allocate_vlans", resource_for(VLAN), limit=True
    )


def _napalm():
    from inventory.dcim.models import Device

    return objectviews.NapalmEndpoint(resource_for(Device))


def _location_stats():
    from inventory.dcim.models import Location
    from inventory.dcim.stats import LOCATION_STATS

    routed = {r.route: r for r in resources()}
    counted = [routed[route] for route in LOCATION_STATS if route in routed]
    return objectviews.ObjectStatsEndpoint(resource_for(Location), counted, "location")


def _rack_elevation():
    from inventory.dcim.models import Rack

    unit = {
        "type": "object",
        "properties": {
            "id": {"type": "integer"},
            "name": {"type": "string"},
            "face": {
                "type": "object",
                "properties": {"value": {"type": "string"}, "label": {"type": "string"}},
            },
            "occupied": {"type": "boolean"},
        },
    }
    # What the reference's elevation takes: its list's narrowing, then the sizes of the SVG
    # drawing `render=svg` would give (not served here: docs/differences.md).
    boolean, integer, text = {"type": "boolean"}, {"type": "integer"}, {"type": "string"}
    arguments = (
        ("face", {"type": "string", "enum": ["front", "rear"], "default": "front"}, "the rack face"),
        ("exclude", {**text, "format": "uuid"}, "a device to leave out (one being moved)"),
        ("q", text, "units whose number or name contains this"),
        ("expand_devices", {**boolean, "default": True}, "false: a device's lowest unit alone"),
        ("is_occupied", {**boolean, "nullable": True}, "units taken (true) or free (false)"),
    )
    drawing = (
        ("render", {**text, "enum": ["json"], "default": "json"}, "json (an SVG drawing is not served)"),
        ("unit_width", integer, "of a drawing"),
        ("unit_height", integer, "of a drawing"),
        ("legend_width", {**integer, "default": 30}, "of a drawing"),
        ("include_images", {**boolean, "default": True}, "in a drawing"),
        ("display_fullname", {**boolean, "default": True}, "in a drawing"),
    )
    return objectviews.ObjectListEndpoint(
        resource_for(Rack), "rack_elevation", "rack", arguments, item_schema=unit, taken=drawing
    )


def _group_members():
    from inventory.extras.groups import members_scope
    from inventory.extras.models import DynamicGroup

    return views.ScopedListEndpoint(resource_for(DynamicGroup), members_scope)


def _extras(model: str, make):
    from django.apps import apps

    return lambda: make(resource_for(apps.get_model("extras", model)))


def _saved_view_default():
    from inventory.extras.models import SavedView, UserSavedViewAssociation

    return objectviews.SavedViewDefaultEndpoint(
        resource_for(SavedView), resource_for(UserSavedViewAssociation)
    )


def _git_sync():
    from inventory.extras.gitapi import sync_endpoint

    return sync_endpoint()


# Paths below an object's detail path: name -> endpoint factory.
SUB_ENDPOINTS = {
    "extras/dynamic-groups": {"members": _group_members},
    "extras/secrets": {
        "check": _extras("Secret", lambda r: objectviews.ObjectValueEndpoint(r, "secret_check", SECRET_CHECK))
    },
    "extras/git-repositories": {"sync": _git_sync},
    "extras/saved-views": {"set-default": _saved_view_default},
    "extras/graphql-queries": {
        "run": _extras("GraphQLQuery", lambda r: objectviews.RunQueryEndpoint(r, "query"))
    },
    "dcim/racks": {"elevation": _rack_elevation},
    "dcim/devices": {"napalm": _napalm},
    "dcim/locations": {"stats": _location_stats},
    "ipam/vlan-groups": {"available-vlans": _available_vlans},
    "ipam/prefixes": {
        "available-prefixes": _allocation(
            "available_prefixes", "allocate_prefixes", "ipam.Prefix", "prefix", limit=False
        ),
        "available-ips": _allocation(
            "available_ip_addresses", "allocate_ip_addresses", "ipam.IPAddress", "address", limit=True
        ),
    },
}


def job_endpoints() -> dict:
    from inventory.jobs.api import SUB_ENDPOINTS as JOB_SUB_ENDPOINTS

    return JOB_SUB_ENDPOINTS


def legacy_routes() -> dict:
    """Paths of API 1.x alone (jobs by class path), after every other route."""
    from inventory.jobs.legacy import ROUTES

    return ROUTES


def connection_endpoints() -> dict:
    """The connection lists and the connected-device lookup: views over cable paths."""
    from inventory.dcim.models import ConsolePort, Device, Interface, PowerPort

    interfaces = resource_for(Interface)
    return {
        "dcim/console-connections": cabling.ConnectionListEndpoint(resource_for(ConsolePort)),
        "dcim/power-connections": cabling.ConnectionListEndpoint(resource_for(PowerPort)),
        "dcim/interface-connections": cabling.InterfaceConnectionsEndpoint(interfaces),
        "dcim/connected-device": cabling.ConnectedDeviceEndpoint(interfaces, resource_for(Device)),
    }


def user_endpoints() -> dict:
    """Paths about the requesting user beside the users application's models."""
    from .userconfig import UserConfigEndpoint

    return {"users/config": UserConfigEndpoint()}


def api_routes() -> list[tuple[str, object]]:
    """(route, endpoint) of every API path below /api/, in the order the documents list them."""
    from inventory.extras.models import Note

    notes = resource_for(Note)
    routes = [
        ("", roots.RootEndpoint()),
        ("status/", status.StatusEndpoint()),
        ("graphql/", roots.GraphQLEndpoint()),
        ("docs/", docs.PageView("rest/swagger_ui.html")),
        ("redoc/", docs.PageView("rest/redoc.html", inline_styles=True, per_endpoint=True)),
        ("docs/assets/<path:name>", docs.asset),
        ("swagger/", docs.SchemaView()),
        ("schema/", docs.SchemaView()),
        ("swagger.json", docs.SchemaView("json")),
        ("swagger.yaml", docs.SchemaView("yaml")),
        ("core/render-jinja-template/", rendering.RenderTemplateEndpoint()),
    ]
    for root, listing in views.ADD_ON_ROOTS.items():
        routes += [
            (f"{root}/", roots.AddOnRootEndpoint(root)),
            (f"{root}/{listing}/", roots.InstalledAddOnsEndpoint()),
        ]
    extra = {**connection_endpoints(), **user_endpoints()}
    routes += [(f"{app}/", roots.AppRootEndpoint(app, tuple(extra))) for app in views.API_APPS]
    routes += [(f"{route}/", endpoint) for route, endpoint in extra.items()]
    sub_endpoints = {**SUB_ENDPOINTS, **job_endpoints()}
    for resource in (r for r in resources() if r.routed):
        list_endpoint = LIST_ENDPOINTS.get(resource.route, views.ListEndpoint)
        routes.append((f"{resource.route}/", list_endpoint(resource)))
        detail_endpoint = DETAIL_ENDPOINTS.get(resource.route, views.DetailEndpoint)
        routes.append((f"{resource.route}/<str:key>/", detail_endpoint(resource)))
        for path_name, endpoint in sub_endpoints.get(resource.route, {}).items():
            routes.append((f"{resource.route}/<str:key>/{path_name}/", endpoint()))
        if "connected_endpoint" in resource.generic:  # objects a cable path starts at
            routes.append((f"{resource.route}/<str:key>/trace/", cabling.TraceEndpoint(resource)))
        elif "cable_peer" in resource.generic:  # pass-through ports: the paths crossing them
            routes.append((f"{resource.route}/<str:key>/paths/", cabling.PathsEndpoint(resource)))
        if resource.has_notes:
            routes.append((f"{resource.route}/<str:key>/notes/", views.NotesEndpoint(resource, notes)))
    routes += [(route, endpoint()) for route, endpoint in legacy_routes().items()]
    return routes


def build_urlpatterns(routes: list[tuple[str, object]]) -> list:
    """The routes, each application's below its own prefix: a request is matched against its
    application's few dozen patterns rather than against several hundred."""
    top, below = [], defaultdict(list)
    for route, endpoint in routes:
        app, _, rest = route.partition("/")
        if app in views.API_APPS:
            below[app].append(path(rest, endpoint))
        else:
            top.append(path(route, endpoint))
    return [
        *top,
        *(path(f"{app}/", include(patterns)) for app, patterns in below.items()),
        re_path(r"^(?P<path>.*[^/])$", fallbacks.missing_slash),
        re_path(r"^(?P<path>.*)$", fallbacks.unknown_endpoint),
    ]


ROUTES = api_routes()
urlpatterns = build_urlpatterns(ROUTES)
