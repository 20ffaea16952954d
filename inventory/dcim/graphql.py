"""GraphQL fields beside the generated ones: a rack's elevation (REST: racks/<id>/elevation/),
and what the reference's types derive from other objects (a device's one `cluster`, its
virtual chassis's interfaces, a module's `device`), each read a page at a time."""

from __future__ import annotations

import uuid

import graphene
from django.db.models import Q

from queryengine.errors import NotFound, ValidationFailed
from queryengine.permissions import restricted
from queryengine.query import default_order
from queryengine.registry import Derived, ExtensionList, resource_for
from queryengine.scalars import UUID, GenericScalar

from . import choices
from .models import Device, DeviceClusterAssignment, Interface, Rack
from .models.paths import node_of

FACE_LABELS = dict(choices.FACES)


def resolve_rack_elevation(
    root, info, rack, face="front", exclude=None, q=None, expand_devices=True, is_occupied=None
):
    """One entry per unit, top to bottom as the rack is numbered: whether it is occupied on that
    face. Without `expand_devices` a device's upper units are left out (its lowest one stands for
    it); `is_occupied` keeps the units taken (true) or free (false); `q` those whose number or
    name contains it, as the reference's."""
    found = restricted(resource_for(Rack), info.context.user).filter(pk=rack).first()
    if found is None:
        raise NotFound("No Rack matches the given query.")
    face = face or "front"
    if face not in FACE_LABELS:
        raise ValidationFailed({"face": [f'"{face}" is not a valid choice.']})
    excluded = []
    if exclude:
        try:
            excluded = [uuid.UUID(exclude)]
        except ValueError:
            raise ValidationFailed({"exclude": ["Must be a valid UUID."]}) from None
    occupied, hidden = set(), set()
    devices = (
        found.devices.filter(position__isnull=False, device_type__u_height__gt=0)
        .filter(Q(face=face) | Q(device_type__is_full_depth=True))
        .exclude(pk__in=excluded)
    )
    for position, height in devices.values_list("position", "device_type__u_height"):
        occupied.update(range(position, position + height))
        if expand_devices is False:
            hidden.update(range(position + 1, position + height))
    face_value = {"value": face, "label": FACE_LABELS[face]}
    # Whether a unit is taken, not by what: the reference's units name no device.
    units = [
        {"id": unit, "name": f"U{unit}", "face": face_value, "occupied": unit in occupied}
        for unit in found.units
        if unit not in hidden and (is_occupied is None or (unit in occupied) == is_occupied)
    ]
    return [u for u in units if q in str(u["id"]) or q in u["name"]] if q else units


def resolve_cable_trace(root, info, object_type, id):
    """The segments of the path that starts at an object: [near end, cable, far end] per cable,
    each an "<app>.<model>:<id>" node (the far end null where the path stops)."""
    from django.contrib.contenttypes.models import ContentType

    from .models.paths import CablePath

    resource = visible_resource(info, object_type, id)
    app_label, _, model = object_type.partition(".")
    origin_type = ContentType.objects.get_by_natural_key(app_label, model)
    path = (
        CablePath.objects.filter(origin_type=origin_type, origin_id=id).values_list("path", flat=True).first()
    )
    hops = path or [node_of(resource.model(pk=id))]
    segments = [
        [hops[i - 1], hop, hops[i + 1] if i + 1 < len(hops) else None]
        for i, hop in enumerate(hops)
        if hop.startswith("dcim.cable:")
    ]
    # A path that goes on past its last cable (a circuit's far termination, not cabled) ends
    # with that object alone; an object without a cable has no segment.
    if segments and len(hops) > 2 * len(segments) + 1 and not hops[-2].startswith("dcim.cable:"):
        segments.append([hops[-1], None, None])
    return segments


def visible_resource(info, object_type: str, pk):
    """The resource of an object the caller may see (404 otherwise)."""
    from queryengine.registry import resource_by_object_type

    resource = resource_by_object_type(object_type)
    if resource is None or not restricted(resource, info.context.user).filter(pk=pk).exists():
        raise NotFound(f"No {resource.verbose_name if resource else 'object'} matches the given query.")
    return resource


def resolve_cable_paths(root, info, object_type, id):
    """The paths that pass an object (a front or rear port): origin, far end and the hops
    between them, as "<app>.<model>:<id>" nodes."""
    from .models.paths import CablePath

    resource = visible_resource(info, object_type, id)
    node = node_of(resource.model(pk=id))
    paths = list(CablePath.objects.filter(nodes__node=node).distinct().order_by("pk"))
    fanning = fans_out({path.path[0] for path in paths} | {path.path[-1] for path in paths})
    return [
        {
            "id": path.pk,
            "origin": path.path[0],
            "destination": path.path[-1] if path.destination_id else None,
            "path": path.path[1:-1] if path.destination_id else path.path[1:],
            "is_active": path.is_active,
            "is_split": path.is_split,
            # One path per origin here (the reference keeps one per breakout connector): the
            # connector on the origin cable's far side it leaves through is always the first.
            "peer_connector": 1,
            "origin_fans_out": path.path[0] in fanning,
            "destination_fans_out": bool(path.destination_id) and path.path[-1] in fanning,
        }
        for path in paths
    ]


def fans_out(nodes: set[str]) -> set[str]:
    """Those of the given path nodes that sit on the fan-out side of a breakout cable: their
    connector shares lanes with more than one connector of the cable's other end."""
    from .models.cabletypes import END_FIELDS, CableToCableTermination

    by_field: dict = {}
    for node in nodes:
        label, _, pk = node.partition(":")
        field = END_FIELDS.get(label.partition(".")[2])
        if field is not None:
            by_field.setdefault(field, set()).add(pk)
    query = Q(pk__in=[])
    for field, pks in by_field.items():
        query |= Q(**{f"{field}_id__in": pks})
    records = CableToCableTermination.objects.filter(query, cable__cable_type__isnull=False).select_related(
        "cable__cable_type"
    )
    found = set()
    for record in records:
        our, their = ("a", "b") if record.cable_end == "A" else ("b", "a")
        far = {
            e[f"{their}_connector"]
            for e in record.cable.cable_type.mapping
            if e[f"{our}_connector"] == record.connector
        }
        if len(far) > 1:
            found.add(node_of(record.termination))
    return found


# How the interface connections sort: by the path's own values, as the reference's list of paths.
PATH_SORT = {"id": "_path_id", "is_active": "_path__is_active", "is_split": "_path__is_split"}


def resolve_interface_connections(root, info, limit=None, offset=None, sort=None, q=None, **filters):
    """Paths joining two interfaces, each pair once (from the end with the lower id): the path's
    id, both ends' ids and names, its hop count and state. A path is listed when either end
    matches the interface list's filters given (`device`, `location`) and `q` (an end's name or
    its device's name); `id` and `id__n` name paths."""
    from django.contrib.contenttypes.models import ContentType
    from django.db.models import F

    from queryengine.filters import FilterError
    from queryengine.query import filtered, ordering, page_bounds

    from .models import Interface

    resource = resource_for(Interface)
    user = info.context.user
    path_ids = {name: filters.pop(name, None) or [] for name in ("id", "id__n")}
    pairs = filtered(resource, user, {}).filter(
        _path__destination_type=ContentType.objects.get_for_model(Interface),
        pk__lt=F("_path__destination_id"),
    )
    ends = (
        [filtered(resource, user, {k: v for k, v in filters.items() if v})] if any(filters.values()) else []
    )
    ends += [
        restricted(resource, user).filter(Q(name__icontains=text) | Q(device__name__icontains=text))
        for text in q or ()
    ]
    for matching in ends:
        pks = matching.values("pk")
        pairs = pairs.filter(Q(pk__in=pks) | Q(_path__destination_id__in=pks))
    for name, negate in (("id", False), ("id__n", True)):
        if path_ids[name]:
            try:
                ids = [uuid.UUID(value) for value in path_ids[name]]
            except ValueError:
                raise ValidationFailed({name: ["Enter a valid UUID."]}) from None
            pairs = pairs.exclude(_path_id__in=ids) if negate else pairs.filter(_path_id__in=ids)
    bad = [field for field in sort or () if field.lstrip("-") not in PATH_SORT]
    if bad:
        raise FilterError(
            {"sort": [f'Unknown sort field "{bad[0]}". Allowed fields: {", ".join(PATH_SORT)}']}
        )
    order = [f"{'-' if f.startswith('-') else ''}{PATH_SORT[f.lstrip('-')]}" for f in sort or ()]
    order = [*order, "_path_id"] if order else ordering(resource, None)
    start, stop = page_bounds(limit, offset)
    page = list(
        pairs.order_by(*order)[start:stop].values_list(
            "_path_id",
            "pk",
            "name",
            "_path__destination_id",
            "_path__path",
            "_path__is_active",
            "_path__is_split",
        )
    )
    far_names = dict(Interface.objects.filter(pk__in=[row[3] for row in page]).values_list("pk", "name"))
    return {
        "count": pairs.count(),
        "results": [
            {
                "id": str(path),
                "interface_a": str(pk),
                "name_a": name,
                "interface_b": str(far),
                "name_b": far_names.get(far, ""),
                "hops": max(len(hops) - 2, 0),  # the nodes between the two ends
                "is_active": active,
                "is_split": split,
            }
            for path, pk, name, far, hops, active, split in page
        ],
    }


def query_fields(types) -> dict:
    return {
        "interface_connections": graphene.Field(
            GenericScalar,
            limit=graphene.Int(),
            offset=graphene.Int(),
            sort=graphene.List(graphene.String),
            q=graphene.List(graphene.String),
            id=graphene.List(graphene.String),
            id__n=graphene.List(graphene.String),
            device=graphene.List(graphene.String),
            device_id=graphene.List(graphene.String),
            location=graphene.List(graphene.String),
            resolver=resolve_interface_connections,
        ),
        # The paths passing a front or rear port (REST's `paths/`); `cable_paths` lists them all.
        "cable_paths_passing": graphene.Field(
            GenericScalar,
            object_type=graphene.String(required=True),
            id=graphene.Argument(UUID, required=True),
            resolver=resolve_cable_paths,
        ),
        "cable_trace": graphene.Field(
            GenericScalar,
            object_type=graphene.String(required=True),
            id=graphene.Argument(UUID, required=True),
            resolver=resolve_cable_trace,
        ),
        "rack_elevation": graphene.Field(
            GenericScalar,
            rack=graphene.Argument(UUID, required=True),
            face=graphene.String(),
            exclude=graphene.String(),
            q=graphene.String(),
            expand_devices=graphene.Boolean(),
            is_occupied=graphene.Boolean(),
            resolver=resolve_rack_elevation,
        ),
    }


# -- what the reference's types derive from other objects --------------------------------------


def only_clusters(ids) -> dict[str, str]:
    """{device id: its cluster} of the devices in exactly one cluster, as the reference's
    (deprecated) `cluster` of a device: none where it has none or several."""
    clusters: dict[str, list[str]] = {}
    for device, cluster in DeviceClusterAssignment.objects.filter(device__in=ids).values_list(
        "device", "cluster"
    ):
        clusters.setdefault(str(device), []).append(str(cluster))
    return {device: found[0] for device, found in clusters.items() if len(found) == 1}


DEVICE_CLUSTER = Derived("virtualization.Cluster", "id", only_clusters)
# The device a module is installed in, at any depth: the one its bay carries (moduletree).
MODULE_DEVICE = Derived("dcim.Device", "parent_module_bay__parent_device_id", None)


def chassis_interfaces(ids, user, common: bool) -> dict[str, list[str]]:
    """{device id: its interfaces' ids, in their order} of a page of devices, among those `user`
    may view (None: all), as the reference's properties: `common_vc_interfaces` (every
    interface of the device's virtual chassis's members, or its own outside one) or
    `vc_interfaces` (its own, and for the chassis's master the other members' that are not
    for management only). Two queries whatever the page size."""
    devices = list(
        Device.objects.filter(pk__in=ids).values_list("pk", "virtual_chassis", "virtual_chassis__master")
    )
    chassis = {vc for _, vc, _ in devices if vc is not None}
    found = Interface.objects.all() if user is None else restricted(resource_for(Interface), user)
    rows = (
        found.filter(Q(device__in=ids) | Q(device__virtual_chassis__in=chassis))
        .order_by(*default_order(Interface))
        .values_list("pk", "device", "device__virtual_chassis", "mgmt_only")
    )
    rows = list(rows)
    shown: dict[str, list[str]] = {}
    for device, vc, master in devices:
        if common:
            chosen = [pk for pk, own, at, _ in rows if (at == vc if vc is not None else own == device)]
        else:
            chosen = [
                pk
                for pk, own, at, mgmt in rows
                if own == device or (master == device and at == vc and not mgmt)
            ]
        shown[str(device)] = [str(pk) for pk in chosen]
    return shown


def resolve_chassis_interfaces(root, info, common: bool) -> list:
    ids = chassis_interfaces([root.pk], info.context.user, common).get(str(root.pk), [])
    found = {str(pk): obj for pk, obj in Interface.objects.in_bulk(ids).items()}
    return [found[pk] for pk in ids if pk in found]


def type_fields(resource, types) -> dict:
    """A device's `vc_interfaces` and `common_vc_interfaces` (no arguments, as the reference's)."""
    if resource.model is not Device:
        return {}
    interface_type = resource_for(Interface).type_name
    return {
        name: ExtensionList(
            field=lambda types, _c=common: graphene.List(
                lambda: types[interface_type],
                resolver=lambda root, info: resolve_chassis_interfaces(root, info, _c),
            ),
            target="dcim.Interface",
            members=lambda model, ids, viewer, _c=common: chassis_interfaces(
                ids, None if viewer is None else viewer.user, _c
            ),
        )
        for name, common in (("vc_interfaces", False), ("common_vc_interfaces", True))
    }
