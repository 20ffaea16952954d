"""Lost-update protection: ETag on detail reads and writes, If-Match on PUT/PATCH/DELETE,
If-None-Match on reads."""

from __future__ import annotations

import orjson
import pytest

from inventory.dcim.models import Device, Interface, Location
from inventory.ipam.models import Prefix
from inventory.tenancy.models import Tenant

from .conftest import send


def tenant_url(name: str = "Acme") -> str:
    return f"/api/tenancy/tenants/{Tenant.objects.get(name=name).pk}/"


def patch(api, url: str, body: dict, **headers):
    return api.client.patch(url, orjson.dumps(body), content_type="application/json", **headers)


def test_the_tag_names_the_stored_object_whatever_its_representation(api, sample):
    device = Device.objects.get(name="leaf1")
    url = f"/api/dcim/devices/{device.pk}/"
    tag = api.get(url)["ETag"]
    assert tag.startswith('"') and tag.endswith('"') and len(tag) > 10
    assert api.get(url, {"depth": 2})["ETag"] == tag
    assert api.get(url, HTTP_ACCEPT="application/json; version=2.1")["ETag"] == tag
    assert api.client.head(url)["ETag"] == tag
    # Another object has another tag.
    assert api.get(f"/api/dcim/devices/{Device.objects.get(name='core1').pk}/")["ETag"] != tag


def test_a_write_answers_the_new_tag_and_a_stale_tag_is_refused(api, sample):
    url = tenant_url()
    read = api.get(url)["ETag"]
    changed = patch(api, url, {"description": "edited"}, HTTP_IF_MATCH=read)
    assert changed.status_code == 200, changed.content
    assert changed["ETag"] != read and changed["ETag"] == api.get(url)["ETag"]
    # A second client still holding the first tag loses, and nothing it sent is written.
    stale = patch(api, url, {"description": "overwritten"}, HTTP_IF_MATCH=read)
    assert stale.status_code == 412
    assert orjson.loads(stale.content)["detail"].startswith("The object has changed since it was read")
    assert stale["ETag"] == changed["ETag"]
    assert Tenant.objects.get(name="Acme").description == "edited"
    put = api.client.put(
        url,
        orjson.dumps({"name": "Acme", "description": "put"}),
        content_type="application/json",
        HTTP_IF_MATCH=read,
    )
    assert put.status_code == 412 and Tenant.objects.get(name="Acme").description == "edited"


@pytest.mark.parametrize(
    "path, model, lookup, body",
    [
        ("dcim/locations", Location, {"name": "AMS1"}, {"latitude": 52.3, "longitude": 4.94, "asn": 65001}),
        ("dcim/devices", Device, {"name": "leaf1"}, {"local_config_context_data": {"ntp": ["10.0.0.1"]}}),
        ("ipam/prefixes", Prefix, {}, {"description": "tagged", "tags": []}),
        ("dcim/interfaces", Interface, {"name": "Ethernet1"}, {"mac_address": "00:11:22:33:44:55"}),
    ],
)
def test_the_tag_a_write_answers_is_the_tag_a_read_gives(api, sample, path, model, lookup, body):
    """Decimals, JSON, network values and MAC addresses as stored: the write's tag (made from
    the row its UPDATE returned) is the one a later read computes."""
    url = f"/api/{path}/{model.objects.filter(**lookup).first().pk}/"
    changed = patch(api, url, body)
    assert changed.status_code == 200, changed.content
    assert changed["ETag"] == api.get(url)["ETag"]


def test_changing_only_tags_changes_the_tag(api, sample):
    url = tenant_url()
    before = api.get(url)["ETag"]
    status, body = send(
        api, "post", "/api/extras/tags/", {"name": "etag-test", "content_types": ["tenancy.tenant"]}
    )
    assert status == 201, body
    assert patch(api, url, {"tags": [body["id"]]}, HTTP_IF_MATCH=before).status_code == 200
    assert api.get(url)["ETag"] != before


def test_delete_honours_if_match(api, sample):
    status, body = send(api, "post", "/api/tenancy/tenants/", {"name": "Doomed"})
    assert status == 201
    url = f"/api/tenancy/tenants/{body['id']}/"
    tag = api.get(url)["ETag"]
    assert patch(api, url, {"description": "moved on"}).status_code == 200  # no header: no check
    assert api.client.delete(url, HTTP_IF_MATCH=tag).status_code == 412
    assert Tenant.objects.filter(name="Doomed").exists()
    assert api.client.delete(url, HTTP_IF_MATCH=api.get(url)["ETag"]).status_code == 204
    assert not Tenant.objects.filter(name="Doomed").exists()


def test_if_match_lists_and_wildcards(api, sample):
    url = tenant_url()
    tag = api.get(url)["ETag"]
    assert patch(api, url, {"description": "a"}, HTTP_IF_MATCH=f'"nope", {tag}').status_code == 200
    assert patch(api, url, {"description": "b"}, HTTP_IF_MATCH="*").status_code == 200
    # A proxy that weakened the tag on the way out does not lock the client out.
    tag = api.get(url)["ETag"]
    assert patch(api, url, {"description": "c"}, HTTP_IF_MATCH=f"W/{tag}").status_code == 200
    # The object must be visible before its tag is compared: an unknown id stays a 404.
    missing = "/api/tenancy/tenants/00000000-0000-4000-8000-000000000000/"
    assert patch(api, missing, {"description": "x"}, HTTP_IF_MATCH="*").status_code == 404


def test_if_none_match_answers_304_until_the_object_changes(api, sample, anonymous):
    url = tenant_url()
    tag = api.get(url)["ETag"]
    cached = api.get(url, HTTP_IF_NONE_MATCH=tag)
    assert cached.status_code == 304 and cached.content == b"" and cached["ETag"] == tag
    assert api.get(url, HTTP_IF_NONE_MATCH='"other"').status_code == 200
    # Without the right to read, a matching tag reveals nothing.
    assert anonymous.get(url, HTTP_IF_NONE_MATCH=tag).status_code == 403
    patch(api, url, {"description": "fresh"})
    fresh = api.get(url, HTTP_IF_NONE_MATCH=tag)
    assert fresh.status_code == 200 and orjson.loads(fresh.content)["description"] == "fresh"
