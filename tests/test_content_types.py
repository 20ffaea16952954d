"""extras/content-types: Django's object types, read-only, keyed by integers."""

from __future__ import annotations

import pytest
from django.contrib.contenttypes.models import ContentType

from inventory.dcim.models import Device
from inventory.users.models import Token, User

from .builders import SUPERUSER_KEY
from .conftest import Api, send

TYPES = "/api/extras/content-types/"


@pytest.fixture
def admin(superuser):
    Token.objects.create(user=superuser, key=SUPERUSER_KEY)
    return Api(SUPERUSER_KEY)


def test_detail_in_the_reference_shape(admin):
    device = ContentType.objects.get_for_model(Device)
    assert admin.json(f"{TYPES}{device.pk}/") == {
        "id": device.pk,
        "object_type": "contenttypes.contenttype",
        "display": "DCIM | device",
        "url": f"http://testserver{TYPES}{device.pk}/",
        "app_label": "dcim",
        "model": "device",
    }
    assert admin.json(f"{TYPES}999999/", status=404) == {"detail": "No ContentType matches the given query."}
    assert admin.json(f"{TYPES}not-a-number/", status=404)


def test_filters(admin):
    body = admin.json(TYPES, {"app_label": "dcim", "model": "device"})
    assert [row["display"] for row in body["results"]] == ["DCIM | device"]
    models = {row["model"] for row in admin.json(TYPES, {"app_label": "extras", "limit": 0})["results"]}
    assert {"secret", "secretsgroup", "graphqlquery", "tag"} <= models
    found = admin.json(TYPES, {"q": "secretsgroup", "limit": 0})["results"]
    assert {row["model"] for row in found} == {"secretsgroup", "secretsgroupassociation"}
    device = ContentType.objects.get_for_model(Device)
    assert admin.json(TYPES, {"id": device.pk})["results"][0]["model"] == "device"
    assert admin.json(TYPES, {"id": "x"}, status=400) == {"id": ["Enter a whole number."]}
    assert admin.json(TYPES, {"nope": "1"}, status=400) == {"nope": ["Unknown filter field"]}


def test_read_only_for_everyone_signed_in(admin):
    device = ContentType.objects.get_for_model(Device)
    for method in ("post", "put", "patch", "delete"):
        status, body = send(admin, method, f"{TYPES}{device.pk}/", {"model": "x"})
        assert status == 405 and body == {"detail": f'Method "{method.upper()}" not allowed.'}
    status, body = send(admin, "post", TYPES, {"app_label": "x", "model": "y"})
    assert status == 405 and not ContentType.objects.filter(app_label="x").exists()
    user = User.objects.create_user("nobody-special")
    reader = Api(Token.objects.create(user=user).key)
    assert reader.json(TYPES)["count"] == ContentType.objects.count()
    assert Api(None).json(TYPES, status=403)
    graphql = admin.post(
        "/api/graphql/", {"query": '{ content_types(app_label: ["dcim"], model: ["device"]) { id display } }'}
    )
    assert graphql.json() == {"data": {"content_types": [{"id": device.pk, "display": "DCIM | device"}]}}
    mutation = admin.post("/api/graphql/", {"query": "mutation { delete_content_types(ids: []) }"})
    assert mutation.status_code == 400
