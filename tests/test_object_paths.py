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
