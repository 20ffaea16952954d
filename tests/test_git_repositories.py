"""Git repositories through the HTTP stack: a real bare repository made in a temporary folder
(committed to with the `git` command), synced through `extras/git-repositories/<id>/sync/` as a
job run eagerly, and what its files provide (config contexts, schemas, export templates, saved
queries) loaded, refreshed and removed as the repository changes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from inventory.dcim.models import Device
from inventory.extras.models import (
    ConfigContext,
    ConfigContextSchema,
    ExportTemplate,
    GitRepository,
    GraphQLQuery,
    Secret,
    SecretsGroup,
    SecretsGroupAssociation,
    Tag,
)
from inventory.extras.models.datasources import NO_JOB_REMOTE
from inventory.jobs.models import Job, JobLogEntry, JobResult

from .conftest import send

REPOS = "/api/extras/git-repositories/"
AUTHOR = ["-c", "user.name=Network Team", "-c", "user.email=netops@example.com"]


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *AUTHOR, *args], cwd=cwd, check=True, capture_output=True, text=True)
    return done.stdout.strip()


class Origin:
    """A bare repository (the remote) and a working copy that commits and pushes to it."""

    def __init__(self, root: Path):
        self.bare, self.work = root / "origin.git", root / "work"
        self.bare.mkdir()
        git(self.bare, "init", "--quiet", "--bare", "--initial-branch=main")
        git(root, "clone", "--quiet", str(self.bare), str(self.work))
        git(self.work, "checkout", "--quiet", "-b", "main")

    @property
    def url(self) -> str:
        return self.bare.as_uri()

    def commit(self, files: dict[str, str | None], links: dict[str, str] | None = None) -> str:
        """Write (None: remove) the files and links, commit and push; the new commit's hash."""
        for name, text in files.items():
            path = self.work / name
            if text is None:
                git(self.work, "rm", "--quiet", "-r", name)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            git(self.work, "add", name)
        for name, target in (links or {}).items():
            path = self.work / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.symlink_to(target)
            git(self.work, "add", name)
        git(self.work, "commit", "--quiet", "-m", "update")
        git(self.work, "push", "--quiet", "origin", "main")
        return git(self.work, "rev-parse", "HEAD")


def forged_commit(origin: Origin, directory: str, name: str, content: bytes) -> None:
    """A commit whose tree has an entry `git add` would never make (`..`), pushed as is."""
    import binascii

    def store(kind: str, data: bytes) -> str:
        done = subprocess.run(
            ["git", "hash-object", "-t", kind, "-w", "--literally", "--stdin"],
            cwd=origin.bare,
            input=data,
            capture_output=True,
            check=True,
        )
        return done.stdout.decode().strip()

    blob = store("blob", content)
    inner = store("tree", f"100644 {name}\0".encode() + binascii.unhexlify(blob))
    top = store("tree", f"40000 {directory}\0".encode() + binascii.unhexlify(inner))
    commit = git(origin.bare, "commit-tree", top, "-m", "forged")
    git(origin.bare, "update-ref", "refs/heads/main", commit)


@pytest.fixture
def eager():
    from config.celery import app as celery_app

    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = False


@pytest.fixture
def origin(tmp_path, settings, eager) -> Origin:
    settings.GIT_ROOT = tmp_path / "clones"
    settings.GIT_REMOTE_SCHEMES = ["http", "https", "ssh", "file"]
    return Origin(tmp_path)


def create(api, **fields) -> dict:
    status, body = send(api, "post", REPOS, fields)
    assert status == 201, body
    return body


def sync(api, repository: dict) -> tuple[JobResult, list[tuple[str, str]]]:
    status, body = send(api, "post", f"{REPOS}{repository['id']}/sync/")
    assert status == 200, body
    assert body["message"] == f"Repository {repository['name']} sync job added to queue."
    result = JobResult.objects.get(pk=body["job_result"]["id"])
    logs = list(result.job_log_entries.order_by("created").values_list("log_level", "message"))
    return result, logs


def device_and_role():
    device = (
        Device.objects.filter(role__isnull=False, name__isnull=False)
        .select_related("role")
        .order_by("name")
        .first()
    )
    return device, device.role


def context_of(api, device) -> dict:
    return api.json(f"/api/dcim/devices/{device.pk}/", {"include": "config_context"})["config_context"]


def contents(device, role) -> dict[str, str]:
    return {
        "config_contexts/ntp.yaml": (
            "_metadata:\n  name: ntp servers\n  weight: 100\n  description: time\n"
            f"  roles:\n    - name: {role.name}\n"
            "ntp:\n  - 10.0.0.1\n  - 10.0.0.2\n"
        ),
        "config_contexts/syslog.json": json.dumps(
            [{"_metadata": {"name": "syslog", "weight": 200}, "git_syslog": "10.9.9.9"}]
        ),
        f"config_contexts/roles/{role.name}.json": json.dumps(
            {"_metadata": {"name": "snmp"}, "snmp": {"community": "netops"}}
        ),
        f"config_contexts/devices/{device.name}.yaml": "rack_position: top\n",
        "config_context_schemas/ntp.yaml": (
            "_metadata:\n  name: ntp schema\n  description: servers\n"
            "data_schema:\n  type: object\n  properties:\n    ntp:\n      type: array\n"
        ),
        "export_templates/dcim/device/inventory.csv": (
            "name\n{% for device in queryset %}{{ device.name }}\n{% endfor %}"
        ),
        "graphql_queries/device_names.gql": "{ devices { name } }\n",
    }


ALL = ["extras.configcontext", "extras.configcontextschema", "extras.exporttemplate", "extras.graphqlquery"]


def test_create_update_and_validation(api, origin, settings):
    """Fields, defaults and messages as the reference's: a slug derived as an identifier and
    kept, `provided_contents` as a sorted multiple choice, `current_head` set by syncs alone."""
    body = create(
        api,
        name="Site configs",
        remote_url="https://git.example.com/netops/site-configs.git",
        provided_contents=["extras.exporttemplate", "extras.configcontext", "extras.configcontext"],
        current_head="0" * 40,
    )
    assert body["slug"] == "site_configs" and body["branch"] == "main" and body["current_head"] == ""
    assert body["provided_contents"] == ["extras.configcontext", "extras.exporttemplate"]
    assert body["object_type"] == "extras.gitrepository" and body["secrets_group"] is None
    assert body["display"] == "Site configs" and body["natural_slug"]
    path = f"{REPOS}{body['id']}/"
    status, patched = send(api, "patch", path, {"branch": "release-1", "current_head": "abc"})
    assert status == 200 and patched["branch"] == "release-1" and patched["current_head"] == "", patched
    for change, field, message in (
        ({"branch": "-delete"}, "branch", "Invalid branch '-delete': must not start with '-'"),
        ({"branch": "a b"}, "branch", "Invalid branch 'a b': must not contain whitespace"),
        (
            {"provided_contents": ["extras.nothing"]},
            "provided_contents",
            '"extras.nothing" is not a valid choice.',
        ),
        (
            {"provided_contents": "extras.job"},
            "provided_contents",
            'Expected a list of items but got type "str".',
        ),
        ({"remote_url": "not a url"}, "remote_url", "Enter a valid URL."),
    ):
        status, error = send(api, "patch", path, change)
        assert (status, error) == (400, {field: [message]}), change
    status, error = send(api, "patch", path, {"slug": "other"})
    assert status == 400 and error == {
        "__all__": ["Slug cannot be changed once set. Current slug is site_configs, requested slug is other"]
    }
    status, error = send(api, "post", REPOS, {"name": "x", "slug": "import", "remote_url": "https://h/x.git"})
    assert status == 400 and error == {
        "slug": ["Please choose a different slug; 'import' is a reserved keyword"]
    }
    # Two repositories on one remote may not provide the same kind of content.
    status, error = send(
        api,
        "post",
        REPOS,
        {
            "name": "second copy",
            "remote_url": body["remote_url"],
            "provided_contents": ["extras.configcontext"],
        },
    )
    assert status == 400 and error == {
        "__all__": [
            f"Another Git repository already configured for remote URL {body['remote_url']} "
            "provides contents overlapping with this repository."
        ]
    }
    settings.GIT_JOB_REPOSITORIES = [body["remote_url"]]
    create(api, name="jobs only", remote_url=body["remote_url"], provided_contents=["extras.job"])
    found = api.json(REPOS, {"provided_contents": "extras.job"})["results"]
    assert [r["name"] for r in found] == ["jobs only"]
    assert api.json(REPOS, {"q": "netops/site-configs"})["count"] == 2
    options = api.client.options(REPOS).json()["actions"]["POST"]
    assert options["provided_contents"]["type"] == "multiple choice"
    assert [c["value"] for c in options["provided_contents"]["choices"]] == [
        "extras.configcontext",
        "extras.configcontextschema",
        "extras.exporttemplate",
        "extras.graphqlquery",
        "extras.job",
    ]
    assert options["current_head"]["read_only"] is True


def test_remote_schemes_are_those_the_server_allows(api, origin, settings):
    """`file:` remotes are refused unless the operator lists the scheme; a repository whose
    scheme is no longer allowed fails its sync in the job's log (the request still answers 200)."""
    settings.GIT_REMOTE_SCHEMES = ["https", "ssh"]
    for url in (origin.url, "http://git.example.com/x.git", "ext::sh -c touch% /tmp/pwned", "git://h/x.git"):
        status, error = send(api, "post", REPOS, {"name": "local", "remote_url": url})
        assert status == 400 and list(error) == ["remote_url"], (url, error)
    assert (
        "not allowed" in send(api, "post", REPOS, {"name": "l", "remote_url": origin.url})[1]["remote_url"][0]
    )
    assert send(api, "post", REPOS, {"name": "ok", "remote_url": "ssh://git@git.example.com/x.git"})[0] == 201
    settings.GIT_REMOTE_SCHEMES = ["https", "file"]
    repository = create(api, name="local", remote_url=origin.url)
    settings.GIT_REMOTE_SCHEMES = ["https"]
    result, logs = sync(api, repository)
    assert result.status == "FAILURE"
    assert ("error", "URL scheme 'file' is not allowed for Git repositories; allowed: https.") in logs


def test_sync_loads_contents_applied_to_a_device(api, origin):
    device, role = device_and_role()
    head = origin.commit(contents(device, role))
    repository = create(api, name="configs", remote_url=origin.url, provided_contents=ALL)
    result, logs = sync(api, repository)
    assert result.status == "SUCCESS", [m for m in logs if m[0] != "info"]
    assert ("info", "Successfully created config context") in logs
    assert api.json(f"{REPOS}{repository['id']}/")["current_head"] == head
    owned = ConfigContext.objects.filter(owner_object_id=repository["id"])
    assert sorted(owned.values_list("name", flat=True)) == ["ntp servers", "snmp", "syslog"]
    context = context_of(api, device)
    assert context["ntp"] == ["10.0.0.1", "10.0.0.2"] and context["git_syslog"] == "10.9.9.9"
    assert context["snmp"] == {"community": "netops"} and context["rack_position"] == "top"
    # What the repository provides shows it as its owner.
    ntp = api.json("/api/extras/config-contexts/", {"name": "ntp servers", "exclude_m2m": "false"})[
        "results"
    ][0]
    assert ntp["owner"]["id"] == repository["id"] and ntp["owner"]["object_type"] == "extras.gitrepository"
    assert (
        ntp["weight"] == 100
        and ntp["description"] == "time"
        and [r["id"] for r in ntp["roles"]] == [str(role.pk)]
    )
    schema = ConfigContextSchema.objects.get(name="ntp schema")
    assert schema.owner_object_id == GitRepository.objects.get(pk=repository["id"]).pk
    template = ExportTemplate.objects.get(name="inventory.csv")
    assert (template.mime_type, template.file_extension) == ("text/csv", "csv")
    response = api.get("/api/dcim/devices/", {"export": "inventory.csv", "name": device.name})
    assert response.status_code == 200 and response.content.decode().split() == ["name", device.name]
    assert GraphQLQuery.objects.get(name="device_names").owner_object_id is not None
    # A second sync of the same commit changes nothing.
    result, logs = sync(api, repository)
    assert result.status == "SUCCESS" and ("info", "No change to config context") in logs


def test_resync_refreshes_changed_and_removes_gone_contents(api, origin):
    device, role = device_and_role()
    files = contents(device, role)
    origin.commit(files)
    repository = create(api, name="configs", remote_url=origin.url, provided_contents=ALL)
    assert sync(api, repository)[0].status == "SUCCESS"
    origin.commit(
        {
            "config_contexts/ntp.yaml": files["config_contexts/ntp.yaml"].replace("10.0.0.2", "10.0.0.3"),
            "config_contexts/syslog.json": None,
            f"config_contexts/devices/{device.name}.yaml": None,
            "export_templates/dcim/device/inventory.csv": None,
        }
    )
    result, logs = sync(api, repository)
    assert result.status == "SUCCESS", logs
    assert ("info", "Successfully refreshed config context") in logs
    assert ("warning", "Deleted config context syslog") in logs
    context = context_of(api, device)
    assert context["ntp"] == ["10.0.0.1", "10.0.0.3"] and "git_syslog" not in context
    assert "rack_position" not in context
    assert not ExportTemplate.objects.filter(name="inventory.csv").exists()
    device.refresh_from_db()
    assert device.local_config_context_data is None
    # A kind of content no longer provided goes on the next sync.
    send(api, "patch", f"{REPOS}{repository['id']}/", {"provided_contents": ["extras.configcontext"]})
    assert sync(api, repository)[0].status == "SUCCESS"
    assert not ConfigContextSchema.objects.filter(name="ntp schema").exists()
    assert not GraphQLQuery.objects.filter(name="device_names").exists()


def test_a_bad_file_fails_the_sync_and_keeps_nothing(api, origin):
    device, role = device_and_role()
    origin.commit(
        {
            "config_contexts/good.json": json.dumps({"_metadata": {"name": "good"}, "a": 1}),
            "config_contexts/broken.yaml": "_metadata: [unclosed\n",
            "config_contexts/nameless.json": json.dumps({"_metadata": {}, "a": 1}),
            "config_contexts/bomb.yaml": "_metadata: {name: bomb}\na: &a [1, 1]\nb: [*a, *a]\n",
        }
    )
    repository = create(api, name="configs", remote_url=origin.url, provided_contents=ALL)
    result, logs = sync(api, repository)
    assert result.status == "FAILURE"
    errors = [message for level, message in logs if level == "error"]
    assert any(m.startswith("Error in loading config context data from `broken.yaml`") for m in errors)
    assert (
        "Error in loading config context data from `nameless.json`: data `_metadata` is missing the required `name` key."
        in errors
    )
    assert any("`bomb.yaml`" in m and "aliases are not allowed" in m for m in errors)
    assert "Changes to database records have been reverted." in errors
    assert not ConfigContext.objects.filter(name="good").exists()
    # An unreachable remote is a failed job too, never a server error.
    status, patched = send(
        api, "patch", f"{REPOS}{repository['id']}/", {"remote_url": origin.url + "-missing"}
    )
    assert status == 200, patched
    result, logs = sync(api, repository)
    assert result.status == "FAILURE" and any("git fetch failed" in m for _, m in logs)


def test_links_out_of_the_repository_are_ignored(api, origin, tmp_path):
    """Path traversal through the tree: a file or directory that is a symbolic link to somewhere
    else on the server is skipped (with a warning), never read."""
    secret = tmp_path / "server-secret.json"
    secret.write_text(json.dumps({"_metadata": {"name": "leaked"}, "password": "hunter2"}))
    outside = tmp_path / "templates"
    outside.mkdir()
    (outside / "passwd").write_text("root:x:0:0")
    origin.commit(
        {"config_contexts/fine.json": json.dumps({"_metadata": {"name": "fine"}, "a": 1})},
        links={
            "config_contexts/leak.json": str(secret),
            "config_contexts/relative.json": "../../server-secret.json",
            "export_templates/dcim/device": str(outside),
        },
    )
    repository = create(api, name="configs", remote_url=origin.url, provided_contents=ALL)
    result, logs = sync(api, repository)
    assert result.status == "SUCCESS", logs
    assert (
        "warning",
        "`config_contexts/leak.json` is a symbolic link or submodule in the repository; ignored",
    ) in logs
    assert ConfigContext.objects.filter(name="fine").exists()
    assert not ConfigContext.objects.filter(name="leaked").exists()
    assert not ExportTemplate.objects.filter(name="passwd").exists()
    assert "hunter2" not in json.dumps(list(ConfigContext.objects.values_list("data", flat=True)))


def test_a_tree_naming_dot_dot_is_refused_whole(api, origin, tmp_path):
    """A forged tree entry `..` (a path out of the clone) is refused as the objects arrive:
    the sync fails in its log, nothing is checked out or written."""
    forged_commit(origin, "config_contexts", "..", json.dumps({"_metadata": {"name": "evil"}}).encode())
    repository = create(api, name="forged", remote_url=origin.url, provided_contents=ALL)
    result, logs = sync(api, repository)
    assert result.status == "FAILURE"
    assert any("git fetch failed" in m and "hasDotdot" in m for level, m in logs if level == "error"), logs
    assert not ConfigContext.objects.filter(name="evil").exists()
    clone = GitRepository.objects.get(pk=repository["id"]).filesystem_path
    assert not (clone / "config_contexts").exists() and not (clone.parent / "evil").exists()


def test_a_repository_past_the_size_limit_is_given_up(api, origin, settings):
    origin.commit({"config_contexts/big.json": json.dumps({"_metadata": {"name": "big"}, "x": "y" * 50000})})
    settings.GIT_MAX_SIZE = 20000
    repository = create(api, name="big", remote_url=origin.url, provided_contents=ALL)
    result, logs = sync(api, repository)
    assert result.status == "FAILURE"
    assert ("error", "the repository is larger than 20000 bytes (GIT_MAX_SIZE)") in logs
    assert not ConfigContext.objects.filter(name="big").exists()


def token_secrets_group(settings, monkeypatch, token: str) -> SecretsGroup:
    """A secrets group whose HTTP(S) token is `token`, read from a variable the operator allows."""
    settings.SECRET_ENVIRONMENT_VARIABLES = ["GIT_SYNC_TOKEN"]
    monkeypatch.setenv("GIT_SYNC_TOKEN", token)
    secret = Secret.objects.create(
        name="git token", provider="environment-variable", parameters={"variable": "GIT_SYNC_TOKEN"}
    )
    group = SecretsGroup.objects.create(name="git access")
    SecretsGroupAssociation.objects.create(
        secrets_group=group, secret=secret, access_type="HTTP(S)", secret_type="token"
    )
    return group


def test_credentials_stay_out_of_logs_and_clone(api, origin, monkeypatch, settings):
    token = "tok-9f8e7d6c5b4a"
    group = token_secrets_group(settings, monkeypatch, token)
    origin.commit({"config_contexts/a.json": json.dumps({"_metadata": {"name": "a"}, "a": 1})})
    repository = create(
        api, name="private", remote_url=origin.url, secrets_group=str(group.pk), provided_contents=ALL
    )
    result, _ = sync(api, repository)
    assert result.status == "SUCCESS"
    send(api, "patch", f"{REPOS}{repository['id']}/", {"remote_url": origin.url + "-missing"})
    result, logs = sync(api, repository)
    assert result.status == "FAILURE"
    recorded = json.dumps([logs, result.result, result.traceback])
    assert token not in recorded
    clone = GitRepository.objects.get(pk=repository["id"]).filesystem_path
    assert token not in (clone / ".git" / "config").read_text()


def test_sync_permissions(api, origin, superuser):
    from .test_permissions import account, grant

    origin.commit({"config_contexts/a.json": json.dumps({"_metadata": {"name": "a"}, "a": 1})})
    repository = create(api, name="configs", remote_url=origin.url, provided_contents=ALL)
    user, client = account()
    grant(user, ["extras.gitrepository"], ["view"])
    status, body = send(client, "post", f"{REPOS}{repository['id']}/sync/")
    assert (status, body) == (
        403,
        {"detail": "This user does not have permission to make changes to Git repositories."},
    )
    status, _ = send(api, "post", f"{REPOS}00000000-0000-4000-8000-000000000000/sync/")
    assert status == 404
    # May sync, but not write config contexts: the job fails saying why, nothing is kept.
    grant(user, ["extras.gitrepository"], ["view", "change"])
    status, body = send(client, "post", f"{REPOS}{repository['id']}/sync/")
    assert status == 200, body
    result = JobResult.objects.get(pk=body["job_result"]["id"])
    assert result.status == "FAILURE" and result.user == user
    messages = list(JobLogEntry.objects.filter(job_result=result).values_list("message", flat=True))
    assert any("may not add this config context" in m for m in messages), messages
    assert not ConfigContext.objects.filter(name="a").exists()


def test_deleting_a_repository_removes_what_it_provided_and_its_clone(
    api, origin, django_capture_on_commit_callbacks
):
    device, role = device_and_role()
    origin.commit(contents(device, role))
    repository = create(api, name="configs", remote_url=origin.url, provided_contents=ALL)
    assert sync(api, repository)[0].status == "SUCCESS"
    clone = GitRepository.objects.get(pk=repository["id"]).filesystem_path
    assert (clone / "config_contexts" / "ntp.yaml").is_file()
    with django_capture_on_commit_callbacks(execute=True):
        status, _ = send(api, "delete", f"{REPOS}{repository['id']}/")
    assert status == 204
    for model in (ConfigContext, ConfigContextSchema, ExportTemplate, GraphQLQuery):
        assert not model.objects.filter(owner_object_id=repository["id"]).exists(), model
    device.refresh_from_db()
    assert device.local_config_context_data is None
    assert not clone.exists()


def test_graphql_csv_and_change_log(api, origin):
    repository = create(
        api, name="configs", remote_url=origin.url, provided_contents=["extras.configcontext"]
    )
    status, body = send(
        api, "post", "/api/graphql/", {"query": "{ git_repositories { name slug remote_url } }"}
    )
    assert (
        status == 200
        and {"name": "configs", "slug": "configs", "remote_url": origin.url}
        in body["data"]["git_repositories"]
    )
    text = api.get(REPOS, HTTP_ACCEPT="text/csv").content.decode()
    assert text.splitlines()[0].startswith("name,display,id,") and "configs" in text
    changes = api.json("/api/extras/object-changes/", {"changed_object_id": repository["id"]})["results"]
    assert [c["action"]["value"] for c in changes] == ["create"]
    job = api.json("/api/extras/jobs/", {"name": "Git Repository: Sync"})["results"][0]
    assert (job["grouping"], job["job_class_name"], job["enabled"]) == (
        "System Jobs",
        "GitRepositorySync",
        True,
    )


# -- jobs a repository provides --------------------------------------------------------------

JOBS_CODE = '''
from inventory.extras.models import Tag
from inventory.jobs.base import IntegerVar, Job, StringVar

from ..helpers import shout
from . import more

name = "Repository jobs"


class Hello(Job):
    """Greets from the repository."""

    who = StringVar(max_length=10)
    times = IntegerVar(min_value=1, default=1)

    class Meta:
        has_sensitive_variables = False

    def run(self, who, times):
        self.logger.info("hello %s", who)
        return {"greeting": " ".join([shout(who)] * times), "module": __name__}


class Tagger(Job):
    """Saves a tag through the ORM: held to the running user's permissions."""

    class Meta:
        has_sensitive_variables = False

    def run(self):
        Tag.objects.create(name="from a repository job")
'''
MORE_CODE = """
from inventory.jobs.base import Job


class Other(Job):
    class Meta:
        has_sensitive_variables = False

    def run(self):
        return "other"
"""


def job_rows(slug: str) -> dict[str, Job]:
    return {j.job_class_name: j for j in Job.objects.filter(module_name__startswith=f"{slug}.")}


def run_job(client, job, data=None) -> tuple[int, dict]:
    return send(client, "post", f"/api/extras/jobs/{job.pk}/run/", {"data": data or {}})


def test_jobs_of_an_allowed_repository_are_installed_disabled_and_run(api, origin, settings, superuser):
    from inventory.jobs.gitcode import unload

    from .test_permissions import account, grant

    settings.GIT_JOB_REPOSITORIES = [origin.url]
    origin.commit({"jobs/__init__.py": JOBS_CODE, "jobs/more.py": MORE_CODE, "helpers.py": SHOUT_CODE})
    repository = create(api, name="net jobs", remote_url=origin.url, provided_contents=["extras.job"])
    result, logs = sync(api, repository)
    assert result.status == "SUCCESS", logs
    assert ("info", "Created Job record for net_jobs.jobs.Hello") in logs
    rows = job_rows("net_jobs")
    assert set(rows) == {"Hello", "Tagger", "Other"}
    hello = rows["Hello"]
    assert (hello.module_name, rows["Other"].module_name) == ("net_jobs.jobs", "net_jobs.jobs.more")
    assert hello.installed and not hello.enabled and hello.grouping == "Repository jobs"
    assert hello.description == "Greets from the repository."
    status, body = run_job(api, hello, {"who": "net"})
    assert (status, body) == (403, {"detail": "This job is not enabled to be run."})
    # The web process describes and checks a run from what the sync stored: it imports nothing.
    unload("net_jobs")
    form = api.json(f"/api/extras/jobs/{hello.pk}/variables/")
    assert [(v["name"], v["type"], v["required"]) for v in form] == [
        ("who", "StringVar", True),
        ("times", "IntegerVar", False),
    ]
    assert send(api, "patch", f"/api/extras/jobs/{hello.pk}/", {"enabled": True})[0] == 200
    status, body = run_job(api, hello, {"who": "a name too long", "times": 0})
    assert status == 400 and set(body["errors"]) == {"who", "times"}, body
    assert not any(name == "net_jobs" or name.startswith("net_jobs.") for name in sys.modules)
    # The worker imports it (eagerly here) from the synced commit and runs it as any job.
    status, body = run_job(api, hello, {"who": "net", "times": 2})
    assert status == 201, body
    ran = JobResult.objects.get(pk=body["job_result"]["id"])
    assert ran.status == "SUCCESS", ran.traceback
    assert ran.result == {"greeting": "NET! NET!", "module": "net_jobs.jobs"}
    assert ran.job_log_entries.filter(message="hello net").exists()
    # Its ORM writes are held to the running user's permissions, as every job's.
    tagger = rows["Tagger"]
    Job.objects.filter(pk=tagger.pk).update(enabled=True)
    user, client = account()
    grant(user, ["extras.job"], ["view", "run"])
    status, body = run_job(client, tagger)
    assert status == 201, body
    refused = JobResult.objects.get(pk=body["job_result"]["id"])
    assert refused.status == "FAILURE" and "may not add this tag" in str(refused.result), refused.result
    assert not Tag.objects.filter(name="from a repository job").exists()
    # A commit without the class: its job is no longer installed; the others stay as they were.
    origin.commit({"jobs/__init__.py": "from . import more\n"})
    result, logs = sync(api, repository)
    assert result.status == "SUCCESS", logs
    rows = job_rows("net_jobs")
    assert not rows["Hello"].installed and not rows["Tagger"].installed and rows["Other"].installed
    assert ("warning", "Marking Job record as no longer installed") in logs
    assert run_job(api, rows["Hello"], {"who": "net"})[0] == 405
    assert ran.job_log_entries.exists()  # its results stay
    # A deleted repository's jobs are no longer installed.
    assert send(api, "delete", f"{REPOS}{repository['id']}/")[0] == 204
    assert not Job.objects.filter(module_name__startswith="net_jobs.", installed=True).exists()


SHOUT_CODE = "def shout(text):\n    return text.upper() + '!'\n"


def test_jobs_only_from_remotes_the_operator_lists(api, origin, settings):
    """`extras.job` from another remote is refused (400 under `provided_contents`); a repository
    allowed before the list changed imports nothing on its next sync, and its jobs do not run."""
    message = {"provided_contents": [NO_JOB_REMOTE]}
    settings.GIT_JOB_REPOSITORIES = []
    fields = {"name": "jobs", "remote_url": origin.url, "provided_contents": ["extras.job"]}
    assert send(api, "post", REPOS, fields) == (400, message)
    plain = create(api, name="plain", remote_url=origin.url)
    assert send(api, "patch", f"{REPOS}{plain['id']}/", {"provided_contents": ["extras.job"]}) == (
        400,
        message,
    )
    settings.GIT_JOB_REPOSITORIES = ["https://git.example.com/netops/", "ssh://git@h/jobs.git"]
    for url, allowed in (
        ("https://git.example.com/netops/jobs.git", True),
        ("https://git.example.com/netops/team/jobs.git", True),
        ("ssh://git@h/jobs.git", True),
        ("https://git.example.com/netops", False),
        ("https://git.example.com/netopsevil/jobs.git", False),
        ("https://git.example.com/netops/../evil/jobs.git", False),
        ("https://git.example.com/netops/%2e%2e/evil/jobs.git", False),
        ("https://git.example.com/netops/jobs.git?x=1", False),
        ("ssh://git@h/jobs.git/../other.git", False),
    ):
        status, body = send(api, "post", REPOS, {**fields, "name": url, "remote_url": url})
        assert (status == 201) is allowed, (url, body)
        assert allowed or body["provided_contents"] == message["provided_contents"], (url, body)
    # Allowed, synced, then no longer listed: the sync imports nothing and fails, saying why.
    settings.GIT_JOB_REPOSITORIES = [origin.url]
    origin.commit({"jobs/__init__.py": JOBS_CODE, "jobs/more.py": MORE_CODE, "helpers.py": SHOUT_CODE})
    repository = create(api, **fields)
    assert sync(api, repository)[0].status == "SUCCESS"
    hello = job_rows("jobs")["Hello"]
    Job.objects.filter(pk=hello.pk).update(enabled=True)
    origin.commit({"jobs/__init__.py": "raise RuntimeError('imported')\n"})
    settings.GIT_JOB_REPOSITORIES = []
    result, logs = sync(api, repository)
    assert result.status == "FAILURE"
    assert ("error", f"Jobs were not loaded. {NO_JOB_REMOTE}") in logs
    assert not any("imported" in m for _, m in logs), logs
    assert run_job(api, hello, {"who": "net"}) == (
        405,
        {"detail": "This job is not presently installed and cannot be run"},
    )


def test_a_job_module_that_fails_to_import_fails_the_sync(api, origin, settings):
    settings.GIT_JOB_REPOSITORIES = [origin.url]
    origin.commit(
        {
            "config_contexts/a.json": json.dumps({"_metadata": {"name": "beside jobs"}, "a": 1}),
            "jobs/__init__.py": JOBS_CODE.replace("from . import more", "from . import more, broken"),
            "jobs/more.py": MORE_CODE,
            "jobs/broken.py": "import os\n\nraise ValueError('boom at import')\n",
            "helpers.py": SHOUT_CODE,
        }
    )
    repository = create(
        api, name="broken", remote_url=origin.url, provided_contents=["extras.configcontext", "extras.job"]
    )
    result, logs = sync(api, repository)
    assert result.status == "FAILURE"
    assert (
        "error",
        "Error in loading jobs from `jobs/broken.py`: ValueError: boom at import",
    ) in logs, logs
    assert not job_rows("broken") and not ConfigContext.objects.filter(name="beside jobs").exists()
    assert not any(name == "broken" or name.startswith("broken.") for name in sys.modules)
    origin.commit({"jobs/broken.py": "def (:\n"})
    result, logs = sync(api, repository)
    assert result.status == "FAILURE" and not job_rows("broken")
    assert any(
        level == "error" and m.startswith("Error in loading jobs from `jobs/broken.py`: SyntaxError")
        for level, m in logs
    ), logs


def test_links_in_jobs_are_not_followed(api, origin, settings, tmp_path):
    """A job module or package that is a symbolic link (to a file outside the clone or inside it)
    is not imported: the module is not found."""
    settings.GIT_JOB_REPOSITORIES = [origin.url]
    outside = tmp_path / "outside"
    (outside / "package").mkdir(parents=True)
    leaked = "from inventory.jobs.base import Job\n\nclass Leaked(Job):\n    pass\n"
    (outside / "leak.py").write_text(leaked)
    (outside / "package" / "__init__.py").write_text(leaked)
    probe = (
        "from inventory.jobs.base import Job\n"
        "missing = []\n"
        "for name in ('leak', 'relative', 'package', 'inside'):\n"
        "    try:\n"
        "        __import__(f'{__name__}.{name}')\n"
        "    except ImportError:\n"
        "        missing.append(name)\n"
        "\n"
        "class Probe(Job):\n"
        "    pass\n"
    )
    origin.commit(
        {"jobs/__init__.py": probe, "real.py": leaked},
        links={
            "jobs/leak.py": str(outside / "leak.py"),
            "jobs/relative.py": "../../../outside/leak.py",
            "jobs/package": str(outside / "package"),
            "jobs/inside.py": "../real.py",
        },
    )
    repository = create(api, name="linked", remote_url=origin.url, provided_contents=["extras.job"])
    result, logs = sync(api, repository)
    assert result.status == "SUCCESS", logs
    assert set(job_rows("linked")) == {"Probe"}
    assert sys.modules["linked.jobs"].missing == ["leak", "relative", "package", "inside"]
