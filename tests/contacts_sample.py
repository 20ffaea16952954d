"""Sample contacts, teams, their associations and object metadata over other sample objects."""

from __future__ import annotations

from django.contrib.contenttypes.models import ContentType

from inventory.dcim.models import Device, Location
from inventory.extras.models import (
    Contact,
    ContactAssociation,
    MetadataChoice,
    MetadataType,
    ObjectMetadata,
    Role,
    Status,
    Team,
)
from inventory.tenancy.models import Tenant


def build_contacts(s: str, sample: dict) -> dict[type, list]:
    contacts = [
        Contact.objects.create(
            name=f"Ada Lovelace{s}", phone="+31 20 555 0101", email="ada@example.com", address="Amsterdam"
        ),
        Contact.objects.create(name=f"bob{s}", email="bob@example.com", comments="night shift"),
        Contact.objects.create(name=f"Carol{s}", phone="+49 69 555 0199"),
    ]
    teams = [
        Team.objects.create(name=f"NOC{s}", phone="+31 20 555 0100", email="noc@example.com"),
        Team.objects.create(name=f"field services{s}", address="Frankfurt", comments="on call"),
    ]
    teams[0].contacts.set([contacts[0], contacts[1]])
    teams[1].contacts.set([contacts[1]])
    administrative, support = Role.objects.get(name="Administrative"), Role.objects.get(name="Support")
    primary, active = Status.objects.get(name="Primary"), Status.objects.get(name="Active")
    ams = Location.objects.get(name=f"AMS1{s}")
    device, tenant = sample[Device][0], sample[Tenant][0]

    def associate(who, obj, role, status):
        kind = {"contact": who} if isinstance(who, Contact) else {"team": who}
        return ContactAssociation.objects.create(
            **kind,
            associated_object_type=ContentType.objects.get_for_model(obj),
            associated_object_id=obj.pk,
            role=role,
            status=status,
        )

    associations = [
        associate(contacts[0], ams, administrative, primary),
        associate(teams[0], ams, support, active),
        associate(teams[0], device, support, primary),
        associate(contacts[2], tenant, administrative, active),
    ]
    return {
        Contact: contacts,
        Team: teams,
        ContactAssociation: associations,
        **build_metadata(s, contacts, teams, ams, device, tenant),
    }


def build_metadata(s: str, contacts, teams, ams, device, tenant) -> dict[type, list]:
    kinds = [ContentType.objects.get_for_model(m) for m in (Device, Location, Tenant)]
    types = [
        MetadataType.objects.create(
            name=f"Criticality{s}", data_type="select", description="business impact"
        ),
        MetadataType.objects.create(name=f"Data owner{s}", data_type="contact-or-team"),
        MetadataType.objects.create(
            name=f"Source{s}", data_type="text", description="where the data comes from"
        ),
    ]
    for kind in types:
        kind.content_types.set(kinds)
    choices = [
        MetadataChoice.objects.create(metadata_type=types[0], value="high", weight=10),
        MetadataChoice.objects.create(metadata_type=types[0], value="low", weight=20),
    ]

    def describe(kind, obj, scoped=(), **given):
        return ObjectMetadata.objects.create(
            metadata_type=kind,
            assigned_object_type=ContentType.objects.get_for_model(obj),
            assigned_object_id=obj.pk,
            scoped_fields=list(scoped),
            **given,
        )

    metadata = [
        describe(types[0], device, value="high"),
        describe(types[1], ams, team=teams[0]),
        describe(types[1], tenant, ("name", "description"), contact=contacts[0]),
        describe(types[2], tenant, ("comments",), value="CRM import"),
    ]
    return {MetadataType: types, MetadataChoice: choices, ObjectMetadata: metadata}
