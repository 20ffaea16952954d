"""Registrations of cable types, cables, their connectors' terminations and the paths cables make."""

from django.db.models import F, Q

from queryengine.registry import Computed, Display, GenericList, Included, Legacy, Resource, register

from . import graphql, terminations
from .cabling import CABLE_ENDS_BY, cable_ends
from .filters import flag
from .listfilters import CABLE_FILTERS
from .models import Cable, CableToCableTermination, CableType, Device, Location
from .models.cables import CABLE_ENDS
from .models.cabletypes import END_FIELDS
from .models.paths import CablePath

# Record fields whose objects have names (a circuit termination shows its side).
END_NAMED = [f for f in END_FIELDS.values() if f != "circuit_termination"]

register(
    Resource(
        CableType,
        "dcim/cable-types",
        search=("name", "description", "manufacturer__name", "part_number"),
        filters={
            "is_breakout": flag(
                lambda _: ~Q(a_connectors=F("b_connectors")), lambda t: t.a_connectors != t.b_connectors
            )
        },
    )
)


register(
    Resource(
        Cable,
        "dcim/cables",
        display=Display(("label", "pk"), lambda label, pk: label or f"#{pk}"),
        computed={
            "total_lanes": Computed(("cable_type__total_lanes",), lambda lanes: lanes or 1, output="integer"),
            "connected_lanes": Computed(("_connected_lanes",), int, output="integer"),
        },
        loaded={"terminations": terminations.TERMINATIONS},
        # GraphQL shows the connectors' terminations as objects, as the reference's schema does.
        lists={"terminations": "dcim.CableToCableTermination.cable"},
        generic={
            "termination_a": ("termination_a_type", "termination_a_id", CABLE_ENDS),
            "termination_b": ("termination_b_type", "termination_b_id", CABLE_ENDS),
        },
        search=("label", "color"),
        filters={
            "device": cable_ends("device", Device, "leaf1"),
            "location": cable_ends("device__location", Location, "AMS1"),
            **{name: cable_ends(*ends) for name, ends in CABLE_ENDS_BY.items()},
            **CABLE_FILTERS,
            "has_cable_type": flag(
                lambda _: Q(cable_type__isnull=False), lambda c: c.cable_type_id is not None
            ),
        },
        natural_key=None,
        legacy=Legacy(nested=("label",)),
    )
)
register(
    Resource(
        CableToCableTermination,
        "dcim/cables-to-cable-terminations",
        display=Display(
            (
                "cable__label",
                "cable_id",
                "cable_end",
                *(f"{f}__name" for f in END_NAMED),
                "circuit_termination__term_side",
            ),
            lambda label, pk, end, *names: (
                f"{label or f'#{pk}'} {end}-side: {next((n for n in names if n), '')}"
            ),
        ),
        search=("cable__label", *(f"{f}__name" for f in END_NAMED)),
        natural_key=None,
        timestamp_filters=True,
        # Notes taken (its notes/ path), notes_url not shown, as the reference's.
        notes=True,
        notes_url=False,
    )
)


def is_path_endpoint(resource) -> bool:
    """Objects a cable path starts at (their `connected_endpoint`)."""
    return "connected_endpoint" in resource.generic


def load_fan_out(resource, ids, base, depth, viewer) -> dict:
    """{path id: {"origin": bool, "destination": bool}}: whether each end of a page's paths sits
    on the fan-out side of a breakout cable (one query for the page)."""
    ends = dict(CablePath.objects.filter(pk__in=ids).values_list("pk", "path"))
    fanning = graphql.fans_out({node for path in ends.values() for node in (path[:1] + path[-1:])})
    return {
        str(pk): {
            "origin": bool(path) and path[0] in fanning,
            "destination": bool(path) and path[-1] in fanning,
        }
        for pk, path in ends.items()
    }


def fan_out_side(side: str) -> Included:
    """Whether a path's origin or destination fans out, read a page at a time."""
    return Included(
        applies=lambda resource: False,
        load=lambda resource, ids, base, depth, viewer: {
            pk: found[side] for pk, found in load_fan_out(resource, ids, base, depth, viewer).items()
        },
        empty=lambda: False,
        schema={"type": "boolean"},
        output="boolean",
    )


# The path each endpoint stores, traced by the service: read through GraphQL alone, as the
# reference's CablePathType (its root `cable_path`/`cable_paths`, an endpoint's `path` and
# `cable_paths`).
register(
    Resource(
        CablePath,
        "dcim/cable-paths",
        display=Display(
            ("pk", "path"), lambda pk, path: f"Path #{pk}: {len(path)} hop{'' if len(path) == 1 else 's'}"
        ),
        search=(),
        # One path per origin here (the reference keeps one per breakout connector): it leaves
        # through the first connector of the origin cable's far side.
        computed={"peer_connector": Computed(("pk",), lambda pk: 1, output="integer")},
        loaded={
            "origin_fans_out": fan_out_side("origin"),
            "destination_fans_out": fan_out_side("destination"),
        },
        generic_lists={"cable_paths": GenericList("origin_type", "origin_id", is_path_endpoint)},
        natural_key=None,
        natural_slug=False,
        writable=False,
        change_logged=False,
        routed=False,
    )
)
