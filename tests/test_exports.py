"""Custom links and export templates: templates checked when written, exports rendered over a list."""

from __future__ import annotations

from inventory.dcim.models import Device

from .conftest import Api, send


def test_export_renders_the_filtered_list_as_a_file(api, sample):
    response = api.get("/api/dcim/devices/", {"export": "hosts", "status": "Active"})
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain"
    assert response["Content-Disposition"] == 'attachment; filename="netinventory_devices.ini"'
    lines = response.content.decode().splitlines()
    active = Device.objects.filter(status__name="Active")
    assert lines[0] == "[all]" and len(lines) == 1 + active.count()
    leaf = Device.objects.get(name="leaf1")
    assert f"leaf1 platform={leaf.platform.name}" in lines
    assert not any(line.startswith("core1") for line in lines)  # planned: filtered out
    tenants = api.get("/api/tenancy/tenants/", {"export": "tenant csv", "name": "Acme"})
    assert tenants["Content-Type"] == "text/csv"
    assert tenants.content.decode() == "name,description\nAcme,rockets\n"


def test_export_errors_are_400(api, sample):
    assert api.json("/api/dcim/devices/", {"export": "nope"}, status=400) == {
        "export": ["Select a valid choice. nope is not one of the available choices."]
    }
    # Templates of another type are not this list's.
    assert api.get("/api/dcim/devices/", {"export": "tenant csv"}).status_code == 400
    assert api.get("/api/dcim/devices/", {"export": "hosts", "nosuchfilter": "x"}).status_code == 400
    status, body = send(
        api,
        "post",
        "/api/extras/export-templates/",
        {"content_type": "dcim.device", "name": "broken", "template_code": "{{ queryset.nosuch() }}"},
    )
    assert status == 201, body
    body = api.json("/api/dcim/devices/", {"export": "broken"}, status=400)
    assert body["detail"].startswith("Template rendering failed")


def test_export_needs_view_permission(sample):
    assert Api(None).get("/api/dcim/devices/", {"export": "hosts"}).status_code == 403


def test_templates_are_checked_when_written(api, sample):
    status, errors = send(
        api,
        "post",
        "/api/extras/custom-links/",
        {
            "content_type": "dcim.device",
            "name": "x",
            "text": "{% if %}",
            "target_url": "{{ obj.name",
            "new_window": False,
        },
    )
    assert status == 400 and set(errors) == {"text", "target_url"}
    assert errors["target_url"][0].startswith("Invalid template")
    status, errors = send(
        api,
        "post",
        "/api/extras/export-templates/",
        {"content_type": "dcim.device", "name": "y", "template_code": "{% for %}"},
    )
    assert status == 400 and list(errors) == ["template_code"]
    status, body = send(
        api,
        "post",
        "/api/extras/export-templates/",
        {"content_type": "dcim.device", "name": "z", "template_code": "x", "file_extension": ".yaml"},
    )
    assert status == 201 and body["file_extension"] == "yaml"
    status, errors = send(
        api,
        "post",
        "/api/extras/export-templates/",
        {"content_type": "dcim.device", "name": "z", "template_code": "x"},
    )
    assert status == 400
