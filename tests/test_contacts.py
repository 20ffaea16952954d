"""Contacts, teams and contact associations, through the REST API."""

from __future__ import annotations

from inventory.dcim.models import Device, Location
from inventory.extras.models import Contact, ContactAssociation, Team
from inventory.tenancy.models import Tenant

from .conftest import send

CONTACTS, TEAMS, ASSOCIATIONS = (
    "/api/extras/contacts/",
    "/api/extras/teams/",
    "/api/extras/contact-associations/",
)


def names(rows) -> list[str]:
    return [row["display"] for row in rows]


def test_contact_crud_and_membership_from_both_ends(api, sample):
    noc = Team.objects.get(name="NOC")
    status, dave = send(
        api,
        "post",
        f"{CONTACTS}?exclude_m2m=false",
        {"name": "Dave", "phone": "+1 555 0100", "email": "dave@example.com", "teams": ["NOC"]},
    )
    assert status == 201, dave
    assert dave["display"] == "Dave (+1 555 0100) (dave@example.com)"
    assert dave["object_type"] == "extras.contact" and dave["address"] == "" and dave["comments"] == ""
    assert [t["id"] for t in dave["teams"]] == [str(noc.pk)]
    # The team sees the same membership.
    team = api.json(f"{TEAMS}{noc.pk}/", {"exclude_m2m": "false"})
    assert dave["id"] in {c["id"] for c in team["contacts"]}
    # Written from the team's side, read from the contact's.
    status, _ = send(api, "patch", f"{TEAMS}{noc.pk}/", {"contacts": [dave["id"]]})
    assert status == 200
    ada = api.json(f"{CONTACTS}{Contact.objects.get(name='Ada Lovelace').pk}/", {"exclude_m2m": "false"})
    assert ada["teams"] == []
    status, patched = send(api, "patch", f"{CONTACTS}{dave['id']}/", {"address": "Main street 1"})
    assert status == 200 and patched["address"] == "Main street 1"
    assert send(api, "delete", f"{CONTACTS}{dave['id']}/") == (204, None)
    assert not noc.contacts.exists()


def test_contact_filters(api, sample):
    assert names(api.json(CONTACTS, {"teams": "NOC"})["results"]) == [
        "Ada Lovelace (+31 20 555 0101) (ada@example.com)",
        "bob (bob@example.com)",
    ]
    # A contact in two of the teams asked for is listed once.
    both = api.json(CONTACTS, [("teams", "NOC"), ("teams", "field services")])
    assert both["count"] == 2
    assert sorted(names(api.json(TEAMS, {"contacts": "bob"})["results"])) == [
        "NOC (+31 20 555 0100) (noc@example.com)",
        "field services",
    ]
    assert api.json(CONTACTS, {"email__ic": "BOB"})["count"] == 1
    assert api.json(CONTACTS, {"q": "amsterdam"})["count"] == 1
    assert api.json(CONTACTS, {"teams": "nobody"}, status=400) == {
        "teams": ["Select a valid choice. nobody is not one of the available choices."]
    }


def test_contact_identity_and_email_are_validated(api, sample):
    status, body = send(api, "post", CONTACTS, {"name": "bob", "email": "bob@example.com"})
    assert status == 400 and body == {
        "non_field_errors": ["The fields name, phone, email must make a unique set."]
    }
    # The same name with another address is another contact.
    assert send(api, "post", CONTACTS, {"name": "bob", "email": "bob@example.org"})[0] == 201
    status, body = send(api, "post", TEAMS, {"name": "x", "email": "not an address"})
    assert status == 400 and body == {"email": ["Enter a valid email address."]}
    status, body = send(api, "post", TEAMS, {"email": "a@example.com"})
    assert status == 400 and body == {"name": ["This field is required."]}


def association(who: dict, obj, role="Support", status="Active") -> dict:
    return {
        **who,
        "associated_object_type": f"{obj._meta.app_label}.{obj._meta.model_name}",
        "associated_object_id": str(obj.pk),
        "role": role,
        "status": status,
    }


def test_associations_list_filter_and_display(api, sample):
    ams = Location.objects.get(name="AMS1")
    rows = api.json(ASSOCIATIONS, {"associated_object_id": str(ams.pk)})["results"]
    assert sorted(names(rows)) == [
        "Contact Ada Lovelace (+31 20 555 0101) (ada@example.com) for Europe → AMS1",
        "Team contact NOC (+31 20 555 0100) (noc@example.com) for Europe → AMS1",
    ]
    assert api.json(ASSOCIATIONS, {"team": "NOC"})["count"] == 2
    assert api.json(ASSOCIATIONS, {"role": "Administrative"})["count"] == 2
    assert (
        api.json(ASSOCIATIONS, {"status": "Primary", "associated_object_type": "dcim.device"})["count"] == 1
    )
    row = api.json(ASSOCIATIONS, {"contact": "Ada Lovelace"})["results"][0]
    assert row["contact"]["object_type"] == "extras.contact" and row["team"] is None
    assert row["associated_object_type"] == "dcim.location"
    assert row["role"]["object_type"] == "extras.role" and row["status"]["object_type"] == "extras.status"


def test_association_create_update_delete(api, sample):
    tenant = Tenant.objects.get(name="globex")
    status, created = send(api, "post", ASSOCIATIONS, association({"contact": "bob"}, tenant, "Billing"))
    assert status == 201, created
    assert created["display"] == "Contact bob (bob@example.com) for globex"
    status, patched = send(api, "patch", f"{ASSOCIATIONS}{created['id']}/", {"status": "Secondary"})
    assert status == 200 and patched["status"]["id"]
    assert ContactAssociation.objects.get(pk=created["id"]).status.name == "Secondary"
    assert send(api, "delete", f"{ASSOCIATIONS}{created['id']}/") == (204, None)


def test_association_validation(api, sample):
    tenant = Tenant.objects.get(name="globex")
    for who, message in (
        ({}, "Either a contact or a team must be specified"),
        ({"contact": "bob", "team": "NOC"}, "A contact and a team cannot be both specified at once"),
    ):
        status, body = send(api, "post", ASSOCIATIONS, association(who, tenant))
        assert (status, body) == (400, {"__all__": [message]})
    missing = {**association({"team": "NOC"}, tenant), "associated_object_id": str(Device.objects.first().pk)}
    status, body = send(api, "post", ASSOCIATIONS, missing)
    assert status == 400 and body == {"associated_object_id": ["No Tenant has this id."]}
    on_contact = association({"team": "NOC"}, Contact.objects.get(name="bob"))
    status, body = send(api, "post", ASSOCIATIONS, on_contact)
    assert status == 400 and body == {
        "associated_object_type": ["Objects of type extras.contact cannot be assigned here."]
    }
    status, body = send(api, "post", ASSOCIATIONS, association({"team": "NOC"}, tenant, role="Loopback"))
    assert status == 400 and list(body) == ["role"]
    # One contact or team per object and role.
    ams = Location.objects.get(name="AMS1")
    status, body = send(api, "post", ASSOCIATIONS, association({"team": "NOC"}, ams))
    assert status == 400 and body == {
        "non_field_errors": [
            "The fields associated_object_type, associated_object_id, team, role must make a unique set."
        ]
    }
    assert send(api, "post", ASSOCIATIONS, association({"team": "NOC"}, ams, role="On Site"))[0] == 201


def test_deleting_an_object_removes_its_associations(api, sample):
    tenants = [Tenant.objects.create(name=f"short-lived {n}") for n in range(3)]
    for tenant in tenants:
        status, _ = send(api, "post", ASSOCIATIONS, association({"contact": "bob"}, tenant))
        assert status == 201
    before = ContactAssociation.objects.count()
    assert send(api, "delete", f"/api/tenancy/tenants/{tenants[0].pk}/")[0] == 204
    assert not ContactAssociation.objects.filter(associated_object_id=tenants[0].pk).exists()
    assert ContactAssociation.objects.count() == before - 1
    # In bulk too.
    assert send(api, "delete", "/api/tenancy/tenants/", [{"id": str(t.pk)} for t in tenants[1:]])[0] == 204
    assert ContactAssociation.objects.count() == before - 3
    # Deleting a team takes its associations and memberships, not its contacts.
    field = Team.objects.get(name="field services")
    send(api, "post", ASSOCIATIONS, association({"team": field.name}, Location.objects.get(name="AMS1")))
    assert ContactAssociation.objects.filter(team=field).exists()
    assert send(api, "delete", f"{TEAMS}{field.pk}/")[0] == 204
    assert not ContactAssociation.objects.filter(team_id=field.pk).exists()
    assert Contact.objects.filter(name="bob").exists()
    # A team that object metadata names is kept (metadata protects it).
    noc = Team.objects.get(name="NOC")
    assert send(api, "delete", f"{TEAMS}{noc.pk}/")[0] == 409
