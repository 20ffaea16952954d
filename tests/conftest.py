import fcntl
import gc
import os
import sqlite3
import subprocess
import sys
import uuid
from contextlib import closing
from pathlib import Path

import orjson
import pytest
from django.conf import settings as django_settings
from django.contrib.auth.hashers import PBKDF2PasswordHasher, make_password
from django.db import transaction
from django.test import Client, override_settings

from config.celery import app as celery_app
from inventory.jobs.discovery import sync_jobs
from inventory.jobs.models import Job
from inventory.users.models import User
from queryengine import definitions, together

from .builders import SUPERUSER_KEY, build_sample
from .snapshot import Sample, Snapshot

# Servers the tests start (gunicorn, Celery workers) refuse to run without a SECRET_KEY in their
# environment: they get this process's, so what one seals the others can read.
os.environ.setdefault("SECRET_KEY", django_settings.SECRET_KEY)


# The suite's processes hold a large heap (the schema, prepared documents, sample data) and
# allocate fast: at the default thresholds, the full collections that walk all of it took about a
# sixth of a test process's time. Collected less often, they take a twentieth.
gc.set_threshold(10_000, 10, 10)

DATABASE_FIXTURES = {"db", "transactional_db", "live_server"}


def uses_database(item) -> bool:
    return bool(item.get_closest_marker("django_db") or DATABASE_FIXTURES & set(item.fixturenames))


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    """The tests needing no test database of the modules holding long ones first (kept together:
    their module-scoped servers start once), the order otherwise as pytest-django leaves it (tests
    that flush the database after those that do not, those without a database last): started
    last, a long test keeps one worker busy after the others finished."""
    holding_long = {item.path for item in items if item.get_closest_marker("long")}

    def early(item) -> bool:
        return item.path in holding_long and not uses_database(item)

    items.sort(key=lambda item: not early(item))


class QuickPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    """The production algorithm and hash format, with few rounds: the real count costs a
    noticeable fraction of a second by design, for every user a test creates with a password.
    Servers started by the tests verify these hashes too (the count is part of the hash)."""

    iterations = 1000


def _per_worker_settings() -> dict:
    """Parallel runs (pytest-xdist) give each worker process its own test database
    (pytest-django adds the worker's name to it) and, from here, its own data directory: the file
    cache that sign-in and token throttling count in (which each test clears), and the embedded
    Celery broker's folders and the stored files (MEDIA_ROOT, when below it). Processes the tests
    start inherit DATA_DIR unless they set theirs."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        return {}
    data_dir = Path(django_settings.DATA_DIR) / worker
    os.environ["DATA_DIR"] = str(data_dir)
    changes: dict = {"DATA_DIR": data_dir}
    if Path(django_settings.MEDIA_ROOT).is_relative_to(django_settings.DATA_DIR):
        changes["MEDIA_ROOT"] = data_dir / Path(django_settings.MEDIA_ROOT).relative_to(
            django_settings.DATA_DIR
        )
    cache = django_settings.CACHES["default"]
    if cache["BACKEND"].endswith("FileBasedCache"):
        changes["CACHES"] = {"default": {**cache, "LOCATION": str(data_dir / "cache")}}
    folders = {
        key: str(data_dir / Path(value).relative_to(django_settings.DATA_DIR))
        for key, value in django_settings.CELERY_BROKER_TRANSPORT_OPTIONS.items()
        if isinstance(value, str) and Path(value).is_relative_to(django_settings.DATA_DIR)
    }
    for folder in folders.values():
        Path(folder).mkdir(parents=True, exist_ok=True)
    changes["CELERY_BROKER_TRANSPORT_OPTIONS"] = {
        **django_settings.CELERY_BROKER_TRANSPORT_OPTIONS,
        **folders,
    }
    return changes


# For the whole session, before anything reads them (the cache and Celery read their settings
# on first use).
override_settings(
    PASSWORD_HASHERS=[
        f"{__name__}.QuickPBKDF2PasswordHasher",
        *(h for h in django_settings.PASSWORD_HASHERS if not h.endswith(".PBKDF2PasswordHasher")),
    ],
    **_per_worker_settings(),
).enable()


class Api:
    """An HTTP client speaking JSON to the service with a given token."""

    def __init__(self, token: str | None):
        headers = {"HTTP_ACCEPT": "application/json"}
        if token:
            headers["HTTP_AUTHORIZATION"] = f"Token {token}"
        self.client = Client(**headers)

    def get(self, path: str, params: dict | list | None = None, **headers):
        return self.client.get(path, params or {}, **headers)

    def json(self, path: str, params=None, status: int = 200, **headers):
        response = self.get(path, params, **headers)
        assert response.status_code == status, (path, params, response.status_code, response.content[:500])
        return orjson.loads(response.content)

    def post(self, path: str, body, **headers):
        return self.client.post(path, orjson.dumps(body), content_type="application/json", **headers)


def request_statements(captured) -> list[str]:
    """The SQL a request ran, less its token lookup: a server process keeps the tokens it has
    read, so whether the lookup runs depends on what ran before (and on whether a definition
    changed in the test's transaction), not on the request."""
    return [q["sql"] for q in captured.captured_queries if '"users_token"' not in q["sql"]]


def send(api: Api, method: str, path: str, body=None) -> tuple[int, object]:
    """(status, parsed body) of a JSON request; no body is sent for None."""
    data = orjson.dumps(body) if body is not None else ""
    response = getattr(api.client, method)(path, data, content_type="application/json")
    return response.status_code, orjson.loads(response.content) if response.content else None


@pytest.fixture(scope="session")
def admin_password_hash():
    """The superuser's password hashed once: the real hasher costs a noticeable fraction of a
    second by design, and nearly every test signs in the same superuser."""
    return make_password("admin-password")


ADMIN_ID = uuid.UUID("00000000-0000-4000-8000-00000000a0a0")


def create_admin(password_hash: str) -> User:
    return User.objects.create(
        id=ADMIN_ID,
        username="admin",
        email="admin@example.com",
        password=password_hash,
        is_staff=True,
        is_superuser=True,
    )


@pytest.fixture(scope="session")
def django_db_setup(request, django_db_setup, django_db_blocker):
    """Each worker's test database as migrations make it, less the example VPN profiles and
    policies: a flush (after a test with `transactional_db`) removes them on one worker and not
    on another, so no test may count on them (test_migrations checks that they are made). A run
    of tests none of which uses the database has none made: the configured one is left alone."""
    from inventory.vpn.models import VPNPhase1Policy, VPNPhase2Policy, VPNProfile

    if not any(uses_database(item) for item in request.session.items):
        return
    with django_db_blocker.unblock():
        for model in (VPNProfile, VPNPhase1Policy, VPNPhase2Policy):
            model.objects.all().delete()


def shares_sample(request) -> bool:
    return "shared_sample" in request.fixturenames


@pytest.fixture
def superuser(request, db, admin_password_hash):
    if shares_sample(request):
        return User.objects.get(pk=ADMIN_ID)
    return create_admin(admin_password_hash)


@pytest.fixture(scope="session")
def sample_snapshot(django_db_setup, django_db_blocker, admin_password_hash):
    """The sample as `build_sample` builds it for the superuser, once per session."""
    with django_db_blocker.unblock(), transaction.atomic():
        owner = create_admin(admin_password_hash)
        snapshot = Snapshot.take(lambda: build_sample(owner))
        transaction.set_rollback(True)
    return snapshot


@pytest.fixture(scope="module")
def shared_sample(django_db_setup, django_db_blocker, sample_snapshot, admin_password_hash):
    """The superuser and the sample laid into the database once for a module's tests that ask
    for it (`pytest.mark.usefixtures("shared_sample")`), in a transaction rolled back after
    them. Each test still runs in a transaction of its own inside it, rolled back after the test,
    so every test starts from the same rows exactly as if they had been laid for it alone; only
    tests that write in that way (no `transactional_db`, no live server) may share the sample."""
    with django_db_blocker.unblock(), transaction.atomic():
        create_admin(admin_password_hash)
        sample_snapshot.restore()
        definitions.forget()
        yield
        transaction.set_rollback(True)
    definitions.forget()


@pytest.fixture(scope="session")
def second_copy_snapshot(django_db_setup, django_db_blocker, sample_snapshot, admin_password_hash):
    """The sample built again with the suffix "-2" on top of the first (the same shapes again:
    every list twice as long), once per session."""
    with django_db_blocker.unblock(), transaction.atomic():
        # Taken inside a module's shared sample when a later test of it asks first.
        owner = User.objects.filter(pk=ADMIN_ID).first()
        if owner is None:
            # A module's own sample (its own admin) is not the one this copy goes on.
            assert not User.objects.exists(), "second_copy lays a copy on this file's sample only"
            owner = create_admin(admin_password_hash)
            sample_snapshot.restore()
            definitions.forget()
        snapshot = Snapshot.take(lambda: build_sample(owner, suffix="-2"))
        transaction.set_rollback(True)
    definitions.forget()
    return snapshot


@pytest.fixture
def second_copy(sample, second_copy_snapshot):
    """Lays the second copy of the sample on the test's sample, when the test calls it."""

    def lay() -> None:
        second_copy_snapshot.restore()
        definitions.forget()

    return lay


@pytest.fixture
def sample(request, superuser, sample_snapshot):
    yield Sample(sample_snapshot.order) if shares_sample(request) else sample_snapshot.restore()
    # Restored in bulk (no signals) and rolled back: definitions kept from it are gone.
    definitions.forget()


@pytest.fixture
def api(sample):
    return Api(SUPERUSER_KEY)


@pytest.fixture
def jobs(db):
    """The sample jobs (tests/sample_jobs.py) installed and enabled, run in this process: {class
    name: job}."""
    celery_app.conf.task_always_eager = True
    with override_settings(JOBS_MODULES=["tests.sample_jobs"]):
        sync_jobs()
        Job.objects.filter(module_name="tests.sample_jobs").update(enabled=True)
        yield {j.job_class_name: j for j in Job.objects.all()}
    celery_app.conf.task_always_eager = False


@pytest.fixture
def anonymous(db):
    return Api(None)


@pytest.fixture(scope="session", autouse=True)
def read_workers_closed(django_db_setup):
    """Concurrent reads keep connections of their own: closed before the test database is dropped."""
    yield
    together.close()


@pytest.fixture(autouse=True)
def fresh_cache():
    """Sign-in and token failure counts (and anything else cached) never carry from one test to
    the next."""
    from django.core.cache import cache

    from rest import throttle

    cache.clear()
    throttle.forget_refused()
    yield


ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory) -> Path:
    """A new SQLite database migrated once for the whole run, for the processes tests start to
    work on copies of (`copy_database`): migrating costs seconds each time. Parallel workers share
    it: the first to need it migrates it while the others wait on the lock. The sample jobs
    (tests/sample_jobs.py) are installed in it, as migrating installs the configured jobs."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the run's, common to its workers
    template = shared / "migrated.sqlite3"
    with open(shared / "migrated.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not template.exists():
            scratch = shared / "migrating"
            scratch.mkdir(exist_ok=True)
            env = {k: v for k, v in os.environ.items() if k != "CELERY_BROKER_URL"}
            env.update(
                DATABASE_URL=f"sqlite:///{scratch / 'db.sqlite3'}",
                DATA_DIR=str(scratch),
                JOBS_MODULES="tests.sample_jobs",
            )
            manage = [sys.executable, "manage.py", "migrate", "--verbosity", "0"]
            subprocess.run(manage, cwd=ROOT, env=env, check=True)
            copy_database(scratch / "db.sqlite3", template)
    return template


def copy_database(source: Path, target: Path) -> None:
    """Through SQLite's backup: a copy of the file could miss what its write-ahead log holds."""
    with closing(sqlite3.connect(source)) as read, closing(sqlite3.connect(target)) as write:
        read.backup(write)


def run_beside_a_worker(
    tmp_path, migrated: Path, script: str, timeout: float, beat: bool = False, **env_changes
) -> str:
    """Start a real Celery worker (prefork, one process, queue "default"; with its scheduler
    when `beat`) on a copy of the `migrated` SQLite database in `tmp_path`, run `script` in
    `manage.py shell` beside it and answer what the script printed."""
    env = {k: v for k, v in os.environ.items() if k not in ("CELERY_BROKER_URL", "CELERY_TASK_ALWAYS_EAGER")}
    database = tmp_path / "jobs.sqlite3"
    copy_database(migrated, database)
    env.update(
        DATABASE_URL=f"sqlite:///{database}",
        JOBS_MODULES="tests.sample_jobs",
        DATA_DIR=str(tmp_path),
        **env_changes,
    )
    python = sys.executable
    command = [python, "-m", "celery", "-A", "config", "worker", *(["-B"] if beat else [])]
    worker = subprocess.Popen(
        [*command, "-Q", "default", "-c", "1", "--loglevel", "WARNING"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        shell = subprocess.run(
            [python, "manage.py", "shell", "-c", script],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    assert shell.returncode == 0, shell.stderr[-2000:]
    return shell.stdout
