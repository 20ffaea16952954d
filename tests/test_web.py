"""Browser-facing pages through the Django test client: sign-in and sign-out, the session on the
API with CSRF, the token page, the admin, the dashboard and CORS for a separately hosted frontend."""

import os
import re
import subprocess
import sys

import orjson
import pytest
from django.test import Client, override_settings

from inventory.users.models import Token, User

PASSWORD = "admin-password"  # tests/conftest.py's superuser
HEX40 = re.compile(r"\b[0-9a-f]{40}\b")


def signed_in(username: str = "admin", password: str = PASSWORD, **options) -> Client:
    client = Client(**options)
    csrf = client.get("/login/").cookies["csrftoken"].value
    response = client.post(
        "/login/", {"username": username, "password": password, "csrfmiddlewaretoken": csrf}
    )
    assert response.status_code == 302, response.content[:300]
    return client


def graphql(client: Client, query: str, **headers):
    return client.post(
        "/api/graphql/", orjson.dumps({"query": query}), content_type="application/json", **headers
    )


# Sign-in and sign-out


def test_sign_in_page_carries_a_csrf_form(db):
    response = Client().get("/login/")
    assert response.status_code == 200
    assert b'name="csrfmiddlewaretoken"' in response.content
    assert "csrftoken" in response.cookies


def test_sign_in_opens_a_session_the_api_accepts_and_sign_out_closes_it(location):
    client = Client(HTTP_ACCEPT="application/json")
    assert client.get("/api/dcim/locations/").status_code == 403
    response = client.post(
        "/login/", {"username": "admin", "password": PASSWORD, "next": "/api/dcim/locations/"}
    )
    assert response.status_code == 302 and response["Location"] == "/api/dcim/locations/"
    listed = client.get("/api/dcim/locations/")
    assert listed.status_code == 200 and orjson.loads(listed.content)["count"] == 1
    assert client.get("/logout/").status_code == 200  # asks to confirm: a link cannot sign out
    assert client.get("/api/dcim/locations/").status_code == 200
    response = client.post("/logout/")
    assert response.status_code == 302 and response["Location"] == "/login/"
    assert client.get("/api/dcim/locations/").status_code == 403


def test_wrong_password_is_refused_and_repeated_failures_get_429(superuser, settings):
    settings.SIGNIN_FAILURES_ALLOWED = 3
    client = Client()
    for _ in range(3):
        response = client.post("/login/", {"username": "admin", "password": "wrong"})
        assert response.status_code == 200 and b"correct username and password" in response.content
        assert "_auth_user_id" not in client.session
    response = client.post("/login/", {"username": "admin", "password": PASSWORD})
    assert response.status_code == 429 and int(response["Retry-After"]) > 0
    assert b"Too many failed sign-in attempts" in response.content
    assert "_auth_user_id" not in client.session


def test_sign_in_form_without_csrf_token_is_refused(superuser):
    client = Client(enforce_csrf_checks=True)
    response = client.post("/login/", {"username": "admin", "password": PASSWORD})
    assert response.status_code == 403
    assert "_auth_user_id" not in client.session


def test_cookie_security_settings_come_from_the_environment():
    code = (
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'config.settings'; django.setup();"
        "from django.conf import settings as s;"
        "print(s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.CSRF_TRUSTED_ORIGINS)"
    )
    environment = {
        **os.environ,
        "SESSION_COOKIE_SECURE": "true",
        "CSRF_COOKIE_SECURE": "1",
        "CSRF_TRUSTED_ORIGINS": "https://inventory.example.net, https://dash.example.net",
    }
    output = subprocess.run(
        [sys.executable, "-c", code], env=environment, capture_output=True, text=True, check=True
    )
    assert output.stdout.strip() == "True True ['https://inventory.example.net', 'https://dash.example.net']"


# The session on the API: CSRF on unsafe methods, none for token clients


def test_session_post_without_csrf_token_is_refused(location):
    client = signed_in(enforce_csrf_checks=True)
    response = graphql(client, "{ locations_count }")
    assert response.status_code == 403
    assert orjson.loads(response.content)["detail"].startswith("CSRF Failed")
    response = client.post(
        "/api/tenancy/tenants/", orjson.dumps({"name": "CSRF"}), content_type="application/json"
    )
    assert response.status_code == 403
    assert not tenant_exists("CSRF")


def tenant_exists(name: str) -> bool:
    from inventory.tenancy.models import Tenant

    return Tenant.objects.filter(name=name).exists()


def test_session_post_with_csrf_token_is_accepted_and_may_write(location):
    client = signed_in(enforce_csrf_checks=True)
    token = client.get("/api/graphql/", HTTP_ACCEPT="text/html").cookies["csrftoken"].value
    response = graphql(client, "{ locations_count }", HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 200 and orjson.loads(response.content)["data"]["locations_count"] == 1
    response = client.post(
        "/api/tenancy/tenants/", orjson.dumps({"name": "Web"}), content_type="application/json",
        HTTP_X_CSRFTOKEN=token,
    )  # fmt: skip
    assert response.status_code == 201, response.content[:300]


def test_token_clients_need_no_csrf_token(superuser_key):
    client = Client(enforce_csrf_checks=True, HTTP_AUTHORIZATION=f"Token {superuser_key}")
    response = client.post(
        "/api/tenancy/tenants/", orjson.dumps({"name": "Tok"}), content_type="application/json"
    )
    assert response.status_code == 201, response.content[:300]


def test_a_bad_token_is_refused_even_with_a_session(location):
    client = signed_in(HTTP_AUTHORIZATION="Token " + "0" * 40)
    assert client.get("/api/dcim/locations/").status_code == 403


def test_graphiql_and_swagger_pages_know_the_signed_in_user(superuser):
    client = signed_in()
    page = client.get("/api/graphql/", HTTP_ACCEPT="text/html")
    # pages/graphiql.js sends the session's CSRF token when signed in, else asks for a token.
    assert page.status_code == 200 and b'data-signed-in="true"' in page.content
    assert b'data-signed-in="false"' in Client().get("/api/graphql/", HTTP_ACCEPT="text/html").content
    docs = client.get("/api/docs/")
    assert docs.status_code == 200 and b"Signed in as admin" in docs.content
    assert "csrftoken" in docs.cookies


# The token page


def test_token_page_needs_sign_in(db):
    response = Client().get("/user/api-tokens/")
    assert response.status_code == 302 and response["Location"] == "/login/?next=/user/api-tokens/"


def test_token_page_creates_shows_the_key_once_and_revokes(location, superuser):
    client = signed_in()
    before = set(Token.objects.filter(user=superuser).values_list("id", flat=True))
    response = client.post(
        "/user/api-tokens/", {"description": "laptop", "expires": "2099-01-02T03:04"}
    )  # write_enabled unchecked
    assert response.status_code == 201, response.content[:500]
    token = Token.objects.get(user=superuser, description="laptop")
    assert token.id not in before and not token.write_enabled
    assert token.expires.isoformat().startswith("2099-01-02T03:04")
    assert token.key in response.content.decode()
    # The key works for the API, and the list never shows it again.
    api = Client(HTTP_AUTHORIZATION=f"Token {token.key}", HTTP_ACCEPT="application/json")
    assert api.get("/api/dcim/locations/").status_code == 200
    listing = client.get("/user/api-tokens/").content.decode()
    assert "laptop" in listing and token.key not in listing and f"…{token.key[-6:]}" in listing
    assert HEX40.search(listing) is None
    response = client.post(f"/user/api-tokens/{token.id}/delete/")
    assert response.status_code == 302 and response["Location"] == "/user/api-tokens/"
    assert not Token.objects.filter(id=token.id).exists()
    assert api.get("/api/dcim/locations/").status_code == 403


def test_token_page_refuses_bad_input_and_others_tokens(superuser):
    other = User.objects.create_user("bob", password="bob-password", is_superuser=True)
    theirs = Token.objects.create(user=other, description="bob's")
    client = signed_in()
    response = client.post("/user/api-tokens/", {"description": "x", "expires": "soon"})
    assert response.status_code == 400 and b"expires" in response.content
    response = client.post("/user/api-tokens/", {"description": "x" * 201, "write_enabled": "on"})
    assert response.status_code == 400 and b"description" in response.content
    response = client.post(f"/user/api-tokens/{theirs.id}/delete/")
    assert response.status_code == 404
    assert Token.objects.filter(id=theirs.id).exists()
    assert b"bob&#x27;s" not in client.get("/user/api-tokens/").content


def test_token_page_revoke_needs_post_and_csrf(superuser):
    token = Token.objects.create(user=superuser, description="keep")
    client = signed_in(enforce_csrf_checks=True)
    assert client.get(f"/user/api-tokens/{token.id}/delete/").status_code == 405
    assert client.post(f"/user/api-tokens/{token.id}/delete/").status_code == 403
    assert Token.objects.filter(id=token.id).exists()


def test_token_creation_follows_the_api_permissions(db):
    User.objects.create_user("carol", password="carol-password")
    client = signed_in("carol", "carol-password")
    response = client.post("/user/api-tokens/", {"description": "mine", "write_enabled": "on"})
    assert response.status_code == 400 and b"permission" in response.content
    assert not Token.objects.filter(user__username="carol").exists()


# The admin


@pytest.fixture
def location(superuser):
    from inventory.dcim.models import Location, LocationType
    from inventory.extras.models import Status

    kind = LocationType.objects.create(name="Site")
    return Location.objects.create(
        name="AMS1", location_type=kind, status=Status.objects.get_or_create(name="Active")[0]
    )


@pytest.fixture
def superuser_key(superuser):
    return Token.objects.create(user=superuser).key


@pytest.mark.parametrize(
    "path", ["/admin/", "/admin/users/user/", "/admin/auth/group/", "/admin/auth/group/add/", "/admin/users/objectpermission/add/",
             "/admin/users/token/", "/admin/users/token/add/", "/admin/users/user/add/"],
)  # fmt: skip
def test_admin_pages_open_for_a_superuser(superuser, path):
    response = signed_in().get(path)
    assert response.status_code == 200, (path, response.status_code)


def test_admin_lists_each_model_once(superuser):
    page = signed_in().get("/admin/").content.decode()
    rows = re.findall(r'<th scope="row"[^>]*>\s*<a href="(/admin/[^"]+/)">([^<]+)</a>', page)
    assert len(rows) >= 4, rows
    for column in zip(*rows, strict=True):  # no model twice, under a path or a name
        assert len(column) == len(set(column)), rows


def test_admin_is_for_superusers_only(db):
    User.objects.create_user("staff", password="staff-password", is_staff=True)
    assert signed_in("staff", "staff-password").get("/admin/", follow=True).status_code == 403
    response = Client().get("/admin/")
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")
    response = Client().get(response["Location"])
    assert response.status_code == 302 and response["Location"] == "/login/?next=%2Fadmin%2F"


def test_admin_object_permission_form_checks_constraints(superuser):
    from django.contrib.contenttypes.models import ContentType

    from inventory.dcim.models import Location
    from inventory.users.models import ObjectPermission

    location_type = ContentType.objects.get_for_model(Location)
    client = signed_in()
    form = {"name": "ams", "enabled": "on", "object_types": [location_type.pk], "actions": ["view"]}
    response = client.post("/admin/users/objectpermission/add/", {**form, "constraints": '{"nonsense": 1}'})
    assert response.status_code == 200 and b"Invalid filter for dcim.location" in response.content
    response = client.post("/admin/users/objectpermission/add/", {**form, "constraints": '{"name": "AMS1"}'})
    assert response.status_code == 302
    assert ObjectPermission.objects.get(name="ams").actions == ["view"]


def test_admin_static_files_are_served(db):
    response = Client().get("/static/admin/css/base.css")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/css")
    assert Client().get("/static/../config/settings.py").status_code == 404


# The dashboard


EXTERNAL = re.compile(
    rb"""(?:src|href|action)\s*=\s*["']?(?:[a-z]+:)?//|url\(\s*["']?(?:[a-z]+:)?//|@import""", re.I
)


def test_dashboard_needs_sign_in(db):
    for path in ("/", "/dashboard/"):
        response = Client().get(path)
        assert response.status_code == 302 and response["Location"] == f"/login/?next={path}"


def test_dashboard_and_its_files_reference_no_external_host(superuser):
    client = signed_in()
    page = client.get("/")
    assert page.status_code == 200 and "csrftoken" in page.cookies
    assert EXTERNAL.search(page.content) is None
    files = re.findall(rb"""(?:src|href)="(/static/[^"]+)""", page.content)
    assert set(files) == {b"/static/web/site.css", b"/static/web/dashboard.js"}
    for name in files:
        response = client.get(name.decode())
        body = b"".join(response.streaming_content)
        assert response.status_code == 200
        assert re.search(rb"https?://|//[a-z0-9.-]+\.[a-z]{2,}/", body) is None, name


def test_dashboard_script_speaks_only_to_the_graphql_api():
    from pathlib import Path

    script = (Path(__file__).parent.parent / "web" / "static" / "web" / "dashboard.js").read_text()
    assert re.findall(r"fetch\(\"([^\"]+)\"", script) == ["/api/graphql/"]


# CORS for a separately hosted frontend


@override_settings(CORS_ALLOWED_ORIGINS=["https://dash.example.net"])
def test_cors_preflight_for_an_allowed_origin(db):
    preflight = {
        "HTTP_ORIGIN": "https://dash.example.net",
        "HTTP_ACCESS_CONTROL_REQUEST_METHOD": "POST",
        "HTTP_ACCESS_CONTROL_REQUEST_HEADERS": "authorization, content-type",
    }
    response = Client().options("/api/graphql/", **preflight)
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == "https://dash.example.net"
    assert "POST" in response["Access-Control-Allow-Methods"]
    allowed = {h.strip() for h in response["Access-Control-Allow-Headers"].split(",")}
    assert {"authorization", "content-type"} <= allowed
    other = Client().options("/api/graphql/", **{**preflight, "HTTP_ORIGIN": "https://evil.example.com"})
    assert "Access-Control-Allow-Origin" not in other
