"""Relationships (spec §4.9): definitions, associations, `include=relationships` and its writes."""

from __future__ import annotations

import orjson
import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inventory.dcim.models import Device
from inventory.extras.models import Relationship, RelationshipAssociation
from inventory.tenancy.models import Tenant
from inventory.virtualization.models import VirtualMachine

from .conftest import send

BASE = "http://testserver/api/"


def device_path(device) -> str:
    return f"/api/dcim/devices/{device.pk}/"


@pytest.fixture
def leaf(sample):
    return Device.objects.get(name="leaf1")


@pytest.fixture
def machines(sample):
    return [VirtualMachine.objects.get(name="web01"), VirtualMachine.objects.get(name="db01")]


def hosted(device) -> set[str]:
    return {
        str(pk)
        for pk in RelationshipAssociation.objects.filter(
            relationship__key="vm_host", source_id=device.pk
        ).values_list("destination_id", flat=True)
    }


def test_relationships_shown_on_request_in_the_reference_shape(api, leaf, machines):
    plain = api.json(device_path(leaf))
    assert "relationships" not in plain
    body = api.json(device_path(leaf), {"include": "relationships"})
    vm_host = Relationship.objects.get(key="vm_host")
    assert body["relationships"]["vm_host"] == {
        "id": str(vm_host.pk),
        "url": f"{BASE}extras/relationships/{vm_host.pk}/",
        "label": "VM host",
        "type": "one-to-many",
        "destination": {
            "label": "virtual machines",
            "object_type": "virtualization.virtualmachine",
            "objects": [{"id": str(machines[1].pk)}, {"id": str(machines[0].pk)}],  # by name
        },
    }
    blade = Device.objects.get(name=None)
    peers = body["relationships"]["peer_devices"]
    assert peers["type"] == "symmetric-many-to-many"
    assert peers["peer"] == {
        "label": "devices",
        "object_type": "dcim.device",
        "objects": [{"id": str(blade.pk)}],
    }
    # Relationships of other types (tenants) are not a device's.
    assert set(body["relationships"]) == {"vm_host", "peer_devices"}
    # The symmetric relationship applies to active devices only (its filter): a planned one lacks it.
    core = api.json(device_path(Device.objects.get(name="core1")), {"include": "relationships"})
    assert set(core["relationships"]) == {"vm_host"}
    assert core["relationships"]["vm_host"]["destination"]["objects"] == []


def test_the_destination_side_sees_its_source(api, leaf, machines):
    body = api.json(f"/api/virtualization/virtual-machines/{machines[0].pk}/", {"include": "relationships"})
    assert body["relationships"]["vm_host"]["source"] == {
        "label": "device",
        "object_type": "dcim.device",
        "objects": [{"id": str(leaf.pk)}],
    }


def test_depth_nests_the_related_objects(api, leaf, machines):
    body = api.json(device_path(leaf), {"include": "relationships", "depth": 1})
    objects = body["relationships"]["vm_host"]["destination"]["objects"]
    assert [o["display"] for o in objects] == ["db01", "web01"]
    vm = api.json(f"/api/virtualization/virtual-machines/{machines[1].pk}/")
    assert objects[0]["cluster"] == vm["cluster"]  # the nested object's own relations are references
    assert "relationships" not in objects[0] and "tags" not in objects[0]


def test_a_list_includes_them_in_constant_queries(api, sample):
    def queries():
        with CaptureQueriesContext(connection) as captured:
            rows = api.json("/api/dcim/devices/", {"include": "relationships", "limit": 1000})["results"]
        assert all("relationships" in row for row in rows)
        return len(captured)

    queries()  # the first request also loads the per-process definitions cache
    alone = queries()
    # Ten more devices with peers of both kinds, under the same relationships.
    leaf, vm = Device.objects.get(name="leaf1"), VirtualMachine.objects.get(name="db01")
    device_ct, vm_ct = (ContentType.objects.get_for_model(m) for m in (Device, VirtualMachine))
    for number in range(10):
        extra = Device.objects.create(
            name=f"extra{number}",
            device_type=leaf.device_type,
            role=leaf.role,
            status=leaf.status,
            location=leaf.location,
        )
        for key, kind, peer in (("vm_host", vm_ct, vm), ("peer_devices", device_ct, leaf)):
            RelationshipAssociation.objects.create(
                relationship=Relationship.objects.get(key=key),
                source_type=device_ct,
                source_id=extra.pk,
                destination_type=kind,
                destination_id=peer.pk,
            )
    assert queries() == alone


def test_patch_replaces_the_listed_relationships_and_keeps_the_others(api, leaf, machines):
    status, body = send(
        api,
        "patch",
        device_path(leaf),
        {"relationships": {"vm_host": {"destination": {"objects": [str(machines[1].pk)]}}}},
    )
    assert status == 200, body
    assert hosted(leaf) == {str(machines[1].pk)}
    # The write's answer shows the relationships (every optional value, as the reference's does).
    assert body["relationships"]["vm_host"]["destination"]["objects"] == [{"id": str(machines[1].pk)}]
    assert body["relationships"]["peer_devices"]["peer"]["objects"]  # left alone
    assert "config_context" in body and "computed_fields" in body
    # Objects by attributes; an empty list removes every association.
    assert (
        send(
            api,
            "patch",
            device_path(leaf),
            {"relationships": {"vm_host": {"destination": {"objects": [{"name": "web01"}]}}}},
        )[0]
        == 200
    )
    assert hosted(leaf) == {str(machines[0].pk)}
    assert (
        send(
            api, "patch", device_path(leaf), {"relationships": {"vm_host": {"destination": {"objects": []}}}}
        )[0]
        == 200
    )
    assert hosted(leaf) == set()


def test_cardinality_is_enforced(api, leaf, machines):
    core = Device.objects.get(name="core1")
    status, body = send(
        api,
        "patch",
        device_path(core),
        {"relationships": {"vm_host": {"destination": {"objects": [str(machines[0].pk)]}}}},
    )
    assert status == 400
    assert body == {
        "relationships": ["Unable to create more than one VM host association to web01 (destination)"]
    }
    assert hosted(core) == set()
    # A virtual machine has one host: two sources are refused before anything is looked up.
    status, body = send(
        api,
        "patch",
        f"/api/virtualization/virtual-machines/{machines[0].pk}/",
        {"relationships": {"vm_host": {"source": {"objects": [str(leaf.pk), str(core.pk)]}}}},
    )
    assert status == 400
    assert body == {"relationships": ['For "VM host", "source" objects must include at most a single object']}


@pytest.mark.parametrize(
    "given, message",
    [
        ({"nope": {}}, '"nope" is not a relationship on dcim.Device'),
        (
            {"vm_host": {"source": {"objects": []}}},
            '"source" is not a valid side for "VM host" on dcim.Device',
        ),
        (
            {"vm_host": {"destination": {}}},
            '"objects" must be specified under ["vm_host"]["destination"] when present',
        ),
        ({"vm_host": {"destination": {"objects": "x"}}}, '"objects" must be a list, not a single value'),
        (
            {"vm_host": {"destination": {"objects": [{"name": "nothing"}]}}},
            "Related object not found using the provided attributes: name=nothing.",
        ),
    ],
)
def test_bad_relationship_bodies_are_400(api, leaf, given, message):
    before = hosted(leaf)
    assert send(api, "patch", device_path(leaf), {"relationships": given}) == (
        400,
        {"relationships": [message]},
    )
    assert hosted(leaf) == before


def test_a_bulk_write_is_all_or_none_with_relationships(api, leaf, machines):
    core = Device.objects.get(name="core1")
    items = [
        {
            "id": str(core.pk),
            "comments": "changed",
            "relationships": {"vm_host": {"destination": {"objects": []}}},
        },
        {"id": str(leaf.pk), "relationships": {"vm_host": {"destination": {"objects": [{"name": "none"}]}}}},
    ]
    status, body = send(api, "patch", "/api/dcim/devices/", items)
    assert status == 400 and list(body) == ["relationships"]  # the failing object's errors
    assert Device.objects.get(pk=core.pk).comments == "core router"
    assert hosted(leaf) == {str(m.pk) for m in machines}


def test_required_relationships_on_create(api, sample):
    tenant_ct = ContentType.objects.get_for_model(Tenant)
    location_ct = ContentType.objects.get(app_label="dcim", model="location")
    status, _ = send(
        api,
        "post",
        "/api/extras/relationships/",
        {
            "label": "Home site",
            "type": "one-to-one",
            "source_type": "tenancy.tenant",
            "destination_type": "dcim.location",
            "required_on": "source",
        },
    )
    assert status == 201
    status, body = send(api, "post", "/api/tenancy/tenants/", {"name": "Umbrella"})
    assert status == 400
    assert body == {
        "relationships": {
            "home_site": ['You need to specify ["relationships"]["home_site"]["destination"]["objects"].']
        }
    }
    status, body = send(
        api,
        "post",
        "/api/tenancy/tenants/?include=relationships",
        {
            "name": "Umbrella",
            "relationships": {"home_site": {"destination": {"objects": [{"name": "fra2"}]}}},
        },
    )
    assert status == 201, body
    assert body["relationships"]["home_site"]["destination"]["object_type"] == "dcim.location"
    assert RelationshipAssociation.objects.filter(
        source_type=tenant_ct, destination_type=location_ct, source_id=body["id"]
    ).exists()
    # An update that does not touch it keeps what the object has.
    assert send(api, "patch", f"/api/tenancy/tenants/{body['id']}/", {"description": "x"})[0] == 200


def test_deleting_an_object_removes_its_associations(api, leaf, machines):
    gone = machines[0]
    assert RelationshipAssociation.objects.filter(destination_id=gone.pk).exists()
    assert send(api, "delete", f"/api/virtualization/virtual-machines/{gone.pk}/")[0] == 204
    assert not RelationshipAssociation.objects.filter(destination_id=gone.pk).exists()
    assert hosted(leaf) == {str(machines[1].pk)}
    # In bulk too, on either side.
    tenants = list(Tenant.objects.filter(name__in=["Acme", "globex"]))
    assert RelationshipAssociation.objects.filter(relationship__key="affiliates").exists()
    Device.objects.filter(tenant__in=tenants).update(tenant=None)
    status, body = send(api, "delete", "/api/tenancy/tenants/", [{"id": str(t.pk)} for t in tenants])
    if status == 204:
        assert not RelationshipAssociation.objects.filter(relationship__key="affiliates").exists()
    else:  # other objects still hold a tenant: then nothing at all was deleted
        assert (
            status == 409 and RelationshipAssociation.objects.filter(relationship__key="affiliates").exists()
        )


def test_association_endpoint_checks_and_names_its_pairs(api, leaf, machines):
    rows = api.json("/api/extras/relationship-associations/", {"relationship": "vm_host"})["results"]
    assert sorted(r["display"] for r in rows) == ["leaf1 -> db01 - VM host", "leaf1 -> web01 - VM host"]
    assert rows[0]["source_type"] == "dcim.device" and rows[0]["source_id"] == str(leaf.pk)
    peers = api.json("/api/extras/relationship-associations/", {"relationship": "peer_devices"})["results"]
    assert peers[0]["display"].startswith("leaf1 <-> ")
    # The filter takes relationships by key alone: an id is no choice, as the reference answers.
    others = api.json("/api/extras/relationship-associations/", {"relationship__n": "vm_host"})["results"]
    assert others and all(r["relationship"]["id"] != rows[0]["relationship"]["id"] for r in others)
    by_id = Relationship.objects.get(key="vm_host").pk
    for params in ({"relationship": str(by_id)}, {"relationship": ["vm_host", str(by_id)]}):
        assert api.json("/api/extras/relationship-associations/", params, status=400) == {
            "relationship": [f"Select a valid choice. {by_id} is not one of the available choices."]
        }
    core = Device.objects.get(name="core1")
    body = {
        "relationship": "vm_host",
        "source_type": "dcim.device",
        "source_id": str(core.pk),
        "destination_type": "virtualization.virtualmachine",
        "destination_id": str(machines[0].pk),
    }
    status, errors = send(api, "post", "/api/extras/relationship-associations/", body)
    assert status == 400
    assert errors == {
        "destination": ["Unable to create more than one VM host association to web01 (destination)"]
    }
    status, errors = send(
        api, "post", "/api/extras/relationship-associations/", {**body, "source_type": "dcim.location"}
    )
    assert status == 400 and errors == {
        "source_type": ["source_type has a different value than defined in VM host"]
    }
    status, errors = send(
        api, "post", "/api/extras/relationship-associations/", {**body, "destination_id": str(core.pk)}
    )
    assert status == 400 and list(errors) == ["destination_id"]
    # A planned device is outside the symmetric relationship's filter.
    status, errors = send(
        api,
        "post",
        "/api/extras/relationship-associations/",
        {
            "relationship": "peer_devices",
            "source_type": "dcim.device",
            "source_id": str(leaf.pk),
            "destination_type": "dcim.device",
            "destination_id": str(core.pk),
        },
    )
    assert status == 400 and errors == {
        "destination": ["core1 violates Peer devices destination_filter restriction"]
    }


def test_definitions_are_validated(api, sample):
    base = {"label": "Links", "type": "symmetric-many-to-many", "source_type": "dcim.device"}
    status, errors = send(
        api, "post", "/api/extras/relationships/", {**base, "destination_type": "dcim.location"}
    )
    assert status == 400 and errors == {
        "destination_type": ["Must match source_type for a symmetric relationship"]
    }
    status, errors = send(
        api,
        "post",
        "/api/extras/relationships/",
        {**base, "destination_type": "dcim.device", "source_filter": {"nosuch": "x", "status": "Nope"}},
    )
    assert status == 400
    assert errors == {
        "source_filter": [
            "'nosuch' is not a valid filter parameter for dcim.Device object",
            "'status': Select a valid choice. Nope is not one of the available choices.",
        ]
    }
    status, body = send(
        api, "post", "/api/extras/relationships/", {**base, "destination_type": "dcim.device"}
    )
    assert status == 201 and body["key"] == "links" and body["destination_filter"] is None
    vm_host = Relationship.objects.get(key="vm_host")
    status, errors = send(api, "patch", f"/api/extras/relationships/{vm_host.pk}/", {"type": "many-to-many"})
    assert status == 400
    assert errors == {
        "__all__": [
            "Not supported to change the type of the relationship when some associations are present in the "
            "database, delete all associations first before modifying the type."
        ]
    }


def test_graphql_reads_them_too(api, leaf, machines):
    query = f'{{ device(id: "{leaf.pk}") {{ name relationships }} }}'
    response = api.post("/api/graphql/", {"query": query})
    data = orjson.loads(response.content)["data"]["device"]
    assert [o["id"] for o in data["relationships"]["vm_host"]["destination"]["objects"]] == [
        str(machines[1].pk),
        str(machines[0].pk),
    ]
