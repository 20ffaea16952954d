"""Routes, generated from the registry: every resource gets list, detail and notes paths."""

from django.urls import path, re_path

from queryengine.registry import resource_for, resources

from . import cabling, docs, status, views

# Endpoints whose list path does more than the generic one.
LIST_ENDPOINTS = {"users/tokens": views.TokenListEndpoint}


def _allocation(query_field: str, mutation_field: str, created_model: str, limit: bool):
    from django.apps import apps

    from inventory.ipam.models import Prefix

    return lambda: views.AvailableEndpoint(
        resource_for(Prefix), query_field, mutation_field, resource_for(apps.get_model(created_model)), limit
    )


def _rack_elevation():
    from inventory.dcim.models import Rack

    return views.ObjectListEndpoint(resource_for(Rack), "rack_elevation", "rack", ("face", "exclude", "q"))


def _group_members():
    from inventory.extras.groups import members_scope
    from inventory.extras.models import DynamicGroup

    return views.ScopedListEndpoint(resource_for(DynamicGroup), members_scope)


def _extras(model: str, make):
    from django.apps import apps

    return lambda: make(resource_for(apps.get_model("extras", model)))


# Paths below an object's detail path: name -> endpoint factory.
SUB_ENDPOINTS = {
    "extras/dynamic-groups": {"members": _group_members},
    "extras/secrets": {"check": _extras("Secret", lambda r: views.ObjectValueEndpoint(r, "secret_check"))},
    "extras/graphql-queries": {"run": _extras("GraphQLQuery", lambda r: views.RunQueryEndpoint(r, "query"))},
    "dcim/racks": {"elevation": _rack_elevation},
    "ipam/prefixes": {
        "available-prefixes": _allocation(
            "available_prefixes", "allocate_prefixes", "ipam.Prefix", limit=False
        ),
        "available-ips": _allocation(
            "available_ip_addresses", "allocate_ip_addresses", "ipam.IPAddress", limit=True
        ),
    },
}


def job_endpoints() -> dict:
    from inventory.jobs.api import SUB_ENDPOINTS as JOB_SUB_ENDPOINTS

    return JOB_SUB_ENDPOINTS


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


def build_urlpatterns() -> list:
    from inventory.extras.models import Note

    notes = resource_for(Note)
    patterns = [
        path("", views.RootEndpoint()),
        path("status/", status.StatusEndpoint()),
        path("graphql/", views.GraphQLEndpoint()),
        path("docs/", docs.PageView("rest/swagger_ui.html")),
        path("redoc/", docs.PageView("rest/redoc.html")),
        path("docs/assets/<path:name>", docs.asset),
        path("swagger/", docs.SchemaView()),
        path("schema/", docs.SchemaView()),
        path("swagger.json", docs.SchemaView("json")),
        path("swagger.yaml", docs.SchemaView("yaml")),
    ]
    extra = connection_endpoints()
    patterns += [path(f"{app}/", views.AppRootEndpoint(app, tuple(extra))) for app in views.API_APPS]
    patterns += [path(f"{route}/", endpoint) for route, endpoint in extra.items()]
    sub_endpoints = {**SUB_ENDPOINTS, **job_endpoints()}
    for resource in resources():
        list_endpoint = LIST_ENDPOINTS.get(resource.route, views.ListEndpoint)
        patterns.append(path(f"{resource.route}/", list_endpoint(resource)))
        patterns.append(path(f"{resource.route}/<str:key>/", views.DetailEndpoint(resource)))
        for path_name, endpoint in sub_endpoints.get(resource.route, {}).items():
            patterns.append(path(f"{resource.route}/<str:key>/{path_name}/", endpoint()))
        if "connected_endpoint" in resource.generic:  # objects a cable path starts at
            patterns.append(path(f"{resource.route}/<str:key>/trace/", cabling.TraceEndpoint(resource)))
        elif "cable_peer" in resource.generic:  # pass-through ports: the paths crossing them
            patterns.append(path(f"{resource.route}/<str:key>/paths/", cabling.PathsEndpoint(resource)))
        if resource.has_notes:
            patterns.append(path(f"{resource.route}/<str:key>/notes/", views.NotesEndpoint(resource, notes)))
    patterns += [
        re_path(r"^(?P<path>.*[^/])$", views.missing_slash),
        re_path(r"^(?P<path>.*)$", views.unknown_endpoint),
    ]
    return patterns


urlpatterns = build_urlpatterns()
