"""Metadata types, their choices and object metadata, through the REST API."""

from __future__ import annotations

import pytest

from inventory.dcim.models import Location
from inventory.extras.models import ObjectMetadata
from inventory.tenancy.models import Tenant

from .conftest import send

TYPES, CHOICES, METADATA = (
    "/api/extras/metadata-types/",
    "/api/extras/metadata-choices/",
    "/api/extras/object-metadata/",
)


def new_type(api, name: str, data_type: str) -> dict:
    status, body = send(
        api, "post", TYPES, {"name": name, "data_type": data_type, "content_types": ["tenancy.tenant"]}
    )
    assert status == 201, body
    return body


def describe(tenant, kind: str, scoped=(), **given) -> dict:
    return {
        "metadata_type": kind,
        "assigned_object_type": "tenancy.tenant",
        "assigned_object_id": str(tenant.pk),
        "scoped_fields": list(scoped),
        **given,
    }


@pytest.fixture
def tenant(sample):
    return Tenant.objects.create(name="Umbrella")


def test_types_and_choices(api, sample):
    body = new_type(api, "Port count", "integer")
    assert body["data_type"] == {"value": "integer", "label": "Integer"}
    assert body["content_types"] == ["tenancy.tenant"]
    status, errors = send(api, "patch", f"{TYPES}{body['id']}/", {"data_type": "text"})
    assert status == 400 and errors == {"data_type": ["Type cannot be changed once created"]}
    status, errors = send(api, "post", CHOICES, {"metadata_type": "Port count", "value": "48"})
    assert status == 400 and errors == {
        "metadata_type": ["Metadata choices can only be assigned to select/multiselect data_type."]
    }
    status, errors = send(api, "post", CHOICES, {"metadata_type": "Criticality", "value": "high"})
    assert status == 400 and errors == {
        "non_field_errors": ["The fields metadata_type, value must make a unique set."]
    }
    assert (
        send(api, "post", CHOICES, {"metadata_type": "Criticality", "value": "medium", "weight": 15})[0]
        == 201
    )
    rows = api.json(CHOICES, {"metadata_type": "Criticality"})["results"]
    assert [r["value"] for r in rows] == ["high", "medium", "low"]
    assert api.json(TYPES, {"data_type": "select"})["count"] == 1
    status, errors = send(api, "post", TYPES, {"name": "x", "data_type": "colour", "content_types": []})
    assert status == 400 and errors == {
        "data_type": [
            '"colour" is not a valid choice. Valid choices: text, integer, boolean, date, datetime, url, '
            "select, multi-select, json, markdown, contact-or-team, float."
        ]
    }


@pytest.mark.parametrize(
    ("data_type", "good", "bad", "message"),
    [
        ("text", "a note", 5, "Value must be a string"),
        ("integer", 48, "48", "Value must be an integer."),
        ("float", 2.5, True, "Value must be a float."),
        ("boolean", False, "no", "Value must be true or false."),
        ("date", "2026-01-31", "31/01/2026", "Date values must be in the format YYYY-MM-DD."),
        ("url", "https://example.com/x", "not a url", "Enter a valid URL."),
        (
            "json",
            {"any": ["thing"]},
            None,
            "value is a required field that cannot be empty for metadata type json.",
        ),
    ],
)
def test_values_must_suit_the_type(api, tenant, data_type, good, bad, message):
    new_type(api, f"Typed {data_type}", data_type)
    status, body = send(api, "post", METADATA, describe(tenant, f"Typed {data_type}", value=bad))
    assert (status, body) == (400, {"value": [message]})
    status, body = send(api, "post", METADATA, describe(tenant, f"Typed {data_type}", value=good))
    assert status == 201, body
    assert body["value"] == good and body["scoped_fields"] == []
    assert body["display"] == f"Typed {data_type} - Umbrella - {good}"


def test_datetime_without_zone_is_utc(api, tenant):
    new_type(api, "Seen", "datetime")
    status, body = send(api, "post", METADATA, describe(tenant, "Seen", value="2026-01-31T10:00:00"))
    assert status == 201 and body["value"] == "2026-01-31T10:00:00+0000"
    status, body = send(api, "post", METADATA, describe(tenant, "Seen", ["name"], value="yesterday"))
    assert status == 400 and list(body) == ["value"]


def test_select_values_come_from_the_choices(api, tenant):
    status, body = send(api, "post", METADATA, describe(tenant, "Criticality", value="urgent"))
    assert (status, body) == (400, {"value": ["Invalid choice (urgent). Available choices are: high, low"]})
    new_type(api, "Labels", "multi-select")
    send(api, "post", CHOICES, {"metadata_type": "Labels", "value": "a"})
    send(api, "post", CHOICES, {"metadata_type": "Labels", "value": "b"})
    status, body = send(api, "post", METADATA, describe(tenant, "Labels", value=["a", "c"]))
    assert status == 400 and body == {"value": ["Invalid choice(s) (a, c). Available choices are: a, b"]}
    status, body = send(api, "post", METADATA, describe(tenant, "Labels", value=["b", "a"]))
    assert status == 201 and body["value"] == ["b", "a"]


def test_contact_or_team_only_for_that_type(api, tenant):
    status, body = send(api, "post", METADATA, describe(tenant, "Data owner"))
    assert (status, body) == (400, {"__all__": ["Either a contact or a team must be specified"]})
    both = describe(tenant, "Data owner", contact="bob", team="NOC")
    assert send(api, "post", METADATA, both) == (
        400,
        {"__all__": ["A contact and a team cannot be both specified at once"]},
    )
    status, body = send(api, "post", METADATA, describe(tenant, "Data owner", team="NOC", value="x"))
    assert (status, body) == (400, {"value": ["A value cannot be specified for type contact-or-team"]})
    status, body = send(api, "post", METADATA, describe(tenant, "Source", value="CRM", contact="bob"))
    assert (status, body) == (
        400,
        {"contact": ["A contact can be given only for metadata of type contact-or-team."]},
    )
    status, body = send(api, "post", METADATA, describe(tenant, "Data owner", team="NOC"))
    assert status == 201 and body["value"] is None and body["team"]["object_type"] == "extras.team"
    assert body["display"] == "Data owner - Umbrella - NOC (+31 20 555 0100) (noc@example.com)"
    # A contact or team that metadata names cannot be deleted.
    team_id = body["team"]["id"]
    assert send(api, "delete", f"/api/extras/teams/{team_id}/")[0] == 409


def test_scoped_fields_are_fields_of_the_object_and_never_overlap(api, tenant):
    status, body = send(api, "post", METADATA, describe(tenant, "Source", ["name", "colour"], value="x"))
    assert (status, body) == (400, {"scoped_fields": ["colour: no such field on tenancy.tenant."]})
    status, body = send(
        api, "post", METADATA, {**describe(tenant, "Source", value="x"), "scoped_fields": "name"}
    )
    assert (status, body) == (400, {"scoped_fields": ["Must be a list of field names."]})
    first = describe(tenant, "Source", ["name", "description"], value="CRM")
    assert send(api, "post", METADATA, first)[0] == 201
    status, body = send(api, "post", METADATA, describe(tenant, "Source", ["comments", "name"], value="ERP"))
    assert status == 400 and body == {
        "scoped_fields": [
            "There are other Object Metadata instances of metadata type Source scoping the same fields "
            "['name'] of this object."
        ]
    }
    status, body = send(api, "post", METADATA, describe(tenant, "Source", [], value="ERP"))
    assert status == 400 and list(body) == ["scoped_fields"]
    assert send(api, "post", METADATA, describe(tenant, "Source", ["comments"], value="ERP"))[0] == 201
    # Another type may cover the same fields.
    assert send(api, "post", METADATA, describe(tenant, "Criticality", ["name"], value="low"))[0] == 201


def test_assigned_object_type_must_be_allowed_and_exist(api, sample, tenant):
    ams = Location.objects.get(name="AMS1")
    new_type(api, "Tenant only", "text")
    body = {**describe(tenant, "Tenant only", value="x"), "assigned_object_type": "dcim.location"}
    status, errors = send(api, "post", METADATA, {**body, "assigned_object_id": str(ams.pk)})
    assert (status, errors) == (
        400,
        {"__all__": ["Assigned Object Type dcim.location is not allowed by Metadata Type Tenant only"]},
    )
    status, errors = send(api, "post", METADATA, body)
    assert (status, errors) == (400, {"assigned_object_id": ["No Location has this id."]})


def test_update_filter_and_cleanup(api, tenant):
    status, created = send(api, "post", METADATA, describe(tenant, "Criticality", value="low"))
    assert status == 201
    path = f"{METADATA}{created['id']}/"
    status, body = send(api, "patch", path, {"value": "high"})
    assert status == 200 and body["value"] == "high"
    status, body = send(api, "patch", path, {"value": "urgent"})
    assert status == 400 and list(body) == ["value"]
    status, body = send(api, "patch", path, {"metadata_type": "Source"})
    assert (status, body) == (400, {"metadata_type": ["Cannot be changed once created"]})
    rows = api.json(METADATA, {"assigned_object_id": str(tenant.pk)})["results"]
    assert [r["id"] for r in rows] == [created["id"]]
    # The object itself beside its type and id: a reference at depth 0, nested below.
    assert rows[0]["assigned_object"]["id"] == str(tenant.pk)
    assert rows[0]["assigned_object"]["object_type"] == "tenancy.tenant"
    nested = api.json(path, {"depth": 1})["assigned_object"]
    assert nested["display"] == tenant.name
    assert api.json(METADATA, {"metadata_type": "Data owner"})["count"] == 2
    # Deleting the object deletes what is said about it; the type stays protected while used.
    assert send(api, "delete", f"/api/extras/metadata-types/{created['metadata_type']['id']}/")[0] == 409
    assert send(api, "delete", f"/api/tenancy/tenants/{tenant.pk}/")[0] == 204
    assert not ObjectMetadata.objects.filter(assigned_object_id=tenant.pk).exists()


def test_value_filter_and_search_find_metadata_by_their_value(api, tenant):
    new_type(api, "Hall", "text")
    status, created = send(api, "post", METADATA, describe(tenant, "Hall", value="Rack row 7, hall B"))
    assert status == 201, created
    # Any part of the value, in any case, as the reference's `value` filter (the Ansible modules'
    # look-up of an object's metadata).
    assert [r["id"] for r in api.json(METADATA, {"value": "HALL b"})["results"]] == [created["id"]]
    assert api.json(METADATA, {"value": "hall c"})["count"] == 0
    everything = api.json(METADATA)["count"]
    assert api.json(METADATA, {"value": ""})["count"] == everything  # an empty value: no filter
    assert created["id"] in {r["id"] for r in api.json(METADATA, {"q": "row 7"})["results"]}
    assert created["id"] in {r["id"] for r in api.json(METADATA, {"q": "hall"})["results"]}  # its type
    body = api.post("/api/graphql/", {"query": '{ object_metadata(value: ["row 7"]) { id } }'}).json()
    assert body == {"data": {"object_metadata": [{"id": created["id"]}]}}
