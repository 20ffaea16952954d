"""GraphQL fields beside the generated ones: a rack's elevation (REST: racks/<id>/elevation/)."""

from __future__ import annotations

import uuid

import graphene
from django.db.models import Q
from graphene.types.generic import GenericScalar

from queryengine.errors import NotFound, ValidationFailed
from queryengine.query import restricted
from queryengine.registry import resource_for
from queryengine.scalars import UUID

from . import choices
from .models import Device, Rack

FACE_LABELS = dict(choices.FACES)


def resolve_rack_elevation(root, info, rack, face="front", exclude=None, q=None):
    """One entry per unit, top to bottom as the rack is numbered: who occupies it on that face."""
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
    occupant = {}
    devices = (
        found.devices.filter(position__isnull=False, device_type__u_height__gt=0)
        .filter(Q(face=face) | Q(device_type__is_full_depth=True))
        .exclude(pk__in=excluded)
    )
    base = info.context.base_url
    device_route = resource_for(Device).route
    for pk, position, height in devices.values_list("pk", "position", "device_type__u_height"):
        reference = {"id": pk, "object_type": "dcim.device", "url": f"{base}{device_route}/{pk}/"}
        for unit in range(position, position + height):
            occupant[unit] = reference
    face_value = {"value": face, "label": FACE_LABELS[face]}
    units = [
        {
            "id": unit,
            "name": f"U{unit}",
            "face": face_value,
            "device": occupant.get(unit),
            "occupied": unit in occupant,
        }
        for unit in found.units
    ]
    return [u for u in units if q in str(u["id"])] if q else units


def query_fields(types) -> dict:
    return {
        "rack_elevation": graphene.Field(
            GenericScalar,
            rack=graphene.Argument(UUID, required=True),
            face=graphene.String(),
            exclude=graphene.String(),
            q=graphene.String(),
            resolver=resolve_rack_elevation,
        )
    }
