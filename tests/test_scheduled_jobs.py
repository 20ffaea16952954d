"""Scheduled jobs: schedules given to `jobs/<id>/run/`, the times they run at, the scheduler's
tick, and a real worker with its scheduler running a one-off and a recurring job."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from inventory.jobs.models import JobResult, ScheduledJob
from inventory.jobs.scheduler import seconds_to_next_run, start_due_jobs
from inventory.jobs.scheduling import START_TIME_TOO_EARLY, next_run
from inventory.users.models import Token

from .conftest import Api, run_beside_a_worker, send

UTC = datetime.UTC


@pytest.fixture
def api(superuser):
    return Api(Token.objects.create(user=superuser).key)


def later(**delta) -> str:
    return (timezone.now() + datetime.timedelta(**delta)).isoformat()


def schedule(api, job, schedule: dict, data=None) -> tuple[int, dict]:
    return send(
        api, "post", f"/api/extras/jobs/{job.pk}/run/", {"data": data or {"who": "x"}, "schedule": schedule}
    )


def test_a_schedule_is_checked_as_the_reference_checks_it(api, jobs):
    greet = jobs["Greet"]
    cases = [
        ({"name": "n"}, {"interval": ["This field is required."]}),
        ({"name": "n", "interval": "monthly"}, {"interval": ['"monthly" is not a valid choice.']}),
        (
            {"interval": "daily", "start_time": later(hours=1)},
            {"name": ["Please provide a name for the job schedule."]},
        ),
        ({"name": "n", "interval": "future"}, {"start_time": [START_TIME_TOO_EARLY]}),
        (
            {"name": "n", "interval": "hourly", "start_time": later(seconds=5)},
            {"start_time": [START_TIME_TOO_EARLY]},
        ),
        (
            {"name": "n", "interval": "future", "start_time": "tomorrow"},
            {
                "start_time": [
                    "Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z]."
                ]
            },
        ),
        (
            {"name": "n", "interval": "custom", "crontab": "* * *"},
            {"crontab": ["Enter five fields: minute hour day-of-month month day-of-week."]},
        ),
        (
            {"name": "n", "interval": "custom", "crontab": "61 * * * *"},
            {"crontab": ["Invalid crontab: Invalid end range: 61 > 59."]},
        ),
    ]
    for given, errors in cases:
        status, body = schedule(api, greet, given)
        assert (status, body) == (400, {"schedule": errors}), given
    status, body = schedule(api, greet, "daily")
    assert status == 400 and list(body["schedule"]) == ["non_field_errors"]
    # A job with sensitive variables runs now or not at all: its input would be stored.
    status, body = schedule(
        api,
        jobs["Secretive"],
        {"name": "n", "interval": "daily", "start_time": later(hours=1)},
        {"password": "pw"},
    )
    assert (status, body) == (
        400,
        {"schedule": {"interval": ["Unable to schedule job: Job may have sensitive input variables"]}},
    )
    # Bad job data is refused before anything is scheduled.
    status, body = schedule(
        api, greet, {"name": "n", "interval": "daily", "start_time": later(hours=1)}, {"times": 9}
    )
    assert status == 400 and set(body["errors"]) == {"who", "times"}
    assert not ScheduledJob.objects.exists() and not JobResult.objects.exists()


def test_scheduling_answers_with_the_scheduled_job(api, jobs):
    start = later(hours=2)
    status, body = schedule(
        api, jobs["Greet"], {"name": "nightly greeting", "interval": "daily", "start_time": start}
    )
    assert status == 201 and body["job_result"] is None
    shown = body["scheduled_job"]
    assert shown["object_type"] == "extras.scheduledjob" and shown["display"] == "nightly greeting: daily"
    assert shown["interval"] == {"value": "daily", "label": "Recurring daily"}
    assert shown["task"] == "tests.sample_jobs.Greet" and shown["job_model"]["id"] == str(jobs["Greet"].pk)
    assert shown["kwargs"]["who"] == "x" and shown["queue"] == "default" and shown["one_off"] is False
    assert shown["state"]["value"] == "active" and shown["enabled"] is True and shown["total_run_count"] == 0
    assert shown["start_time"] == start.replace("+00:00", "Z") and "next_run_at" not in shown
    assert not JobResult.objects.exists()  # nothing runs until it is due
    status, again = schedule(
        api, jobs["Greet"], {"name": "nightly greeting", "interval": "daily", "start_time": start}
    )
    assert status == 400 and list(again["schedule"]) == ["name"]
    # `immediately` is a plain run.
    status, now = schedule(api, jobs["Greet"], {"name": "x", "interval": "immediately"})
    assert (
        status == 201 and now["scheduled_job"] is None and now["job_result"]["status"]["value"] == "SUCCESS"
    )
    # A custom schedule without a start time starts at its crontab's next match.
    status, custom = schedule(
        api, jobs["Greet"], {"name": "every 5", "interval": "custom", "crontab": "*/5 * * * *"}
    )
    first = datetime.datetime.fromisoformat(custom["scheduled_job"]["start_time"])
    assert status == 201 and first.minute % 5 == 0 and first > timezone.now()
    # Clients pause, rename or delete a schedule; they never create one on this path.
    path = f"/api/extras/scheduled-jobs/{shown['id']}/"
    status, paused = send(api, "patch", path, {"enabled": False, "interval": "hourly"})
    assert status == 200 and paused["enabled"] is False and paused["interval"]["value"] == "daily"
    assert paused["state"]["value"] == "completed"
    assert ScheduledJob.objects.get(pk=shown["id"]).next_run_at is None
    status, resumed = send(api, "patch", path, {"enabled": True})
    assert status == 200 and resumed["state"]["value"] == "active"
    assert ScheduledJob.objects.get(pk=shown["id"]).next_run_at == datetime.datetime.fromisoformat(start)
    status, _ = send(api, "post", "/api/extras/scheduled-jobs/", {"name": "x"})
    assert status == 405
    assert send(api, "delete", path)[0] == 204 and not ScheduledJob.objects.filter(pk=shown["id"]).exists()


def at(*fields, tz=UTC) -> datetime.datetime:
    return datetime.datetime(*fields, tzinfo=tz)


@pytest.mark.parametrize(
    "interval, crontab, time_zone, start, last_run, expected",
    [
        ("future", "", "UTC", at(2030, 1, 1, 10, 0, 30), None, at(2030, 1, 1, 10, 0, 30)),
        ("future", "", "UTC", at(2030, 1, 1, 10, 0, 30), at(2030, 1, 1, 10, 0, 31), None),
        ("hourly", "", "UTC", at(2030, 1, 1, 10, 20), None, at(2030, 1, 1, 10, 20)),
        ("hourly", "", "UTC", at(2030, 1, 1, 10, 20), at(2030, 1, 1, 10, 20, 1), at(2030, 1, 1, 11, 20)),
        ("daily", "", "UTC", at(2030, 1, 1, 10, 20), at(2030, 1, 1, 10, 20, 1), at(2030, 1, 2, 10, 20)),
        ("weekly", "", "UTC", at(2030, 1, 1, 10, 20), at(2030, 1, 1, 10, 20, 1), at(2030, 1, 8, 10, 20)),
        ("custom", "*/15 2 * * 1", "UTC", at(2030, 1, 1, 10, 0), None, at(2030, 1, 7, 2, 0)),
        ("custom", "*/15 2 * * 1", "UTC", at(2030, 1, 1), at(2030, 1, 7, 2, 0, 2), at(2030, 1, 7, 2, 15)),
        # 12:30 every day in Amsterdam: 11:30 UTC in winter, 10:30 UTC from the change to summer time.
        (
            "custom",
            "30 12 * * *",
            "Europe/Amsterdam",
            at(2030, 3, 29),
            at(2030, 3, 30, 11, 30, 1),
            at(2030, 3, 31, 10, 30),
        ),
        # Daily at the start's wall-clock time in its zone, across the change to summer time.
        ("daily", "", "Europe/Amsterdam", at(2030, 3, 30, 9), at(2030, 3, 30, 9, 0, 1), at(2030, 3, 31, 8)),
    ],
)
def test_runs_fall_at_the_reference_times(interval, crontab, time_zone, start, last_run, expected):
    job = ScheduledJob(
        interval=interval,
        crontab=crontab,
        time_zone=time_zone,
        start_time=start,
        last_run_at=last_run,
        total_run_count=int(last_run is not None),
    )
    assert next_run(job, now=at(2029, 12, 31)) == expected


def test_the_scheduler_starts_what_is_due_once(api, jobs, django_capture_on_commit_callbacks):
    greet = jobs["Greet"]
    for name, interval in (("once", "future"), ("hourly", "hourly"), ("gone", "daily")):
        status, _ = schedule(
            api, greet, {"name": name, "interval": interval, "start_time": later(minutes=10)}
        )
        assert status == 201
    ScheduledJob.objects.filter(name="gone").update(job_model=None)
    assert 595 < seconds_to_next_run() <= 600
    assert start_due_jobs(timezone.now()) == 0  # nothing due yet
    when = timezone.now() + datetime.timedelta(minutes=11)
    with django_capture_on_commit_callbacks(execute=True) as sent:
        assert start_due_jobs(when) == 2
    assert len(sent) == 2  # the messages leave once the runs are recorded
    once, hourly, gone = (ScheduledJob.objects.get(name=n) for n in ("once", "hourly", "gone"))
    assert (once.enabled, once.state, once.total_run_count, once.next_run_at) == (False, "completed", 1, None)
    assert hourly.enabled and hourly.total_run_count == 1 and hourly.last_run_at == when
    # Then at the start's minute of every hour (crontab minutes: the seconds fall away).
    assert hourly.next_run_at == hourly.start_time.replace(second=0, microsecond=0) + datetime.timedelta(
        hours=1
    )
    results = {r.scheduled_job.name: r for r in JobResult.objects.select_related("scheduled_job")}
    assert results["once"].status == "SUCCESS" and results["once"].result["who"] == "x"
    assert (
        results["hourly"].user.username == "admin" and results["hourly"].celery_kwargs["queue"] == "default"
    )
    assert results["gone"].status == "FAILURE" and "not installed and enabled" in results["gone"].traceback
    assert start_due_jobs(when) == 0  # each run started once
    shown = api.json(f"/api/extras/job-results/{results['once'].pk}/")
    assert shown["scheduled_job"]["id"] == str(once.pk)


# Run inside `manage.py shell` against the worker's database: schedule a one-off and an hourly
# greeting through the API, wait for their runs, print what happened. The API in this process
# asks for a lead of 2 s instead of the reference's 15 s (tested above) so that the test waits
# less; the scheduler and the worker are unchanged.
WORKER_SCRIPT = """
import datetime, json, time
from django.test import Client
from django.utils import timezone
from inventory.jobs import scheduling
from inventory.jobs.models import Job, JobResult, ScheduledJob
from inventory.users.models import Token, User
scheduling.EARLIEST = datetime.timedelta(seconds=2)
Job.objects.filter(module_name="tests.sample_jobs").update(enabled=True)
token = Token.objects.create(user=User.objects.create_superuser("s", "s@example.com", "pw"))
client = Client(HTTP_AUTHORIZATION=f"Token {token.key}")
greet = Job.objects.get(job_class_name="Greet")
client.get("/api/")  # the first request builds the schema: not counted in the lead
# A run is refused (503) until the worker beside us listens on its queue.
from inventory.jobs import workers
ready_by = time.monotonic() + 60
while not workers.worker_count("default"):
    assert time.monotonic() < ready_by, "no worker came up"
    workers.forget()
for name, interval in (("once", "future"), ("every hour", "hourly")):
    start = (timezone.now() + datetime.timedelta(seconds=4)).isoformat()
    body = {"data": {"who": name}, "schedule": {"name": name, "interval": interval, "start_time": start}}
    response = client.post(f"/api/extras/jobs/{greet.pk}/run/", json.dumps(body), content_type="application/json")
    assert response.status_code == 201, response.content
deadline = time.monotonic() + 90
while time.monotonic() < deadline and JobResult.objects.filter(status="SUCCESS").count() < 2:
    time.sleep(0.5)
for scheduled in ScheduledJob.objects.order_by("name"):
    results = list(scheduled.job_results.values_list("status", "result"))
    print("RUN", scheduled.name, scheduled.enabled, scheduled.total_run_count, results,
          (scheduled.next_run_at - scheduled.start_time.replace(second=0, microsecond=0)).total_seconds()
          if scheduled.next_run_at else None)
"""


@pytest.mark.long
def test_a_real_worker_and_scheduler_run_scheduled_jobs(tmp_path, migrated_sqlite):
    """`celery -A config worker -B`, as bin/demo runs it on the embedded broker: the scheduler
    inside it starts a one-off run at its time and an hourly one at its first time."""
    out = run_beside_a_worker(
        tmp_path, migrated_sqlite, WORKER_SCRIPT, timeout=150, beat=True, SCHEDULER_INTERVAL="1"
    )
    hourly, once = sorted(line for line in out.splitlines() if line.startswith("RUN"))
    assert (
        once
        == "RUN once False 1 [('SUCCESS', {'who': 'once', 'vrfs': [], 'attachment': None, 'network': None, 'settings': None})] None"
    ), out
    assert hourly.startswith("RUN every hour True 1 [('SUCCESS', {'who': 'every hour'"), out
    assert hourly.endswith(" 3600.0"), out  # next: an hour after the first run


def test_a_scheduled_job_runs_dry_now_on_request(api, jobs):
    rename = jobs["BulkRename"]
    data = {"object_type": "ipam.vrf", "pattern": "^x", "replacement": "y", "dryrun": False}
    status, body = schedule(
        api, rename, {"name": "rename", "interval": "weekly", "start_time": later(days=1)}, data
    )
    assert status == 201 and body["scheduled_job"]["kwargs"]["dryrun"] is False
    path = f"/api/extras/scheduled-jobs/{body['scheduled_job']['id']}/dry-run/"
    status, result = send(api, "post", path)
    assert status == 200 and result["status"]["value"] == "SUCCESS" and result["result"]["dryrun"] is True
    status, greeting = schedule(
        api, jobs["Greet"], {"name": "greet", "interval": "daily", "start_time": later(days=1)}
    )
    status, body = send(api, "post", f"/api/extras/scheduled-jobs/{greeting['scheduled_job']['id']}/dry-run/")
    assert (status, body) == (405, {"detail": "This job does not support dry-run."})
