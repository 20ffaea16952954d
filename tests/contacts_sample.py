"""Sample contacts, teams and their associations with other sample objects."""

from __future__ import annotations

from django.contrib.contenttypes.models import ContentType

from inventory.dcim.models import Device, Location
from inventory.extras.models import Contact, ContactAssociation, Role, Status, Team
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
    return {Contact: contacts, Team: teams, ContactAssociation: associations}
