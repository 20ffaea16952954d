"""VLAN groups' ranges of VLAN ids: parsing, the free ids of a group, and the allocation of VLANs
from them (REST: `ipam/vlan-groups/<id>/available-vlans/`), as the reference's."""

from __future__ import annotations

from django.core.exceptions import ValidationError

VID_MIN, VID_MAX = 1, 4094
DEFAULT_RANGE = f"{VID_MIN}-{VID_MAX}"


def parse_range(text: str) -> list[tuple[int, int]]:
    """`1-100,200,300-310` as (first, last) spans; ValidationError naming the text otherwise."""
    spans = []
    for part in (text or "").replace(" ", "").split(","):
        first, dash, last = part.partition("-")
        try:
            span = (int(first), int(last) if dash else int(first))
        except ValueError:
            raise ValidationError({"range": [f"Invalid VLAN range: {text!r}"]}) from None
        if not VID_MIN <= span[0] <= span[1] <= VID_MAX:
            raise ValidationError(
                {"range": [f"Each VLAN id must be within {VID_MIN}-{VID_MAX}, in increasing order: {part!r}"]}
            )
        spans.append(span)
    return spans


def expanded(text: str) -> list[int]:
    """The ids of a range, ascending, each once."""
    return sorted({vid for first, last in parse_range(text) for vid in range(first, last + 1)})


def contains(text: str, vid: int) -> bool:
    try:
        return any(first <= vid <= last for first, last in parse_range(text))
    except ValidationError:
        return True  # the range itself is refused on its own


def free_vids(group) -> list[int]:
    """The ids of the group's range no VLAN of the group holds."""
    used = set(group.vlans.values_list("vid", flat=True))
    return [vid for vid in expanded(group.range) if vid not in used]


def check_group(group) -> None:
    """A range that parses and still holds the group's VLANs (ValidationError otherwise)."""
    parse_range(group.range)
    if group._state.adding:
        return
    outside = sorted(
        vid for vid in group.vlans.values_list("vid", flat=True) if not contains(group.range, vid)
    )
    if outside:
        listed = ", ".join(map(str, outside))
        raise ValidationError(
            {"range": [f"VLAN group range may not be changed to exclude VLANs of the group: {listed}"]}
        )


def check_vlan(vlan) -> None:
    """A VLAN of a group has an id of the group's range."""
    group = vlan.vlan_group
    if group is not None and vlan.vid is not None and not contains(group.range, vlan.vid):
        raise ValidationError({"vid": [f"VLAN ID is not contained in VLAN Group range ({group.range})"]})


def lock(group):
    """The group's row locked until the write ends: allocations from one group run one at a time."""
    from django.db.models import F

    type(group).objects.filter(pk=group.pk).update(name=F("name"))
    return type(group).objects.get(pk=group.pk)


def names_group(value, group) -> bool:
    """Whether a written `vlan_group` (an id, a name or a reference object) is this group."""
    if isinstance(value, dict):
        value = value.get("id", value.get("name"))
    return str(value) in (str(group.pk), group.name)


def plan_vlans(group, requests: list) -> list[dict]:
    """Each request with its `vid` (the one asked for, or the next free one) and the group, as
    the reference allocates; a request it cannot meet is a Conflict (nothing is created)."""
    from queryengine.errors import Conflict, ValidationFailed

    if not all(isinstance(item, dict) for item in requests):
        raise ValidationFailed(
            [
                {} if isinstance(item, dict) else {"non_field_errors": ["Expected an object."]}
                for item in requests
            ]
        )
    group = lock(group)
    free = free_vids(group)
    if len(free) < len(requests):
        raise Conflict(
            f"An insufficient number of VLANs are available within the VLANGroup {group.name} "
            f"({len(requests)} requested, {len(free)} available)"
        )
    for request in requests:
        if "vid" in request:
            if request["vid"] not in free or isinstance(request["vid"], bool):
                raise Conflict(f"VLAN {request['vid']} is not available within the VLANGroup.")
            free.remove(request["vid"])
    remaining = iter(free)
    planned = []
    for request in requests:
        given = request.get("vlan_group")
        if given is not None and not names_group(given, group):
            raise Conflict(
                f"Invalid VLAN Group requested: {given}. Only VLAN Group {group.name} is permitted."
            )
        vid = request["vid"] if "vid" in request else next(remaining)
        planned.append({**request, "vid": vid, "vlan_group": str(group.pk)})
    return planned
