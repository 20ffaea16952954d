"""When scheduled jobs run: the reference's intervals as crontabs in the schedule's time zone.

A one-off (`future`) runs at its start time. `hourly`, `daily` and `weekly` run first at their
start time, then at the same minute of every hour, the same time of every day, the same time and
weekday of every week. `custom` runs at every match of its crontab (minute hour day-of-month
month day-of-week) from its start time on. A run the scheduler missed (it was stopped) happens
once when it is back, never once per missed time.
"""

from __future__ import annotations

import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from celery.schedules import crontab
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.dateparse import parse_datetime

INTERVAL_NAMES = ("immediately", "future", "hourly", "daily", "weekly", "custom")
ONCE = ("immediately", "future")
RECURRING = ("hourly", "daily", "weekly", "custom")
# A run is scheduled at least this far ahead, as the reference asks.
EARLIEST = datetime.timedelta(seconds=15)
START_TIME_TOO_EARLY = (
    "Please enter a valid date and time greater than or equal to the current date and time."
)


def zone(name: str) -> datetime.tzinfo:
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        raise ValidationError({"time_zone": [f'"{name}" is not a valid time zone.']}) from None


def parse_crontab(text: str, tz: datetime.tzinfo) -> crontab:
    """A crontab of five fields (`*/15 2 * * 1-5`); ValidationError naming `crontab` otherwise."""
    fields = (text or "").split()
    if len(fields) != 5:
        raise ValidationError({"crontab": ["Enter five fields: minute hour day-of-month month day-of-week."]})
    minute, hour, day_of_month, month_of_year, day_of_week = fields
    try:
        schedule = crontab(minute, hour, day_of_week, day_of_month, month_of_year)
    except (ValueError, IndexError) as exc:
        raise ValidationError({"crontab": [f"Invalid crontab: {exc}"]}) from None
    schedule.tz = tz
    return schedule


def cron_of(job) -> crontab:
    """The recurring schedule as a crontab, in the schedule's time zone."""
    tz = zone(job.time_zone)
    if job.interval == "custom":
        return parse_crontab(job.crontab, tz)
    start = job.start_time.astimezone(tz)
    fields = {"minute": start.minute}
    if job.interval in ("daily", "weekly"):
        fields["hour"] = start.hour
    if job.interval == "weekly":
        fields["day_of_week"] = start.strftime("%w")
    schedule = crontab(**fields)
    schedule.tz = tz
    return schedule


def match_after(schedule: crontab, moment: datetime.datetime) -> datetime.datetime:
    """The crontab's first time strictly after `moment`."""
    moment = moment.astimezone(schedule.tz)
    start, delta, _ = schedule.remaining_delta(moment, tz=schedule.tz)
    return (start + delta).astimezone(datetime.UTC)


def next_run(job, now: datetime.datetime | None = None) -> datetime.datetime | None:
    """When the scheduler should next start `job` (None: never again)."""
    if job.interval in ONCE:
        return job.start_time if not job.total_run_count else None
    now = now or timezone.now()
    schedule = cron_of(job)
    if job.last_run_at is not None:
        return match_after(schedule, job.last_run_at)
    if job.start_time >= now:  # first run: the start time itself, or the crontab's first match from it
        if job.interval == "custom":
            return match_after(schedule, job.start_time - datetime.timedelta(microseconds=1))
        return job.start_time
    return match_after(schedule, now - datetime.timedelta(microseconds=1))


# --- schedules given to `jobs/<id>/run/` ---------------------------------------------------------

SENSITIVE_SCHEDULE = "Unable to schedule job: Job may have sensitive input variables"
DATETIME_FORMAT = (
    "Datetime has wrong format. Use one of these formats instead: "
    "YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z]."
)


def schedule_of(given) -> dict | None:
    """A run request's `schedule`, checked as the reference checks it (errors under `schedule`);
    None to run now (no schedule, or `immediately`)."""
    from rest.views import ApiError

    def refuse(errors: dict):
        raise ApiError(400, {"schedule": errors})

    if given is None:
        return None
    if not isinstance(given, dict):
        refuse(
            {"non_field_errors": [f"Invalid data. Expected a dictionary, but got {type(given).__name__}."]}
        )
    interval = given.get("interval")
    if interval in (None, ""):
        refuse({"interval": ["This field is required."]})
    if not isinstance(interval, str) or interval not in INTERVAL_NAMES:
        refuse({"interval": [f'"{interval}" is not a valid choice.']})
    if interval == "immediately":
        return None
    name = given.get("name")
    if not isinstance(name, str) or not name.strip():
        refuse({"name": ["Please provide a name for the job schedule."]})
    start_time = given.get("start_time")
    if start_time is not None:
        parsed = parse_datetime(start_time) if isinstance(start_time, str) else None
        if parsed is None:
            refuse({"start_time": [DATETIME_FORMAT]})
        start_time = parsed if timezone.is_aware(parsed) else timezone.make_aware(parsed)
    if (start_time is None and interval != "custom") or (
        start_time is not None and start_time < timezone.now() + EARLIEST
    ):
        refuse({"start_time": [START_TIME_TOO_EARLY]})
    crontab_text = given.get("crontab") or ""
    if interval == "custom":
        try:
            parse_crontab(crontab_text, zone(timezone.get_current_timezone_name()))
        except ValidationError as exc:
            refuse(exc.message_dict)
    return {"name": name.strip(), "interval": interval, "start_time": start_time, "crontab": crontab_text}


def create_schedule(job, queue: str, data: dict, user, schedule: dict):
    """Record a scheduled job for a checked schedule (a custom one without a start time starts at
    its crontab's first match)."""
    from rest.views import ApiError

    from .models import JobQueue, ScheduledJob
    from .runs import celery_kwargs

    tz_name = timezone.get_current_timezone_name()
    start_time = schedule["start_time"]
    if start_time is None:
        start_time = match_after(parse_crontab(schedule["crontab"], zone(tz_name)), timezone.now())
    signed_in = user if user is not None and user.is_authenticated else None
    scheduled = ScheduledJob(
        name=schedule["name"],
        task=job.class_path,
        job_model=job,
        interval=schedule["interval"],
        crontab=schedule["crontab"] if schedule["interval"] == "custom" else "",
        start_time=start_time,
        time_zone=tz_name,
        one_off=schedule["interval"] == "future",
        kwargs=data,
        celery_kwargs=celery_kwargs(job, queue, signed_in),
        job_queue=JobQueue.objects.filter(name=queue).first(),
        user=signed_in,
        description=f"Job {job.name} scheduled by {signed_in or 'an anonymous user'} for {start_time}",
    )
    try:
        scheduled.validate_unique()
    except ValidationError as exc:
        raise ApiError(400, {"schedule": exc.message_dict}) from None
    scheduled.save()
    return scheduled
