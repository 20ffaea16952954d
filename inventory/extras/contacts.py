"""Contacts and teams: association labels, membership filters, and associations following their
objects' deletion."""

from __future__ import annotations

import uuid
from collections import defaultdict
from difflib import get_close_matches

from django.apps import apps
from django.contrib.contenttypes.models import ContentType
from django.db.models import Q

from queryengine.objecttexts import display_labels
from queryengine.registry import CustomFilter, extend_filters, on_delete, resource_by_object_type

from .deletions import forget_with_objects
from .models import Contact, ContactAssociation, Team, TeamMembership, contact_label

# Who a contact association or a metadata value names: a contact's or a team's identity.
WHO_FIELDS = ("contact__name", "contact__phone", "contact__email", "team__name", "team__phone", "team__email")


def object_labels(pairs) -> dict[tuple, str]:
    """{(content type id, object id): display} for (content type id, object id) pairs, one
    query per object type."""
    wanted: dict[int, set] = defaultdict(set)
    for type_id, pk in pairs:
        wanted[type_id].add(pk)
    labels: dict[tuple, str] = {}
    for type_id, pks in wanted.items():
        kind = ContentType.objects.get_for_id(type_id)
        resource = resource_by_object_type(f"{kind.app_label}.{kind.model}")
        found = display_labels(resource, pks) if resource is not None else {}
        labels.update({(type_id, pk): found[str(pk)] for pk in pks if str(pk) in found})
    return labels


def association_labels(ids) -> dict[str, str]:
    """'Contact <contact> for <object>' or 'Team contact <team> for <object>', for a page."""
    rows = list(
        ContactAssociation.objects.filter(pk__in=list(ids)).values_list(
            "pk",
            *WHO_FIELDS,
            "associated_object_type",
            "associated_object_id",
        )
    )
    objects = object_labels((row[7], row[8]) for row in rows)
    result = {}
    for pk, c_name, c_phone, c_email, t_name, t_phone, t_email, type_id, object_id in rows:
        target = objects.get((type_id, object_id), str(object_id))
        if c_name is not None:
            result[str(pk)] = f"Contact {contact_label(c_name, c_phone, c_email)} for {target}"
        else:
            result[str(pk)] = f"Team contact {contact_label(t_name, t_phone, t_email)} for {target}"
    return result


# -- membership filters (`contacts/?teams=`, `teams/?contacts=`) -----------------------------------


def named_parser(model):
    """Value -> the primary keys of the `model` objects it names, by id or name."""

    def parse(value: str):
        try:
            query = Q(pk=uuid.UUID(value))
        except ValueError:
            query = Q(name=value)
        found = list(model.objects.filter(query).values_list("pk", flat=True))
        if not found:
            raise ValueError(f"Select a valid choice. {value} is not one of the available choices.")
        return found

    return parse


def member_filter(model, side: str, other: str, present: bool = False) -> CustomFilter:
    """Objects of one side with any of the given members on the other (by id or name), read
    through the membership table so an object in two of them is listed once; `present`: with
    `__isnull` too (a contact in no team)."""
    parse = named_parser(model)

    def build(parsed) -> Q:
        pks = [pk for group in parsed for pk in group]
        return Q(pk__in=TeamMembership.objects.filter(**{f"{other}__in": pks}).values(side))

    def oracle(obj, parsed) -> bool:
        pks = {pk for group in parsed for pk in group}
        held = TeamMembership.objects.filter(**{side: obj.pk}).values_list(f"{other}_id", flat=True)
        return bool(pks & set(held))

    def samples(_objects) -> list:
        first = TeamMembership.objects.order_by(f"{other}__name").select_related(other).first()
        return [getattr(first, other).name, str(getattr(first, f"{other}_id"))] if first else []

    def with_members() -> Q:
        return Q(pk__in=TeamMembership.objects.values(side))

    return CustomFilter(
        build, parse, oracle, samples, negated=True, present=with_members if present else None
    )


def _similar_fields(model, location) -> dict[str, list[str]]:
    """{field: values} of `model` objects like a location's contact details: names and phones
    close to its contact's (difflib, ratio 0.8 or more, the three closest), emails equal but for
    case. The candidates are every object's, not only those other filters keep."""
    found: dict[str, list[str]] = {}
    for field, given in (("name", location.contact_name), ("phone", location.contact_phone)):
        if given:
            values = model.objects.order_by().exclude(**{field: ""}).values_list(field, flat=True)
            found[field] = get_close_matches(given, list(values.distinct()), cutoff=0.8)
    if location.contact_email:
        emails = model.objects.order_by().values_list("email", flat=True).distinct()
        found["email"] = [e for e in emails if e.casefold() == location.contact_email.casefold()]
    return found


def similar_filter(model) -> CustomFilter:
    """`similar_to_location_data=<location id or name>`: contacts (or teams) whose name, phone or
    email is like the location's own contact details (none when it has none)."""

    def locations():
        return apps.get_model("dcim", "Location").objects

    def similar(parsed) -> dict[str, set[str]]:
        found: dict[str, set[str]] = defaultdict(set)
        for location in locations().filter(pk__in=[pk for group in parsed for pk in group]):
            for field, values in _similar_fields(model, location).items():
                found[field].update(values)
        return found

    def build(parsed) -> Q:
        query = Q(pk__in=[])
        for field, values in similar(parsed).items():
            query |= Q(**{f"{field}__in": values})
        return query

    def samples(_objects) -> list:
        given = locations().exclude(contact_name="", contact_phone="", contact_email="").order_by("name")
        return [str(pk) for pk in given.values_list("pk", flat=True)[:2]]

    return CustomFilter(
        build,
        lambda value: named_parser(locations().model)(value),
        lambda obj, parsed: any(getattr(obj, f) in v for f, v in similar(parsed).items()),
        samples,
    )


CONTACT_FILTERS = {
    "teams": member_filter(Team, "contact", "team", present=True),
    "similar_to_location_data": similar_filter(Contact),
}
TEAM_FILTERS = {
    "contacts": member_filter(Contact, "team", "contact"),
    "similar_to_location_data": similar_filter(Team),
}


# -- `contacts=` and `teams=` on every object contacts are associated with ------------------------


def associated_filter(resource, model, side: str) -> CustomFilter:
    """Objects associated with any of the given contacts (or teams), by id or name."""
    kind = resource.model

    def associations():
        content_type = ContentType.objects.get_for_model(kind)
        return ContactAssociation.objects.filter(associated_object_type=content_type)

    def build(parsed) -> Q:
        pks = [pk for named in parsed for pk in named]
        return Q(pk__in=associations().filter(**{f"{side}__in": pks}).values("associated_object_id"))

    def oracle(obj, parsed) -> bool:
        pks = {pk for named in parsed for pk in named}
        held = associations().filter(associated_object_id=obj.pk).values_list(f"{side}_id", flat=True)
        return bool(pks & set(held))

    def present() -> Q:
        return Q(pk__in=associations().filter(**{f"{side}__isnull": False}).values("associated_object_id"))

    def samples(objects) -> list:
        ids = [o.pk for o in objects]
        first = (
            associations()
            .filter(associated_object_id__in=ids, **{f"{side}__isnull": False})
            .select_related(side)
            .order_by(f"{side}__name")
            .first()
        )
        if first is None:
            return []
        named = getattr(first, side)
        return [named.name, str(named.pk), [named.name, str(named.pk)]]

    return CustomFilter(build, named_parser(model), oracle, samples, negated=True, present=present)


def takes_contacts(resource) -> bool:
    """Whether contacts are associated with the objects (their `associated_contacts`), as with
    the reference's models mixing contacts in: as declared (Resource.contacts), else those with
    custom fields or whose model is contact-associable."""
    if resource.contacts is not None:
        return resource.contacts
    return resource.has_custom_fields or getattr(resource.model, "is_contact_associable_model", False)


def contact_filters(resource) -> dict[str, CustomFilter]:
    """`contacts` and `teams` (with `__n` and `__isnull`) on the models contacts are associated
    with, as the reference's contact-associable models."""
    if not getattr(resource.model, "is_contact_associable_model", False):
        return {}
    return {
        "contacts": associated_filter(resource, Contact, "contact"),
        "teams": associated_filter(resource, Team, "team"),
    }


# -- objects deleted --------------------------------------------------------------------------


forget_deleted = forget_with_objects(ContactAssociation, ("associated_object_type", "associated_object_id"))


def connect() -> None:
    on_delete(forget_deleted)
    extend_filters(contact_filters)
