"""The change log: every write through REST, GraphQL, jobs and the admin leaves its records,
in bulk, in the write's own transaction, and reads back through `extras/object-changes`."""

from __future__ import annotations

import datetime
import uuid
from unittest.mock import ANY

import orjson
import pytest
from django.test import override_settings
from django.utils import timezone

from inventory.dcim.models import Device, Interface
from inventory.extras.models import ObjectChange
from inventory.ipam.models import VRF
from inventory.jobs.discovery import sync_jobs
from inventory.jobs.models import Job
from inventory.tenancy.models import Tenant
from inventory.users.models import Token
from queryengine.changes import change_context

from .conftest import Api, send
from .test_jobs import eager  # noqa: F401 (fixture)

CHANGES = "/api/extras/object-changes/"


def changes(api, **filters) -> list[dict]:
    return api.json(CHANGES, {"limit": 1000, **filters})["results"]


def test_a_deleted_user_leaves_records_with_its_name_and_no_user(api):
    status, user = send(
        api,
        "post",
        "/api/users/users/",
        {"username": "leaver", "password": "pw-leaver-1", "is_superuser": True},
    )
    assert status == 201, user
    Token.objects.create(user_id=user["id"], key="d" * 40)  # the API makes tokens for the caller only
    leaver = Api("d" * 40)
    status, tenant = send(leaver, "post", "/api/tenancy/tenants/", {"name": "left-behind"})
    assert status == 201, tenant
    [before] = changes(api, changed_object_id=tenant["id"])
    assert before["user"]["id"] == user["id"] and before["user_name"] == "leaver"
    assert send(api, "delete", f"/api/users/users/{user['id']}/")[0] == 204
    [after] = changes(api, changed_object_id=tenant["id"])
    assert after["user"] is None and after["user_name"] == "leaver"
    assert ObjectChange.objects.filter(user_id=user["id"]).count() == 0


def test_create_update_delete_through_rest(api, superuser):
    status, tenant = send(api, "post", "/api/tenancy/tenants/", {"name": "log-1", "description": "a"})
    assert status == 201
    status, _ = send(api, "patch", f"/api/tenancy/tenants/{tenant['id']}/", {"description": "b"})
    assert status == 200
    [record] = changes(api, changed_object_id=tenant["id"], action="create")
    assert record["changed_object"]["id"] == tenant["id"]
    status, _ = send(api, "delete", f"/api/tenancy/tenants/{tenant['id']}/")
    assert status == 204

    history = changes(api, changed_object_id=tenant["id"])
    assert [c["action"] for c in history] == [
        {"value": "delete", "label": "Deleted"},
        {"value": "update", "label": "Updated"},
        {"value": "create", "label": "Created"},
    ]
    deleted, updated, created = history
    assert created["changed_object_type"] == "tenancy.tenant"
    assert created["changed_object"] is None  # gone, as the reference shows a deleted object
    assert created["user_name"] == "admin" and created["user"]["id"] == str(superuser.pk)
    assert created["change_context"] == "web"  # a bare value, as the reference shows it
    assert created["change_context_detail"]
    assert created["object_repr"] == "log-1"
    assert created["display"] == "Tenancy | tenant log-1 created by admin"
    assert created["object_data"]["name"] == "log-1" and created["object_data"]["description"] == "a"
    assert updated["object_data"]["description"] == "b"
    assert created["object_data_v2"]["name"] == "log-1" and updated["object_data_v2"]["description"] == "b"
    assert deleted["object_data_v2"]["description"] == "b"  # the state it was deleted in
    # What changed is kept for webhooks' snapshots, not shown (the reference shows no such key).
    assert "differences" not in created and "related_object" not in created
    kept = dict(
        ObjectChange.objects.filter(changed_object_id=tenant["id"]).values_list("action", "differences")
    )
    assert kept["create"] is None and kept["delete"] is None  # a create is the whole object: object_data
    assert kept["update"]["added"]["description"] == "b" and kept["update"]["removed"]["description"] == "a"
    assert "name" not in kept["update"]["added"]
    assert len({c["request_id"] for c in history}) == 3  # one per request


def test_a_bulk_write_shares_one_request_id_and_a_failed_one_leaves_nothing(api):
    rows = [{"name": f"bulk-log-{i}"} for i in range(5)]
    status, created = send(api, "post", "/api/tenancy/tenants/", rows)
    assert status == 201
    records = changes(api, object_repr__isw="bulk-log-")
    assert len(records) == 5 and len({r["request_id"] for r in records}) == 1
    assert changes(api, request_id=records[0]["request_id"], action="create") == records
    # Record ids lead with the time (UUIDv7): a later write's records sort after these.
    send(api, "patch", f"/api/tenancy/tenants/{created[0]['id']}/", {"description": "later"})
    [later] = changes(api, changed_object_id=created[0]["id"], action="update")
    assert all(uuid.UUID(r["id"]).version == 7 for r in [*records, later])
    assert later["id"] > max(r["id"] for r in records)
    before = ObjectChange.objects.count()
    status, _ = send(api, "post", "/api/tenancy/tenants/", [{"name": "bulk-log-new"}, {"name": "bulk-log-0"}])
    assert status == 400
    assert ObjectChange.objects.count() == before and not Tenant.objects.filter(name="bulk-log-new").exists()


@override_settings(FILTER_MAX_VALUES=2)
def test_a_bulk_write_larger_than_a_filter_records_every_shape(api):
    """The shapes are read in parts a filter takes: a bulk write of more objects than one filter
    may name records each of them as the API shows it, as a smaller one does."""
    rows = [{"name": f"many-log-{i}", "description": f"d{i}"} for i in range(5)]
    status, created = send(api, "post", "/api/tenancy/tenants/", rows)
    assert status == 201, created
    status, _ = send(
        api, "patch", "/api/tenancy/tenants/", [{"id": t["id"], "description": "x"} for t in created]
    )
    assert status == 200
    for action, description in (("create", "d"), ("update", "x")):
        shapes = ObjectChange.objects.filter(action=action, object_repr__startswith="many-log-")
        data = sorted((o.object_data_v2 or {}).get("description", "") for o in shapes)
        assert len(data) == 5 and all(d.startswith(description) for d in data), (action, data)


def differences(record: dict) -> dict:
    """What a change added and removed, as kept for webhooks (not shown by the API)."""
    return ObjectChange.objects.get(pk=record["id"]).differences


def test_many_to_many_values_are_recorded(api, sample):
    tag = sample[Tenant][0].tags.model.objects.filter(content_types__model="tenant").first()
    if tag is None:
        pytest.skip("the sample has no tenant tag")
    status, tenant = send(api, "post", "/api/tenancy/tenants/", {"name": "tagged-log", "tags": [str(tag.pk)]})
    assert status == 201
    # Tags not written keep what the row held before (read with the row's lock).
    status, _ = send(api, "patch", f"/api/tenancy/tenants/{tenant['id']}/", {"description": "d"})
    described, created = changes(api, changed_object_id=tenant["id"])
    assert described["object_data"]["tags"] == [str(tag.pk)]
    assert differences(described)["added"] == {"description": "d", "last_updated": ANY}
    status, _ = send(api, "patch", f"/api/tenancy/tenants/{tenant['id']}/", {"tags": []})
    updated, *_ = changes(api, changed_object_id=tenant["id"])
    assert created["object_data"]["tags"] == [str(tag.pk)]
    assert differences(updated)["added"]["tags"] == []
    assert differences(updated)["removed"]["tags"] == [str(tag.pk)]


def test_a_cascade_records_every_object_it_deletes(api, sample):
    device = Device.objects.filter(interfaces__isnull=False).first()
    interfaces = {str(pk) for pk in Interface.objects.filter(device=device).values_list("pk", flat=True)}
    status, body = send(api, "delete", f"/api/dcim/devices/{device.pk}/")
    assert status == 204, body
    deleted = changes(api, action="delete")
    request_ids = {c["request_id"] for c in deleted if c["changed_object_id"] == str(device.pk)}
    assert len(request_ids) == 1
    same_request = changes(api, request_id=request_ids.pop())
    assert interfaces <= {
        c["changed_object_id"] for c in same_request if c["changed_object_type"] == "dcim.interface"
    }


def test_graphql_mutations_are_logged(api):
    query = "mutation ($data: [GenericScalar]!) { create_tenants(data: $data) { id } }"
    response = api.post("/api/graphql/", {"query": query, "variables": {"data": [{"name": "gql-log"}]}})
    assert response.status_code == 200, response.content
    [record] = changes(api, object_repr="gql-log")
    assert record["action"]["value"] == "create" and record["user_name"] == "admin"


def test_jobs_changes_are_logged_as_the_job(api, eager, sample):  # noqa: F811
    with override_settings(JOBS_MODULES=[]):
        sync_jobs()
    rename = Job.objects.get(job_class_name="BulkRename")
    Job.objects.filter(pk=rename.pk).update(enabled=True)
    data = {"object_type": "ipam.vrf", "pattern": "^(.*)$", "replacement": r"job-\1", "dryrun": False}
    status, body = send(api, "post", f"/api/extras/jobs/{rename.pk}/run/", {"data": data})
    assert status == 201 and body["job_result"]["status"]["value"] == "SUCCESS", body
    records = changes(api, changed_object_type="ipam.vrf")
    assert len(records) == VRF.objects.count()
    assert {r["change_context"] for r in records} == {"job"}
    assert {r["request_id"] for r in records} == {body["job_result"]["id"]}
    assert records[0]["change_context_detail"] == "inventory.jobs.builtin.BulkRename"
    assert all(differences(r)["added"]["name"].startswith("job-") for r in records)


def test_orm_writes_outside_any_context_are_not_logged_inside_one_they_are(db, superuser):
    Tenant.objects.create(name="shell")
    assert not ObjectChange.objects.exists()
    with change_context("orm", "a script", superuser):
        tenant = Tenant.objects.create(name="script")
        tenant.description = "changed"
        tenant.save()
        tenant.delete()
    records = ObjectChange.objects.values_list("action", "user_name", "change_context_detail", "object_repr")
    assert sorted(records) == [
        (action, "admin", "a script", "script") for action in ("create", "delete", "update")
    ]
    update = ObjectChange.objects.get(action="update")
    assert update.differences["added"]["description"] == "changed"
    assert update.differences["removed"]["description"] == ""


def test_the_log_is_read_only_and_filterable(api):
    send(api, "post", "/api/tenancy/tenants/", {"name": "ro-log"})
    [record] = changes(api, object_repr="ro-log")
    status, _ = send(api, "post", CHANGES, {"object_repr": "x"})
    assert status == 405
    status, _ = send(api, "delete", f"{CHANGES}{record['id']}/")
    assert status == 405
    assert changes(api, object_repr="ro-log", user_name="admin") == [record]
    assert changes(api, object_repr="ro-log", user_name="someone") == []
    assert changes(api, object_repr="ro-log", action="delete") == []
    later = (timezone.now() + datetime.timedelta(minutes=5)).isoformat()
    assert changes(api, object_repr="ro-log", time__gte=later) == []
    assert changes(api, object_repr="ro-log", time__lte=later) == [record]
    detail = api.json(f"{CHANGES}{record['id']}/", {"depth": 1})
    assert detail["changed_object"]["id"] == record["changed_object_id"]


def test_retention_purges_old_records(api, eager):  # noqa: F811
    send(api, "post", "/api/tenancy/tenants/", [{"name": "old-log"}, {"name": "new-log"}])
    ObjectChange.objects.filter(object_repr="old-log").update(
        time=timezone.now() - datetime.timedelta(days=91)
    )
    with override_settings(JOBS_MODULES=[]):
        sync_jobs()
    purge = Job.objects.get(job_class_name="PurgeChangeLog")
    Job.objects.filter(pk=purge.pk).update(enabled=True)
    status, body = send(api, "post", f"/api/extras/jobs/{purge.pk}/run/", {"data": {}})
    assert status == 201 and body["job_result"]["result"] == {"purged": 1}, body
    assert changes(api, object_repr="old-log") == []
    assert len(changes(api, object_repr="new-log")) == 1


def test_tokens_leave_no_record_of_their_key(api):
    status, token = send(api, "post", "/api/users/tokens/", {"description": "ci"})
    assert status == 201, token
    assert not ObjectChange.objects.filter(changed_object_id=token["id"]).exists()
    assert all(
        token["key"] not in str(data) for data in ObjectChange.objects.values_list("object_data", flat=True)
    )


@override_settings(CHANGELOG_OBJECT_DATA_V2=True)
def test_records_name_the_related_object_and_keep_the_api_shape(api, sample):
    interface = Interface.objects.filter(module__isnull=True).select_related("device").first()
    path = f"/api/dcim/interfaces/{interface.pk}/"
    status, _ = send(api, "patch", path, {"description": "uplink", "tags": []})
    assert status == 200
    shown = api.json(path, {"depth": 1, "exclude_m2m": "false"})
    assert send(api, "delete", path)[0] == 204
    deleted, updated = changes(api, changed_object_id=str(interface.pk))[:2]
    # As the reference's change_logging_related_object: a component's change names its device.
    assert updated["related_object_type"] == "dcim.device"
    assert updated["related_object_id"] == str(interface.device_id)
    assert changes(api, changed_object_id=str(interface.pk), related_object_id=str(interface.device_id))
    # object_data_v2: the object as the API shows it at depth 1, URLs relative to the host.
    v2 = updated["object_data_v2"]
    assert v2["url"] == f"/api/dcim/interfaces/{interface.pk}/" and v2["description"] == "uplink"
    assert v2["device"]["name"] == interface.device.name and v2["device"]["url"].startswith("/api/dcim/")
    assert v2["device"]["status"]["url"].startswith("/api/extras/statuses/")  # depth 1: below, references
    host = "http://testserver"
    assert v2 == orjson_relative(shown, host)
    # A deleted object keeps the shape it was deleted in.
    assert deleted["object_data_v2"] == v2 and deleted["related_object_id"] == str(interface.device_id)
    # Objects without a parent relate to nothing.
    status, tenant = send(api, "post", "/api/tenancy/tenants/", {"name": "no parent"})
    [created] = changes(api, changed_object_id=tenant["id"])
    assert created["related_object_type"] is None and created["related_object_id"] is None
    assert created["object_data_v2"]["name"] == "no parent" and created["object_data_v2"]["tags"] == []


def orjson_relative(value, host: str):
    """An API response with its absolute URLs made relative, as change records keep them."""
    return orjson.loads(orjson.dumps(value).replace(host.encode(), b""))


@override_settings(CHANGELOG_OBJECT_DATA_V2=False)
def test_object_data_v2_can_be_left_out(api):
    status, tenant = send(api, "post", "/api/tenancy/tenants/", {"name": "plain"})
    [created] = changes(api, changed_object_id=tenant["id"])
    assert created["object_data_v2"] is None and created["object_data"]["name"] == "plain"


def test_records_of_a_bulk_write_keep_every_character(api, superuser):
    """A bulk write's records travel as one text stream (PostgreSQL's COPY): tabs, line breaks,
    backslashes and quotes in names and values come back as written."""
    awkward = ["tab\there", "line\nbreak\r\n", "back\\slash \\n \\\\", 'quote " and \u00e9 \u2028', "\\N"]
    rows = [{"name": f"esc-{i}-{text}", "description": text} for i, text in enumerate(awkward)]
    status, created = send(api, "post", "/api/tenancy/tenants/", rows)
    assert status == 201, created
    for tenant, text in zip(created, awkward, strict=True):
        [record] = changes(api, changed_object_id=tenant["id"])
        assert record["object_repr"] == tenant["name"]
        assert (
            record["object_data"]["description"] == text and record["object_data"]["name"] == tenant["name"]
        )


def kept_shapes_match_the_api(api, rows: list[dict], path: str) -> None:
    """Each object's latest record keeps it as a read at depth 1 shows it, URLs relative."""
    for row in rows:
        shown = api.json(f"{path}{row['id']}/", {"depth": 1, "exclude_m2m": "false"})
        [latest, *_] = changes(api, changed_object_id=row["id"])
        assert latest["object_data_v2"] == orjson_relative(shown, "http://testserver"), row["id"]


@override_settings(CHANGELOG_OBJECT_DATA_V2=True)
def test_the_shape_a_bulk_write_keeps_is_the_object_read_at_depth_1(api, sample):
    """Single and bulk creates and updates keep each object's shape as a read shows it: with
    its related objects nested, the many-to-many values the write set or left, and those it
    knows to be empty."""
    device = Device.objects.filter(interfaces__isnull=False).first()
    status, tag = send(
        api, "post", "/api/extras/tags/", {"name": "kept", "content_types": ["dcim.interface"]}
    )
    assert status == 201, tag
    path = "/api/dcim/interfaces/"
    bodies = [
        {"device": str(device.pk), "name": f"kept-{i}", "type": "1000base-t", "status": "Active"}
        for i in range(4)
    ]
    bodies[1]["tags"] = [tag["id"]]
    status, created = send(api, "post", path, bodies)
    assert status == 201, created
    kept_shapes_match_the_api(api, created, path)
    patch = [
        {"id": row["id"], "description": f"d{n}", "tags": [tag["id"]] if n % 2 else []}
        for n, row in enumerate(created)
    ]
    status, updated = send(api, "patch", path, patch)
    assert status == 200, updated
    kept_shapes_match_the_api(api, updated, path)
    status, one = send(api, "post", path, {**bodies[0], "name": "kept-single"})
    assert status == 201, one
    status, _ = send(api, "patch", f"{path}{one['id']}/", {"label": "single"})
    assert status == 200
    kept_shapes_match_the_api(api, [one], path)
