"""A write names only related objects its writer may view: a hidden one is answered exactly as an
absent one, by id, natural key or attributes (and through every relation the attributes cross),
in REST single and bulk writes, GraphQL mutations, CSV imports and relationship writes."""

from __future__ import annotations

import uuid

import pytest

from inventory.dcim.models import Device
from inventory.extras.models import Relationship, RelationshipAssociation, SecretsGroup
from inventory.ipam.models import VLAN
from inventory.tenancy.models import Tenant, TenantGroup
from inventory.virtualization.models import VirtualMachine

from .conftest import send
from .test_permissions import account, grant, graphql

TENANTS = "/api/tenancy/tenants/"


def masked(body, given: str):
    """The answer with the named value blanked out, to compare a hidden object's with an absent one's."""
    return str(body).replace(given, "<given>")


@pytest.fixture
def group_writer(sample):
    """May add tenants and view one tenant group, Enterprise, whose parent (Customers) is hidden."""
    user, api = account()
    grant(user, ["tenancy.tenant"], ["view", "add", "change"])
    grant(user, ["tenancy.tenantgroup"], ["view"], {"name__in": ["Enterprise"]})
    return api


def test_a_hidden_object_is_answered_as_an_absent_one(group_writer):
    customers = TenantGroup.objects.get(name="Customers")
    absent = str(uuid.uuid4())
    before = Tenant.objects.count()
    for hidden, missing in (
        ("Customers", "Nobody"),
        (str(customers.pk), absent),
        ({"name": "Customers"}, {"name": "Nobody"}),
        ({"id": str(customers.pk)}, {"id": absent}),
    ):
        answers = []
        for given in (hidden, missing):
            status, body = send(group_writer, "post", TENANTS, {"name": "Initrode", "tenant_group": given})
            assert status == 400 and "Related object not found" in body["tenant_group"][0]
            text = given if isinstance(given, str) else next(iter(given.values()))
            answers.append(masked(body, text))
        assert answers[0] == answers[1]
    assert Tenant.objects.count() == before
    status, body = send(group_writer, "post", TENANTS, {"name": "Initrode", "tenant_group": "Enterprise"})
    assert status == 201 and body["tenant_group"]["id"] == str(TenantGroup.objects.get(name="Enterprise").pk)


def test_attributes_cannot_reach_through_a_hidden_relation(group_writer):
    customers = TenantGroup.objects.get(name="Customers")
    answers = []
    for parent in ({"name": "Customers"}, {"name": "Nobody"}, str(customers.pk), str(uuid.uuid4())):
        given = {"name": "Enterprise", "parent": parent}
        status, body = send(group_writer, "post", TENANTS, {"name": "Initrode", "tenant_group": given})
        assert status == 400, body
        answers.append(body["tenant_group"][0].split("parent")[0])
    assert len(set(answers)) == 1  # the hidden parent, by name or id, is as absent as no parent
    # "No parent" needs no parent to be seen: Enterprise has one, so nothing matches.
    given = {"name": "Enterprise", "parent": None}
    assert send(group_writer, "post", TENANTS, {"name": "Initrode", "tenant_group": given})[0] == 400


def test_lookups_hidden_fields_and_reverse_relations_are_no_attributes(api, superuser):
    """Even for a writer who sees everything, attributes are the fields the API shows, compared
    exactly: no pattern to run, no password to probe, no path back through reverse relations."""
    for attrs, path in (
        ({"name__regex": "^C"}, "name__regex"),
        ({"name__startswith": "C"}, "name__startswith"),
        ({"tenants__name": "x"}, "tenants__name"),
        ({"_name": "x"}, "_name"),
    ):
        status, body = send(api, "post", TENANTS, {"name": "Initrode", "tenant_group": attrs})
        assert (status, body) == (400, {"tenant_group": [f'"{path}" is not an attribute of tenant group.']})
    for attrs in ({"password__startswith": "pbkdf2"}, {"password": superuser.password}):
        owner = {"username": superuser.username, **attrs}
        body = {"name": "probe", "view": "dcim:device_list", "owner": owner}
        status, answer = send(api, "post", "/api/extras/saved-views/", body)
        assert status == 400 and "is not an attribute of user" in answer["owner"][0], answer


def test_bulk_writes_find_hidden_objects_absent(group_writer):
    before = Tenant.objects.count()
    customers = TenantGroup.objects.get(name="Customers")
    batch = [
        {"name": "A", "tenant_group": "Enterprise"},
        {"name": "B", "tenant_group": "Customers"},
        {"name": "C", "tenant_group": str(customers.pk)},
        {"name": "D", "tenant_group": {"name": "Enterprise", "parent": {"name": "Customers"}}},
    ]
    status, body = send(group_writer, "post", TENANTS, batch)
    assert status == 400, body
    assert [bool(item) for item in body] == [False, True, True, True]
    assert all("Related object not found" in item["tenant_group"][0] for item in body[1:])
    assert Tenant.objects.count() == before
    tenant = Tenant.objects.create(name="Existing")
    status, body = send(group_writer, "patch", TENANTS, [{"id": str(tenant.pk), "tenant_group": "Internal"}])
    assert status == 400 and Tenant.objects.get(pk=tenant.pk).tenant_group_id is None


def test_graphql_and_csv_find_hidden_objects_absent(group_writer):
    before = Tenant.objects.count()
    # The data's items are GraphQL input objects of any shape, given whole as one variable.
    mutation = "mutation ($data: [GenericScalar]!) { create_tenants(data: $data) { id } }"
    for group in ("Customers", str(TenantGroup.objects.get(name="Customers").pk)):
        result = graphql(group_writer, mutation, {"data": [{"name": "G", "tenant_group": group}]})
        assert result["errors"] and "Related object not found" in str(result["errors"]), result
    assert "errors" not in graphql(
        group_writer, mutation, {"data": [{"name": "G", "tenant_group": "Enterprise"}]}
    )
    response = group_writer.client.post(
        TENANTS, "name,tenant_group__name\r\nCSV,Customers\r\n", content_type="text/csv"
    )
    assert response.status_code == 400 and b"Related object not found" in response.content
    assert Tenant.objects.count() == before + 1


def test_valid_names_listed_are_those_the_writer_may_view(sample):
    user, api = account()
    grant(user, ["ipam.vlan"], ["view", "add"])
    grant(user, ["extras.status"], ["view"], {"name": "Active"})
    body = {"vid": 3999, "name": "hidden-status", "status": "Reserved"}
    status, answer = send(api, "post", "/api/ipam/vlans/", body)
    assert status == 400
    assert answer["status"] == [
        "Related object not found using the provided attributes: name=Reserved. Valid for vlan: Active."
    ]
    assert not VLAN.objects.filter(vid=3999).exists()
    assert send(api, "post", "/api/ipam/vlans/", {**body, "status": "Active"})[0] == 201


def test_relationships_name_only_objects_the_writer_may_view(sample):
    leaf = Device.objects.get(name="leaf1")
    web, db = VirtualMachine.objects.get(name="web01"), VirtualMachine.objects.get(name="db01")
    user, api = account(
        "extras.view_relationship",
        "extras.add_relationshipassociation",
        "extras.delete_relationshipassociation",
    )
    grant(user, ["dcim.device"], ["view", "change"])
    grant(user, ["virtualization.virtualmachine"], ["view"], {"name": "web01"})
    vm_host = Relationship.objects.get(key="vm_host")
    before = set(RelationshipAssociation.objects.filter(relationship=vm_host).values_list("pk", flat=True))

    def attach(machine) -> tuple[int, object]:
        objects = {"vm_host": {"destination": {"objects": [str(machine.pk)]}}}
        return send(api, "patch", f"/api/dcim/devices/{leaf.pk}/", {"relationships": objects})

    status, body = attach(db)
    assert status == 400 and "Related object not found" in str(body), body
    assert (
        set(RelationshipAssociation.objects.filter(relationship=vm_host).values_list("pk", flat=True))
        == before
    )
    assert attach(web)[0] == 200


def test_a_repository_cannot_name_a_secrets_group_its_writer_may_not_view(sample):
    """The write that sent an operator's Git token to any host: a user who may edit Git
    repositories names a secrets group they may not read."""
    group = SecretsGroup.objects.create(name="operator git")
    user, api = account()
    grant(user, ["extras.gitrepository"], ["view", "add", "change"])
    assert send(api, "get", f"/api/extras/secrets-groups/{group.pk}/")[0] == 403
    answers = []
    for given in (str(group.pk), str(uuid.uuid4()), "operator git", "no such group"):
        body = {
            "name": "x",
            "remote_url": "https://git.example.com/x.git",
            "branch": "main",
            "secrets_group": given,
        }
        status, answer = send(api, "post", "/api/extras/git-repositories/", body)
        assert status == 400, answer
        answers.append(masked(answer, given))
    assert answers[0] == answers[1] and answers[2] == answers[3]


def test_what_a_read_showed_can_be_written_back(group_writer):
    """A field holding an object the writer may not view shows its reference; writing that back
    (a full PUT, or the id alone) keeps it, and naming it anywhere else is still refused."""
    customers = TenantGroup.objects.get(name="Customers")
    tenant = Tenant.objects.create(name="Held", tenant_group=customers)
    path = f"{TENANTS}{tenant.pk}/"
    shown = group_writer.json(path)
    assert shown["tenant_group"]["id"] == str(customers.pk) and "name" not in shown["tenant_group"]
    status, body = send(group_writer, "put", path, {**shown, "description": "written back"})
    assert status == 200 and body["tenant_group"]["id"] == str(customers.pk), body
    status, _ = send(group_writer, "patch", path, {"tenant_group": str(customers.pk), "comments": "again"})
    assert status == 200 and Tenant.objects.get(pk=tenant.pk).tenant_group == customers
    # The same id on another tenant, or the hidden object's name on this one, is not found.
    other = Tenant.objects.create(name="Other")
    assert send(group_writer, "patch", f"{TENANTS}{other.pk}/", {"tenant_group": str(customers.pk)})[0] == 400
    assert send(group_writer, "patch", path, {"tenant_group": "Customers"})[0] == 400
