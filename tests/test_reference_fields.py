"""Fields the reference shows that are derived or stored beside the models' own: a tag's
`tagged_items`, a custom field's `scope_filter`, a computed field's `output_type`, a change
record's object nested by depth and its bare `change_context`."""

from __future__ import annotations

import orjson

from inventory.dcim.models import Device
from inventory.extras.models import Tag
from inventory.tenancy.models import Tenant

DEVICES = "/api/dcim/devices/"


def send(api, method: str, path: str, body=None):
    response = getattr(api.client, method)(path, orjson.dumps(body), content_type="application/json")
    return response.status_code, orjson.loads(response.content) if response.content else None


def test_a_tag_counts_the_objects_of_every_type_that_carry_it(api, sample, django_assert_max_num_queries):
    tag = Tag.objects.create(name="counted")
    devices, tenants = Device.objects.all()[:2], Tenant.objects.all()[:3]
    for obj in [*devices, *tenants]:
        obj.tags.add(tag)
    shown = api.json(f"/api/extras/tags/{tag.pk}/")
    assert shown["tagged_items"] == len(devices) + len(tenants)
    Tenant.objects.get(pk=tenants[0].pk).tags.remove(tag)
    rows = {row["name"]: row for row in api.json("/api/extras/tags/", {"limit": 0})["results"]}
    assert rows["counted"]["tagged_items"] == len(devices) + len(tenants) - 1
    assert all(isinstance(row["tagged_items"], int) for row in rows.values())
    # One statement for the page's counts, whatever the page size.
    with django_assert_max_num_queries(12) as few:
        api.json("/api/extras/tags/", {"limit": 1})
    with django_assert_max_num_queries(len(few.captured_queries)):
        api.json("/api/extras/tags/", {"limit": 0})
    status, created = send(api, "post", "/api/extras/tags/", {"name": "fresh", "tagged_items": 9})
    assert status == 201 and Tag.objects.filter(name="fresh").exists()  # read-only: ignored


def test_a_custom_field_scope_is_checked_and_narrows_its_default(api, sample):
    status, body = send(
        api,
        "post",
        "/api/extras/custom-fields/",
        {
            "key": "rack_row",
            "label": "Row",
            "type": "text",
            "content_types": ["dcim.device"],
            "scope_filter": {"nosuch": "x"},
        },
    )
    assert status == 400 and body == {
        "scope_filter": ["'nosuch' is not a valid filter parameter for dcim.Device object"]
    }
    status, body = send(
        api,
        "post",
        "/api/extras/custom-fields/",
        {
            "key": "rack_row",
            "label": "Row",
            "type": "text",
            "required": True,
            "default": "A",
            "content_types": ["dcim.device"],
            "scope_filter": {"name": ["leaf1"]},
        },
    )
    assert status == 400 and body == {"required": ["Scope filter can't be set, if field is required."]}
    status, field = send(
        api,
        "post",
        "/api/extras/custom-fields/",
        {
            "key": "rack_row",
            "label": "Row",
            "type": "text",
            "default": "A",
            "content_types": ["dcim.device"],
            "scope_filter": {"name": ["leaf1"]},
        },
    )
    assert status == 201 and field["scope_filter"] == {"name": ["leaf1"]}
    values = {
        row["name"]: row["custom_fields"]["rack_row"] for row in api.json(DEVICES, {"limit": 0})["results"]
    }
    assert values["leaf1"] == "A" and {v for k, v in values.items() if k != "leaf1"} == {None}
    plain = api.json("/api/extras/custom-fields/", {"key": "owner"})["results"][0]
    assert plain["scope_filter"] == {}
    # The scope decides only what objects already there get when the field arrives. As at the
    # reference (its serializer's create default and its model's clean fill every field's
    # default), an object created afterwards takes the default in scope or out of it, and may be
    # given a value out of scope.
    from .test_dcim import new_device

    status, outside = send(api, "post", DEVICES, new_device("leaf9"))
    assert status == 201 and outside["custom_fields"]["rack_row"] == "A", outside
    status, given = send(api, "post", DEVICES, new_device("leaf10", custom_fields={"rack_row": "B"}))
    assert status == 201 and given["custom_fields"]["rack_row"] == "B"
    status, cleared = send(api, "post", DEVICES, new_device("leaf11", custom_fields={"rack_row": None}))
    assert status == 201 and cleared["custom_fields"]["rack_row"] is None
    # Changing the scope later rewrites no stored value (the reference leaves that to a cleanup job).
    status, _ = send(
        api, "patch", f"/api/extras/custom-fields/{field['id']}/", {"scope_filter": {"name": ["leaf9"]}}
    )
    assert status == 200
    values = {
        row["name"]: row["custom_fields"]["rack_row"] for row in api.json(DEVICES, {"limit": 0})["results"]
    }
    assert (values["leaf1"], values["leaf9"], values["leaf10"], values["leaf11"]) == ("A", "A", "B", None)


def test_a_computed_field_says_how_its_output_is_shown(api, sample):
    body = {"content_type": "dcim.device", "key": "summary", "label": "Summary", "template": "{{ obj.name }}"}
    status, field = send(api, "post", "/api/extras/computed-fields/", body)
    assert status == 201 and field["output_type"] == {"value": "text", "label": "Text"}
    status, field = send(
        api, "patch", f"/api/extras/computed-fields/{field['id']}/", {"output_type": "markdown"}
    )
    assert status == 200 and field["output_type"] == {"value": "markdown", "label": "Markdown"}
    status, body = send(api, "patch", f"/api/extras/computed-fields/{field['id']}/", {"output_type": "html"})
    assert status == 400 and "output_type" in body


def test_a_change_record_nests_its_object_by_depth(api, sample):
    status, tenant = send(api, "post", "/api/tenancy/tenants/", {"name": "nested-log"})
    device = Device.objects.first()
    send(api, "patch", f"/api/dcim/devices/{device.pk}/", {"serial": "NEST-1"})
    records = "/api/extras/object-changes/"
    flat = api.json(records, {"changed_object_id": tenant["id"]})["results"][0]
    assert flat["change_context"] == "web" and set(flat["changed_object"]) == {"id", "object_type", "url"}
    assert "differences" not in flat and "related_object" not in flat
    assert {"related_object_type", "related_object_id"} <= flat.keys()
    deep = api.json(records, {"changed_object_id": tenant["id"], "depth": 1})["results"][0]
    assert (
        deep["changed_object"]["name"] == "nested-log" and deep["changed_object"]["display"] == "nested-log"
    )
    # Objects of several types on one page, each shown as its own type shows at depth 0.
    page = api.json(records, {"depth": 1, "limit": 0})["results"]
    kinds = {r["changed_object_type"]: r["changed_object"] for r in page if r["changed_object"]}
    assert kinds["dcim.device"]["serial"] == "NEST-1" and kinds["tenancy.tenant"]["name"]
    assert kinds["dcim.device"]["status"]["url"]
    # Gone: null at every depth.
    assert api.client.delete(f"/api/tenancy/tenants/{tenant['id']}/").status_code == 204
    gone = api.json(records, {"changed_object_id": tenant["id"], "depth": 1})["results"]
    assert {r["changed_object"] is None for r in gone} == {True}


def test_devices_and_machines_take_software_image_files(api, sample):
    from inventory.dcim.models import DeviceType, SoftwareImageFile, SoftwareVersion

    device = Device.objects.filter(device_type__software_image_files__isnull=False).first()
    own = device.device_type.software_image_files.first()
    stranger = SoftwareImageFile.objects.create(
        software_version=SoftwareVersion.objects.first(),
        image_file_name="other.bin",
        default_image=False,
        status=own.status,
    )
    assert not stranger.device_types.filter(pk=device.device_type_id).exists()
    path = f"/api/dcim/devices/{device.pk}/"
    # Files a write sets are taken as given, as the reference takes them (the Ansible device
    # module sets files of the software version that its device type does not list).
    status, body = send(
        api, "patch", f"{path}?exclude_m2m=false", {"software_image_files": [str(stranger.pk)]}
    )
    assert status == 200 and [f["id"] for f in body["software_image_files"]] == [str(stranger.pk)], body
    # Files kept through a change of device type must suit the new type, as the reference checks.
    other_type = DeviceType.objects.exclude(pk=device.device_type_id).first()
    status, body = send(api, "patch", path, {"device_type": str(other_type.pk)})
    assert status == 400 and body == {
        "software_image_files": [
            f"Software image file other.bin for version '{stranger.software_version}' is not valid for "
            f"device type {other_type}."
        ]
    }
    status, body = send(
        api, "patch", path, {"device_type": str(other_type.pk), "software_image_files": [str(stranger.pk)]}
    )
    assert status == 200 and body["device_type"]["id"] == str(other_type.pk), body
    status, body = send(
        api,
        "patch",
        f"{path}?exclude_m2m=false",
        {"device_type": str(device.device_type_id), "software_image_files": [str(own.pk)]},
    )
    assert status == 200 and [f["id"] for f in body["software_image_files"]] == [str(own.pk)]
    assert "software_image_files" not in api.json(path)  # a many-to-many list: shown on request (3.x)
    described = api.client.options("/api/dcim/devices/").json()["actions"]["POST"]["software_image_files"]
    assert (
        described["help_text"].startswith("Override the software image files") and not described["read_only"]
    )
    assert DeviceType.objects.filter(pk=device.device_type_id).exists()
    machine = api.json("/api/virtualization/virtual-machines/", {"limit": 1})["results"][0]
    status, body = send(
        api,
        "patch",
        f"/api/virtualization/virtual-machines/{machine['id']}/?exclude_m2m=false",
        {"software_image_files": [str(stranger.pk)]},
    )
    assert status == 200 and [f["id"] for f in body["software_image_files"]] == [str(stranger.pk)]


def test_a_chassis_master_lists_every_members_interfaces(api, sample):
    """As the reference's: the master's own, and the other members' that are not
    management-only; a member lists its own only."""
    master = Device.objects.get(name="leaf1")
    member = Device.objects.create(
        name="leaf1-member",
        device_type=master.device_type,
        role=master.role,
        status=master.status,
        location=master.location,
        virtual_chassis=master.virtual_chassis,
        vc_position=2,
    )
    member.interfaces.create(name="member-eth9", type="1000base-t", status=master.status)
    own = {str(pk) for pk in master.interfaces.values_list("pk", flat=True)}
    members = {str(pk) for pk in member.interfaces.filter(mgmt_only=False).values_list("pk", flat=True)}
    assert member.interfaces.filter(mgmt_only=True).exists()  # Management1, from its type
    for value in (master.name, str(master.pk)):
        for name in ("device", "device_id"):
            found = api.json("/api/dcim/interfaces/", {name: value, "limit": 0})["results"]
            assert {i["id"] for i in found} == own | members, (name, value)
    found = api.json("/api/dcim/interfaces/", {"device": member.name, "limit": 0})["results"]
    assert {i["id"] for i in found} == {str(pk) for pk in member.interfaces.values_list("pk", flat=True)}
    assert api.json("/api/dcim/interfaces/", {"device": "no-such-device"}, status=400) == {
        "device": ["Select a valid choice. no-such-device is not one of the available choices."]
    }
