"""Job buttons (a receiver job run for one object) and the Export Object List job, whose CSV
file is downloaded through `file-proxies/<id>/download/`."""

from __future__ import annotations

import pytest
from django.test import override_settings

from inventory.jobs.models import FileProxy, Job
from inventory.tenancy.models import Tenant
from inventory.users.models import ObjectPermission, Token, User

from .conftest import Api, send


@pytest.fixture
def api(superuser):
    return Api(Token.objects.create(user=superuser).key)


def test_a_button_runs_its_receiver_for_an_object(api, jobs):
    receiver, greet = jobs["MarkChecked"], jobs["Greet"]
    assert api.json(f"/api/extras/jobs/{receiver.pk}/")["is_job_button_receiver"] is True
    button = {"name": "Check", "content_types": ["tenancy.tenant"], "text": "Check {{ obj.name }}"}
    status, body = send(api, "post", "/api/extras/job-buttons/", {**button, "job": str(greet.pk)})
    assert (status, body) == (400, {"job": ["A job button runs job button receivers only."]})
    status, body = send(
        api, "post", "/api/extras/job-buttons/", {**button, "text": "{% if %}", "job": str(receiver.pk)}
    )
    assert status == 400 and list(body) == ["text"]
    Job.objects.filter(pk=receiver.pk).update(enabled=False)
    status, body = send(api, "post", "/api/extras/job-buttons/", {**button, "job": str(receiver.pk)})
    assert (status, body) == (400, {"enabled": ["The selected Job is not installed and enabled"]})
    Job.objects.filter(pk=receiver.pk).update(enabled=True)
    status, created = send(api, "post", "/api/extras/job-buttons/", {**button, "job": "MarkChecked"})
    assert status == 201, created
    assert created["object_type"] == "extras.jobbutton" and created["content_types"] == ["tenancy.tenant"]
    assert (created["weight"], created["button_class"], created["confirmation"]) == (
        100,
        {"value": "default", "label": "Default"},
        True,
    )
    found = api.json("/api/extras/job-buttons/", {"content_types": "tenancy.tenant", "job": str(receiver.pk)})
    assert [b["name"] for b in found["results"]] == ["Check"]
    # Pressing it runs the job with the object, as the reference's button form does.
    tenant = Tenant.objects.create(name="Acme")
    data = {"object_pk": str(tenant.pk), "object_model_name": "tenancy.tenant"}
    status, run = send(api, "post", f"/api/extras/jobs/{receiver.pk}/run/", {"data": data})
    assert status == 201 and run["job_result"]["status"]["value"] == "SUCCESS", run
    tenant.refresh_from_db()
    assert tenant.description == "checked"
    change = api.json(
        "/api/extras/object-changes/", {"changed_object_id": str(tenant.pk), "action": "update"}
    )
    assert change["results"][0]["change_context"] == "job"
    assert change["results"][0]["request_id"] == run["job_result"]["id"]
    status, missing = send(
        api, "post", f"/api/extras/jobs/{receiver.pk}/run/", {"data": {**data, "object_model_name": "nope.x"}}
    )
    assert missing["job_result"]["status"]["value"] == "FAILURE"
    assert "nope.x is not an object type" in missing["job_result"]["traceback"]


def test_export_object_list_writes_a_downloadable_csv(api, jobs, superuser):
    for name, description in (("Acme", "customer"), ("Beta", "customer"), ("Gamma", "internal")):
        Tenant.objects.create(name=name, description=description)
    export = Job.objects.get(name="Export Object List")
    body = {"data": {"content_type": "tenancy.tenant", "query_string": "description=customer&sort=-name"}}
    status, run = send(api, "post", f"/api/extras/jobs/{export.pk}/run/", body)
    assert status == 201 and run["job_result"]["status"]["value"] == "SUCCESS", run
    assert run["job_result"]["result"] == {"count": 2}
    files = api.json("/api/extras/file-proxies/", {"job_result": run["job_result"]["id"]})["results"]
    assert [f["name"] for f in files] == ["netinventory_tenants.csv"]
    assert files[0]["object_type"] == "extras.fileproxy" and "content" not in files[0]
    download = api.get(f"/api/extras/file-proxies/{files[0]['id']}/download/")
    assert download.status_code == 200 and download["Content-Type"] == "text/csv"
    assert download["Content-Disposition"] == 'attachment; filename="netinventory_tenants.csv"'
    # The same text the list answers with format=csv.
    listed = api.get("/api/tenancy/tenants/", {"description": "customer", "sort": "-name", "format": "csv"})
    assert download.content == listed.content and download.content.count(b"\n") == 3
    assert b"Beta" in download.content.splitlines()[1]
    # The content type also by its integer id; a bad filter fails the run and names it.
    kind = api.json("/api/extras/content-types/", {"app_label": "tenancy", "model": "tenant"})["results"][0]
    body = {"data": {"content_type": kind["id"], "query_string": "colour=red"}}
    status, bad = send(api, "post", f"/api/extras/jobs/{export.pk}/run/", body)
    assert bad["job_result"]["status"]["value"] == "FAILURE" and "colour" in bad["job_result"]["traceback"]
    status, bad = send(api, "post", f"/api/extras/jobs/{export.pk}/run/", {"data": {"content_type": "x.y"}})
    assert (status, list(bad["errors"])) == (400, ["content_type"])
    # Someone who may not see file proxies cannot download them.
    viewer = User.objects.create_user("viewer")
    permission = ObjectPermission.objects.create(name="jobs only", actions=["view"])
    permission.object_types.set([kind["id"]])
    permission.users.set([viewer])
    other = Api(Token.objects.create(user=viewer).key)
    assert other.get(f"/api/extras/file-proxies/{files[0]['id']}/download/").status_code == 403
    assert FileProxy.objects.count() == 1


def test_a_file_over_the_limit_fails_the_job(api, jobs):
    Tenant.objects.create(name="Acme")
    export = Job.objects.get(name="Export Object List")
    with override_settings(JOB_FILE_MAX_SIZE=10):
        status, run = send(
            api, "post", f"/api/extras/jobs/{export.pk}/run/", {"data": {"content_type": "tenancy.tenant"}}
        )
    assert run["job_result"]["status"]["value"] == "FAILURE"
    assert "JOB_FILE_MAX_SIZE is 10" in run["job_result"]["traceback"] and not FileProxy.objects.exists()


def test_running_follows_the_run_permission(jobs):
    """Object permissions grant `run` on extras.job, constraints choosing which jobs."""
    from django.contrib.contenttypes.models import ContentType

    user = User.objects.create_user("operator")
    client = Api(Token.objects.create(user=user).key)
    kind = ContentType.objects.get_for_model(Job)
    viewing = ObjectPermission.objects.create(name="see jobs", actions=["view"])
    viewing.object_types.set([kind])
    viewing.users.set([user])
    greet, explode = jobs["Greet"], jobs["Explode"]
    status, body = send(client, "post", f"/api/extras/jobs/{greet.pk}/run/", {"data": {"who": "op"}})
    assert (status, body) == (403, {"detail": "This user does not have permission to run jobs."})
    running = ObjectPermission.objects.create(
        name="run greet", actions=["run"], constraints={"name": "Greet"}
    )
    running.object_types.set([kind])
    running.users.set([user])
    client = Api(Token.objects.create(user=user).key)  # permissions are read once per request
    status, body = send(client, "post", f"/api/extras/jobs/{greet.pk}/run/", {"data": {"who": "op"}})
    assert status == 201 and body["job_result"]["status"]["value"] == "SUCCESS", body
    assert send(client, "post", f"/api/extras/jobs/{explode.pk}/run/", {})[0] == 403
