"""Filters of DCIM lists the reference names beyond the generated families: cables by their ends,
locations within trees, rack groups by the locations above a location."""

import uuid

from django.db.models import Q

from queryengine.filters import parse_content_type, parse_int
from queryengine.registry import CustomFilter

from .filters import flag, holding, objects_named
from .legacy import subtree
from .models import CableToCableTermination, Location, LocationType

INVALID = "Select a valid choice. {} is not one of the available choices."


def locations_named(value: str) -> list:
    return objects_named(Location, value)


def sample_locations(objects) -> list:
    return [o.name for o in objects if o.parent_id is None][:1]


def parse_id(value: str):
    try:
        return uuid.UUID(value)
    except ValueError:
        raise ValueError("Enter a valid UUID.") from None


def either_end(condition) -> Q:
    """Cables one of whose ends `condition(side)` (a Q over that side's columns) selects."""
    return condition("a") | condition("b")


def _end_types(kinds) -> Q:
    return either_end(lambda side: Q(**{f"termination_{side}_type__in": kinds}))


def _end_ids(ids) -> Q:
    return either_end(lambda side: Q(**{f"termination_{side}_id__in": ids}))


def _disconnected(_) -> Q:
    """Cables missing the termination record of one end or both (a breakout's ends aside)."""
    ends = CableToCableTermination.objects.values("cable")
    return ~Q(pk__in=ends.filter(cable_end="A")) | ~Q(pk__in=ends.filter(cable_end="B"))


def _ends_of(cable) -> set:
    return set(CableToCableTermination.objects.filter(cable=cable).values_list("cable_end", flat=True))


CABLE_FILTERS = {
    # Either end's type (`dcim.interface`) or id, as the reference's.
    "termination_type": CustomFilter(
        _end_types,
        parse_content_type,
        lambda cable, kinds: cable.termination_a_type in kinds or cable.termination_b_type in kinds,
        lambda cables: [f"{c.termination_b_type.app_label}.{c.termination_b_type.model}" for c in cables][:1],
    ),
    "termination_id": CustomFilter(
        _end_ids,
        parse_id,
        lambda cable, ids: cable.termination_a_id in ids or cable.termination_b_id in ids,
        lambda cables: [str(c.termination_a_id) for c in cables][:1],
    ),
    "is_disconnected": flag(_disconnected, lambda cable: not {"A", "B"} <= _ends_of(cable)),
}


def parse_subtree(value: str) -> set:
    return subtree(locations_named(value))


def child_types(kinds) -> Q:
    """Locations that may hold a location of one of the given types: those of its parent type,
    and of the type itself where it nests."""
    return Q(location_type__children__in=kinds) | Q(location_type__in=kinds, location_type__nestable=True)


def may_hold(location, groups) -> bool:
    kind = location.location_type
    kinds = LocationType.objects.filter(pk__in=[pk for group in groups for pk in group])
    return any(k.parent_id == kind.pk or (k.pk == kind.pk and kind.nestable) for k in kinds)


def parse_location_type(value: str) -> list:
    return objects_named(LocationType, value)


def deeper_than(depth: int) -> Q:
    """Locations with at least `depth` locations above them: those the reference's `max_depth`
    leaves out (`max_depth=1` keeps the top-level ones; below 1, every location)."""
    return Q(**{f"{'parent__' * depth}isnull": False})


def depth_of(location) -> int:
    return len(location.ancestors())


LOCATION_FILTERS = {
    # The given locations and every one below them, by id or name.
    "subtree": CustomFilter(
        lambda trees: Q(pk__in=set().union(*trees)),
        parse_subtree,
        lambda location, trees: any(location.pk in tree for tree in trees),
        sample_locations,
    ),
    "child_location_type": CustomFilter(
        lambda groups: child_types([pk for group in groups for pk in group]),
        parse_location_type,
        may_hold,
        lambda locations: [t.name for t in LocationType.objects.filter(parent__isnull=False)[:1]],
    ),
    # The object types its location type admits (`dcim.device`).
    "content_type": CustomFilter(
        lambda kinds: Q(location_type__content_types__in=kinds),
        parse_content_type,
        lambda location, kinds: bool(set(location.location_type.content_types.all()) & set(kinds)),
        ("dcim.device",),
        negated=True,
    ),
    "max_depth": CustomFilter(
        lambda depths: ~deeper_than(depths[-1]) if depths[-1] >= 1 else Q(),
        parse_int,
        lambda location, depths: depths[-1] < 1 or depth_of(location) < depths[-1],
        ("1", "2"),
        argument="Int",
    ),
}


def with_ancestors(value: str) -> set:
    """A location named by id or name, with every location above it."""
    return {
        pk for location in Location.objects.filter(pk__in=locations_named(value)) for pk in location.lineage()
    }


RACK_GROUP_FILTERS = {
    # Groups at the given locations or any location above them.
    "ancestors": CustomFilter(
        lambda lineages: Q(location__in=set().union(*lineages)),
        with_ancestors,
        lambda group, lineages: any(group.location_id in lineage for lineage in lineages),
        lambda groups: [g.location.name for g in groups][:1],
    ),
}


# Whether a device type has templates of each kind (front ports: pass-through ones), as the
# reference's, by the relations' ORM names.
DEVICE_TYPE_FILTERS = {
    name: holding(path)
    for name, path in {
        "console_ports": "consoleporttemplates",
        "console_server_ports": "consoleserverporttemplates",
        "power_ports": "powerporttemplates",
        "power_outlets": "poweroutlettemplates",
        "interfaces": "interfacetemplates",
        "device_bays": "device_bay_templates",
        "pass_through_ports": "frontporttemplates",
    }.items()
}
