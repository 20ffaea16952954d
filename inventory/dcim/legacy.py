"""API 1.x sites and regions over locations: which site or region an object is at, and the
`site=` / `region=` filters of the models that had them.

A 1.x site is a location of the Site type and a region one of the Region type (models.Site,
models.Region). An object's site is the Site-type location at or above its location, its
region the Region-type one above that: found for a whole page with one query per tree level.
"""

from __future__ import annotations

import uuid

from django.db.models import F, Q

from queryengine.jsonsql import IdIn, IdText
from queryengine.registry import CustomFilter, Derived

from .models.locations import REGION, SITE, Location, LocationType


def ancestry(ids, known: dict | None = None) -> dict[str, tuple[str | None, str]]:
    """{id: (parent id, type id)} of the given locations and every location above them (`known`:
    those already read)."""
    known = {pk: values for pk, values in (known or {}).items() if pk is not None}
    wanted = {str(pk) for pk in ids if pk is not None} | {parent for parent, _ in known.values()}
    missing = wanted - known.keys() - {None}
    while missing:
        # Ids as text both ways, the set as one parameter: no UUID objects for a page of rows.
        rows = (
            Location.objects.filter(IdIn(F("pk"), missing))
            .annotate(
                _id=IdText(F("pk")), _parent=IdText(F("parent_id")), _type=IdText(F("location_type_id"))
            )
            .values_list("_id", "_parent", "_type")
        )
        known.update((pk, (parent, kind)) for pk, parent, kind in rows)
        missing = {parent for parent, _ in known.values() if parent is not None} - known.keys()
    return known


def nearest(type_name: str, itself: bool = True):
    """A finder (registry.Derived): for location ids, the nearest location of `type_name` at or
    above each (strictly above when not `itself`)."""

    def find(ids, hints=None) -> dict[str, str]:
        nodes, found = ancestry(ids, hints), {}
        if not nodes:
            return found
        type_id = str(LocationType.objects.filter(name=type_name).values_list("pk", flat=True).first())
        for pk in ids:
            node = pk if itself else nodes.get(pk, (None, ""))[0]
            for _ in range(len(nodes)):  # a cycle cannot be stored, but never loop on one
                if node is None or node not in nodes:
                    break
                parent, kind = nodes[node]
                if kind == type_id:
                    found[pk] = node
                    break
                node = parent
        return found

    return find


def hints_for(source: str) -> tuple[str, str]:
    """The parent and type of the location `source` names, read with the object."""
    path = source.removesuffix("_id").removesuffix("id").rstrip("_")
    prefix = f"{path}__" if path else ""
    return f"{prefix}parent_id", f"{prefix}location_type_id"


def site_of(source: str = "location_id", writes: str | None = "location") -> Derived:
    """The 1.x `site` of an object placed at a location (written to that location)."""
    return Derived("dcim.Site", source, nearest(SITE), writes, hints_for(source))


def region_of(source: str = "parent_id", writes: str | None = "parent") -> Derived:
    """The 1.x `region` of a location at or under the location `source` names."""
    return Derived("dcim.Region", source, nearest(REGION), writes, hints_for(source))


def subtree(roots) -> set:
    """The given locations and every location below them (one query per tree level)."""
    found, level = set(roots), set(roots)
    while level:
        level = set(Location.objects.filter(parent__in=level).values_list("pk", flat=True)) - found
        found |= level
    return found


def named(type_name: str):
    """A filter value's locations of one type, by slug or id, with everything below them."""

    def parse(value: str):
        try:
            match = Q(pk=uuid.UUID(value))
        except ValueError:
            match = Q(slug=value)
        roots = list(
            Location.objects.filter(match, location_type__name=type_name).values_list("pk", flat=True)
        )
        if not roots:
            raise ValueError(f"Select a valid choice. {value} is not one of the available choices.")
        return subtree(roots)

    return parse


def within(path: str, type_name: str) -> CustomFilter:
    def build(groups) -> Q:
        return Q(**{f"{path}__in": {pk for group in groups for pk in group}})

    return CustomFilter(build, named(type_name))


def site_filters(path: str = "location") -> dict[str, CustomFilter]:
    """`site`, `site_id`, `region` and `region_id` (by slug or id): objects at a location within
    the named sites or regions."""
    site, region = within(path, SITE), within(path, REGION)
    return {"site": site, "site_id": site, "region": region, "region_id": region}
