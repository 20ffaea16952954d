"""Cable paths: where a signal from an endpoint arrives, through patch panels and circuits.

Each endpoint (an interface, a console, power or circuit end) stores the path that starts at it:
its hops, its far end and whether every cable on it is connected. Paths are traced when a
cable, a port mapping or a circuit termination changes, never when they are read.
"""

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
    if end.cable_id is None or end._cable_peer_type_id is None:
        return None
    model = ContentType.objects.get_for_id(end._cable_peer_type_id).model_class()
    return model._default_manager.filter(pk=end._cable_peer_id).first()


def trace(origin) -> tuple[list, object, bool, bool]:
    """(hops, far end or None, every cable connected, split at a multi-position rear port)."""
    from .cables import Cable
    from .components import FrontPort, RearPort

    hops, active, positions = [node_of(origin)], True, []
    current, destination, split = origin, None, False
    while len(hops) < 200:
        peer = peer_of(current)
        if peer is None:
            break
        cable = Cable.objects.select_related("status").get(pk=current.cable_id)
        active &= cable.status.name == CONNECTED
        hops += [node_of(cable), node_of(peer)]
        kind = peer._meta.model_name
        if kind == "circuittermination":
            other = type(peer)._default_manager.filter(circuit=peer.circuit_id).exclude(pk=peer.pk).first()
            if other is None or other.cable_id is None:
                destination = other or peer
                if other is not None:
                    hops.append(node_of(other))
                break
            hops.append(node_of(other))
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
    origin_type = ContentType.objects.get_for_model(origin)
    hops, destination, active, split = trace(origin)
    # Updated in place: objects of the same request loaded earlier keep a valid `_path`.
    path, _ = CablePath.objects.update_or_create(
        origin_type=origin_type,
        origin_id=origin.pk,
        defaults={
            "destination_type": ContentType.objects.get_for_model(destination)
            if destination is not None
            else None,
            "destination_id": destination.pk if destination is not None else None,
            "path": hops,
            "is_active": active,
            "is_split": split,
        },
    )
    path.nodes.all().delete()
    CablePathNode.objects.bulk_create(CablePathNode(cable_path=path, node=hop) for hop in hops)
    type(origin)._default_manager.filter(pk=origin.pk).update(_path=path)


def retrace_through(*objects) -> None:
    """Trace again every path that passes any of `objects`, and the paths starting at them."""
    origins = {}
    for obj in objects:
        if obj is None:
            continue
        if obj._meta.model_name in ENDPOINTS and type(obj)._default_manager.filter(pk=obj.pk).exists():
            origins[node_of(obj)] = obj
    nodes = [node_of(obj) for obj in objects if obj is not None]
    passing = CablePath.objects.filter(nodes__node__in=nodes).distinct()
    for origin_type, origin_id in passing.values_list("origin_type", "origin_id"):
        model = ContentType.objects.get_for_id(origin_type).model_class()
        found = model._default_manager.filter(pk=origin_id).first()
        if found is not None:
            origins[node_of(found)] = found
    for origin in origins.values():
        origin.refresh_from_db(fields=["cable", "_cable_peer_type", "_cable_peer_id"])
        retrace(origin)
