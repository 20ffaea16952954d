"""External integrations, controllers and their managed device groups, and a device's group,
through the HTTP stack (REST at depths 0 and 1, filters, OPTIONS, CSV, GraphQL)."""

from __future__ import annotations

import csv
import io

import orjson
import pytest

from inventory.dcim.models import (
    Controller,
    ControllerManagedDeviceGroup,
    Device,
    DeviceRedundancyGroup,
    Location,
    SoftwareImageFile,
)
from inventory.extras.models import ExternalIntegration, SecretsGroup, Status

from .conftest import send

INTEGRATIONS = "/api/extras/external-integrations/"
CONTROLLERS = "/api/dcim/controllers/"
GROUPS = "/api/dcim/controller-managed-device-groups/"
DEVICES = "/api/dcim/devices/"
WIRELESS = {"value": "wireless", "label": "Wireless"}


def reference(obj, route: str) -> dict:
    return {
        "id": str(obj.pk),
        "object_type": f"{obj._meta.app_label}.{obj._meta.model_name}",
        "url": f"http://testserver/api/{route}/{obj.pk}/",
    }


def ids(body) -> set[str]:
    return {row["id"] for row in body["results"]}


def test_app_roots_list_the_new_endpoints(api):
    assert api.json("/api/dcim/")["controllers"] == f"http://testserver{CONTROLLERS}"
    assert api.json("/api/dcim/")["controller-managed-device-groups"] == f"http://testserver{GROUPS}"
    assert api.json("/api/extras/")["external-integrations"] == f"http://testserver{INTEGRATIONS}"


def test_integration_defaults_shape_and_filters(api, sample):
    status, created = send(api, "post", INTEGRATIONS, {"name": "nms", "remote_url": "https://nms:8443/api/"})
    assert status == 201, created
    assert created["display"] == "nms (https://nms:8443/api/)"
    assert created["object_type"] == "extras.externalintegration"
    expected = {"verify_ssl": True, "timeout": 30, "http_method": None, "headers": None, "extra_config": None}
    assert {key: created[key] for key in expected} == expected
    assert created["ca_file_path"] == "" and created["secrets_group"] is None and created["tags"] == []
    group = SecretsGroup.objects.get(name="Device credentials")
    path = f"{INTEGRATIONS}{created['id']}/"
    body = {
        "secrets_group": "Device credentials",
        "http_method": "POST",
        "headers": {"X-Auth": "{{ token }}"},
    }
    status, patched = send(api, "patch", path, body)
    assert status == 200, patched
    assert patched["http_method"] == {"value": "POST", "label": "POST"}
    assert patched["secrets_group"] == reference(group, "extras/secrets-groups")
    assert patched["headers"] == {"X-Auth": "{{ token }}"}
    with_group = ids(api.json(INTEGRATIONS, {"has_secrets_group": "true"}))
    assert created["id"] in with_group and len(with_group) == 2
    assert ids(api.json(INTEGRATIONS, {"secrets_group": "Device credentials"})) == with_group
    assert ids(api.json(INTEGRATIONS, {"secrets_group": str(group.pk)})) == with_group
    assert ids(api.json(INTEGRATIONS, {"has_secrets_group": "false"})) == {
        str(ExternalIntegration.objects.get(name="image server").pk)
    }
    assert ids(api.json(INTEGRATIONS, {"q": "nms:8443"})) == {created["id"]}
    assert ids(api.json(INTEGRATIONS, {"http_method": "POST"})) == {created["id"]}
    assert api.json(INTEGRATIONS, {"http_method": "FETCH"}, status=400) == {
        "http_method": ["Select a valid choice. FETCH is not one of the available choices."]
    }


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        ({"remote_url": "not a url"}, {"remote_url": ["Enter a valid URL."]}),
        ({"timeout": -1}, {"timeout": ["Ensure this value is greater than or equal to 0."]}),
        (
            {"http_method": "FETCH"},
            {"http_method": ['"FETCH" is not a valid choice. Valid choices: GET, POST, PUT, PATCH, DELETE.']},
        ),
    ],
)
def test_integration_bad_input(api, sample, body, errors):
    status, answer = send(api, "post", INTEGRATIONS, {"name": "bad", "remote_url": "http://x/", **body})
    assert (status, answer) == (400, errors)
    assert not ExternalIntegration.objects.filter(name="bad").exists()


def test_software_image_file_takes_an_integration(api, sample):
    image = SoftwareImageFile.objects.get(image_file_name="junos-23.2R1.tgz")
    integration = ExternalIntegration.objects.get(name="Wireless controller API")
    path = f"/api/dcim/software-image-files/{image.pk}/"
    assert api.json(path)["external_integration"] is None
    status, patched = send(api, "patch", path, {"external_integration": "Wireless controller API"})
    assert status == 200, patched
    assert patched["external_integration"] == reference(integration, "extras/external-integrations")
    nested = api.json(path, {"depth": 1})["external_integration"]
    assert nested["name"] == "Wireless controller API" and nested["timeout"] == 10
    found = api.json("/api/dcim/software-image-files/", {"external_integration": str(integration.pk)})
    assert ids(found) == {str(image.pk)}
    # An integration in use is protected.
    status, answer = send(api, "delete", f"{INTEGRATIONS}{integration.pk}/")
    assert status == 409 and ExternalIntegration.objects.filter(pk=integration.pk).exists()


def controller_body(**fields) -> dict:
    return {
        "name": "wlc9",
        "status": "Active",
        "location": str(Location.objects.get(name="AMS1").pk),
        **fields,
    }


def test_controller_create_shape_and_filters(api, sample):
    device = Device.objects.get(name="core1")
    status, created = send(
        api, "post", CONTROLLERS, controller_body(capabilities=["wireless"], controller_device="core1")
    )
    assert status == 201, created
    assert created["capabilities"] == [WIRELESS]
    assert created["controller_device"] == reference(device, "dcim/devices")
    assert created["controller_device_redundancy_group"] is None and created["external_integration"] is None
    # Written back as read ({value, label} items) or cleared.
    path = f"{CONTROLLERS}{created['id']}/"
    status, patched = send(api, "patch", path, {"capabilities": created["capabilities"]})
    assert status == 200 and patched["capabilities"] == [WIRELESS]
    wireless = ids(api.json(CONTROLLERS, {"capabilities": "wireless"}))
    assert wireless == {created["id"], str(Controller.objects.get(name="wlc1").pk)}
    status, patched = send(api, "patch", path, {"capabilities": []})
    assert status == 200 and patched["capabilities"] == []
    assert ids(api.json(CONTROLLERS, {"capabilities": "wireless"})) == {
        str(Controller.objects.get(name="wlc1").pk)
    }
    assert ids(api.json(CONTROLLERS, {"controller_device": "core1"})) == {created["id"]}
    fabric = str(Controller.objects.get(name="fabric").pk)
    assert ids(api.json(CONTROLLERS, {"controller_device_redundancy_group": "lb-pair"})) == {fabric}
    assert ids(api.json(CONTROLLERS, {"external_integration": "Wireless controller API"})) == {
        str(Controller.objects.get(name="wlc1").pk)
    }
    assert ids(api.json(CONTROLLERS, {"status": "Planned"})) == {fabric}
    assert api.json(CONTROLLERS, {"capabilities": "wired"}, status=400) == {
        "capabilities": ["Select a valid choice. wired is not one of the available choices."]
    }


def test_capabilities_described_as_a_list_of_choices(api, sample):
    for path in (CONTROLLERS, GROUPS):
        assert api.client.options(path).json()["actions"]["POST"]["capabilities"] == {
            "type": "list",
            "required": False,
            "read_only": False,
            "label": "Capabilities",
            "child": {
                "type": "field",
                "required": False,
                "read_only": False,
                "choices": [{"value": "wireless", "display": "Wireless"}],
            },
        }


def test_controller_validation(api, sample):
    group = DeviceRedundancyGroup.objects.get(name="fw-pair")
    both = controller_body(controller_device="core1", controller_device_redundancy_group=str(group.pk))
    assert send(api, "post", CONTROLLERS, both) == (
        400,
        {"controller_device": ["Cannot assign both a device and a device redundancy group to a controller."]},
    )
    assert send(api, "post", CONTROLLERS, controller_body(capabilities=["wired"])) == (
        400,
        {"capabilities": ["wired is not a valid choice."]},
    )
    assert send(api, "post", CONTROLLERS, controller_body(capabilities="wireless")) == (
        400,
        {"capabilities": ['Expected a list of items but got type "str".']},
    )
    europe = Location.objects.get(name="Europe")
    assert send(api, "post", CONTROLLERS, controller_body(location=str(europe.pk))) == (
        400,
        {"location": [f'Controllers may not associate to locations of type "{europe.location_type}".']},
    )
    assert not Controller.objects.filter(name="wlc9").exists()


def test_group_tree_shape_and_validation(api, sample):
    campus = ControllerManagedDeviceGroup.objects.get(name="campus APs")
    fabric = Controller.objects.get(name="fabric")
    detail = api.json(f"{GROUPS}{ControllerManagedDeviceGroup.objects.get(name='floor 1 APs').pk}/")
    assert detail["display"] == "campus APs → floor 1 APs"
    assert detail["parent"] == reference(campus, "dcim/controller-managed-device-groups")
    assert detail["weight"] == 1000 and detail["capabilities"] is None
    assert "tree_depth" not in detail  # as the reference's serializer shows a group
    assert api.json(f"{GROUPS}{campus.pk}/")["capabilities"] == [WIRELESS]
    body = {"name": "floor 2 APs", "controller": str(fabric.pk), "parent": str(campus.pk)}
    assert send(api, "post", GROUPS, body) == (
        400,
        {"controller": ["Controller device group must have the same controller as the parent group."]},
    )
    status, created = send(api, "post", GROUPS, {**body, "controller": "wlc1", "weight": 5})
    assert status == 201, created
    assert created["display"] == "campus APs → floor 2 APs"
    children = ids(api.json(GROUPS, {"parent": "campus APs"}))
    assert created["id"] in children and len(children) == 2
    assert ids(api.json(GROUPS, {"controller": "fabric"})) == {
        str(ControllerManagedDeviceGroup.objects.get(name="leafs").pk)
    }
    assert ids(api.json(GROUPS, {"capabilities": "wireless"})) == {str(campus.pk)}
    assert ids(api.json(GROUPS, {"subtree": "campus APs"})) == children | {str(campus.pk)}
    assert ids(api.json(GROUPS, {"subtree": [str(campus.pk), "leafs"]})) == ids(api.json(GROUPS))
    assert api.json(GROUPS, {"q": "floor"})["count"] == 2
    # Lists sort by weight.
    assert api.json(GROUPS)["results"][0]["id"] == created["id"]
    # A group goes with its parent; its devices stay, without a group.
    send(api, "delete", f"{GROUPS}{campus.pk}/")
    assert not ControllerManagedDeviceGroup.objects.filter(name__in=["floor 1 APs", "floor 2 APs"]).exists()
    assert Device.objects.get(name="leaf1").controller_managed_device_group is None


def test_device_group_field(api, sample):
    device = Device.objects.get(name="leaf1")
    group = ControllerManagedDeviceGroup.objects.get(name="floor 1 APs")
    path = f"{DEVICES}{device.pk}/"
    route = "dcim/controller-managed-device-groups"
    assert api.json(path)["controller_managed_device_group"] == reference(group, route)
    nested = api.json(path, {"depth": 1})["controller_managed_device_group"]
    assert nested["name"] == "floor 1 APs" and nested["display"] == "campus APs → floor 1 APs"
    assert nested["controller"] == reference(group.controller, "dcim/controllers")
    blade = Device.objects.get(name=None)
    assert api.json(f"{DEVICES}{blade.pk}/")["controller_managed_device_group"] is None
    for value in ("floor 1 APs", str(group.pk)):
        assert ids(api.json(DEVICES, {"controller_managed_device_group": value})) == {str(device.pk)}
    assert ids(api.json(DEVICES, {"controller": "wlc1"})) == {str(device.pk)}
    assert ids(api.json(DEVICES, {"controller_managed_device_group__isnull": "false"})) == {
        str(device.pk),
        str(Device.objects.get(name="core1").pk),
    }
    assert api.json(DEVICES, {"controller_managed_device_group": "nowhere"}, status=400) == {
        "controller_managed_device_group": [
            "Select a valid choice. nowhere is not one of the available choices."
        ]
    }
    status, patched = send(api, "patch", path, {"controller_managed_device_group": "leafs"})
    assert status == 200, patched
    leafs = ControllerManagedDeviceGroup.objects.get(name="leafs")
    assert patched["controller_managed_device_group"] == reference(leafs, route)
    status, patched = send(api, "patch", path, {"controller_managed_device_group": None})
    assert status == 200 and patched["controller_managed_device_group"] is None


def test_device_group_in_options_csv_and_graphql(api, sample):
    actions = api.client.options(DEVICES).json()["actions"]
    assert actions["POST"]["controller_managed_device_group"] == {
        "type": "field",
        "required": False,
        "read_only": False,
        "label": "Controller managed device group",
    }
    response = api.get(DEVICES, {"name": "leaf1"}, HTTP_ACCEPT="text/csv")
    assert response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert rows[0]["controller_managed_device_group__name"] == "floor 1 APs"
    query = '{ devices(controller_managed_device_group: ["floor 1 APs"]) { name controller_managed_device_group { name controller { name capabilities } } } }'
    response = api.post("/api/graphql/", {"query": query})
    assert orjson.loads(response.content) == {
        "data": {
            "devices": [
                {
                    "name": "leaf1",
                    "controller_managed_device_group": {
                        "name": "floor 1 APs",
                        "controller": {"name": "wlc1", "capabilities": [WIRELESS]},
                    },
                }
            ]
        }
    }


def test_controller_statuses_are_those_of_devices(api, sample):
    shown = api.json("/api/extras/statuses/", {"content_types": "dcim.controller", "limit": 0})
    assert {row["name"] for row in shown["results"]} >= {"Active", "Offline", "Planned", "Staged"}
    assert not Status.objects.get(name="Reserved").content_types.filter(model="controller").exists()


def test_controllers_csv_round_trip(api, sample):
    response = api.get(CONTROLLERS, {"name": "wlc1"}, HTTP_ACCEPT="text/csv")
    assert response.status_code == 200
    row = next(csv.DictReader(io.StringIO(response.content.decode())))
    assert row["capabilities"] == "wireless" and row["controller_device__name"] == "leaf1"
    text = "name,status,location,capabilities\nwlc7,Active,{},wireless\nwlc8,Active,{},NULL\n".format(
        *[Location.objects.get(name="AMS1").pk] * 2
    )
    response = api.client.post(CONTROLLERS, text, content_type="text/csv")
    assert response.status_code == 201, response.content
    created = {row["name"]: row["capabilities"] for row in orjson.loads(response.content)}
    assert created == {"wlc7": [WIRELESS], "wlc8": None}
