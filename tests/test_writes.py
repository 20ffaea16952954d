"""Write behaviours beyond the generic family: related-object forms, validation, bodies, tokens."""

import base64
import re

import orjson
import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import transaction
from django.db.models import ProtectedError

from inventory.dcim.models import Device, Location, LocationType
from inventory.extras.models import CustomField, Status, Tag
from inventory.tenancy.models import Tenant
from inventory.users.models import Token

from .conftest import Api, send

LOCATIONS = "/api/dcim/locations/"


def post(api, path, body, **headers):
    response = api.post(path, body, **headers)
    return response.status_code, orjson.loads(response.content) if response.content else None


@pytest.fixture
def site(sample):
    return LocationType.objects.get(name="Site")


class TestRelatedObjects:
    def test_by_uuid_name_and_attributes(self, api, sample, site):
        europe = sample[Location][0]
        for i, (status, parent, kind) in enumerate(
            [
                (str(Status.objects.get(name="Active").pk), str(europe.pk), str(site.pk)),
                ("Active", {"name": "Europe"}, "Site"),
                (
                    {"name": "Planned"},
                    {"name": "Europe", "location_type": {"name": "Region"}},
                    {"name": "Site"},
                ),
            ]
        ):
            code, body = post(
                api, LOCATIONS, {"name": f"S{i}", "status": status, "parent": parent, "location_type": kind}
            )
            assert code == 201, body
            assert body["parent"]["id"] == str(europe.pk)

    def test_zero_or_several_matches_name_the_field(self, api, sample):
        code, body = post(
            api, LOCATIONS, {"name": "x", "status": "Active", "location_type": {"name": "nope"}}
        )
        assert code == 400
        assert body == {
            "location_type": ["Related object not found using the provided attributes: name=nope."]
        }
        Tenant.objects.create(name="dup-a", description="same")
        Tenant.objects.create(name="dup-b", description="same")
        code, body = post(
            api,
            LOCATIONS,
            {"name": "x", "status": "Active", "location_type": "Region", "tenant": {"description": "same"}},
        )
        assert code == 400
        assert body == {"tenant": ["Multiple objects match the provided attributes: description=same."]}
        code, body = post(
            api,
            LOCATIONS,
            {
                "name": "x",
                "status": "Active",
                "location_type": "Region",
                "tenant": "00000000-0000-4000-8000-000000000000",
            },
        )
        assert code == 400 and "Related object not found" in body["tenant"][0]
        code, body = post(
            api, LOCATIONS, {"name": "x", "status": "Active", "location_type": {"nosuchfield": 1}}
        )
        assert code == 400 and "nosuchfield" in body["location_type"][0]

    def test_status_and_tags_only_where_their_content_types_allow(self, api, sample):
        code, body = post(api, LOCATIONS, {"name": "x", "status": "Connected", "location_type": "Region"})
        assert code == 400
        assert body == {
            "status": [
                "Related object not found using the provided attributes: name=Connected. Valid for location: "
                "Active, Decommissioning, Planned, Retired, Staged, Testing."
            ]
        }
        Tag.objects.create(name="devices-only")
        code, body = post(
            api,
            LOCATIONS,
            {"name": "x", "status": "Active", "location_type": "Region", "tags": ["alpha", "devices-only"]},
        )
        assert code == 400 and list(body) == ["tags"]
        code, body = post(
            api,
            LOCATIONS,
            {"name": "x", "status": "Active", "location_type": "Region", "tags": ["alpha", {"name": "Beta"}]},
        )
        assert code == 201 and len(body["tags"]) == 2

    def test_content_types_as_strings(self, api):
        code, body = post(
            api, "/api/extras/tags/", {"name": "t", "content_types": ["dcim.location", "tenancy.tenant"]}
        )
        assert code == 201 and body["content_types"] == ["dcim.location", "tenancy.tenant"]
        code, body = post(api, "/api/extras/tags/", {"name": "u", "content_types": ["dcim.nothing"]})
        assert code == 400 and body == {"content_types": ["Invalid content type: dcim.nothing"]}


class TestValidation:
    def test_missing_required_fields(self, api):
        code, body = post(api, LOCATIONS, {})
        assert code == 400
        assert body == {f: ["This field is required."] for f in ("name", "location_type", "status")}

    def test_choices_formats_and_uniqueness(self, api, sample):
        code, body = post(api, "/api/tenancy/tenants/", {"name": "Acme"})
        assert code == 400 and body == {"name": ["Tenant with this Name already exists."]}
        code, body = post(api, "/api/extras/tags/", {"name": "c", "color": "red"})
        assert code == 400 and list(body) == ["color"]
        code, body = post(
            api, LOCATIONS, {"name": "x", "status": "Active", "location_type": "Region", "asn": 0}
        )
        assert code == 400 and list(body) == ["asn"]
        code, body = post(
            api, LOCATIONS, {"name": "x", "status": "Active", "location_type": "Region", "asn": "many"}
        )
        assert code == 400 and list(body) == ["asn"]

    def test_tree_rules(self, api, sample, site):
        europe, ams = sample[Location][:2]
        code, body = post(api, LOCATIONS, {"name": "x", "status": "Active", "location_type": "Site"})
        assert code == 400 and body == {"parent": ["A Location of type Site must have a parent Location."]}
        code, body = post(
            api, LOCATIONS, {"name": "x", "status": "Active", "location_type": "Site", "parent": str(ams.pk)}
        )
        assert code == 400 and "Region" in body["parent"][0]
        response = api.client.patch(
            f"/api/dcim/location-types/{LocationType.objects.get(name='Region').pk}/",
            orjson.dumps({"parent": "Floor"}),
            content_type="application/json",
        )
        assert response.status_code == 400 and "own ancestor" in orjson.loads(response.content)["parent"][0]
        # a nestable type may nest under itself
        code, body = post(
            api,
            LOCATIONS,
            {"name": "West", "status": "Active", "location_type": "Region", "parent": str(europe.pk)},
        )
        assert code == 201 and body["parent"]["id"] == str(europe.pk)

    def test_read_only_and_unknown_fields_are_ignored_and_custom_fields_merge(self, api, sample):
        tenant = sample[Tenant][0]
        for key in ("a", "b"):
            field = CustomField.objects.create(key=key, label=key, type="integer")
            field.content_types.add(ContentType.objects.get_for_model(Tenant))
        tenant.refresh_from_db()
        tenant._custom_field_data = {"a": 1, "b": 2}
        tenant.save()
        path = f"/api/tenancy/tenants/{tenant.pk}/"
        body = {"created": "2000-01-01T00:00:00Z", "display": "x", "nope": 1, "custom_fields": {"b": 3}}
        response = api.client.patch(path, orjson.dumps(body), content_type="application/json")
        assert response.status_code == 200
        updated = orjson.loads(response.content)
        assert updated["created"] != body["created"] and updated["custom_fields"] == {"a": 1, "b": 3}

    def test_client_supplied_id_is_honoured(self, api):
        pk = "6f1b3c0e-2f7a-4d8e-9a51-0c8e4b2d7f10"
        code, body = post(api, "/api/tenancy/tenants/", {"id": pk, "name": "With id"})
        assert code == 201 and body["id"] == pk


class TestBodies:
    def test_malformed_and_wrong_types(self, api):
        response = api.client.post("/api/tenancy/tenants/", b'{"name": ', content_type="application/json")
        assert response.status_code == 400 and orjson.loads(response.content)["detail"].startswith(
            "JSON parse error"
        )
        response = api.client.post(
            "/api/tenancy/tenants/", "name=x", content_type="application/x-www-form-urlencoded"
        )
        assert response.status_code == 415
        assert orjson.loads(response.content) == {
            "detail": 'Unsupported media type "application/x-www-form-urlencoded" in request.'
        }
        code, body = post(api, "/api/tenancy/tenants/", "just a string")
        assert code == 400 and body == {
            "non_field_errors": ["Invalid data. Expected a dictionary, but got str."]
        }

    def test_delete_of_one_object_takes_no_body(self, api, sample):
        tenant = sample[Tenant][1]
        response = api.client.delete(
            f"/api/tenancy/tenants/{tenant.pk}/",
            orjson.dumps([{"id": str(tenant.pk)}]),
            content_type="application/json",
        )
        assert response.status_code == 400 and Tenant.objects.filter(pk=tenant.pk).exists()

    def test_protected_objects_are_not_deleted(self, api, sample):
        region, site = LocationType.objects.get(name="Region"), LocationType.objects.get(name="Site")
        unused = LocationType.objects.create(name="Unused")
        response = api.client.delete(
            "/api/dcim/location-types/",
            orjson.dumps([{"id": str(unused.pk)}, {"id": str(site.pk)}]),
            content_type="application/json",
        )
        assert response.status_code == 409
        assert "dependent objects were found" in orjson.loads(response.content)["detail"]
        assert (
            LocationType.objects.filter(pk=unused.pk).exists()
            and LocationType.objects.filter(pk=region.pk).exists()
        )
        tenant = sample[Tenant][0]
        try:  # the ORM's own count of what protects the tenant
            with transaction.atomic():
                tenant.delete()
        except ProtectedError as exc:
            protecting = len(exc.protected_objects)
        response = api.client.delete(f"/api/tenancy/tenants/{tenant.pk}/")
        assert response.status_code == 409
        detail = orjson.loads(response.content)["detail"]
        assert (
            detail.startswith(f"Unable to delete object. {protecting} dependent objects were found: ")
            and "AMS1" in detail
            and "leaf1" in detail
            and "R101" in detail
            and "web01" in detail
        )


class TestTokens:
    def basic(self, username, password):
        return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()

    def test_provisioning_with_basic_auth(self, sample, superuser):
        client = Api(None)
        response = client.client.post(
            "/api/users/tokens/",
            content_type="application/json",
            HTTP_AUTHORIZATION=self.basic("admin", "admin-password"),
        )
        assert response.status_code == 201
        body = orjson.loads(response.content)
        assert len(body["key"]) == 40 and body["write_enabled"] is True and body["expires"] is None
        assert Api(body["key"]).json("/api/dcim/locations/")["count"] == 4
        response = client.client.post(
            "/api/users/tokens/",
            orjson.dumps({"description": "ci", "write_enabled": False}),
            content_type="application/json",
            HTTP_AUTHORIZATION=self.basic("admin", "admin-password"),
        )
        assert response.status_code == 201 and orjson.loads(response.content)["write_enabled"] is False

    def test_basic_credentials_read_and_manage_own_tokens(self, sample, superuser):
        client, auth = Api(None).client, self.basic("admin", "admin-password")
        page = orjson.loads(client.get("/api/users/tokens/", HTTP_AUTHORIZATION=auth).content)
        mine = set(Token.objects.filter(user=superuser).values_list("pk", flat=True))
        assert {row["id"] for row in page["results"]} == {str(pk) for pk in mine} and mine
        # The reference's token fields: the owner is always the reader, never shown.
        assert set(page["results"][0]) == {
            *("id", "object_type", "display", "url", "natural_slug", "created", "expires", "key"),
            *("write_enabled", "description"),
        }
        token = page["results"][0]["id"]
        response = client.patch(
            f"/api/users/tokens/{token}/",
            orjson.dumps({"description": "renamed"}),
            content_type="application/json",
            HTTP_AUTHORIZATION=auth,
        )
        assert response.status_code == 200 and orjson.loads(response.content)["description"] == "renamed"
        wrong = client.get("/api/users/tokens/", HTTP_AUTHORIZATION=self.basic("admin", "wrong"))
        assert wrong.status_code == 403

    def test_bad_credentials(self, sample):
        response = Api(None).client.post(
            "/api/users/tokens/",
            content_type="application/json",
            HTTP_AUTHORIZATION=self.basic("admin", "wrong"),
        )
        assert response.status_code == 403
        assert orjson.loads(response.content) == {"detail": "Invalid username/password."}
        response = Api(None).get(
            "/api/dcim/locations/", HTTP_AUTHORIZATION=self.basic("admin", "admin-password")
        )
        assert response.status_code == 403

    def test_key_may_be_supplied_to_restore_a_token(self, api, superuser):
        key = "3f9c1e0b7a5d8264c0e1f7a9b3d52c68e4a1907b"  # as random as a generated one
        code, body = post(api, "/api/users/tokens/", {"key": key, "description": "restored"})
        assert code == 201 and body["key"] == key
        assert Api(key).json("/api/users/tokens/")["count"] >= 1
        code, body = post(api, "/api/users/tokens/", {"key": "not-hex"})
        assert code == 400 and list(body) == ["key"]

    def test_token_crud_is_limited_to_own_tokens(self, api, sample):
        other = sample[Token][2]
        response = api.client.patch(
            f"/api/users/tokens/{other.pk}/",
            orjson.dumps({"description": "mine now"}),
            content_type="application/json",
        )
        assert response.status_code == 404
        assert api.client.delete(f"/api/users/tokens/{other.pk}/").status_code == 404
        assert Token.objects.get(pk=other.pk).description == "someone else's"


def test_token_keys_are_sealed_at_rest(api, sample):
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT key FROM users_token")
        stored = [row[0] for row in cursor.fetchall()]
    keys = set(Token.objects.values_list("key", flat=True))
    assert len(stored) == len(keys) >= 3
    assert all(value.startswith("sealed:") for value in stored) and not keys & set(stored)
    shown = api.json("/api/users/tokens/")["results"]  # a key is shown once, when it is made
    assert {t["display"][:6] for t in shown} <= {k[-6:] for k in keys} and not any(t["key"] for t in shown)


def test_uniqueness_is_checked_across_the_batch_and_the_database(api, sample):
    from inventory.tenancy.models import Tenant

    before = Tenant.objects.count()
    code, body = post(api, "/api/tenancy/tenants/", [{"name": "New"}, {"name": "Acme"}, {"name": "New"}])
    assert code == 400
    assert body == [
        {},
        {"name": ["Tenant with this Name already exists."]},
        {"name": ["Tenant with this Name already exists."]},
    ]
    existing = str(sample[Tenant][0].pk)
    code, body = post(api, "/api/tenancy/tenants/", {"id": existing, "name": "Other"})
    assert code == 400 and body == {"id": ["Tenant with this Id already exists."]}
    assert Tenant.objects.count() == before
    response = api.client.patch(
        "/api/tenancy/tenants/",
        orjson.dumps([{"id": existing, "name": "Swap"}, {"id": str(sample[Tenant][1].pk), "name": "Swap"}]),
        content_type="application/json",
    )
    assert response.status_code == 400 and Tenant.objects.filter(name="Swap").count() == 0


def test_a_bad_interface_type_names_the_closest(api, sample):
    """A long list of choices is not recited: the closest values are named, and where all are."""
    device = sample[Device][0]
    response = api.post(
        "/api/dcim/interfaces/", {"device": str(device.pk), "name": "x9", "type": "1000base-tx"}
    )
    assert response.status_code == 400
    [message] = orjson.loads(response.content)["type"]
    pattern = r'"1000base-tx" is not a valid choice\. Did you mean ([^?]+)\? OPTIONS on this endpoint lists all \d+\.'
    found = re.fullmatch(pattern, message)
    assert found and "1000base-t" in found.group(1).split(" or "), message


def test_a_write_of_one_object_naming_another_id_is_refused(api, sample, superuser):
    """The reference validates the object as saved under the other id: its unique name clashes
    with itself. Bulk writes name their objects by id, and the object's own id is no change."""
    tenant = sample[Tenant][0]
    path = f"/api/tenancy/tenants/{tenant.pk}/"
    other = "11111111-2222-4333-8444-666666666666"
    taken = {"name": ["Tenant with this Name already exists."]}
    assert send(api, "patch", path, {"id": other}) == (400, taken)  # the reference's capture
    assert send(api, "put", path, {"id": str(sample[Tenant][1].pk), "name": tenant.name}) == (400, taken)
    assert send(api, "patch", path, {"id": "not-an-id"}) == (400, {"id": ["Must be a valid UUID."]})
    assert (
        not Tenant.objects.filter(pk=other).exists() and Tenant.objects.get(pk=tenant.pk).name == tenant.name
    )
    status, body = send(api, "patch", path, {"id": str(tenant.pk).upper(), "description": "same"})
    assert status == 200 and body["description"] == "same"
    # An object with no unique value of its own: ids do not change.
    status, note = send(api, "post", f"{path}notes/", {"note": "n"})
    assert status == 201
    status, body = send(api, "patch", f"/api/extras/notes/{note['id']}/", {"id": other, "note": "m"})
    assert (status, body) == (400, {"id": ["The id of an existing object cannot be changed."]})
    # A caller who may not change the object learns nothing more.
    read_only = Api(Token.objects.create(user=superuser, write_enabled=False).key)
    assert send(read_only, "patch", path, {"id": other})[0] == 403
