"""Jobs end to end: discovery, the form, runs (eager and on a real worker), results and logs."""

from __future__ import annotations

import base64
import os
import socket

import pytest
from django.test import override_settings

from config.celery import app as celery_app
from inventory.ipam.models import VRF, IPAddress, Namespace
from inventory.jobs.discovery import sync_jobs
from inventory.jobs.models import Job, JobResult

from .conftest import run_beside_a_worker, send

TEST_MODULES = ["tests.sample_jobs"]


@pytest.fixture
def eager():
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = False


@pytest.fixture
def jobs(api, eager):
    with override_settings(JOBS_MODULES=TEST_MODULES):
        sync_jobs()
        Job.objects.filter(module_name="tests.sample_jobs").update(enabled=True)
        yield {j.job_class_name: j for j in Job.objects.all()}


def run_url(job) -> str:
    return f"/api/extras/jobs/{job.pk}/run/"


def test_jobs_are_listed_with_the_reference_fields(api, jobs):
    body = api.json("/api/extras/jobs/", {"limit": 100})
    by_class = {row["job_class_name"]: row for row in body["results"]}
    assert {"FindDuplicateIPAddresses", "CheckParents", "BulkRename", "Greet", "Explode"} <= set(by_class)
    greet = by_class["Greet"]
    assert greet["object_type"] == "extras.job"
    assert greet["module_name"] == "tests.sample_jobs" and greet["grouping"] == "Test jobs"
    assert greet["name"] == "Greet" and greet["description"].startswith("Logs a greeting")
    assert greet["soft_time_limit"] == 30.0 and greet["time_limit"] == 60.0
    assert greet["has_sensitive_variables"] is False and greet["installed"] is True
    assert greet["task_queues"] == ["default"]
    assert greet["default_job_queue"]["url"].endswith(
        f"/api/extras/job-queues/{jobs['Greet'].default_job_queue_id}/"
    )
    rename = by_class["BulkRename"]
    assert (
        rename["supports_dryrun"] is True and rename["dryrun_default"] is True and rename["enabled"] is True
    )
    # A job's flags are written like any object's; the class path is not.
    status, patched = send(
        api, "patch", f"/api/extras/jobs/{greet['id']}/", {"description": "x", "module_name": "y"}
    )
    assert status == 200 and patched["description"] == "x" and patched["module_name"] == "tests.sample_jobs"


def test_variables_describe_the_form(api, jobs):
    form = api.json(f"/api/extras/jobs/{jobs['Greet'].pk}/variables/")
    by_name = {entry["name"]: entry for entry in form}
    assert list(by_name)[:3] == ["who", "times", "loud"]
    assert by_name["who"] == {
        "name": "who",
        "type": "StringVar",
        "label": "who",
        "help_text": "",
        "required": True,
        "max_length": 20,
    }
    assert by_name["times"]["min_value"] == 1 and by_name["times"]["default"] == 1
    assert by_name["colour"]["choices"] == [["red", "Red"], ["blue", "Blue"]]
    assert by_name["vrf"]["model"] == "ipam.vrf" and by_name["vrf"]["required"] is False
    assert by_name["settings"]["type"] == "JSONVar"


def test_run_validates_data_naming_each_variable(api, jobs):
    results_before = JobResult.objects.count()
    status, body = send(
        api, "post", run_url(jobs["Greet"]), {"data": {"times": 9, "nope": 1, "address": "x"}}
    )
    assert status == 400
    assert body == {
        "errors": {
            "nope": ["Job data contained an unknown property"],
            "who": ["This field is required."],
            "times": ["Ensure this value is less than or equal to 5."],
            "address": ["Invalid IPv4/IPv6 address format."],
        }
    }
    status, body = send(api, "post", run_url(jobs["Greet"]), {"data": {"who": "x", "vrf": "not-a-vrf"}})
    assert status == 400 and list(body["errors"]) == ["vrf"]
    status, body = send(api, "post", run_url(jobs["Greet"]), {"data": [1]})
    assert status == 400 and body == {"data": ["Job data needs to be a dict"]}
    status, body = send(
        api, "post", run_url(jobs["Greet"]), {"data": {"who": "x"}, "task_queue": "elsewhere"}
    )
    assert status == 400 and body == {"task_queue": ['"elsewhere" is not a valid choice.']}
    # JSON given as text is held to the same depth as a body's.
    for depth, message in ((1000, "Enter a valid JSON."), (150, "JSON nested more than 100 levels deep")):
        text = '{"a":' * depth + "{}" + "}" * depth
        status, body = send(api, "post", run_url(jobs["Greet"]), {"data": {"who": "x", "settings": text}})
        assert status == 400 and body["errors"]["settings"][0].startswith(message)
    assert JobResult.objects.count() == results_before


def test_run_logs_and_succeeds(api, jobs, sample):
    vrf = VRF.objects.first()
    data = {
        "who": "world",
        "times": 2,
        "loud": True,
        "vrf": str(vrf.pk),
        "vrfs": [str(vrf.pk)],
        "attachment": base64.b64encode(b"file body").decode(),
        "network": "10.0.0.0/8",
        "settings": {"a": [1]},
    }
    # pynautobot's nb.extras.jobs.run(job_id=…, data=…) posts its keyword arguments as the body.
    status, body = send(api, "post", run_url(jobs["Greet"]), {"job_id": str(jobs["Greet"].pk), "data": data})
    assert status == 201, body
    assert body["scheduled_job"] is None
    result = body["job_result"]
    assert result["object_type"] == "extras.jobresult" and result["status"] == {
        "value": "SUCCESS",
        "label": "SUCCESS",
    }
    assert result["result"] == {
        "who": "world",
        "vrfs": [vrf.name],
        "attachment": "file body",
        "network": "10.0.0.0/8",
        "settings": {"a": [1]},
    }
    assert (
        result["job_model"]["id"] == str(jobs["Greet"].pk) and result["user"]["object_type"] == "users.user"
    )
    assert result["date_started"] and result["date_done"] and result["traceback"] is None
    assert result["task_kwargs"]["who"] == "world" and result["celery_kwargs"]["queue"] == "default"
    assert result["info_log_count"] == 2 and result["success_log_count"] == 1
    logs = api.json(f"/api/extras/job-results/{result['id']}/logs/")["results"]
    assert [(e["log_level"]["value"], e["message"], e["grouping"]) for e in logs] == [
        ("info", "hello WORLD", "greetings"),
        ("info", "hello WORLD", "greetings"),
        ("success", f"found {vrf.name}", "main"),
    ]
    assert logs[2]["log_object"] == vrf.name and logs[2]["absolute_url"] == f"/api/ipam/vrfs/{vrf.pk}/"
    every = api.json("/api/extras/job-logs/", {"job_result": result["id"], "log_level": "success"})
    assert every["count"] == 1
    detail = api.json(f"/api/extras/job-results/{result['id']}/", {"depth": 1})
    assert detail["job_model"]["name"] == "Greet" and detail["display"].endswith("(SUCCESS)")
    # Run by name, as pynautobot's job_name= does.
    status, body = send(api, "post", "/api/extras/jobs/Greet/run/", {"data": {"who": "again"}})
    assert status == 201 and body["job_result"]["result"]["who"] == "again"


def test_a_failing_job_records_failure_and_traceback(api, jobs):
    status, body = send(api, "post", run_url(jobs["Explode"]), {})
    assert status == 201
    result = api.json(f"/api/extras/job-results/{body['job_result']['id']}/")
    assert result["status"]["value"] == "FAILURE"
    assert "RuntimeError: boom" in result["traceback"] and "sample_jobs.py" in result["traceback"]
    logs = api.json(f"/api/extras/job-results/{result['id']}/logs/")["results"]
    assert [(e["log_level"]["value"], e["message"]) for e in logs] == [
        ("info", "about to fail"),
        ("error", "RuntimeError: boom"),
    ]


def test_sensitive_variables_are_never_stored(api, jobs):
    Job.objects.filter(pk=jobs["Secretive"].pk).update(enabled=True)
    status, body = send(api, "post", run_url(jobs["Secretive"]), {"data": {"password": "hunter2"}})
    assert status == 201 and body["job_result"]["result"] == {"length": 7}
    assert body["job_result"]["task_kwargs"] == {}
    assert not JobResult.objects.filter(task_kwargs__icontains="hunter2").exists()


def test_disabled_jobs_do_not_run(api, jobs):
    Job.objects.filter(pk=jobs["Greet"].pk).update(enabled=False)
    status, body = send(api, "post", run_url(jobs["Greet"]), {"data": {"who": "x"}})
    assert status == 403 and body == {"detail": "This job is not enabled to be run."}


def test_bulk_rename_dry_run_then_for_real(api, jobs, sample):
    vrfs = list(VRF.objects.order_by("name"))
    data = {"object_type": "ipam.vrf", "pattern": "^(.*)$", "replacement": r"dc1-\1"}
    status, body = send(api, "post", run_url(jobs["BulkRename"]), {"data": data})  # dry run by default
    assert status == 201 and body["job_result"]["status"]["value"] == "SUCCESS"
    assert body["job_result"]["result"]["dryrun"] is True
    assert len(body["job_result"]["result"]["renamed"]) == len(vrfs)
    assert list(VRF.objects.order_by("name").values_list("name", flat=True)) == [v.name for v in vrfs]
    status, body = send(api, "post", run_url(jobs["BulkRename"]), {"data": {**data, "dryrun": False}})
    assert status == 201 and body["job_result"]["result"]["dryrun"] is False
    assert sorted(VRF.objects.values_list("name", flat=True)) == sorted(f"dc1-{v.name}" for v in vrfs)
    status, body = send(api, "post", run_url(jobs["BulkRename"]), {"data": {**data, "object_type": "nope.x"}})
    assert status == 400 and list(body["errors"]) == ["object_type"]


def test_duplicate_addresses_and_parent_check(api, jobs, sample):
    # A host is held once per namespace: its copy outside any VRF is in another namespace.
    ip = IPAddress.objects.filter(vrf__isnull=True).first()
    twin = IPAddress(
        status=ip.status, namespace=Namespace.objects.create(name="duplicates-lab"), description="twin"
    )
    twin.set_address(str(ip))
    twin.save()
    status, body = send(api, "post", run_url(jobs["FindDuplicateIPAddresses"]), {})
    duplicates = body["job_result"]["result"]["duplicates"]
    assert status == 201 and {"vrf": "Global", "address": str(ip).split("/")[0], "count": 2} in duplicates
    status, body = send(api, "post", run_url(jobs["CheckParents"]), {})
    assert status == 201 and body["job_result"]["status"]["value"] == "SUCCESS"
    assert isinstance(body["job_result"]["result"]["problems"], int)
    orphan = IPAddress(status=ip.status, vrf=None)
    orphan.set_address("203.0.113.77/32")
    orphan.save()
    status, again = send(api, "post", run_url(jobs["CheckParents"]), {})
    assert again["job_result"]["result"]["problems"] == body["job_result"]["result"]["problems"] + 1
    logs = api.json(f"/api/extras/job-results/{again['job_result']['id']}/logs/", {"limit": 1000})["results"]
    # The sample's 0.0.0.0/0 is a container: an address needs a network or pool prefix around it.
    assert "203.0.113.77/32 has only the container 0.0.0.0/0 as its parent" in [e["message"] for e in logs]


def test_queues_and_assignments(api, jobs):
    status, queue = send(
        api, "post", "/api/extras/job-queues/", {"name": "long-runs", "description": "big jobs"}
    )
    assert status == 201 and queue["queue_type"] == "celery"
    status, assignment = send(
        api,
        "post",
        "/api/extras/job-queue-assignments/",
        {"job": str(jobs["Greet"].pk), "job_queue": "long-runs"},
    )
    assert status == 201, assignment
    assert api.json(f"/api/extras/jobs/{jobs['Greet'].pk}/")["task_queues"] == ["default", "long-runs"]
    status, body = send(
        api, "post", run_url(jobs["Greet"]), {"data": {"who": "q"}, "task_queue": "long-runs"}
    )
    assert status == 201 and body["job_result"]["celery_kwargs"]["queue"] == "long-runs"


def redis_reachable() -> bool:
    try:
        socket.create_connection(("127.0.0.1", 6379), timeout=0.5).close()
        return True
    except OSError:
        return False


# Run inside `manage.py shell` against the worker's database: enqueue a greeting and a job that
# outlives its soft time limit, wait for both, print their outcomes.
WORKER_SCRIPT = """
import time
from inventory.jobs.runs import enqueue
from inventory.jobs.models import Job, JobResult
from inventory.users.models import User
from tests.sample_jobs import Greet
Job.objects.filter(module_name="tests.sample_jobs").update(enabled=True)
user = User.objects.create_superuser("w", "w@example.com", "pw")
greet, sleepy, stuck = (Job.objects.get(job_class_name=name) for name in ("Greet", "Sleepy", "Stuck"))
data = Greet.serialize(Greet.clean_data({"who": "worker"}, user))
ids = [enqueue(greet, "default", data, user).pk, enqueue(sleepy, "default", {}, user).pk]
ids.append(enqueue(stuck, "default", {}, user).pk)
deadline = time.monotonic() + 90
while time.monotonic() < deadline and JobResult.objects.filter(pk__in=ids, date_done__isnull=True).exists():
    time.sleep(0.5)
for pk in ids:
    r = JobResult.objects.get(pk=pk)
    print("RESULT", r.status, r.worker, r.result, (r.traceback or "").strip().splitlines()[-1:])
"""


BROKERS = [
    pytest.param({}, id="embedded-filesystem"),
    pytest.param(
        # Redis database 15 unless TEST_REDIS_DB names another (machines shared by several runs).
        {"CELERY_BROKER_URL": f"redis://127.0.0.1:6379/{os.environ.get('TEST_REDIS_DB', '15')}"},
        id="redis",
        marks=pytest.mark.skipif(not redis_reachable(), reason="no Redis on 127.0.0.1:6379"),
    ),
]


@pytest.mark.long
@pytest.mark.parametrize("broker", BROKERS)
def test_a_real_worker_runs_jobs_with_time_limits(tmp_path, migrated_sqlite, broker):
    """A Celery worker process (prefork, as in production) consumes from the broker and writes
    results to the database it shares with the API; a soft time limit stops a job that runs on, a
    hard one kills it and the result still says so."""
    out = run_beside_a_worker(tmp_path, migrated_sqlite, WORKER_SCRIPT, timeout=180, **broker)
    greeted, slept, killed = [line for line in out.splitlines() if line.startswith("RESULT")]
    assert greeted.startswith("RESULT SUCCESS celery@"), out
    assert "'who': 'worker'" in greeted
    assert slept.startswith("RESULT FAILURE celery@") and "SoftTimeLimitExceeded" in slept, out
    assert killed.startswith("RESULT FAILURE") and "TimeLimitExceeded" in killed, out


def test_a_run_nobody_would_pick_up_is_refused_as_the_reference_refuses_it(api):
    """No worker listens on the queue (the embedded broker, none started): 503 with the
    reference's message, and neither a result nor a schedule is recorded."""
    from inventory.jobs import workers

    workers.forget()
    job = Job.objects.get(job_class_name="RefreshDynamicGroupCaches")
    before = JobResult.objects.count()
    for body in (
        {"data": {}},
        {
            "data": {},
            "schedule": {"name": "later", "interval": "hourly", "start_time": "2099-01-01T00:00:00Z"},
        },
    ):
        status, answer = send(api, "post", run_url(job), body)
        assert (status, answer) == (
            503,
            {"detail": "Unable to process request: No celery workers running on queue default."},
        )
    assert JobResult.objects.count() == before
    # Bad data is still refused first, as the reference validates before it looks for workers.
    status, answer = send(api, "post", run_url(job), {"data": {"single_group": "nope"}})
    assert status == 400 and list(answer["errors"]) == ["single_group"]
