"""Production hardening: the security headers of every answer (framing, sniffing, the pages'
Content-Security-Policy), the redirect to HTTPS, Django's deployment check under the production
settings, and servers that refuse to start without a SECRET_KEY."""

import os
import re
import subprocess
import sys
from pathlib import Path

from django.test import Client, override_settings

from inventory.users.models import Token

ROOT = Path(__file__).resolve().parent.parent
# What the reference sends on every answer, API answers included.
REFERENCE_HEADERS = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
}
PAGES = [
    "/login/",
    "/",
    "/user/api-tokens/",
    "/dcim/devices/",
    "/dcim/devices/add/",
    "/search/?q=edge",
    "/admin/",
    "/admin/users/user/add/",
    "/api/docs/",
    "/api/graphql/",
]
# Markup a strict policy would refuse to run: inline scripts, event handler attributes, inline
# styles. A page carrying any of them would break under its own policy.
INLINE = re.compile(rb"<script(?![^>]*\ssrc=)[^>]*>|<style|\sstyle=|\son[a-z]+=", re.I)


def policy(response) -> dict[str, str]:
    text = response["Content-Security-Policy"]
    return dict((part.strip().split(" ", 1) + [""])[:2] for part in text.split(";") if part.strip())


def assert_not_frameable(response):
    for name, value in REFERENCE_HEADERS.items():
        assert response.get(name) == value, (response.request["PATH_INFO"], name, response.get(name))
    assert policy(response)["frame-ancestors"] == "'none'"


def test_pages_cannot_be_framed_and_run_only_the_services_scripts(superuser):
    """A page another site frames (clickjacking) is refused by the browser, and a script injected
    into a page does not run: only files the service serves do, and no page needs more."""
    client = Client(HTTP_ACCEPT="text/html")
    for path in PAGES:
        if path == "/":
            client.force_login(superuser)
        response = client.get(path)
        assert response.status_code == 200, (path, response.status_code)
        assert_not_frameable(response)
        directives = policy(response)
        assert directives["default-src"] == directives["script-src"] == "'self'", path
        assert directives["style-src"] == "'self'" and directives["object-src"] == "'none'", path
        assert INLINE.search(response.content) is None, (path, INLINE.search(response.content))
    browsable = client.get("/api/status/", {"format": "api"})
    assert browsable["Content-Type"].startswith("text/html") and INLINE.search(browsable.content) is None
    assert client.get("/api/docs/assets/pages/browsable.css").status_code == 200


def test_redoc_alone_may_write_styles_into_its_page(db):
    response = Client().get("/api/redoc/")
    assert_not_frameable(response)
    directives = policy(response)
    assert directives["style-src"] == "'self' 'unsafe-inline'"  # its renderer writes <style> elements
    assert directives["script-src"] == "'self'" and INLINE.search(response.content) is None


def test_api_answers_carry_the_reference_headers(superuser):
    token = Token.objects.create(user=superuser)
    client = Client(HTTP_AUTHORIZATION=f"Token {token.key}", HTTP_ACCEPT="application/json")
    for response in (
        client.get("/api/status/"),
        client.get("/api/dcim/locations/00000000-0000-0000-0000-000000000000/"),
        client.post("/api/graphql/", {"query": "{ locations_count }"}, content_type="application/json"),
        Client().get("/health/"),
        Client().options(
            "/api/graphql/", HTTP_ORIGIN="https://evil.example.com", HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST"
        ),  # a preflight, answered before the API
    ):
        assert_not_frameable(response)


@override_settings(SECURE_SSL_REDIRECT=True, SECURE_HSTS_SECONDS=31536000)
def test_plain_http_goes_to_https_but_probes_are_answered(db):
    response = Client().get("/login/?next=/admin/")
    assert response.status_code == 301 and response["Location"] == "https://testserver/login/?next=/admin/"
    assert Client().get("/health/").status_code == 200  # load balancers probe each process directly
    assert Client().get("/metrics/").status_code == 200
    secure = Client().get("/login/", secure=True)
    assert secure.status_code == 200
    assert secure["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload"


def server_environment(tmp_path, **changes) -> dict[str, str]:
    unset = ("SECRET_KEY", "DEBUG", "DATABASE_URL", "CELERY_BROKER_URL", "CELERY_TASK_ALWAYS_EAGER")
    environment = {name: value for name, value in os.environ.items() if name not in unset}
    environment.update(DATA_DIR=str(tmp_path), DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}", **changes)
    return environment


# The production settings docs/operations.md gives: behind HTTPS, with a key and host names of its own.
PRODUCTION = {
    "SECRET_KEY": "kX9v2-production-like-key-Qm7t1Zp8rW4yL0sN6bH3jD5fG_cA9eU2iO7xV1nM",
    "ALLOWED_HOSTS": "inventory.example.net",
    "SESSION_COOKIE_SECURE": "true",
    "CSRF_COOKIE_SECURE": "true",
    "SECURE_SSL_REDIRECT": "true",
    "SECURE_HSTS_SECONDS": "31536000",
}


def test_deployment_check_is_clean_under_the_production_settings(tmp_path):
    command = [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"]
    environment = server_environment(tmp_path, **PRODUCTION)
    checked = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0, checked.stderr[-3000:]
    assert "System check identified no issues" in checked.stdout


def test_servers_refuse_to_start_without_a_secret_key(tmp_path):
    """The development key is in the source: a server started on it would accept sessions anyone
    can forge. With DEBUG off and no SECRET_KEY, the web server, runserver and a Celery worker
    stop at once and say how to set one."""
    python, bare = sys.executable, server_environment(tmp_path)
    commands = {
        "wsgi": [python, "-c", "import config.wsgi"],
        "runserver": [python, "manage.py", "runserver", "--noreload", "127.0.0.1:0"],
        "celery": [python, "-m", "celery", "-A", "config", "worker", "--loglevel", "WARNING"],
    }
    started = {
        name: subprocess.Popen(
            command, cwd=ROOT, env=bare, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for name, command in commands.items()
    }
    loading = [  # given a key, or on a development machine (DEBUG), the web application loads
        subprocess.Popen(
            [python, "-c", "import config.wsgi; print(callable(config.wsgi.application))"],
            cwd=ROOT,
            env={**bare, **changes},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for changes in ({"SECRET_KEY": PRODUCTION["SECRET_KEY"]}, {"DEBUG": "true"})
    ]
    try:
        for name, process in started.items():
            _, errors = process.communicate(timeout=120)
            assert process.returncode != 0, name
            assert "SECRET_KEY is not set" in errors and "secrets.token_urlsafe" in errors, (
                name,
                errors[-2000:],
            )
        for process in loading:
            output, errors = process.communicate(timeout=120)
            assert process.returncode == 0 and output.strip() == "True", errors[-2000:]
    finally:
        for process in (*started.values(), *loading):
            if process.poll() is None:
                process.kill()
                process.wait()
