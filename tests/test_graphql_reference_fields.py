"""Fields of the reference's GraphQL types beyond those REST shows, through /api/graphql/, each
answered alike by the compiled plan and the generic executor: the lists of contacts and static
groups on definitions (computed fields, webhooks, ...)."""

from __future__ import annotations

from datetime import UTC, datetime

import orjson
import pytest

from inventory.data_validation.models import DataCompliance
from inventory.extras.models import ComputedField, ConfigContext, Webhook
from queryengine import engine
from queryengine.scalars import dumps
from queryengine.schema import RequestContext, schema

from .conftest import send

# Every test here reads and writes inside its own transaction: one sample serves them all.
pytestmark = pytest.mark.usefixtures("shared_sample")

BASE = "http://testserver/api/"


def through_http(api, user, query: str, variables: dict | None = None) -> dict:
    """A document answered by /api/graphql/ (compiled), its data the generic executor's too."""
    response = api.post("/api/graphql/", {"query": query, "variables": variables or {}})
    assert response.status_code == 200, response.content
    body = orjson.loads(response.content)
    assert "errors" not in body, body
    assert engine.prepare_supplied(query).plan is not None, "the document compiles"
    generic = engine.run(
        query, variables or {}, RequestContext(user=user, base_url=BASE), supplied=True, compiled=False
    )
    assert not generic.errors, generic.errors
    assert body["data"] == orjson.loads(dumps(generic.data))
    return body["data"]


def created(api, path: str, body: dict) -> dict:
    status, answer = send(api, "post", path, body)
    assert status == 201, answer
    return answer


def fields_of(type_name: str) -> set[str]:
    return set(schema.graphql_schema.get_type(type_name).fields)


@pytest.mark.parametrize(
    "type_name, contacts, statics, groups",
    [
        ("ComputedFieldType", True, True, True),
        ("ConfigContextType", True, False, True),  # its `dynamic_groups` are its own field
        ("CustomLinkType", True, True, True),
        ("ExportTemplateType", True, True, True),
        ("GraphQLQueryType", True, True, True),
        ("JobButtonType", True, True, True),
        ("WebhookType", True, True, True),
        ("DataComplianceType", False, True, True),
        ("JobResultType", False, False, False),
    ],
)
def test_definitions_list_contacts_and_static_groups_as_the_reference(type_name, contacts, statics, groups):
    shown = fields_of(type_name)
    assert ("associated_contacts" in shown) is contacts
    assert ("static_group_association_set" in shown) is statics
    assert ("dynamic_groups" in shown) is groups


def test_definitions_show_their_contacts_and_static_groups(api, sample, superuser):
    computed = ComputedField.objects.order_by("key").first()
    context = ConfigContext.objects.order_by("name").first()
    hook = Webhook.objects.order_by("name").first()
    for obj in (computed, context, hook):
        created(
            api,
            "/api/extras/contact-associations/",
            {
                "contact": "bob",
                "associated_object_type": f"extras.{obj._meta.model_name}",
                "associated_object_id": str(obj.pk),
                "role": "Support",
                "status": "Active",
            },
        )
    group = created(
        api,
        "/api/extras/dynamic-groups/",
        {"name": "pinned hooks", "content_type": "extras.webhook", "group_type": "static"},
    )
    created(
        api,
        "/api/extras/static-group-associations/",
        {
            "dynamic_group": group["id"],
            "associated_object_type": "extras.webhook",
            "associated_object_id": str(hook.pk),
        },
    )
    data = through_http(
        api,
        superuser,
        """{ computed_fields { id associated_contacts { contact { name } role { name } }
                                static_group_association_set { id } }
             config_contexts { id associated_contacts(contact: ["bob"]) { contact { name } } }
             webhooks { id associated_contacts { contact { name } }
                        static_group_association_set { dynamic_group { name } } dynamic_groups { name } }
             data_compliance { id static_group_association_set { id } dynamic_groups { id } } }""",
    )

    def by_id(rows):
        return {row["id"]: row for row in rows}

    row = by_id(data["computed_fields"])[str(computed.pk)]
    assert row["associated_contacts"] == [{"contact": {"name": "bob"}, "role": {"name": "Support"}}]
    assert row["static_group_association_set"] == []
    assert by_id(data["config_contexts"])[str(context.pk)]["associated_contacts"] == [
        {"contact": {"name": "bob"}}
    ]
    others = [r for pk, r in by_id(data["computed_fields"]).items() if pk != str(computed.pk)]
    assert others and all(r["associated_contacts"] == [] for r in others)
    hooked = by_id(data["webhooks"])[str(hook.pk)]
    assert hooked["associated_contacts"] == [{"contact": {"name": "bob"}}]
    assert hooked["static_group_association_set"] == [{"dynamic_group": {"name": "pinned hooks"}}]
    assert hooked["dynamic_groups"] == [{"name": "pinned hooks"}]
    assert len(data["data_compliance"]) == DataCompliance.objects.count() > 0
    assert all(
        r["static_group_association_set"] == r["dynamic_groups"] == [] for r in data["data_compliance"]
    )


def test_inventory_items_take_software_image_files(api, sample, superuser):
    from inventory.dcim.models import InventoryItem, SoftwareImageFile

    item = InventoryItem.objects.order_by("name").first()
    images = [
        str(pk) for pk in SoftwareImageFile.objects.order_by("image_file_name").values_list("pk", flat=True)
    ]
    path = f"/api/dcim/inventory-items/{item.pk}/"
    # Written, never shown, as the reference's serializer.
    status, body = send(api, "patch", f"{path}?exclude_m2m=false", {"software_image_files": images[:1]})
    assert status == 200 and "software_image_files" not in body, body
    assert [str(pk) for pk in item.software_image_files.values_list("pk", flat=True)] == images[:1]
    listed = api.json("/api/dcim/inventory-items/", {"software_image_files": images[0]})["results"]
    assert [row["id"] for row in listed] == [str(item.pk)]
    assert api.json("/api/dcim/inventory-items/", {"software_image_files__n": images[0]})["count"] == (
        InventoryItem.objects.count() - 1
    )
    assert [
        r["id"]
        for r in api.json("/api/dcim/inventory-items/", {"has_software_image_files": "true"})["results"]
    ] == [str(item.pk)]
    data = through_http(
        api,
        superuser,
        """{ inventory_items { id software_image_files { id } }
             software_image_files { id inventory_items { id name } } }""",
    )
    items = {row["id"]: row["software_image_files"] for row in data["inventory_items"]}
    assert items.pop(str(item.pk)) == [{"id": images[0]}] and all(files == [] for files in items.values())
    files = {row["id"]: row["inventory_items"] for row in data["software_image_files"]}
    assert files.pop(images[0]) == [{"id": str(item.pk), "name": item.name}]
    assert files and all(members == [] for members in files.values())


def test_derived_cluster_module_device_and_chassis_interfaces(api, sample, superuser):
    from inventory.dcim.models import Device, Interface, Module, ModuleType
    from inventory.virtualization.models import Cluster

    leaf, core, blade = (
        Device.objects.get(name="leaf1"),
        Device.objects.get(name="core1"),
        Device.objects.get(name=None),
    )
    # core1 joins leaf1's virtual chassis (leaf1 its master), one of its interfaces for management only.
    status, _ = send(
        api,
        "patch",
        f"/api/dcim/devices/{core.pk}/",
        {"virtual_chassis": str(leaf.virtual_chassis_id), "vc_position": 2},
    )
    assert status == 200, _
    management = Interface.objects.filter(device=core).first()
    status, _ = send(api, "patch", f"/api/dcim/interfaces/{management.pk}/", {"mgmt_only": True})
    assert status == 200, _
    # core1 joins a second cluster: several, so no one `cluster`.
    [first, second] = Cluster.objects.order_by("name")[:2]
    assert set(leaf.clusters.all()) == set(core.clusters.all()) == {first}
    created(api, "/api/dcim/device-cluster-assignments/", {"device": str(core.pk), "cluster": str(second.pk)})
    # A module in a bay of a module in core1's bay is installed in core1 too.
    outer = Module.objects.get(serial="M1")
    bay = created(api, "/api/dcim/module-bays/", {"parent_module": str(outer.pk), "name": "sub"})
    inner = created(
        api,
        "/api/dcim/modules/",
        {
            "module_type": str(ModuleType.objects.order_by("model").first().pk),
            "parent_module_bay": bay["id"],
            "status": "Active",
        },
    )
    data = through_http(
        api,
        superuser,
        """{ devices { id name cluster { id name } vc_interfaces { id } common_vc_interfaces { id name } }
             modules { id device { id name } } }""",
    )
    devices = {row["name"]: row for row in data["devices"]}
    assert devices["leaf1"]["cluster"] == {"id": str(first.pk), "name": first.name}
    assert devices["core1"]["cluster"] is None and devices[None]["cluster"] is None

    def ids(queryset) -> list[str]:
        return [
            str(pk) for pk in queryset.order_by("device__name", "_name", "pk").values_list("pk", flat=True)
        ]

    def shown(rows) -> list[str]:
        return [row["id"] for row in rows]

    both_members = Interface.objects.filter(device__in=[leaf, core])
    assert sorted(shown(devices["leaf1"]["common_vc_interfaces"])) == sorted(ids(both_members))
    assert shown(devices["leaf1"]["common_vc_interfaces"]) == shown(devices["core1"]["common_vc_interfaces"])
    master = Interface.objects.filter(device=leaf) | Interface.objects.filter(device=core, mgmt_only=False)
    assert sorted(shown(devices["leaf1"]["vc_interfaces"])) == sorted(ids(master))
    assert str(management.pk) not in shown(devices["leaf1"]["vc_interfaces"])
    assert sorted(shown(devices["core1"]["vc_interfaces"])) == sorted(
        ids(Interface.objects.filter(device=core))
    )
    own = ids(Interface.objects.filter(device=blade))
    assert (
        sorted(shown(devices[None]["vc_interfaces"]))
        == sorted(shown(devices[None]["common_vc_interfaces"]))
        == sorted(own)
    )
    modules = {row["id"]: row["device"] for row in data["modules"]}
    assert modules[str(outer.pk)] == modules[inner["id"]] == {"id": str(core.pk), "name": "core1"}
    stored = Module.objects.filter(parent_module_bay__isnull=True).values_list("pk", flat=True)
    assert stored and all(modules[str(pk)] is None for pk in stored)  # at a location, in no device


def test_schedules_keep_the_reference_message_settings_shown_by_graphql_alone(api, sample, superuser):
    from inventory.jobs.models import ScheduledJob

    schedules = list(ScheduledJob.objects.order_by("name"))
    assert len(schedules) > 1
    fields = "exchange routing_key headers priority expires expire_seconds"
    data = through_http(api, superuser, f"{{ scheduled_jobs {{ id {fields} }} }}")
    defaults = {
        "exchange": None,
        "routing_key": None,
        "headers": "{}",
        "priority": None,
        "expires": None,
        "expire_seconds": None,
    }
    assert [{k: v for k, v in row.items() if k != "id"} for row in data["scheduled_jobs"]] == [
        defaults
    ] * len(schedules)
    # Values set outside the API (the scheduler's own settings) read back as stored.
    expires = datetime(2027, 1, 2, 3, 4, 5, tzinfo=UTC)
    ScheduledJob.objects.filter(pk=schedules[0].pk).update(
        exchange="jobs",
        routing_key="default",
        headers='{"a": 1}',
        priority=7,
        expires=expires,
        expire_seconds=60,
    )
    data = through_http(api, superuser, f'{{ scheduled_jobs(id: ["{schedules[0].pk}"]) {{ {fields} }} }}')
    [row] = data["scheduled_jobs"]
    assert row == {
        "exchange": "jobs",
        "routing_key": "default",
        "headers": '{"a": 1}',
        "priority": 7,
        "expires": "2027-01-02T03:04:05Z",
        "expire_seconds": 60,
    }
    shown = api.json(f"/api/extras/scheduled-jobs/{schedules[0].pk}/")
    assert shown["name"] == schedules[0].name and not set(defaults) & set(
        shown
    )  # not in REST, as the reference


def test_racks_show_their_natural_sort_key(api, sample, superuser):
    from inventory.dcim.models import Rack

    location = Rack.objects.order_by("name").first().location
    for name in ("R10", "R9"):
        created(api, "/api/dcim/racks/", {"name": name, "location": str(location.pk), "status": "Active"})
    data = through_http(api, superuser, '{ racks(name: ["R10", "R9"]) { name _name } }')
    assert sorted(data["racks"], key=lambda r: r["_name"]) == [
        {"name": "R9", "_name": "R00000009"},
        {"name": "R10", "_name": "R00000010"},
    ]


def test_roots_named_alike_for_one_and_many_are_lists_as_the_reference(api, sample, superuser):
    from inventory.dcim.models import VirtualChassis
    from inventory.extras.models import ObjectMetadata

    stack = VirtualChassis.objects.order_by("name").first()
    data = through_http(
        api,
        superuser,
        """query ($id: ID, $n: [String]) { virtual_chassis(name: $n) { id name } virtual_chassis_count
             one: virtual_chassis_by_id(id: $id) { name }
             object_metadata { id } data_compliance(limit: 1) { id } }""",
        {"id": str(stack.pk), "n": [stack.name]},
    )
    assert data["virtual_chassis"] == [{"id": str(stack.pk), "name": stack.name}]
    assert data["virtual_chassis_count"] == VirtualChassis.objects.count()
    assert data["one"] == {"name": stack.name}
    assert len(data["object_metadata"]) == ObjectMetadata.objects.count() > 0
    assert len(data["data_compliance"]) == 1
    # REST reads one object through the renamed root.
    assert api.json(f"/api/dcim/virtual-chassis/{stack.pk}/")["name"] == stack.name


def test_a_path_end_fanning_out_is_a_boolean_never_null():
    fields = schema.graphql_schema.get_type("CablePathType").fields
    for name in ("origin_fans_out", "destination_fans_out"):
        assert str(fields[name].type) == "Boolean!" and not fields[name].args


def test_type_filters_are_also_named_underscore_type_in_graphql(api, superuser):
    from inventory.dcim.models import Interface

    kinds = sorted(set(Interface.objects.values_list("type", flat=True)))
    assert len(kinds) > 1, "the sample holds interfaces of several types"
    wanted = kinds[0]
    data = through_http(
        api,
        superuser,
        "query ($t: [String]) { a: interfaces(_type: $t) { id } b: interfaces(type: $t) { id } "
        "devices { name interfaces(_type: $t) { id } } }",
        {"t": [wanted]},
    )
    expected = {str(pk) for pk in Interface.objects.filter(type=wanted).values_list("pk", flat=True)}
    assert {row["id"] for row in data["a"]} == {row["id"] for row in data["b"]} == expected
    nested = {row["id"] for device in data["devices"] for row in device["interfaces"]}
    assert nested == expected
    # REST keeps the reference's `type`: `_type` is no filter of its list.
    assert "_type" in api.json("/api/dcim/interfaces/", {"_type": wanted}, status=400)
    assert api.json("/api/dcim/interfaces/", {"type": wanted})["count"] == len(expected)
