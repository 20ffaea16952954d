"""Paths below an object's own that act on it (`<object url>/<name>/`), through the HTTP stack:
a device's NAPALM getter, a location's statistics, a job result's cancellation."""

import pytest

from inventory.dcim.models import Device, Platform
from inventory.ipam.models import IPAddress

from .conftest import send

DEVICES = "/api/dcim/devices/"


class TestNapalm:
    def detail(self, api, device) -> tuple[int, object]:
        return send(api, "get", f"{DEVICES}{device.pk}/napalm/?method=get_facts")

    def test_each_missing_piece_is_named_as_the_reference_names_it(self, api, sample):
        device = Device.objects.filter(primary_ip4__isnull=True, primary_ip6__isnull=True).first()
        assert self.detail(api, device) == (
            503,
            {"detail": "This device does not have a primary IP address configured."},
        )
        device.primary_ip4 = IPAddress.objects.filter(ip_version=4).first()
        Device.objects.filter(pk=device.pk).update(primary_ip4=device.primary_ip4, platform=None)
        assert self.detail(api, device) == (503, {"detail": "No platform is configured for this device."})
        platform = Platform.objects.create(name="napalm-less")
        Device.objects.filter(pk=device.pk).update(platform=platform)
        assert self.detail(api, device) == (
            503,
            {"detail": "No NAPALM driver is configured for this device's platform: napalm-less."},
        )
        Platform.objects.filter(pk=platform.pk).update(napalm_driver="eos")
        assert self.detail(api, device) == (
            503,
            {"detail": "NAPALM is not installed. Please see the documentation for instructions."},
        )

    def test_unknown_device_and_no_permission(self, api, sample, anonymous):
        status, _ = send(api, "get", f"{DEVICES}00000000-0000-4000-8000-000000000000/napalm/")
        assert status == 404
        device = Device.objects.first()
        assert send(anonymous, "get", f"{DEVICES}{device.pk}/napalm/")[0] == 403


@pytest.mark.parametrize(
    "path, methods",
    [
        ("/dcim/devices/{id}/napalm/", {"get"}),
        ("/ipam/vlan-groups/{id}/available-vlans/", {"get", "post"}),
        ("/extras/saved-views/{id}/set-default/", {"post", "delete"}),
    ],
)
def test_openapi_documents_each_path(api, sample, path, methods):
    operations = api.json("/api/swagger.json")["paths"][path]
    assert methods <= operations.keys()


def test_jobs_are_documented_and_answered_by_name(api, sample, jobs):
    doc = api.json("/api/swagger.json")
    for suffix in ("", "run/", "variables/", "notes/"):
        path = doc["paths"][f"/extras/jobs/{{name}}/{suffix}"]
        assert [p["name"] for p in path["parameters"]] == ["name"]
    job = api.json("/api/extras/jobs/", {"limit": 1})["results"][0]
    by_name = api.json(f"/api/extras/jobs/{job['name']}/")
    assert by_name["id"] == job["id"]
    assert api.json(f"/api/extras/jobs/{job['name']}/notes/")["count"] == 0


RENDER = "/api/core/render-jinja-template/"


class TestRenderTemplate:
    def test_renders_over_the_context_as_the_reference(self, api, sample):
        template = "{% for name in interfaces -%}\ninterface {{ name }}\n  duplex full\n{% endfor %}"
        context = {"interfaces": ["Ethernet1/1", "Ethernet1/2"]}
        status, body = send(api, "post", RENDER, {"template_code": template, "context": context})
        assert status == 200, body
        text = "interface Ethernet1/1\n  duplex full\ninterface Ethernet1/2\n  duplex full\n"
        assert body == {
            "rendered_template": text,
            "rendered_template_lines": text.split("\n"),
            "template_code": template,
            "context": context,
        }
        status, body = send(api, "post", RENDER, {"template_code": "plain"})
        assert status == 200 and body["rendered_template"] == "plain" and body["context"] == {}

    @pytest.mark.parametrize(
        "template",
        [
            "{{ ''.__class__.__mro__[1].__subclasses__() }}",
            "{{ x.__class__ }}",
            "{{ cycler.__init__.__globals__ }}",
            "{{ range.__self__ }}",
            "{{ namespace.__init__.__globals__['os'] }}",
            "{{ self._TemplateReference__context }}",
            "{{ lipsum.__globals__ }}",
            "{{ config }}{{ request }}{{ settings.SECRET_KEY }}",
            "{% for i in range(10**9) %}{% endfor %}",
            "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
            "{{ 'x' * 10**9 }}",
            "{{ 9 ** 9 ** 9 }}",
            "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}",
            "{% set ns = namespace(s='x') %}{% for i in range(60) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}",
            "{{ x.items() }}",
        ],
    )
    def test_attacks_are_refused_as_400(self, api, sample, template):
        status, body = send(api, "post", RENDER, {"template_code": template, "context": {"x": {"a": 1}}})
        if status == 200:  # what the sandbox lets through shows nothing of the server
            text = body["rendered_template"]
            assert "class" not in text and "function" not in text and "module" not in text, text
            assert len(text) < 100_000
        else:
            assert status == 400 and body["detail"].startswith("Failed to render Jinja template:"), body

    def test_bad_bodies_and_anonymous_users(self, api, sample, anonymous):
        assert send(api, "post", RENDER, {}) == (400, {"template_code": ["This field is required."]})
        assert send(api, "post", RENDER, {"template_code": ""})[0] == 400
        status, body = send(api, "post", RENDER, {"template_code": "x", "context": [1]})
        assert status == 400 and body == {"context": ['Expected a dictionary of items but got type "list".']}
        assert send(api, "post", RENDER, ["x"])[0] == 400
        assert send(api, "post", RENDER, {"template_code": "{% if %}"})[0] == 400
        assert send(anonymous, "post", RENDER, {"template_code": "x"})[0] == 403
        assert send(api, "get", RENDER)[0] == 405
        assert "post" in api.json("/api/swagger.json")["paths"]["/core/render-jinja-template/"]


class TestLocationStats:
    def test_counts_each_list_as_its_location_filter_does(self, api, sample):
        location = api.json("/api/dcim/locations/", {"limit": 1, "sort": "name"})["results"][0]
        body = api.json(f"/api/dcim/locations/{location['id']}/stats/")
        assert body["count"] == len(body["results"]) >= 5
        titles = [row["title"] for row in body["results"]]
        assert {"Racks", "Devices", "Prefixes", "VLANs", "Virtual machines"} <= set(titles)
        for row in body["results"]:
            assert row["api_url"].endswith(f"/?location={location['id']}")
            listed = api.json(row["api_url"].replace("http://testserver", ""))
            assert row["count"] == listed["count"], row
            assert row["ui_url"] == row["api_url"].replace("/api/", "/")
        page = api.json(f"/api/dcim/locations/{location['id']}/stats/", {"limit": 2, "offset": 1})
        assert page["results"] == body["results"][1:3] and page["next"]

    def test_unknown_location_and_permissions(self, api, sample, anonymous):
        assert send(api, "get", "/api/dcim/locations/00000000-0000-4000-8000-000000000000/stats/")[0] == 404
        location = api.json("/api/dcim/locations/", {"limit": 1})["results"][0]
        assert send(anonymous, "get", f"/api/dcim/locations/{location['id']}/stats/")[0] == 403


def test_openapi_describes_the_answers(api, sample):
    paths = api.json("/api/swagger.json")["paths"]
    stats = paths["/dcim/locations/{id}/stats/"]["get"]["responses"]["200"]["content"]["application/json"]
    items = stats["schema"]["properties"]["results"]["items"]["properties"]
    assert set(items) == {"title", "count", "ui_url", "api_url"}
    rendered = paths["/core/render-jinja-template/"]["post"]["responses"]["200"]["content"][
        "application/json"
    ]
    assert "rendered_template_lines" in rendered["schema"]["properties"]


class TestJobResultCancel:
    @pytest.fixture
    def pending(self, sample, jobs):
        from inventory.jobs.models import JobResult

        job = next(iter(jobs.values()))
        return JobResult.objects.create(name=job.name, job_model=job)

    def test_preview_then_cancel_a_pending_run(self, api, pending):
        from inventory.jobs.models import JobResult
        from inventory.jobs.tasks import run_job

        path = f"/api/extras/job-results/{pending.pk}/cancel/"
        status, preview = send(api, "get", path)
        assert status == 200 and preview["job_status"] == "NOT RUNNING"
        assert {"message", "irreversible", "timestamp"} <= preview.keys()
        status, body = send(api, "post", path)
        assert status == 200, body
        assert body["id"] == str(pending.pk) and body["status"]["value"] == "REVOKED"
        assert body["cancel_type"] and body["date_canceled"] and body["canceled_by_user_name"] == "admin"
        # Its worker, reaching it later, leaves it canceled.
        assert run_job.apply(args=[str(pending.pk), {}]).get() == "REVOKED"
        assert JobResult.objects.get(pk=pending.pk).date_started is None
        # Finished: nothing to cancel.
        status, preview = send(api, "get", path)
        assert status == 200 and preview["job_status"] == "REVOKED" and "irreversible" not in preview
        status, body = send(api, "post", path)
        assert status == 400 and body == {"detail": "This job has already finished (REVOKED)."}

    def test_others_may_not_cancel(self, pending, sample):
        from django.contrib.auth.models import Permission

        from inventory.users.models import User

        from .conftest import Api

        user = User.objects.create(username="reader")
        user.user_permissions.add(Permission.objects.get(codename="view_jobresult"))
        reader = Api(user.tokens.create().key)
        path = f"/api/extras/job-results/{pending.pk}/cancel/"
        assert send(reader, "get", path)[0] == 200
        assert send(reader, "post", path)[0] == 403
        assert (
            send(reader, "post", "/api/extras/job-results/00000000-0000-4000-8000-000000000000/cancel/")[0]
            == 404
        )
