"""Status, health probes and metrics, through the HTTP stack."""

import json
import re
from pathlib import Path

import pytest
from django.db import connection
from django.db.migrations.recorder import MigrationRecorder
from django.test import Client

from config.monitoring import health

REFERENCE = (
    Path(__file__).resolve().parents[2] / "shared" / "reference" / "nautobot-3.2.7" / "004-status-get.json"
)
# The reference's status keys, kept here so a clone without the captures still checks them.
REFERENCE_KEYS = [
    "django-version",
    "installed-apps",
    "nautobot-version",
    "nautobot-apps",
    "plugins",
    "python-version",
    "celery-workers-running",
]


def test_status_carries_every_reference_key(api):
    if REFERENCE.exists():
        assert list(json.loads(REFERENCE.read_text())["response"]["body"]) == REFERENCE_KEYS
    body = api.json("/api/status/")
    assert set(REFERENCE_KEYS) <= set(body)
    assert body["nautobot-version"] == "3.2.0"  # the newest API version spoken, as a release
    assert body["nautobot-apps"] == {} and body["plugins"] == {} and body["celery-workers-running"] == 0
    apps = body["installed-apps"]
    assert apps["inventory.dcim"] is None and apps["django.contrib.auth"] is None
    assert re.fullmatch(r"\d+\.\d+.*", apps["graphene_django"])  # a package: its version
    assert body["django-version"] and body["python-version"] and body["netinventory-version"]


def test_liveness_needs_nothing(db):
    response = Client().get("/health/")
    assert response.status_code == 200 and response.json() == {"status": "ok"}


@pytest.fixture
def unchecked(monkeypatch):
    """Readiness as a fresh process sees it (no migration check remembered)."""
    monkeypatch.setattr(health, "_migrated", False)


def test_ready_when_migrated(db, unchecked):
    response = Client().get("/health/ready/")
    assert response.status_code == 200, response.content
    assert response.json() == {"status": "ok", "database": "ok", "migrations": []}


def test_not_ready_with_an_unapplied_migration(db, unchecked):
    recorder = MigrationRecorder(connection)
    # A squashed migration counts as applied while all it replaces are: take one of those away.
    latest = (
        recorder.migration_qs.filter(app="dcim").exclude(name__contains="_squashed_").order_by("-id").first()
    )
    latest.delete()  # the test's transaction puts it back
    response = Client().get("/health/ready/")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable" and body["database"] == "ok"
    # Named as itself, or as the squashed migration that stands for it alone.
    assert any(name.startswith("dcim.") and name.endswith(latest.name) for name in body["migrations"])


def samples(text: str, name: str) -> dict[tuple, float]:
    """{sorted label pairs: value} of one metric in the text exposition format."""
    found = {}
    for line in text.splitlines():
        match = re.fullmatch(rf"{name}\{{(.*)\}} (\S+)", line)
        if match:
            labels = tuple(sorted(re.findall(r'(\w+)="([^"]*)"', match.group(1))))
            found[labels] = float(match.group(2))
    return found


def scrape(client: Client) -> str:
    response = client.get("/metrics/")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    return response.content.decode()


def test_metrics_count_requests_by_route(api, sample):
    client = Client()
    list_key = (("method", "GET"), ("route", "api/dcim/locations/"), ("status", "2xx"))
    detail_key = (("method", "GET"), ("route", "api/dcim/locations/<str:key>/"), ("status", "4xx"))
    before = samples(scrape(client), "netinventory_http_requests_total")
    api.get("/api/dcim/locations/")
    api.get("/api/dcim/locations/", {"name": "AMS1"})
    api.get("/api/dcim/locations/00000000-0000-0000-0000-000000000000/")  # 404: its own class
    text = scrape(client)
    after = samples(text, "netinventory_http_requests_total")
    assert after[list_key] - before.get(list_key, 0) == 2
    assert after[detail_key] - before.get(detail_key, 0) == 1
    assert not any("AMS1" in value or "0000" in value for labels in after for _, value in labels)
    durations = samples(text, "netinventory_http_request_duration_seconds_count")
    assert durations[(("method", "GET"), ("route", "api/dcim/locations/"))] >= 2
    database = samples(text, "netinventory_http_request_database_seconds_sum")
    assert database[(("route", "api/dcim/locations/"),)] > 0
    queries = samples(text, "netinventory_database_queries_total")
    assert queries[(("route", "api/dcim/locations/"),)] >= 2


def test_metrics_can_require_a_token(api, settings):
    settings.METRICS_TOKEN_REQUIRED = True
    assert Client().get("/metrics/").status_code == 403
    assert api.get("/metrics/").status_code == 200


@pytest.mark.long
def test_metrics_add_up_every_gunicorn_worker(tmp_path):
    """Several worker processes (the shipped gunicorn.conf.py) report one set of totals."""
    import os
    import socket
    import subprocess
    import sys
    import time
    import urllib.error
    import urllib.request
    from concurrent.futures import ThreadPoolExecutor

    root = Path(__file__).resolve().parents[1]
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    multiproc = tmp_path / "prometheus"
    env = {
        **os.environ,
        "DATA_DIR": str(tmp_path),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "BIND": f"127.0.0.1:{port}",
        "WEB_WORKERS": "2",
        "PROMETHEUS_MULTIPROC_DIR": str(multiproc),
    }
    gunicorn = Path(sys.executable).with_name("gunicorn")
    process = subprocess.Popen(
        [str(gunicorn), "-c", "gunicorn.conf.py", "config.wsgi:application"],
        env=env,
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                # Another route than the one counted: a probe that timed out here may still be
                # answered (and counted) after the first reading.
                urllib.request.urlopen(f"{base}/health/ready/", timeout=2).read()
                break
            except urllib.error.HTTPError:
                break  # answering (not ready: this database is not migrated) is up
            except OSError:
                assert time.monotonic() < deadline and process.poll() is None, "the server did not start"
                time.sleep(0.2)

        def live(_):
            return urllib.request.urlopen(f"{base}/health/", timeout=10).status

        key = (("method", "GET"), ("route", "health/"), ("status", "2xx"))
        before = samples(
            urllib.request.urlopen(f"{base}/metrics/", timeout=10).read().decode(),
            "netinventory_http_requests_total",
        )
        with ThreadPoolExecutor(8) as pool:
            assert set(pool.map(live, range(60))) == {200}
        text = urllib.request.urlopen(f"{base}/metrics/", timeout=10).read().decode()
    finally:
        process.terminate()
        process.wait(timeout=30)
    counts = samples(text, "netinventory_http_requests_total")
    assert counts[key] - before.get(key, 0) == 60  # whichever worker answered each
    writers = {path.stem.rsplit("_", 1)[1] for path in multiproc.glob("counter_*.db")}
    assert len(writers) >= 2


def test_progress_lines_in_a_log():
    import io

    from config.monitoring.progress import Progress

    stream = io.StringIO()
    with Progress("rows", 4, stream=stream, interval=0) as progress:
        for _ in range(4):
            progress.advance()
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("  rows: 1/4 (25%)") and "left" in lines[0]
    assert lines[-1].startswith("  rows: 4/4 (100%)") and len(lines) == 5


def test_demo_seeding_shows_progress(db):
    import io

    from django.core.management import call_command

    from inventory.dcim.models import Device, Interface
    from inventory.extras.models import ConfigContext
    from inventory.ipam.models import IPAddressToInterface
    from inventory.virtualization.models import VirtualMachine

    out, err = io.StringIO(), io.StringIO()
    call_command("demo", url="http://127.0.0.1:9", stdout=out, stderr=err)
    assert "demo network (steps): 4/4 (100%)" in err.getvalue()
    assert "Token:" in out.getvalue()  # the summary stays on standard output
    # A network to look at: two sites' switches, cabled, a circuit between them, addresses on
    # interfaces, virtual machines, a custom field and a config context.
    assert Device.objects.count() == 4 and VirtualMachine.objects.count() == 2
    wan = Interface.objects.get(device__name="ams1-leaf1", name="Ethernet8")
    assert wan._path.destination_id == Interface.objects.get(device__name="fra1-leaf1", name="Ethernet8").pk
    assert IPAddressToInterface.objects.count() == 4 and ConfigContext.objects.count() == 1
    assert Device.objects.get(name="fra1-leaf2")._custom_field_data == {"support_contact": "noc@example.com"}
    call_command("demo", url="http://127.0.0.1:9", stdout=io.StringIO(), stderr=io.StringIO())
    assert Device.objects.count() == 4  # started again: nothing written twice
