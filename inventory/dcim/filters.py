"""Filters of DCIM resources beyond plain field lookups: flags, to-many relations, module bays."""

import uuid

from django.db.models import Q

from queryengine.filters import parse_bool
from queryengine.registry import CustomFilter

from .models import ModuleBay


def flag(build, oracle) -> CustomFilter:
    """A true/false filter (`has_primary_ip=true`): `build(True)` matches the rows that have it."""
    return CustomFilter(
        lambda values: build(True) if values[-1] else ~build(True),
        parse_bool,
        lambda obj, values: oracle(obj) == values[-1],
        ("true", "false"),
    )


def members(path: str, model, key: str | None = "name") -> CustomFilter:
    """Objects related to any of the given ones through a to-many `path` (`module_types`), named
    by id or by `key`."""

    def parse(value: str):
        try:
            found = model.objects.filter(pk=uuid.UUID(value))
        except ValueError:
            found = model.objects.filter(**{key: value}) if key else model.objects.none()
        pks = list(found.values_list("pk", flat=True))
        if not pks:
            raise ValueError(f"Select a valid choice. {value} is not one of the available choices.")
        return pks

    def oracle(obj, groups) -> bool:
        wanted = {pk for group in groups for pk in group}
        return bool(wanted & set(getattr(obj, path).values_list("pk", flat=True)))

    def samples(objects) -> list:
        return [str(pk) for obj in objects for pk in getattr(obj, path).values_list("pk", flat=True)][:1]

    return CustomFilter(
        lambda groups: Q(**{f"{path}__in": [pk for group in groups for pk in group]}), parse, oracle, samples
    )


def parse_bay_family(value: str):
    """The module family of a module bay named by id (None: the bay takes any module)."""
    try:
        return ModuleBay.objects.values_list("module_family", flat=True).get(pk=uuid.UUID(value))
    except (ValueError, ModuleBay.DoesNotExist):
        raise ValueError("Select a valid choice. That choice is not one of the available choices.") from None


def compatible_with_bay(family_field: str) -> CustomFilter:
    """Module types (or modules) a module bay takes: those of its module family, if it has one."""

    def family_of(obj):
        for part in family_field.split("__"):
            obj = getattr(obj, part)
        return obj

    return CustomFilter(
        lambda families: Q() if families[-1] is None else Q(**{family_field: families[-1]}),
        parse_bay_family,
        lambda obj, families: families[-1] is None or family_of(obj) == families[-1],
        lambda objects: [str(pk) for pk in ModuleBay.objects.values_list("pk", flat=True)[:1]],
    )
