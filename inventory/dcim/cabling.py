"""How cable ends are declared (their cable, the object at the far end, the endpoint their path
reaches, `available_for_cable`) and how cables are filtered by what their ends' devices belong to."""

from django.contrib.contenttypes.models import ContentType
from django.db.models import Q

from inventory.tenancy.models import Tenant
from queryengine.registry import Computed, CustomFilter

from .choices import COMPATIBLE_TERMINATIONS
from .filters import available_for_cable, flag, objects_named
from .models import (
    ConsolePort,
    ConsoleServerPort,
    Device,
    FrontPort,
    Interface,
    Location,
    PowerOutlet,
    PowerPort,
    Rack,
    RearPort,
)
from .models.cables import CableTermination
from .models.paths import ENDPOINT_TYPES, ENDPOINTS, object_types

CABLED_COMPONENTS = (ConsolePort, ConsoleServerPort, PowerPort, PowerOutlet, Interface, FrontPort, RearPort)

CABLE_PEER_TYPE = Computed(
    ("_cable_peer_type__app_label", "_cable_peer_type__model"),
    lambda app, model: f"{app}.{model}" if app else None,
)


CONNECTED_ENDPOINT = {
    "connected_endpoint_type": Computed(
        ("_path__destination_type__app_label", "_path__destination_type__model"),
        lambda app, model: f"{app}.{model}" if app else None,
    ),
    # A cabled endpoint has a path, complete or not (reachable: whether it is active); an
    # uncabled one none (null).
    "connected_endpoint_reachable": Computed(
        ("_path__is_active", "cable_id"),
        lambda active, cable: None if cable is None else bool(active),
        output="object",
    ),
}


def cabled(model, endpoint: bool = True, **declaration) -> dict:
    """A cable-able resource's declaration: it also shows its cable and the object at the far end,
    and an endpoint (not a front or rear port) where its path arrives; each also as one field per
    kind of object a cable from `model` may reach (`cable_peer_interface`, `connected_interface`)."""
    computed = {"cable_peer_type": CABLE_PEER_TYPE, **(CONNECTED_ENDPOINT if endpoint else {})}
    generic = {**CableTermination.CABLE_GENERIC}
    peers = COMPATIBLE_TERMINATIONS[model._meta.model_name]
    by_type = {"cable_peer": ("cable_peer", object_types(peers))}
    # Typed as the reference types them: unions of what a cable or a path may reach.
    unions = {"cable_peer": "CableTerminationTypes"}
    if endpoint:
        generic["connected_endpoint"] = ("_path__destination_type", "_path__destination_id", ENDPOINT_TYPES)
        by_type["connected_endpoint"] = ("connected", object_types(peers & ENDPOINTS))
        unions["connected_endpoint"] = "PathEndpointTypes"
    return {
        **declaration,
        "generic_by_type": by_type,
        "unions": unions,
        # The path starting here (its `cable_paths`: CablePath's generic list).
        **({"graphql_names": {"path": "_path"}} if endpoint else {}),
        "computed": {**computed, **declaration.get("computed", {})},
        "generic": {**generic, **declaration.get("generic", {})},
        "read_only": ("cable", *declaration.get("read_only", ())),
        "nested_as_generic": ("cable",),
        "has": ("cable", *declaration.get("has", ())),
        "filters": {
            "cabled": flag(lambda _: Q(cable__isnull=False), lambda end: end.cable_id is not None),
            "available_for_cable": available_for_cable(),
            **({"connected": CONNECTED, "has_connected_endpoint": REACHING} if endpoint else {}),
            **declaration.get("filters", {}),
        },
    }


CONNECTED = flag(
    lambda _: Q(_path__is_active=True), lambda end: end._path_id is not None and end._path.is_active
)
# Paths that arrive somewhere (connected or not): the connection lists show these.
REACHING = flag(
    lambda _: Q(_path__destination_id__isnull=False),
    lambda end: end._path_id is not None and end._path.destination_id is not None,
)


def cable_ends(path: str, model, label) -> CustomFilter:
    """Cables with an end on a component whose `path` (device, device__location) is one of the
    given objects, named by id or name."""

    def parse(value: str):
        return objects_named(model, value)

    def build(groups) -> Q:
        pks = [pk for group in groups for pk in group]
        query = Q(pk__in=[])
        for component in CABLED_COMPONENTS:
            ends = component.objects.filter(**{f"{path}__in": pks}).values("pk")
            kind = ContentType.objects.get_for_model(component)
            query |= Q(termination_a_type=kind, termination_a_id__in=ends)
            query |= Q(termination_b_type=kind, termination_b_id__in=ends)
        return query

    def oracle(cable, groups) -> bool:
        pks = {pk for group in groups for pk in group}
        for end in (cable.end("a"), cable.end("b")):
            target = end
            for part in path.split("__"):
                target = getattr(target, part, None)
            if target is not None and target.pk in pks:
                return True
        return False

    return CustomFilter(build, parse, oracle, (label,) if isinstance(label, str) else label)


def end_values(path: str):
    """Sample values of a cable filter by its ends' `path` (device__rack): the first end's."""

    def samples(cables) -> list:
        for cable in cables:
            found = cable.end("a")
            for part in path.split("__"):
                found = getattr(found, part, None)
            if found is not None:
                return [str(found.pk)]
        return []

    return samples


# Cables by the objects their ends' devices are in or belong to, by id (or name), as the reference's.
CABLE_ENDS_BY = {
    "device_id": ("device", Device, end_values("device")),
    "rack": ("device__rack", Rack, end_values("device__rack")),
    "rack_id": ("device__rack", Rack, end_values("device__rack")),
    "location_id": ("device__location", Location, end_values("device__location")),
    "tenant": ("device__tenant", Tenant, end_values("device__tenant")),
    "tenant_id": ("device__tenant", Tenant, end_values("device__tenant")),
}
