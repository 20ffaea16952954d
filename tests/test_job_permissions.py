"""Jobs run with the permissions of their user: every built-in job, a job's own ORM reads and
writes, and scheduled runs, for a user whose object permissions have constraints."""

from __future__ import annotations

import datetime

from django.utils import timezone

from inventory.dcim.models import Device, Location
from inventory.extras.models import ObjectChange
from inventory.ipam.models import VRF, IPAddress, Namespace, Prefix
from inventory.jobs.models import JobLogEntry, JobResult
from inventory.jobs.scheduler import start_due_jobs
from inventory.tenancy.models import Tenant

from .conftest import send
from .test_permissions import account, grant


def operator(*model_permissions: str):
    """A user who may see and run jobs, and nothing else unless granted."""
    user, client = account(*model_permissions)
    grant(user, ["extras.job"], ["view", "run"])
    return user, client


def run(client, job, data=None) -> dict:
    status, body = send(client, "post", f"/api/extras/jobs/{job.pk}/run/", {"data": data or {}})
    assert status == 201, body
    return body["job_result"]


def logs(result: dict) -> str:
    """Everything the run's log entries say: messages, objects and their URLs."""
    entries = JobLogEntry.objects.filter(job_result_id=result["id"])
    return "\n".join(" ".join(row) for row in entries.values_list("message", "log_object", "absolute_url"))


def device(name: str, location: Location) -> Device:
    leaf = Device.objects.get(name="leaf1")
    return Device.objects.create(
        name=name, device_type=leaf.device_type, role=leaf.role, status=leaf.status, location=location
    )


def address(cidr: str, description: str, vrf=None, namespace=None) -> IPAddress:
    ip = IPAddress(status=IPAddress.objects.first().status, vrf=vrf, description=description)
    if namespace is not None:
        ip.namespace = namespace
    ip.set_address(cidr)
    ip.save()
    return ip


def test_bulk_rename_renames_only_what_the_user_may_change(sample, jobs):
    user, client = operator()
    grant(user, ["dcim.device"], ["view", "change"], {"location__name": "AMS1"})
    hidden = device("dev-b1", Location.objects.get(name="fra2"))
    rename = jobs["BulkRename"]
    attack = {"object_type": "dcim.device", "pattern": "^dev-b1$", "replacement": "owned", "dryrun": False}
    result = run(client, rename, attack)
    assert result["status"]["value"] == "SUCCESS" and result["result"] == {"dryrun": False, "renamed": []}
    assert Device.objects.get(pk=hidden.pk).name == "dev-b1"
    assert "dev-b1" not in logs(result) and str(hidden.pk) not in logs(result)
    # What they may change is renamed, by the API's write: change-logged as theirs, from the job.
    leaf = Device.objects.get(name="leaf1")
    result = run(client, rename, {**attack, "pattern": "^leaf1$"})
    assert result["result"]["renamed"] == [{"id": str(leaf.pk), "old": "leaf1", "new": "owned"}]
    assert "renamed 'leaf1' to 'owned'" in logs(result) and Device.objects.get(pk=leaf.pk).name == "owned"
    change = ObjectChange.objects.get(changed_object_id=leaf.pk, action="update")
    assert (change.user_id, change.change_context, str(change.request_id)) == (user.pk, "job", result["id"])
    # Seen but not changeable: the rename fails as a bulk PATCH would, and renames nothing.
    grant(user, ["dcim.device"], ["view"])
    result = run(client, rename, {**attack, "pattern": "^(core1|dev-b1)$"})
    assert result["status"]["value"] == "FAILURE" and result["result"]["exc_type"] == "NotFound"
    assert Device.objects.filter(name__in=["core1", "dev-b1"]).count() == 2


def test_duplicate_addresses_are_found_among_the_visible_ones(sample, jobs):
    user, client = operator()
    grant(user, ["ipam.ipaddress"], ["view"], {"description": "shown"})
    grant(user, ["ipam.vrf"], ["view"], {"name": "red"})
    blue = VRF.objects.get(name="blue")
    # A host is held once per namespace: the copies outside any VRF are in two namespaces.
    for namespace in (None, Namespace.objects.create(name="duplicates-lab")):
        address("198.51.100.5/32", "shown", namespace=namespace)
        address("198.51.100.9/32", "hidden", namespace=namespace)
    address("198.51.100.6/32", "shown", vrf=blue)
    find = jobs["FindDuplicateIPAddresses"]
    result = run(client, find)
    assert result["result"]["duplicates"] == [{"vrf": "Global", "address": "198.51.100.5", "count": 2}]
    assert "198.51.100.9" not in logs(result) and "blue" not in logs(result)
    # A VRF they may not view is no choice.
    status, body = send(client, "post", f"/api/extras/jobs/{find.pk}/run/", {"data": {"vrf": str(blue.pk)}})
    assert status == 400 and list(body["errors"]) == ["vrf"]


def test_parents_are_checked_among_the_visible_prefixes(sample, jobs):
    user, client = operator()
    grant(user, ["ipam.prefix", "ipam.ipaddress"], ["view"], {"description": "shown"})
    status = Prefix.objects.first().status
    for cidr, kind, description in (
        ("198.51.100.0/24", "pool", "hidden"),
        ("198.51.100.0/28", "network", "shown"),
    ):
        prefix = Prefix(status=status, type=kind, description=description)
        prefix.set_prefix(cidr)
        prefix.save()
    address("198.51.100.1/32", "shown")
    address("203.0.113.9/32", "shown")
    address("203.0.113.50/32", "hidden")
    result = run(client, jobs["CheckParents"])
    assert result["result"] == {"problems": 1}
    assert "203.0.113.9/32 has no parent prefix in its VRF" in logs(result)
    assert "198.51.100.0/24" not in logs(result) and "203.0.113.50" not in logs(result)


def test_purge_deletes_only_the_records_the_user_may_delete(api, jobs):
    send(api, "post", "/api/tenancy/tenants/", [{"name": "old-a"}, {"name": "old-b"}])
    ObjectChange.objects.update(time=timezone.now() - datetime.timedelta(days=91))
    purge = jobs["PurgeChangeLog"]
    _, client = operator()
    result = run(client, purge)
    assert result["status"]["value"] == "FAILURE"
    assert result["result"]["exc_message"] == ["This user may not delete change records."]
    user, client = operator()
    grant(user, ["extras.objectchange"], ["delete"], {"object_repr": "old-a"})
    assert run(client, purge)["result"] == {"purged": 1}
    left = ObjectChange.objects.filter(object_repr__startswith="old-").values_list("object_repr", flat=True)
    assert list(left) == ["old-b"]


def test_export_holds_only_the_visible_objects(sample, jobs):
    user, client = operator("extras.view_fileproxy")
    grant(user, ["dcim.device"], ["view"], {"location__name": "AMS1"})
    device("dev-b1", Location.objects.get(name="fra2"))
    export = jobs["ExportObjectList"]
    result = run(client, export, {"content_type": "dcim.device"})
    assert result["result"] == {"count": 2}
    file = api_file(client, result)
    assert b"leaf1" in file and b"core1" in file and b"dev-b1" not in file


def api_file(client, result) -> bytes:
    files = client.json("/api/extras/file-proxies/", {"job_result": result["id"]})["results"]
    return client.get(f"/api/extras/file-proxies/{files[0]['id']}/download/").content


def test_a_jobs_own_reads_and_saves_follow_the_user(sample, jobs):
    """A job that reads through the model's manager reports only what the user may view; one
    that saves an object itself may save only what the user may change."""
    user, client = operator()
    grant(user, ["ipam.vrf"], ["view"], {"name": "red"})
    result = run(client, jobs["ListVRFs"])
    assert result["result"] == {"vrfs": [None, "red"]}
    assert "VRF red" in logs(result) and "blue" not in logs(result)
    # A job button's object: one they may view, saved only if they may change it.
    grant(user, ["tenancy.tenant"], ["view"], {"name__in": ["ok", "seen"]})
    grant(user, ["tenancy.tenant"], ["change"], {"name": "ok"})
    ok, seen, hidden = (Tenant.objects.create(name=name) for name in ("ok", "seen", "hidden"))
    button = jobs["MarkChecked"]
    for tenant, status, message in (
        (ok, "SUCCESS", None),
        (seen, "FAILURE", "This user may not change this tenant."),
        (hidden, "FAILURE", f"No tenant matches {hidden.pk}"),
    ):
        data = {"object_pk": str(tenant.pk), "object_model_name": "tenancy.tenant"}
        result = run(client, button, data)
        assert result["status"]["value"] == status
        assert message is None or result["result"]["exc_message"] == [message]
    assert dict(
        Tenant.objects.filter(name__in=["ok", "seen", "hidden"]).values_list("name", "description")
    ) == {
        "ok": "checked",
        "seen": "",
        "hidden": "",
    }


def test_a_scheduled_job_runs_with_its_users_current_permissions(
    sample, jobs, django_capture_on_commit_callbacks
):
    user, client = operator()
    grant(user, ["dcim.device"], ["view"])
    changing = grant(user, ["dcim.device"], ["change"])
    start = timezone.now() + datetime.timedelta(minutes=10)
    data = {"object_type": "dcim.device", "pattern": "^leaf1$", "replacement": "renamed", "dryrun": False}
    schedule = {"name": "rename", "interval": "hourly", "start_time": start.isoformat()}
    body = {"data": data, "schedule": schedule}
    status, answer = send(client, "post", f"/api/extras/jobs/{jobs['BulkRename'].pk}/run/", body)
    assert status == 201, answer
    changing.delete()  # the user may no longer change devices when the run comes
    with django_capture_on_commit_callbacks(execute=True):
        assert start_due_jobs(start + datetime.timedelta(minutes=1)) == 1
    first = JobResult.objects.get(user=user)
    assert first.status == "FAILURE" and first.result["exc_type"] == "PermissionDenied"
    assert Device.objects.filter(name="leaf1").exists()
    # Deactivated: the next run fails and says why.
    type(user).objects.filter(pk=user.pk).update(is_active=False)
    with django_capture_on_commit_callbacks(execute=True):
        start_due_jobs(start + datetime.timedelta(hours=2))
    second = JobResult.objects.filter(user=user).exclude(pk=first.pk).get()
    assert second.status == "FAILURE"
    assert second.result["exc_message"] == [f"The user {user.username} is deactivated; the job did not run."]
