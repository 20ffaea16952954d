"""Secrets, secrets groups and their associations: CRUD, validation, the value check, and the
rule that no response (REST at any depth, GraphQL) ever carries a secret's value."""

from __future__ import annotations

import orjson
import pytest

from inventory.cloud.models import CloudAccount
from inventory.dcim.models import Device
from inventory.extras.models import ExternalIntegration, Secret, SecretsGroup, SecretsGroupAssociation
from inventory.users.models import Token, User
from inventory.wireless.models import WirelessNetwork

from .builders import SUPERUSER_KEY
from .conftest import Api, send

VALUE = "s3cr3t-Value-never-shown"
SECRETS = "/api/extras/secrets/"
GROUPS = "/api/extras/secrets-groups/"
ASSOCIATIONS = "/api/extras/secrets-groups-associations/"


@pytest.fixture
def admin(superuser):
    Token.objects.create(user=superuser, key=SUPERUSER_KEY)
    return Api(SUPERUSER_KEY)


@pytest.fixture
def in_environment(monkeypatch):
    monkeypatch.setenv("NETINVENTORY_TEST_SECRET", VALUE)
    return "NETINVENTORY_TEST_SECRET"


@pytest.fixture(autouse=True)
def files_allowed(settings, tmp_path):
    """Text-file secrets may name files in the test's own directory."""
    settings.SECRET_FILE_DIRECTORIES = [str(tmp_path), "/run/secrets"]


@pytest.fixture(autouse=True)
def variables_allowed(settings):
    """Environment-variable secrets may name the variables the tests use."""
    settings.SECRET_ENVIRONMENT_VARIABLES = [
        "NETINVENTORY_TEST_*",
        "NETOPS_PASSWORD",
        "NO_SUCH_VARIABLE_X",
        "A",
        "X",
    ]


@pytest.fixture
def in_file(tmp_path):
    path = tmp_path / "secret.txt"
    path.write_text(f"  {VALUE}\n")
    return str(path)


def create_secret(api, **body) -> dict:
    status, created = send(api, "post", SECRETS, body)
    assert status == 201, created
    return created


def test_secret_crud_and_shape(admin, in_environment):
    created = create_secret(
        admin,
        name="core password",
        description="SSH to the core",
        provider="environment-variable",
        parameters={"variable": in_environment},
    )
    assert created["provider"] == "environment-variable"
    assert created["parameters"] == {"variable": in_environment}
    assert created["object_type"] == "extras.secret" and created["display"] == "core password"
    assert set(created) >= {"tags", "custom_fields", "notes_url", "created", "last_updated"}
    path = f"{SECRETS}{created['id']}/"
    # A write's response also shows every `include=` value, as the reference's does.
    assert admin.json(path, {"include": "relationships,computed_fields"}) == created
    status, patched = send(admin, "patch", path, {"description": "changed"})
    assert status == 200 and patched["description"] == "changed"
    assert admin.json(SECRETS, {"provider": "environment-variable"})["count"] == 1
    assert admin.json(SECRETS, {"q": "core"})["count"] == 1
    assert send(admin, "delete", path) == (204, None)
    assert not Secret.objects.exists()


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        (
            {"provider": "vault", "parameters": {"path": "x"}},
            {"provider": ['No registered provider "vault" is available']},
        ),
        (
            {"provider": "environment-variable", "parameters": {}},
            {"parameters": ["This field cannot be blank.", 'The "variable" parameter is required.']},
        ),
        (
            {"provider": "environment-variable", "parameters": {"variable": 5}},
            {"parameters": ['The "variable" parameter must be a string.']},
        ),
        (
            {"provider": "environment-variable", "parameters": {"variable": "A", "path": "/x"}},
            {"parameters": ['Unknown parameter "path" for provider "environment-variable".']},
        ),
        (
            {"provider": "text-file", "parameters": {"path": "relative/file"}},
            {"parameters": ["Path must be an absolute path, not a relative one"]},
        ),
        (
            {"provider": "text-file", "parameters": {"path": "/etc/../root/file"}},
            {"parameters": ["Illegal character sequence in path"]},
        ),
        (
            {"provider": "text-file", "parameters": ["/etc/file"]},
            {"parameters": ['Expected a dictionary of parameters but got type "list".']},
        ),
    ],
)
def test_provider_and_parameters_are_validated(admin, body, errors):
    assert send(admin, "post", SECRETS, {"name": "bad", **body}) == (400, errors)
    assert not Secret.objects.exists()


def test_variables_are_read_only_where_the_operator_allows(admin, settings, monkeypatch):
    """An environment-variable secret names a variable SECRET_ENVIRONMENT_VARIABLES lists (none by
    default), and never one the service reads for itself (its key, database and broker URLs, the
    token sealing key, gunicorn's, libpq's and Django's), whatever the list says: its value could
    otherwise be sent to a Git remote or confirmed by a check."""

    def secret(variable: str) -> dict:
        return {"name": variable, "provider": "environment-variable", "parameters": {"variable": variable}}

    settings.SECRET_ENVIRONMENT_VARIABLES = []
    assert send(admin, "post", SECRETS, secret("NETINVENTORY_SECRET_ROUTER")) == (
        400,
        {"parameters": ["Variable must be one SECRET_ENVIRONMENT_VARIABLES names (now: none)"]},
    )
    settings.SECRET_ENVIRONMENT_VARIABLES = ["*"]
    for variable in (
        "SECRET_KEY",
        "TOKEN_SEALING_KEY",
        "DATABASE_URL",
        "CELERY_BROKER_URL",
        "CACHE_URL",
        "SECRET_ENVIRONMENT_VARIABLES",
        "WEB_WORKERS",
        "PGPASSWORD",
        "DJANGO_SETTINGS_MODULE",
    ):
        assert send(admin, "post", SECRETS, secret(variable)) == (
            400,
            {"parameters": [f'Variable "{variable}" holds a setting of the service, never a secret']},
        ), variable
    settings.SECRET_ENVIRONMENT_VARIABLES = ["NETINVENTORY_SECRET_*", "ROUTER_PASSWORD"]
    monkeypatch.setenv("ROUTER_PASSWORD", VALUE)
    for variable, allowed in (
        ("NETINVENTORY_SECRET_ROUTER", True),
        ("ROUTER_PASSWORD", True),
        ("ROUTER_PASSWORD_2", False),
        ("NETINVENTORY_SECRETS", False),
    ):
        status, body = send(admin, "post", SECRETS, secret(variable))
        assert (status == 201) is allowed, (variable, body)
    router = Secret.objects.get(name="ROUTER_PASSWORD")
    path = f"{SECRETS}{router.pk}/"
    assert admin.json(f"{path}check/") == {"result": True, "message": "Passed"}
    status, body = send(admin, "patch", path, {"parameters": {"variable": "SECRET_KEY"}})
    assert status == 400 and body["parameters"][0].startswith('Variable "SECRET_KEY" holds a setting')
    # Secrets stored before the list changed, or before this rule: not read.
    monkeypatch.setenv("SECRET_KEY", VALUE)
    key = Secret.objects.create(
        name="key", provider="environment-variable", parameters={"variable": "SECRET_KEY"}
    )
    settings.SECRET_ENVIRONMENT_VARIABLES = ["*"]
    response = admin.get(f"{SECRETS}{key.pk}/check/")
    assert orjson.loads(response.content) == {
        "result": False,
        "message": 'SecretParametersError: Secret "key" (provider "EnvironmentVariableSecretsProvider"): '
        'Variable "SECRET_KEY" holds a setting of the service, never a secret',
    }
    settings.SECRET_ENVIRONMENT_VARIABLES = []
    response = admin.get(f"{path}check/")
    assert orjson.loads(response.content)["result"] is False and VALUE.encode() not in response.content


def test_files_are_read_only_inside_the_allowed_directories(admin, tmp_path, settings):
    """A text-file secret names a file in SECRET_FILE_DIRECTORIES: never /etc/shadow, the
    service's own key, or a link that leads out of them."""
    status, errors = send(
        admin,
        "post",
        SECRETS,
        {"name": "shadow", "provider": "text-file", "parameters": {"path": "/etc/shadow"}},
    )
    assert status == 400
    assert errors["parameters"][0].startswith("Path must be inside a directory SECRET_FILE_DIRECTORIES names")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.txt"
    outside.write_text(VALUE)
    (tmp_path / "link.txt").symlink_to(outside)
    linked = create_secret(
        admin, name="link", provider="text-file", parameters={"path": str(tmp_path / "link.txt")}
    )
    check = admin.json(f"{SECRETS}{linked['id']}/check/")
    assert check["result"] is False and "leads outside the directories" in check["message"]
    assert VALUE not in check["message"]
    # A secret written before the directories changed is not read either.
    settings.SECRET_FILE_DIRECTORIES = ["/run/secrets"]
    assert admin.json(f"{SECRETS}{linked['id']}/check/")["result"] is False


def test_duplicate_name_is_400(admin, in_environment):
    body = {"name": "dup", "provider": "environment-variable", "parameters": {"variable": in_environment}}
    create_secret(admin, **body)
    status, errors = send(admin, "post", SECRETS, body)
    assert status == 400 and list(errors) == ["name"]


def test_check_says_whether_the_value_is_reachable_and_never_shows_it(admin, in_environment, in_file):
    from_env = create_secret(
        admin, name="env", provider="environment-variable", parameters={"variable": in_environment}
    )
    from_file = create_secret(admin, name="file", provider="text-file", parameters={"path": in_file})
    missing = create_secret(
        admin, name="missing", provider="environment-variable", parameters={"variable": "NO_SUCH_VARIABLE_X"}
    )
    gone = create_secret(admin, name="gone", provider="text-file", parameters={"path": in_file + ".old"})
    for secret in (from_env, from_file):
        response = admin.get(f"{SECRETS}{secret['id']}/check/")
        assert response.status_code == 200
        assert orjson.loads(response.content) == {"result": True, "message": "Passed"}
        assert VALUE.encode() not in response.content
    assert admin.json(f"{SECRETS}{missing['id']}/check/") == {
        "result": False,
        "message": 'SecretValueNotFoundError: Secret "missing" (provider "EnvironmentVariableSecretsProvider"): '
        'Undefined environment variable "NO_SUCH_VARIABLE_X"!',
    }
    assert admin.json(f"{SECRETS}{gone['id']}/check/")["result"] is False
    assert admin.json(f"{SECRETS}00000000-0000-4000-8000-000000000000/check/", status=404) == {
        "detail": "No Secret matches the given query."
    }
    assert Api(None).json(f"{SECRETS}{from_env['id']}/check/", status=403)
    assert admin.client.post(f"{SECRETS}{from_env['id']}/check/").status_code == 405


def test_check_reports_unusable_files_without_reading_them_whole(admin, tmp_path, settings):
    """A file that is not UTF-8 text, or larger than SECRET_FILE_MAX_BYTES, is the provider's error."""
    settings.SECRET_FILE_MAX_BYTES = 64
    binary, large, fits = tmp_path / "key.der", tmp_path / "large.txt", tmp_path / "fits.txt"
    binary.write_bytes(b"\x30\x82\xff\xfe secret")
    large.write_text("x" * 65)
    fits.write_text("x" * 64)
    checks = {
        path.name: admin.json(
            f"{SECRETS}{create_secret(admin, name=path.name, provider='text-file', parameters={'path': str(path)})['id']}/check/"
        )
        for path in (binary, large, fits)
    }
    prefix = 'SecretError: Secret "{}" (provider "TextFileSecretsProvider"): File "{}" '
    assert checks == {
        "key.der": {"result": False, "message": prefix.format("key.der", binary) + "is not UTF-8 text!"},
        "large.txt": {
            "result": False,
            "message": prefix.format("large.txt", large) + "is larger than 64 bytes (SECRET_FILE_MAX_BYTES)!",
        },
        "fits.txt": {"result": True, "message": "Passed"},
    }


def test_check_needs_view_permission(admin, in_environment, superuser):
    secret = create_secret(admin, name="env", provider="environment-variable", parameters={"variable": "X"})
    viewer = User.objects.create_user("viewer")
    token = Token.objects.create(user=viewer)
    assert Api(token.key).json(f"{SECRETS}{secret['id']}/check/", status=403)


def test_group_and_associations(admin, in_environment):
    password = create_secret(
        admin, name="password", provider="environment-variable", parameters={"variable": in_environment}
    )
    username = create_secret(
        admin, name="username", provider="text-file", parameters={"path": "/run/secrets/user"}
    )
    status, group = send(admin, "post", GROUPS, {"name": "Core SSH", "description": "core routers"})
    assert status == 201, group
    status, first = send(
        admin,
        "post",
        ASSOCIATIONS,
        {"secrets_group": "Core SSH", "secret": "password", "access_type": "SSH", "secret_type": "password"},
    )
    assert status == 201, first
    assert first["access_type"] == "SSH"  # a bare value, as the reference shows it
    assert first["secret_type"] == "password"
    assert first["display"] == "Core SSH: SSH password: password"
    status, second = send(
        admin,
        "post",
        ASSOCIATIONS,
        {
            "secrets_group": group["id"],
            "secret": username["id"],
            "access_type": "SSH",
            "secret_type": "username",
        },
    )
    assert status == 201, second
    shown = admin.json(f"{GROUPS}{group['id']}/", {"exclude_m2m": "false"})
    assert {item["id"] for item in shown["secrets"]} == {first["id"], second["id"]}
    assert {item["object_type"] for item in shown["secrets"]} == {"extras.secretsgroupassociation"}
    assert "secrets" not in admin.json(f"{GROUPS}{group['id']}/")  # 3.0: lists on request
    assert admin.json(ASSOCIATIONS, {"secrets_group": "Core SSH", "access_type": "SSH"})["count"] == 2
    assert admin.json(ASSOCIATIONS, {"secret": password["id"]})["count"] == 1
    assert admin.json(ASSOCIATIONS, {"secret_type": "username"})["results"][0]["id"] == second["id"]
    # One secret per access and secret type in a group.
    status, errors = send(
        admin,
        "post",
        ASSOCIATIONS,
        {"secrets_group": "Core SSH", "secret": "username", "access_type": "SSH", "secret_type": "password"},
    )
    assert status == 400
    assert errors == {
        "non_field_errors": ["The fields secrets_group, access_type, secret_type must make a unique set."]
    }
    status, errors = send(
        admin,
        "post",
        ASSOCIATIONS,
        {"secrets_group": "Core SSH", "secret": "username", "access_type": "Telnet", "secret_type": "pin"},
    )
    assert status == 400 and errors == {
        "access_type": [
            '"Telnet" is not a valid choice. Valid choices: Generic, Console, gNMI, HTTP(S), NETCONF, REST, '
            "RESTCONF, SNMP, SSH."
        ],
        "secret_type": [
            '"pin" is not a valid choice. Valid choices: authentication-key, authentication-protocol, key, '
            "notes, password, private-algorithm, private-key, secret, token, url, username."
        ],
    }
    # Deleting a secret takes its associations; deleting a group takes the rest.
    assert send(admin, "delete", f"{SECRETS}{password['id']}/") == (204, None)
    assert SecretsGroupAssociation.objects.count() == 1
    assert send(admin, "delete", f"{GROUPS}{group['id']}/") == (204, None)
    assert not SecretsGroupAssociation.objects.exists()


def test_devices_take_a_secrets_group(api, sample):
    device = Device.objects.get(name="leaf1")
    group = SecretsGroup.objects.get(name="Device credentials")
    path = f"/api/dcim/devices/{device.pk}/"
    status, patched = send(api, "patch", path, {"secrets_group": None})
    assert status == 200 and patched["secrets_group"] is None
    status, patched = send(api, "patch", path, {"secrets_group": "Device credentials"})
    assert status == 200 and patched["secrets_group"]["id"] == str(group.pk)
    assert api.json(path, {"depth": 1})["secrets_group"]["name"] == "Device credentials"
    assert api.json("/api/dcim/devices/", {"secrets_group": "Device credentials"})["count"] == 1
    status, errors = send(api, "patch", path, {"secrets_group": "no such group"})
    assert status == 400 and list(errors) == ["secrets_group"]
    # A group devices use may go; its devices keep no group. (External integrations, cloud
    # accounts and wireless networks protect theirs, as the reference's do: the sample's let go
    # of it first.)
    ExternalIntegration.objects.filter(secrets_group=group).update(secrets_group=None)
    CloudAccount.objects.filter(secrets_group=group).update(secrets_group=None)
    WirelessNetwork.objects.filter(secrets_group=group).update(secrets_group=None)
    assert send(api, "delete", f"{GROUPS}{group.pk}/") == (204, None)
    assert Device.objects.get(pk=device.pk).secrets_group is None


def test_no_response_carries_a_secret_value(api, sample, monkeypatch, tmp_path):
    """Every secret readable, then every way of reading secrets and what refers to them."""
    monkeypatch.setenv("NETOPS_PASSWORD", VALUE)
    path = tmp_path / "username"
    path.write_text(VALUE)
    Secret.objects.filter(provider="text-file").update(parameters={"path": str(path)})
    device = Device.objects.get(name="leaf1")
    paths = [SECRETS, GROUPS, ASSOCIATIONS, f"/api/dcim/devices/{device.pk}/"]
    paths += [f"{SECRETS}{pk}/" for pk in Secret.objects.values_list("pk", flat=True)]
    paths += [f"{SECRETS}{pk}/check/" for pk in Secret.objects.values_list("pk", flat=True)]
    for path_ in paths:
        for depth in range(0, 4):
            response = api.get(path_, {"depth": depth, "exclude_m2m": "false"})
            assert response.status_code == 200, path_
            assert VALUE.encode() not in response.content, path_
    assert VALUE.encode() not in api.client.options(SECRETS).content
    schema = api.post("/api/graphql/", {"query": '{ __type(name: "SecretType") { fields { name } } }'})
    fields = {f["name"] for f in orjson.loads(schema.content)["data"]["__type"]["fields"]}
    assert fields >= {"name", "provider", "parameters"}
    assert not fields & {"value", "secret_value", "get_value"}
    query = (
        "{ secrets { name provider parameters } "
        "secrets_groups { name secrets { name parameters } "
        "secrets__rest { secret { name parameters } access_type secret_type } } "
        "devices { secrets_group { name } } }"
    )
    response = api.post("/api/graphql/", {"query": query})
    assert response.status_code == 200, response.content
    body = orjson.loads(response.content)
    assert "errors" not in body and body["data"]["secrets"]
    assert VALUE.encode() not in response.content
