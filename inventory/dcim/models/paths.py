"""Cable paths: where a signal from an endpoint arrives, through patch panels and circuits.

Each endpoint (an interface, a console, power or circuit end) stores the path that starts at it:
its hops, its far end and whether every cable on it is connected. Paths are traced when a
cable, a port mapping or a circuit termination changes, never when they are read.
"""

import threading
from contextlib import contextmanager

from django.apps import apps
from django.contrib.contenttypes.models import ContentType
from django.db import models

from inventory.base import BaseModel

# Objects a path starts and may end at; front and rear ports only pass it on.
ENDPOINTS = frozenset(
    {
        "interface",
        "consoleport",
        "consoleserverport",
        "powerport",
        "poweroutlet",
        "powerfeed",
        "circuittermination",
    }
)
CONNECTED = "Connected"


def object_types(model_names) -> tuple[str, ...]:
    """`<app>.<model>` labels of cable-able models named by model name alone."""
    return tuple(sorted(f"{'circuits' if m == 'circuittermination' else 'dcim'}.{m}" for m in model_names))


ENDPOINT_TYPES = object_types(ENDPOINTS)


def node_of(obj) -> str:
    return f"{obj._meta.app_label}.{obj._meta.model_name}:{obj.pk}"


def object_at(node: str):
    label, _, pk = node.partition(":")
    app_label, model_name = label.split(".")
    return apps.get_model(app_label, model_name)._default_manager.filter(pk=pk).first()


class CablePath(BaseModel):
    origin_type = models.ForeignKey(ContentType, on_delete=models.CASCADE, related_name="+")
    origin_id = models.UUIDField()
    destination_type = models.ForeignKey(
        ContentType, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    destination_id = models.UUIDField(null=True, blank=True)
    path = models.JSONField(default=list)  # the hops in order, as "<app>.<model>:<id>"
    is_active = models.BooleanField(default=False)
    is_split = models.BooleanField(default=False)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["origin_type", "origin_id"], name="dcim_cablepath_origin")
        ]


class CablePathNode(models.Model):
    """One hop of a path, indexed: which paths pass an object is one lookup."""

    id = models.BigAutoField(primary_key=True)
    cable_path = models.ForeignKey(CablePath, on_delete=models.CASCADE, related_name="nodes")
    node = models.CharField(max_length=100, db_index=True)


class PathEndpoint(models.Model):
    """An object a path starts at: it shows where its path arrives."""

    _path = models.ForeignKey(CablePath, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")

    class Meta:
        abstract = True


def peer_of(end):
    """The object at the other end of `end`'s cable."""
    return Hops().peer(end)


class Hops:
    """The cables and objects traces step through, loaded in bulk when many paths are traced at
    once (a bulk write of cables): a trace then reads its first hops without a query."""

    def __init__(self):
        self.cables: dict = {}
        self.objects: dict = {}

    def preload(self, ends) -> None:
        from .cables import Cable

        wanted = {end.cable_id for end in ends if end.cable_id is not None} - self.cables.keys()
        self.cables.update(Cable.objects.select_related("status").in_bulk(wanted))
        by_type: dict = {}
        for end in ends:
            if end.cable_id is not None and end._cable_peer_type_id is not None:
                by_type.setdefault(end._cable_peer_type_id, set()).add(end._cable_peer_id)
        for type_id, ids in by_type.items():
            model = ContentType.objects.get_for_id(type_id).model_class()
            for obj in model._default_manager.filter(pk__in=ids):
                self.objects[(type_id, obj.pk)] = obj

    def cable(self, pk):
        from .cables import Cable

        if pk not in self.cables:
            self.cables[pk] = Cable.objects.select_related("status").get(pk=pk)
        return self.cables[pk]

    def peer(self, end):
        if end.cable_id is None or end._cable_peer_type_id is None:
            return None
        key = (end._cable_peer_type_id, end._cable_peer_id)
        if key not in self.objects:
            model = ContentType.objects.get_for_id(key[0]).model_class()
            self.objects[key] = model._default_manager.filter(pk=key[1]).first()
        return self.objects[key]


def trace(origin, hops_cache: Hops | None = None) -> tuple[list, object, bool, bool]:
    """(hops, far end or None, every cable connected, split at a multi-position rear port)."""
    from .components import FrontPort, RearPort

    known = hops_cache or Hops()
    hops, active, positions = [node_of(origin)], True, []
    current, destination, split = origin, None, False
    while len(hops) < 200:
        peer = known.peer(current)
        if peer is None:
            break
        cable = known.cable(current.cable_id)
        active &= cable.status.name == CONNECTED
        hops += [node_of(cable), node_of(peer)]
        kind = peer._meta.model_name
        if kind == "circuittermination":
            other = type(peer)._default_manager.filter(circuit=peer.circuit_id).exclude(pk=peer.pk).first()
            if other is None:  # a circuit needs no far end: the path ends at this termination
                destination = peer
                break
            hops.append(node_of(other))
            if other.cable_id is None:  # the far end is not cabled yet: the path is incomplete
                break
            current = other
        elif kind in ENDPOINTS:
            destination = peer
            break
        elif isinstance(peer, FrontPort):
            positions.append(peer.rear_port_position)
            current = peer.rear_port
            hops.append(node_of(current))
        elif isinstance(peer, RearPort):
            if positions:
                position = positions.pop()
            elif peer.positions == 1:
                position = 1
            else:
                split = True
                break
            front = FrontPort.objects.filter(rear_port=peer, rear_port_position=position).first()
            if front is None:
                break
            current = front
            hops.append(node_of(front))
        else:
            break
    return hops, destination, active and destination is not None, split


def retrace(origin) -> None:
    """Store the path that starts at `origin` (an endpoint), replacing the one it had."""
    retrace_all([origin])


def retrace_all(origins: list) -> None:
    """Store the paths that start at `origins` (fresh endpoint objects) in a few bulk queries.
    Paths are updated in place: objects of the same request loaded earlier keep a valid `_path`."""
    if not origins:
        return
    known = Hops()
    known.preload(origins)
    types = {type(o): ContentType.objects.get_for_model(o) for o in origins}
    existing = {
        (path.origin_type_id, path.origin_id): path
        for path in CablePath.objects.filter(origin_id__in=[o.pk for o in origins])
    }
    created, updated, nodes = [], [], []
    for origin in origins:
        hops, destination, active, split = trace(origin, known)
        kind = types[type(origin)]
        path = existing.get((kind.pk, origin.pk))
        if path is None:
            path = CablePath(origin_type=kind, origin_id=origin.pk)
            created.append(path)
        else:
            updated.append(path)
        path.destination_type = ContentType.objects.get_for_model(destination) if destination else None
        path.destination_id = destination.pk if destination is not None else None
        path.path, path.is_active, path.is_split = hops, active, split
        nodes += [CablePathNode(cable_path=path, node=hop) for hop in hops]
        origin._path = path
    CablePath.objects.bulk_create(created)
    CablePath.objects.bulk_update(
        updated, ["destination_type", "destination_id", "path", "is_active", "is_split"]
    )
    CablePathNode.objects.filter(cable_path__in=[p.pk for p in updated]).delete()
    CablePathNode.objects.bulk_create(nodes)
    by_model: dict = {}
    for origin in origins:
        by_model.setdefault(type(origin), []).append(origin)
    for model, members in by_model.items():
        model._default_manager.bulk_update(members, ["_path"])


# Objects whose paths wait for the end of a bulk write (None: trace at once).
_pending = threading.local()


@contextmanager
def retrace_later():
    """Within it, `retrace_through` notes what changed and the paths are traced once, together,
    at its end: a bulk write of a thousand cables traces in a few queries, not per cable."""
    if getattr(_pending, "objects", None) is not None:
        yield  # an outer batch traces
        return
    _pending.objects = {}
    try:
        yield
        waiting = list(_pending.objects.values())
    finally:
        _pending.objects = None
    _retrace_now(waiting)


def retrace_through(*objects) -> None:
    """Trace again every path that passes any of `objects`, and the paths starting at them."""
    objects = [obj for obj in objects if obj is not None]
    waiting = getattr(_pending, "objects", None)
    if waiting is None:
        return _retrace_now(objects)
    for obj in objects:
        waiting[node_of(obj)] = obj


def _retrace_now(objects: list) -> None:
    if not objects:
        return
    wanted: dict = {}  # model -> ids of the origins to trace again
    for obj in objects:
        if obj._meta.model_name in ENDPOINTS:
            wanted.setdefault(type(obj), set()).add(obj.pk)
    passing = CablePath.objects.filter(nodes__node__in=[node_of(obj) for obj in objects]).distinct()
    for origin_type, origin_id in passing.values_list("origin_type", "origin_id"):
        wanted.setdefault(ContentType.objects.get_for_id(origin_type).model_class(), set()).add(origin_id)
    # Read afresh: their cables changed since they were loaded, and deleted ones drop out.
    origins = [obj for model, ids in wanted.items() for obj in model._default_manager.filter(pk__in=ids)]
    retrace_all(origins)
