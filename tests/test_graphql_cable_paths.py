"""Cable paths in GraphQL as the reference's schema shows them: CablePathType (root `cable_path`
and `cable_paths`, an endpoint's `path` and `cable_paths`), a cable end's `cable_peer` and
`connected_endpoint` as unions read with fragments, and lists under the reference's names; each
through /api/graphql/, answered by the compiled plan exactly as by the generic executor."""

from __future__ import annotations

import pytest
from django.contrib.contenttypes.models import ContentType

from inventory.dcim.models import Interface, Rack, RackReservation
from inventory.dcim.models.paths import CablePath
from inventory.extras.models import Tag
from inventory.virtualization.models import VMInterface

from .test_graphql import post
from .test_graphql_generic import through_http

pytestmark = pytest.mark.usefixtures("shared_sample")

PATH_FIELDS = """id origin_type { app_label model } origin_id destination_type { app_label model } destination_id path is_active is_split
                 peer_connector origin_fans_out destination_fans_out url"""


def traced_pair() -> tuple[Interface, Interface]:
    near = Interface.objects.get(device__name="leaf1", name="Ethernet2")
    far = Interface.objects.get(device__name="core1", name="xe-0/0/0")
    assert near.cable_id is not None and near.cable_id == far.cable_id
    return near, far


def test_an_interface_shows_the_path_it_starts_and_its_cable_paths(api, superuser):
    near, far = traced_pair()
    stored = CablePath.objects.get(pk=near._path_id)
    data = through_http(
        api,
        superuser,
        f"""{{ interfaces(id: ["{near.pk}", "{far.pk}"]) {{
                 name path {{ {PATH_FIELDS} }} cable_paths {{ id is_active }} }} }}""",
    )
    rows = {row["name"]: row for row in data["interfaces"]}
    path = rows["Ethernet2"]["path"]
    assert path == {
        "id": str(stored.pk),
        "origin_type": {"app_label": "dcim", "model": "interface"},
        "origin_id": str(near.pk),
        "destination_type": {"app_label": "dcim", "model": "interface"},
        "destination_id": str(far.pk),
        "path": [f"dcim.interface:{near.pk}", f"dcim.cable:{near.cable_id}", f"dcim.interface:{far.pk}"],
        "is_active": stored.is_active,
        "is_split": False,
        "peer_connector": 1,
        "origin_fans_out": False,
        "destination_fans_out": False,
        "url": None,  # read through GraphQL alone
    }
    # Each end's path starts at it: the far end's runs the other way.
    assert rows["xe-0/0/0"]["path"]["origin_id"] == str(far.pk)
    assert rows["xe-0/0/0"]["path"]["destination_id"] == str(near.pk)
    for row, end in ((rows["Ethernet2"], near), (rows["xe-0/0/0"], far)):
        held = CablePath.objects.filter(
            origin_type=ContentType.objects.get_for_model(Interface), origin_id=end.pk
        ).values_list("pk", "is_active")
        assert [(p["id"], p["is_active"]) for p in row["cable_paths"]] == [(str(pk), a) for pk, a in held]


def test_root_fields_list_and_find_cable_paths(api, superuser):
    near, _ = traced_pair()
    data = through_http(
        api,
        superuser,
        f"""{{ cable_path(id: "{near._path_id}") {{ id origin_id destination_id }}
               cable_paths(limit: 500) {{ id origin_type {{ model }} }} cable_paths_count }}""",
    )
    assert data["cable_path"]["origin_id"] == str(near.pk)
    assert {p["id"] for p in data["cable_paths"]} == {
        str(pk) for pk in CablePath.objects.values_list("pk", flat=True)
    }
    assert data["cable_paths_count"] == CablePath.objects.count() > 0
    # No REST route serves them (the reference has none).
    assert api.get("/api/dcim/cable-paths/").status_code == 404


def test_peers_and_endpoints_are_unions_read_with_fragments(api, superuser):
    near, far = traced_pair()
    query = f"""{{ interfaces(id: ["{near.pk}"]) {{
        cable_peer {{ ... on InventoryObject {{ id object_type }} ... on InterfaceType {{ name device {{ name }} }} }}
        connected_endpoint {{ __typename ... on InterfaceType {{ name }} ... on ConsolePortType {{ id }} }}
        peer_only: cable_peer {{ ... on InventoryObject {{ id url }} }}
        front: cable_peer {{ ... on FrontPortType {{ name }} }} }} }}"""
    [row] = through_http(api, superuser, query)["interfaces"]
    assert row["cable_peer"] == {
        "id": str(far.pk),
        "object_type": "dcim.interface",
        "name": "xe-0/0/0",
        "device": {"name": "core1"},
    }
    assert row["connected_endpoint"] == {"__typename": "InterfaceType", "name": "xe-0/0/0"}
    assert row["peer_only"] == {"id": str(far.pk), "url": f"http://testserver/api/dcim/interfaces/{far.pk}/"}
    assert row["front"] == {}  # of another type: none of its fields
    # A union has no fields of its own: they are read in fragments, as the reference's.
    body = post(api, "{ interfaces { cable_peer { id } } }", status=400)
    assert "Cannot query field 'id' on type 'CableTerminationTypes'" in body["errors"][0]["message"]


def test_lists_under_the_reference_names(api, superuser):
    rack = Rack.objects.filter(reservations__isnull=False).first() or Rack.objects.first()
    if not RackReservation.objects.filter(rack=rack).exists():
        RackReservation.objects.create(rack=rack, units=[1], user=superuser, description="held")
    parent = VMInterface.objects.order_by("name").first()
    child = VMInterface.objects.exclude(pk=parent.pk).filter(virtual_machine=parent.virtual_machine).first()
    child = child or VMInterface.objects.create(
        virtual_machine=parent.virtual_machine, name="probe0", status=parent.status
    )
    VMInterface.objects.filter(pk=child.pk).update(parent_interface=parent)
    interface_type = ContentType.objects.get_for_model(Interface)
    tag = Tag.objects.create(name="on interfaces")
    tag.content_types.add(interface_type)
    data = through_http(
        api,
        superuser,
        f"""{{ rack(id: "{rack.pk}") {{ rack_reservations {{ id }} }}
               vm_interface(id: "{parent.pk}") {{ child_interfaces {{ name }} }}
               content_type(id: {interface_type.pk}) {{ tags {{ name }} }} }}""",
    )
    held = RackReservation.objects.filter(rack=rack).values_list("pk", flat=True)
    assert {r["id"] for r in data["rack"]["rack_reservations"]} == {str(pk) for pk in held}
    assert data["vm_interface"]["child_interfaces"] == [{"name": child.name}]
    names = {t["name"] for t in data["content_type"]["tags"]}
    assert "on interfaces" in names
    assert names == set(Tag.objects.filter(content_types=interface_type).values_list("name", flat=True))
