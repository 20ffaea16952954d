"""Where a Git sync connects and whose credentials it sends, against real servers on loopback
addresses: a remote is fetched only from addresses the network settings allow, git held to the
addresses checked (no lookup of its own, no redirect), and a secrets group's token is read only
for a user who may view the group and its secrets."""

from __future__ import annotations

import base64
import itertools
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from inventory.extras import gitcli
from inventory.extras.models import GitRepository, Secret, SecretsGroup
from inventory.jobs.gitcode import unload
from inventory.jobs.models import Job, JobResult

from .conftest import send
from .test_git_repositories import (  # noqa: F401 (fixtures)
    JOBS_CODE,
    MORE_CODE,
    REPOS,
    SHOUT_CODE,
    create,
    eager,
    git,
    origin,
    run_job,
    sync,
    token_secrets_group,
)
from .test_permissions import account, grant

TOKEN = "tok-loopback-5e4d3c2b1a"
BASIC = "Basic " + base64.b64encode(f"{TOKEN}:".encode()).decode()
PINNED = "git.pinned.test"  # a name only the server's own lookup knows (see `pinned_name`)
_numbers = itertools.count()


class Listener(ThreadingHTTPServer):
    """A real server on a loopback address and an ephemeral port: counts the connections it
    accepts and records each request's path and headers. It serves the files of its directory
    (a bare repository there is fetched with Git's dumb HTTP protocol), or answers every request
    with a redirect to `redirect`."""

    daemon_threads = True

    def __init__(self, host: str, directory: Path):
        super().__init__((host, 0), partial(Files, directory=str(directory)))
        self.connections = 0
        self.requests: list[dict] = []
        self.redirect: str | None = None

    def get_request(self):
        accepted = super().get_request()
        self.connections += 1
        return accepted

    @property
    def port(self) -> int:
        return self.server_address[1]

    def authorizations(self) -> list[str | None]:
        return [r["headers"].get("Authorization") for r in self.requests]


class Files(SimpleHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (the standard library's name)
        server: Listener = self.server
        server.requests.append({"path": self.path, "headers": dict(self.headers)})
        if server.redirect:
            self.send_response(302)
            self.send_header("Location", server.redirect)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        super().do_GET()

    def log_message(self, *args):
        pass


@contextmanager
def listening(host: str, directory: Path) -> Iterator[Listener]:
    server = Listener(host, directory)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def listener(origin, tmp_path) -> Iterator[Listener]:  # noqa: F811
    """Serves the origin's bare repository at `/origin.git` on 127.0.0.1."""
    origin.commit({"README": "served over http\n"})
    git(origin.bare, "update-server-info")
    with listening("127.0.0.1", tmp_path) as server:
        yield server


@pytest.fixture
def token_group(settings, monkeypatch) -> SecretsGroup:
    """A secrets group whose HTTP(S) token is TOKEN."""
    return token_secrets_group(settings, monkeypatch, TOKEN)


@pytest.fixture
def pinned_name(monkeypatch):
    """PINNED resolves to 127.0.0.1 for the server's own lookups only: git (another process) can
    reach it only at the address the server checked and gave it."""
    real = socket.getaddrinfo

    def lookup(host, *args, **kwargs):
        return real("127.0.0.1" if host == PINNED else host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", lookup)


def errors(logs) -> list[str]:
    return [message for level, message in logs if level == "error"]


def sync_of(api, url: str, group=None, **fields) -> tuple[JobResult, list, dict]:
    """A new repository on `url` (set up by the superuser), synced by `api`."""
    name = f"remote {next(_numbers)}"
    repository = create(
        api, name=name, remote_url=url, secrets_group=str(group.pk) if group else None, **fields
    )
    return *sync(api, repository), repository


def test_a_user_who_may_not_view_the_secrets_group_cannot_send_its_token(
    api, listener, token_group, settings
):
    """The attack end to end: a user who may write Git repositories, and nothing about secrets,
    names a secrets group in a repository on a host of theirs and syncs it. No token is sent
    anywhere: the address is refused, and once the operator allows the address, the group is."""
    user, client = account()
    grant(user, ["extras.gitrepository"], ["view", "add", "change"])
    group = str(token_group.pk)
    assert send(client, "get", f"/api/extras/secrets-groups/{group}/")[0] == 403
    url = f"http://127.0.0.1:{listener.port}/origin.git"
    fields = {"name": "x", "remote_url": url, "branch": "main", "secrets_group": group}
    status, repository = send(client, "post", REPOS, fields)
    if status != 201:  # a write naming an object the writer may not view is refused: set up by a superuser
        assert status == 400 and list(repository) == ["secrets_group"], repository
        repository = create(api, **fields)
    result, logs = sync(client, repository)
    assert result.status == "FAILURE" and listener.connections == 0
    settings.GIT_ALLOWED_NETWORKS = ["127.0.0.1/32"]
    result, logs = sync(client, repository)
    assert result.status == "FAILURE" and listener.connections == 0
    assert f'may not view the secrets group "{group}" of repository x' in errors(logs)[0]
    assert BASIC not in listener.authorizations() and TOKEN not in str(logs)


def test_remotes_on_loopback_are_refused_before_connecting(api, listener, token_group, settings):
    """By address, by a name that resolves to loopback, as IPv4 inside IPv6, over ssh: the sync
    fails naming the rule and the setting, and nothing connects (so nothing tells how the host
    would have answered)."""
    port = listener.port
    for url, host in (
        (f"http://127.0.0.1:{port}/origin.git", "127.0.0.1"),
        (f"http://localhost:{port}/origin.git", "localhost"),
        (f"https://[::ffff:127.0.0.1]:{port}/origin.git", "::ffff:127.0.0.1"),
        (f"ssh://git@127.0.0.1:{port}/origin.git", "127.0.0.1"),
        (f"ssh://git@localhost:{port}/origin.git", "localhost"),
    ):
        result, logs, _ = sync_of(api, url, token_group)
        assert result.status == "FAILURE"
        refusal = errors(logs)[0]
        assert refusal.startswith(f"The remote is not fetched: refused {host}: "), refusal
        assert refusal.endswith("is not a public address; allow it in GIT_ALLOWED_NETWORKS to fetch from it.")
        assert not any("git fetch" in m for m in errors(logs)), logs
    # An authority git might read otherwise than the check does (a backslash: userinfo to one
    # parser, a path to another) is refused; its userinfo is not shown.
    result, logs, _ = sync_of(api, f"http://127.0.0.1:{port}\\@example.com/origin.git", token_group)
    assert (
        errors(logs)[0]
        == "The remote http://***@example.com/origin.git does not name a host and port git can reach."
    )
    # The operator's denied networks win over the allowed ones.
    settings.GIT_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    settings.GIT_DENIED_NETWORKS = ["127.0.0.1/32"]
    result, logs, _ = sync_of(api, f"http://127.0.0.1:{port}/origin.git", token_group)
    assert result.status == "FAILURE"
    assert (
        errors(logs)[0]
        == "The remote is not fetched: refused 127.0.0.1: 127.0.0.1 is in GIT_DENIED_NETWORKS."
    )
    assert listener.connections == 0


def test_an_allowed_network_is_fetched_from_the_address_checked(
    api, listener, token_group, settings, pinned_name
):
    """With 127.0.0.1/32 allowed: fetched over HTTP with the token, from the address the server
    checked (git makes no lookup of its own: a name only the server resolves is fetched), and
    only for users who may view the group and its secret."""
    settings.GIT_ALLOWED_NETWORKS = ["127.0.0.1/32"]
    port = listener.port
    result, logs, _ = sync_of(api, f"http://localhost:{port}/origin.git", token_group)
    assert result.status == "SUCCESS", logs
    assert listener.authorizations() and set(listener.authorizations()) == {BASIC}
    result, logs, repository = sync_of(api, f"http://{PINNED}:{port}/origin.git", token_group)
    assert result.status == "SUCCESS", logs
    assert listener.requests[-1]["headers"]["Host"] == f"{PINNED}:{port}"
    # A user who may view the group and its secrets sends the token; one who may not, nothing.
    user, client = account()
    grant(user, ["extras.gitrepository"], ["view", "change"])
    seen = len(listener.requests)
    assert sync(client, repository)[0].status == "FAILURE"
    grant(user, ["extras.secretsgroup"], ["view"], constraints={"name": "another group"})
    assert sync(client, repository)[0].status == "FAILURE"
    grant(user, ["extras.secretsgroup"], ["view"])
    result, logs = sync(client, repository)
    secret = Secret.objects.get(name="git token")
    assert result.status == "FAILURE" and errors(logs)[0] == (
        f'SecretPermissionError: Secret "{secret.pk}": {user} may not view this secret'
    )
    assert len(listener.requests) == seen
    grant(user, ["extras.secret"], ["view"])
    result, logs = sync(client, repository)
    assert result.status == "SUCCESS", logs
    assert len(listener.requests) > seen and set(listener.authorizations()) == {BASIC}


def test_a_token_naming_a_setting_of_the_service_is_never_read(
    api, listener, token_group, settings, monkeypatch
):
    """A stored secret naming one of the service's own variables (written before the rule was
    there) is refused when read, even where the operator lists every variable: nothing is sent."""
    settings.GIT_ALLOWED_NETWORKS = ["127.0.0.1/32"]
    settings.SECRET_ENVIRONMENT_VARIABLES = ["*"]
    monkeypatch.setenv("TOKEN_SEALING_KEY", "the-sealing-key")
    Secret.objects.filter(name="git token").update(parameters={"variable": "TOKEN_SEALING_KEY"})
    result, logs, _ = sync_of(api, f"http://127.0.0.1:{listener.port}/origin.git", token_group)
    assert result.status == "FAILURE" and listener.connections == 0
    assert errors(logs)[0] == (
        'SecretParametersError: Secret "git token" (provider "EnvironmentVariableSecretsProvider"): '
        'Variable "TOKEN_SEALING_KEY" holds a setting of the service, never a secret'
    )


def test_redirects_and_proxies_are_not_followed(api, listener, token_group, settings, tmp_path, monkeypatch):
    """An allowed remote answering 302 to another address: the sync fails, the other address
    receives nothing (127.0.0.2 is loopback too, on Linux, but not in the allowed network). Nor
    does a proxy the server's own environment names."""
    settings.GIT_ALLOWED_NETWORKS = ["127.0.0.1/32"]
    with listening("127.0.0.2", tmp_path) as elsewhere:
        for variable in ("http_proxy", "https_proxy", "HTTPS_PROXY", "ALL_PROXY"):
            monkeypatch.setenv(variable, f"http://127.0.0.2:{elsewhere.port}")
        listener.redirect = f"http://127.0.0.2:{elsewhere.port}/origin.git"
        result, logs, _ = sync_of(api, f"http://127.0.0.1:{listener.port}/origin.git", token_group)
        assert result.status == "FAILURE"
        assert listener.requests and elsewhere.connections == 0, elsewhere.requests


def test_ssh_connects_to_the_address_checked(api, listener, settings, pinned_name):
    """ssh is held to the checked address too: a name only the server resolves is reached (the
    listener speaks HTTP, so the connection goes no further)."""
    url = f"ssh://git@{PINNED}:{listener.port}/origin.git"
    result, logs, _ = sync_of(api, url)
    assert result.status == "FAILURE" and listener.connections == 0
    assert "127.0.0.1 is not a public address" in errors(logs)[0]
    settings.GIT_ALLOWED_NETWORKS = ["127.0.0.1/32"]
    result, logs, _ = sync_of(api, url)
    assert result.status == "FAILURE" and listener.connections == 1
    assert "git fetch failed" in errors(logs)[0]


def test_a_job_run_fetches_for_its_user_under_the_network_settings(
    api,
    origin,  # noqa: F811 (the fixture)
    listener,
    token_group,
    settings,
):
    """A worker whose clone is not at the synced commit fetches it before running a repository's
    job: with the token only for a runner who may view the group, only from an allowed address."""
    settings.GIT_ALLOWED_NETWORKS = ["127.0.0.1/32"]
    url = f"http://127.0.0.1:{listener.port}/origin.git"
    settings.GIT_JOB_REPOSITORIES = [url]
    origin.commit({"jobs/__init__.py": JOBS_CODE, "jobs/more.py": MORE_CODE, "helpers.py": SHOUT_CODE})
    git(origin.bare, "update-server-info")
    result, logs, repository = sync_of(api, url, token_group, provided_contents=["extras.job"])
    assert result.status == "SUCCESS", logs
    hello = Job.objects.get(module_name=f"{repository['slug']}.jobs", job_class_name="Hello")
    Job.objects.filter(pk=hello.pk).update(enabled=True)

    def run_elsewhere(client) -> JobResult:
        """As a worker that has not synced: no clone, nothing imported."""
        unload(repository["slug"])
        gitcli.discard(GitRepository.objects.get(pk=repository["id"]).filesystem_path)
        status, body = run_job(client, hello, {"who": "net"})
        assert status == 201, body
        return JobResult.objects.get(pk=body["job_result"]["id"])

    user, client = account()
    grant(user, ["extras.job"], ["view", "run"])
    seen = listener.connections
    ran = run_elsewhere(client)
    assert ran.status == "FAILURE" and listener.connections == seen
    assert f'may not view the secrets group "{token_group.pk}"' in str(ran.result), ran.result
    settings.GIT_ALLOWED_NETWORKS = []
    ran = run_elsewhere(api)
    assert ran.status == "FAILURE" and listener.connections == seen
    assert "allow it in GIT_ALLOWED_NETWORKS to fetch from it" in str(ran.result), ran.result
    settings.GIT_ALLOWED_NETWORKS = ["127.0.0.1/32"]
    ran = run_elsewhere(api)
    assert ran.status == "SUCCESS", ran.result
    assert listener.connections > seen and set(listener.authorizations()) == {BASIC}
