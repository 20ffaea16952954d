"""REST behaviours beyond the generic family: envelope links, negotiation, errors, auth, notes."""

import datetime
import html
import re

import orjson
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext, override_settings
from django.utils import timezone

from inventory.dcim.models import Location
from inventory.extras.models import Note
from inventory.tenancy.models import Tenant
from inventory.users.models import Token, User

from .conftest import Api

LOCATIONS = "/api/dcim/locations/"
SUPPORTED = "1.2, 1.3, 1.4, 2.0, 2.1, 2.2, 2.3, 2.4, 3.0, 3.1, 3.2"


def test_api_root_lists_applications(api):
    body = api.json("/api/")
    assert {"circuits", "dcim", "extras", "graphql", "ipam", "status", "tenancy", "users"} <= body.keys()
    assert body["dcim"] == "http://testserver/api/dcim/"


def test_add_on_roots_list_no_installed_applications(api, anonymous):
    """`/api/apps/` as the reference answers it (and `/api/plugins/`, its older name); the
    installed ones are for administrators only, and none run here."""
    body = api.json("/api/")
    assert body["apps"] == "http://testserver/api/apps/"
    assert body["plugins"] == "http://testserver/api/plugins/"
    assert api.json("/api/apps/") == {"installed-apps": "http://testserver/api/apps/installed-apps/"}
    assert api.json("/api/plugins/") == {
        "installed-plugins": "http://testserver/api/plugins/installed-plugins/"
    }
    assert api.json("/api/apps/installed-apps/") == []
    assert anonymous.get("/api/apps/").status_code == 403
    viewer = User.objects.create_user("viewer")
    token = Token.objects.create(user=viewer)
    response = Api(token.key).get("/api/apps/installed-apps/")
    assert response.status_code == 403
    assert orjson.loads(response.content) == {"detail": "You do not have permission to perform this action."}


def test_api_root_needs_a_token(anonymous):
    response = anonymous.get("/api/")
    assert response.status_code == 403
    assert orjson.loads(response.content) == {"detail": "Authentication credentials were not provided."}
    assert response["API-Version"] == "3.2"


def test_app_root_lists_its_endpoints(api):
    body = api.json("/api/dcim/")
    assert body["location-types"] == "http://testserver/api/dcim/location-types/"
    assert body["devices"] == "http://testserver/api/dcim/devices/"
    assert body["cable-types"] == "http://testserver/api/dcim/cable-types/"
    assert list(body) == sorted(body) and len(body) == 53  # 49 models, 3 connection lists, connected-device


def test_status(api):
    body = api.json("/api/status/")
    assert body["api-versions"] == SUPPORTED.split(", ")
    assert "inventory.dcim" in body["installed-apps"] and body["django-version"]


def test_headers(api):
    response = api.get(LOCATIONS)
    assert response["Content-Type"] == "application/json"
    assert response["Allow"] == "GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS"
    assert "Accept" in response["Vary"]
    assert response["API-Version"] == "3.2"


def test_head_has_no_body(api):
    response = api.client.head(LOCATIONS)
    assert response.status_code == 200 and response.content == b""
    # Like the reference server: the length of the body a GET would carry.
    assert response["Content-Length"] == str(len(api.get(LOCATIONS).content))


def test_responses_carry_their_length(api, anonymous):
    """Content-Length on every response (no chunked encoding): lists, errors, OPTIONS."""
    for response in (
        api.get(LOCATIONS, {"limit": 1000}),
        api.get(LOCATIONS, {"no_such_filter": "x"}),
        anonymous.get(LOCATIONS),
        api.client.options(LOCATIONS),
    ):
        assert response["Content-Length"] == str(len(response.content)), response.status_code


def test_method_not_allowed(api):
    response = api.post("/api/status/", {})
    assert response.status_code == 405
    assert orjson.loads(response.content) == {"detail": 'Method "POST" not allowed.'}


@pytest.mark.parametrize(
    "path, location",
    [
        ("/api/dcim/locations", "/api/dcim/locations/"),
        ("/api/dcim/locations?limit=1&name=x", "/api/dcim/locations/?limit=1&name=x"),
        ("/api/tenancy/tenants/123", "/api/tenancy/tenants/123/"),
    ],
)
def test_missing_trailing_slash_redirects_with_302(api, path, location):
    response = api.client.get(path)
    assert response.status_code == 302 and response["Location"] == location


def test_a_write_without_its_trailing_slash_is_made_not_lost(api, sample):
    """A 302 is followed with a GET: writes get a 308, followed with the same method and body."""
    body = orjson.dumps({"name": "slashless"})
    response = api.client.post("/api/tenancy/tenants", body, content_type="application/json")
    assert response.status_code == 308 and response["Location"] == "/api/tenancy/tenants/"
    assert orjson.loads(response.content) == {
        "detail": "This URL ends with a slash: POST /api/tenancy/tenants/"
    }
    created = api.client.post("/api/tenancy/tenants", body, content_type="application/json", follow=True)
    assert created.status_code == 201 and Tenant.objects.filter(name="slashless").exists()
    path = f"/api/tenancy/tenants/{Tenant.objects.get(name='slashless').pk}"
    change = orjson.dumps({"description": "kept"})
    patched = api.client.patch(path, change, content_type="application/json", follow=True)
    assert patched.status_code == 200 and orjson.loads(patched.content)["description"] == "kept"
    assert api.client.delete(path, follow=True).status_code == 204
    assert not Tenant.objects.filter(name="slashless").exists()


def test_unknown_endpoint(api):
    assert api.json("/api/dcim/nosuchthing/", status=404) == {
        "detail": "Not found. The API's endpoints are listed at /api/ and in /api/docs/."
    }


def test_detail_by_natural_key(api, sample):
    tenant = sample[Tenant][0]
    assert api.json(f"/api/tenancy/tenants/{tenant.name}/")["id"] == str(tenant.pk)
    # Location names are unique only under a parent, so a name does not address one.
    body = api.json(f"{LOCATIONS}AMS1/", status=404)
    assert body == {"detail": "No Location matches the given query."}


class TestDepth:
    def test_out_of_range(self, api, sample):
        pk = sample[Location][1].pk
        for depth in ("11", "-1"):
            body = api.json(f"{LOCATIONS}{pk}/", {"depth": depth}, status=400)
            assert body == {"detail": "The depth parameter must be an integer between 0 and 10"}

    def test_non_integer_means_zero(self, api, sample):
        pk = sample[Location][1].pk
        assert api.json(f"{LOCATIONS}{pk}/", {"depth": "abc"}) == api.json(f"{LOCATIONS}{pk}/")

    def test_ten_levels(self, api, sample):
        room = api.json(f"{LOCATIONS}{sample[Location][3].pk}/", {"depth": 10})
        assert room["parent"]["parent"]["name"] == "Europe"
        assert room["parent"]["parent"]["parent"] is None


class TestPaging:
    def test_links_keep_filters_in_sorted_order(self, api):
        body = api.json(LOCATIONS, {"created__gte": "2000-01-01", "limit": 1, "offset": 1})
        assert body["count"] == 4
        assert (
            body["next"] == "http://testserver/api/dcim/locations/?created__gte=2000-01-01&limit=1&offset=2"
        )
        assert body["previous"] == "http://testserver/api/dcim/locations/?created__gte=2000-01-01&limit=1"

    def test_default_page_size_and_offset_only(self, api):
        body = api.json(LOCATIONS, {"offset": 1})
        assert len(body["results"]) == 3 and body["next"] is None
        assert body["previous"] == "http://testserver/api/dcim/locations/?limit=50"

    @pytest.mark.parametrize("limit", ["abc", "-1"])
    def test_invalid_limit_falls_back_to_default(self, api, limit):
        body = api.json(LOCATIONS, {"limit": limit})
        assert len(body["results"]) == 4 and body["next"] is None

    def test_offset_beyond_the_end(self, api):
        body = api.json(LOCATIONS, {"limit": 2, "offset": 100})
        assert body["results"] == [] and body["count"] == 4
        assert body["previous"] == "http://testserver/api/dcim/locations/?limit=2&offset=98"

    def test_offset_past_any_integer_is_an_empty_page(self, api):
        body = api.json(LOCATIONS, {"limit": 2, "offset": "99999999999999999999"})
        assert body["results"] == [] and body["next"] is None and body["count"] >= 4

    @override_settings(MAX_PAGE_SIZE=0)
    def test_limit_past_any_integer_without_a_maximum(self, api):
        body = api.json(LOCATIONS, {"limit": "99999999999999999999"})
        assert len(body["results"]) == body["count"] >= 4

    @override_settings(MAX_PAGE_SIZE=2)
    def test_limit_is_clamped_and_zero_means_maximum(self, api):
        for limit in ("0", "500"):
            body = api.json(LOCATIONS, {"limit": limit})
            assert len(body["results"]) == 2
            assert body["next"] == "http://testserver/api/dcim/locations/?limit=2&offset=2"

    @override_settings(MAX_PAGE_SIZE=0, PAGINATE_COUNT=1)
    def test_no_maximum_and_limit_zero_returns_everything(self, api):
        body = api.json(LOCATIONS, {"limit": 0})
        assert len(body["results"]) == 4 and body["next"] is None
        assert len(api.json(LOCATIONS)["results"]) == 1


class TestNegotiation:
    def test_versions_in_accept_header_and_query(self, api):
        assert api.get(LOCATIONS, HTTP_ACCEPT="application/json; version=2.1")["API-Version"] == "2.1"
        assert api.get(LOCATIONS, HTTP_ACCEPT="application/json; version=2.2;")["API-Version"] == "2.2"
        assert api.get(LOCATIONS, {"api_version": "2.0"})["API-Version"] == "2.0"

    @pytest.mark.parametrize(
        "params, accept, status, detail",
        [
            (
                {"api_version": "9.9"},
                "application/json",
                404,
                f'Invalid version "9.9" in query parameter. Supported versions are: {SUPPORTED}',
            ),
            (
                {},
                "application/json; version=9.9",
                406,
                f'Invalid version "9.9" in "Accept" header. Supported versions are: {SUPPORTED}',
            ),
            (
                {"api_version": "2.4"},
                "application/json; version=3.0",
                400,
                'Version mismatch between "Accept" header and query parameter.',
            ),
        ],
    )
    def test_version_errors(self, api, params, accept, status, detail):
        response = api.get(LOCATIONS, params, HTTP_ACCEPT=accept)
        assert response.status_code == status
        assert orjson.loads(response.content) == {"detail": detail}
        assert "API-Version" not in response

    def test_unsupported_media_type(self, api):
        response = api.get(LOCATIONS, HTTP_ACCEPT="application/xml")
        assert response.status_code == 406
        assert orjson.loads(response.content) == {"detail": "Could not satisfy the request Accept header."}

    def test_html_for_browsers_and_format_json(self, api):
        response = api.get("/api/", HTTP_ACCEPT="text/html,application/xhtml+xml,*/*;q=0.8")
        assert response.status_code == 200 and response["Content-Type"].startswith("text/html")
        assert b"http://testserver/api/dcim/" in response.content
        response = api.get("/api/", {"format": "json"}, HTTP_ACCEPT="text/html")
        assert response["Content-Type"] == "application/json"

    def test_browsable_pages_are_titled_by_their_endpoint(self, api):
        """A browser's tab and heading name what the page shows, never an id."""
        location = api.json(LOCATIONS, {"limit": 1})["results"][0]

        def title(path: str) -> str:
            page = api.get(path, HTTP_ACCEPT="text/html").content.decode()
            return re.search(r"<h1>(.*?)</h1>", page).group(1)

        assert title("/api/") == "API root"
        assert title("/api/ipam/ip-addresses/") == "IP addresses"
        assert title(f"{LOCATIONS}{location['id']}/") == f"Location: {html.escape(location['display'])}"
        assert title(f"{LOCATIONS}{location['id']}/notes/") == "Location notes"


EXPECTED = 'Send the header "Authorization: Token <40-character key>".'


class TestAuthentication:
    @pytest.mark.parametrize(
        "header, detail",
        [
            ("Token", f"Invalid token header. No credentials provided. {EXPECTED}"),
            ("Token a b", f"Invalid token header. Token string should not contain spaces. {EXPECTED}"),
            ("Bearer " + "a" * 40, f"Authentication credentials were not provided. {EXPECTED}"),
            ("a" * 40, f"Authentication credentials were not provided. {EXPECTED}"),
            ("Token " + "0" * 40, "Invalid token"),
        ],
    )
    def test_bad_headers(self, sample, header, detail):
        response = Api(None).get(LOCATIONS, HTTP_AUTHORIZATION=header)
        assert response.status_code == 403 and orjson.loads(response.content) == {"detail": detail}

    def test_expired_token(self, sample, superuser):
        token = Token.objects.create(user=superuser, expires=timezone.now() - datetime.timedelta(minutes=1))
        assert Api(token.key).json(LOCATIONS, status=403) == {"detail": "Token expired"}

    def test_inactive_user(self, sample, superuser):
        token = Token.objects.create(user=User.objects.create_user("gone", is_active=False))
        assert Api(token.key).json(LOCATIONS, status=403) == {"detail": "User inactive or deleted."}

    def test_a_kept_token_is_read_again_once_it_or_its_user_changes(self, transactional_db):
        """Server processes keep the tokens they authenticated; a revoked token or a deactivated
        user is refused at once (each change, committed, renews the shared definitions token)."""
        user = User.objects.create_user("automation", is_superuser=True)
        token = Token.objects.create(user=user)
        client = Api(token.key)
        client.json("/api/tenancy/tenants/")
        with CaptureQueriesContext(connection) as queries:
            client.json("/api/tenancy/tenants/")
        assert not [q for q in queries if "users_token" in q["sql"]]  # kept from the first request
        user.is_active = False
        user.save()
        assert client.json("/api/tenancy/tenants/", status=403) == {"detail": "User inactive or deleted."}
        user.is_active = True
        user.save()
        client.json("/api/tenancy/tenants/")
        token.delete()
        assert client.json("/api/tenancy/tenants/", status=403) == {"detail": "Invalid token"}

    def test_token_user_is_the_whole_user(self, sample, superuser):
        """The user read with the token carries what permission checks and later reads need."""
        token = Token.objects.create(user=superuser)
        user = Api(token.key).get(LOCATIONS).wsgi_request.context.user
        assert (user.pk, user.username, user.is_superuser, user.is_active) == (
            superuser.pk,
            "admin",
            True,
            True,
        )
        assert user.config_data == superuser.config_data  # deferred, read on demand

    def test_read_only_token_reads(self, sample):
        token = sample[Token][1]
        assert Api(token.key).json(LOCATIONS)["count"] == 4

    def test_users_see_only_their_own_tokens(self, api, sample, superuser):
        ids = {t["id"] for t in api.json("/api/users/tokens/")["results"]}
        assert ids == {str(pk) for pk in Token.objects.filter(user=superuser).values_list("id", flat=True)}
        someone_else = sample[Token][2]
        api.json(f"/api/users/tokens/{someone_else.pk}/", status=404)
        own = Api(someone_else.key).json("/api/users/tokens/")
        assert [t["id"] for t in own["results"]] == [str(someone_else.pk)]

    @override_settings(EXEMPT_VIEW_PERMISSIONS=["*"])
    def test_exempt_view_permissions(self, anonymous, sample):
        assert anonymous.json(LOCATIONS)["count"] == 4
        assert anonymous.json("/api/users/tokens/")["count"] == 0


class TestFilters:
    def names(self, api, params, path=LOCATIONS):
        return sorted(r["name"] for r in api.json(path, params)["results"])

    def test_repeated_parameter_is_or_and_comma_is_literal(self, api):
        assert self.names(api, {"name": ["AMS1", "fra2"]}) == ["AMS1", "fra2"]
        assert self.names(api, {"name": "AMS1,fra2"}) == []

    def test_different_parameters_are_and(self, api):
        assert self.names(api, {"name__isw": "ams", "name__iew": "1"}) == ["AMS1", "AMS1 floor 1"]
        assert self.names(api, {"name__isw": "ams", "name__nic": "floor"}) == ["AMS1"]

    def test_tags_are_and(self, api):
        assert self.names(api, {"tags": "alpha"}) == ["AMS1", "fra2"]
        assert self.names(api, {"tags": ["alpha", "gamma-core"]}) == ["AMS1"]
        assert self.names(api, {"tag": "gamma-core"}) == ["AMS1"]
        body = api.json(LOCATIONS, {"tags": "no-such-tag"}, status=400)
        assert body == {"tags": ["Select a valid choice. no-such-tag is not one of the available choices."]}

    def test_related_by_name_or_id(self, api, sample):
        assert self.names(api, {"status": "Planned"}) == ["fra2"]
        assert self.names(api, {"parent": "Europe"}) == ["AMS1", "fra2"]
        assert self.names(api, {"parent": str(sample[Location][1].pk)}) == ["AMS1 floor 1"]
        assert self.names(api, {"tenant__isnull": "true"}) == ["AMS1 floor 1", "Europe"]
        assert self.names(api, {"status__n": "Active"}) == ["fra2"]
        body = api.json(LOCATIONS, {"status": "NoSuchStatus"}, status=400)
        assert body == {
            "status": ["Select a valid choice. NoSuchStatus is not one of the available choices."]
        }

    def test_numeric_and_dates(self, api):
        assert self.names(api, {"asn__gte": "65000"}) == ["AMS1", "Europe"]
        assert self.names(api, {"asn__lt": "4200000000"}) == ["Europe"]
        assert len(self.names(api, {"created__gte": "2000-01-01"})) == 4
        assert api.json(LOCATIONS, {"asn": "abc"}, status=400) == {"asn": ["Enter a whole number."]}

    def test_ids_and_search(self, api, sample):
        europe, ams = sample[Location][:2]
        assert self.names(api, {"id": [str(europe.pk), str(ams.pk)]}) == ["AMS1", "Europe"]
        assert api.json(LOCATIONS, {"id": "not-a-uuid"}, status=400) == {"id": ["Enter a valid UUID."]}
        assert self.names(api, {"q": "frankfurt"}) == ["fra2"]
        assert self.names(api, {"q": "equinix"}) == ["AMS1"]

    def test_unknown_parameters_each_named(self, api):
        body = api.json(LOCATIONS, {"foo": "bar", "baz__ic": "x"}, status=400)
        assert body == {"foo": ["Unknown filter field"], "baz__ic": ["Unknown filter field"]}
        assert api.json(LOCATIONS, {"has_tenant": "false"}, status=400) == {
            "has_tenant": ["Unknown filter field; did you mean tenant?"]
        }
        # A misspelt filter names the closest ones.
        assert api.json(LOCATIONS, {"stauts": "Active", "name__ics": "a"}, status=400) == {
            "stauts": ["Unknown filter field; did you mean status?"],
            "name__ics": ["Unknown filter field; did you mean name__ic or name__nic or name__isw?"],
        }

    @override_settings(STRICT_FILTERING=False)
    def test_unknown_parameters_ignored_when_not_strict(self, api):
        assert api.json(LOCATIONS, {"foo": "bar"})["count"] == 4

    def test_bad_regex_is_400(self, api):
        body = api.json(LOCATIONS, {"name__re": "("}, status=400)
        assert list(body) == ["name__re"]

    def test_sort_multiple_fields(self, api):
        rows = api.json(LOCATIONS, {"sort": ["location_type", "-name"]})["results"]
        assert [r["name"] for r in rows] == ["AMS1 floor 1", "Europe", "fra2", "AMS1"]


class TestLocations:
    def test_tree_depth_and_display(self, api, sample):
        rows = {r["name"]: r for r in api.json(LOCATIONS)["results"]}
        assert rows["Europe"]["tree_depth"] == 0 and rows["Europe"]["display"] == "Europe"
        assert rows["AMS1"]["display"] == "Europe → AMS1"
        assert rows["AMS1 floor 1"]["tree_depth"] == 2
        assert rows["AMS1 floor 1"]["display"] == "Europe → AMS1 → AMS1 floor 1"

    def test_fields_of_the_spec(self, api, sample):
        ams = api.json(f"{LOCATIONS}{sample[Location][1].pk}/")
        spec_fields = [
            "id",
            "display",
            "url",
            "tree_depth",
            "time_zone",
            "circuit_count",
            "device_count",
            "prefix_count",
            "rack_count",
            "virtual_machine_count",
            "vlan_count",
            "created",
            "last_updated",
            "name",
            "description",
            "facility",
            "asn",
            "physical_address",
            "shipping_address",
            "latitude",
            "longitude",
            "contact_name",
            "contact_phone",
            "contact_email",
            "comments",
            "status",
            "parent",
            "location_type",
            "tenant",
            "tags",
            "notes_url",
            "custom_fields",
        ]
        assert set(spec_fields) <= ams.keys()
        assert (
            ams["asn"] == 4200000000
            and ams["latitude"] == "52.300000"
            and ams["time_zone"] == "Europe/Amsterdam"
        )
        assert ams["created"].endswith("Z")

    def test_counts_are_computed(self, api, sample):
        acme = api.json(f"/api/tenancy/tenants/{sample[Tenant][0].pk}/")
        assert acme["cluster_count"] == 1 and acme["device_count"] == 1 and acme["rack_count"] == 1
        # The reference's counts: namespaces and clusters, not locations.
        assert isinstance(acme["namespace_count"], int) and "location_count" not in acme


class TestNotes:
    def test_list_and_add(self, api, sample, superuser):
        ams = sample[Location][1]
        notes_url = api.json(f"{LOCATIONS}{ams.pk}/")["notes_url"]
        path = notes_url.replace("http://testserver", "")
        body = api.json(path)
        assert [n["note"] for n in body["results"]] == ["Rack A3 reserved"]
        response = api.post(path, {"note": "Cabling done"})
        assert response.status_code == 201
        created = orjson.loads(response.content)
        assert created["note"] == "Cabling done" and created["user"]["id"] == str(superuser.pk)
        assert created["assigned_object"]["url"] == f"http://testserver{LOCATIONS}{ams.pk}/"
        assert api.json(path)["count"] == 2
        assert Note.objects.filter(assigned_object_id=ams.pk).count() == 2

    def test_read_only_token_cannot_add(self, sample):
        ams = sample[Location][1]
        response = Api(sample[Token][1].key).post(f"{LOCATIONS}{ams.pk}/notes/", {"note": "x"})
        assert response.status_code == 403
        assert Note.objects.filter(assigned_object_id=ams.pk).count() == 1

    def test_unknown_object_and_bad_bodies(self, api, sample):
        response = api.post(f"{LOCATIONS}00000000-0000-4000-8000-000000000000/notes/", {"note": "x"})
        assert response.status_code == 404
        path = f"{LOCATIONS}{sample[Location][1].pk}/notes/"
        assert api.post(path, {}).status_code == 400
        assert api.post(path, "text").status_code == 400
        response = api.client.post(path, "note=x", content_type="application/x-www-form-urlencoded")
        assert response.status_code == 415
