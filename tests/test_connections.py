"""The connection lists, the connected-device lookup and generic relations nested by depth."""

from __future__ import annotations

import json

from inventory.dcim.models import (
    ConsolePort,
    ConsoleServerPort,
    Device,
    FrontPort,
    Interface,
    PowerFeed,
    PowerOutlet,
    PowerPort,
    RearPort,
)

from .test_paths import new_device, reaches, send, unconnected, wire

# Keys of the reference server's answers (Nautobot 3.2.7 captures 085 and 026).
INTERFACE_KEYS = [
    "id",
    "object_type",
    "display",
    "url",
    "cable",
    "cable_peer_type",
    "cable_peer",
    "natural_slug",
    "connected_endpoint_type",
    "connected_endpoint",
    "connected_endpoint_reachable",
    "type",
    "port_type",
    "mode",
    "mac_address",
    "speed",
    "duplex",
    "name",
    "label",
    "description",
    "enabled",
    "mtu",
    "mgmt_only",
    "breakout_position",
    "device",
    "module",
    "status",
    "role",
    "parent_interface",
    "bridge",
    "lag",
    "untagged_vlan",
    "vrf",
    "created",
    "last_updated",
    "notes_url",
    "custom_fields",
]
REFERENCE_CONNECTION = dict.fromkeys(
    ["id", "object_type", "display", "interface_a", "interface_b", "connected_endpoint_reachable"]
)
REFERENCE_CONNECTION["interface_a"] = REFERENCE_CONNECTION["interface_b"] = dict.fromkeys(
    [*INTERFACE_KEYS, "tags"]
)
REFERENCE_CABLE_END = dict.fromkeys([*INTERFACE_KEYS, "generic_foreign_key"])


def test_interface_connections_list_each_pair_once(api, sample):
    leaf, core = (
        Interface.objects.get(device__name="leaf1", name="Ethernet2"),
        Interface.objects.get(name="xe-0/0/0"),
    )
    lower, upper = sorted((leaf, core), key=lambda i: str(i.pk))
    page = api.json("/api/dcim/interface-connections/")
    assert page["count"] == 1
    row = page["results"][0]
    expected = REFERENCE_CONNECTION
    assert row.keys() == expected.keys()
    assert row["id"] == str(lower._path_id)
    assert row["object_type"] == "dcim.cablepath"
    assert row["display"] == f"Path #{lower._path_id}: {lower.name} to {upper.name} via 1 nodes (active)"
    assert (row["interface_a"]["id"], row["interface_b"]["id"]) == (str(lower.pk), str(upper.pk))
    assert row["connected_endpoint_reachable"] is True
    # Each end is the interface as the reference shows it: every field, its tags too.
    for end in ("interface_a", "interface_b"):
        assert row[end].keys() == expected[end].keys(), end
    assert isinstance(row["interface_a"]["tags"], list)
    assert row["interface_b"]["connected_endpoint"]["id"] == str(lower.pk)
    # The reference (3.2, its list of paths) lists a connection when either end matches.
    assert api.json("/api/dcim/interface-connections/", {"device": lower.device.name})["count"] == 1
    assert api.json("/api/dcim/interface-connections/", {"device_id": str(upper.device_id)})["count"] == 1
    assert api.json("/api/dcim/interface-connections/", {"device": "spine9"}, status=400).keys() == {"device"}
    assert api.json("/api/dcim/interface-connections/", {"location": "AMS1"})["count"] == 1
    bad = api.get("/api/dcim/interface-connections/", {"name": "x"})
    assert bad.status_code == 400 and json.loads(bad.content) == {"name": ["Unknown filter field"]}
    deeper = api.json("/api/dcim/interface-connections/", {"depth": 1})["results"][0]
    assert "display" in deeper["interface_a"]["device"]


def test_console_connections_list_ports_with_a_far_end(api, sample):
    console = ConsolePort.objects.get(device__name="leaf1")
    page = api.json("/api/dcim/console-connections/")
    assert [row["id"] for row in page["results"]] == [str(console.pk)]
    assert page["results"][0] == api.json(f"/api/dcim/console-ports/{console.pk}/")
    assert api.json("/api/dcim/console-connections/", {"device": "leaf1"})["count"] == 1
    assert api.json("/api/dcim/console-connections/", {"device": "core1"})["count"] == 0
    assert api.json("/api/dcim/power-connections/")["count"] == 0
    root = api.json("/api/dcim/")
    for route in ("console-connections", "power-connections", "interface-connections", "connected-device"):
        assert root[route].endswith(f"/api/dcim/{route}/")
    assert api.client.post("/api/dcim/console-connections/", {}).status_code == 405


def test_console_chain_through_patch_panels(api, sample):
    """console port -- front1 [A] rear1 == rear1 [B] front1 -- console server port."""
    x, y, a, b = (new_device(api, name) for name in ("x", "y", "panel-a", "panel-b"))
    console, server = ConsolePort.objects.get(device=x), ConsoleServerPort.objects.get(device=y)
    wire(api, console, FrontPort.objects.get(device=a, name="front1"))
    trunk = wire(api, RearPort.objects.get(device=a), RearPort.objects.get(device=b))
    wire(api, FrontPort.objects.get(device=b, name="front1"), server)
    reaches(api, console, server)
    reaches(api, server, console)
    listed = api.json("/api/dcim/console-connections/", {"device": x.name})["results"]
    assert [row["connected_endpoint"]["id"] for row in listed] == [str(server.pk)]
    assert send(api, "delete", f"/api/dcim/cables/{trunk}/") == (204, None)
    unconnected(api, console)
    assert api.json("/api/dcim/console-connections/", {"device": x.name})["count"] == 0


def test_power_chains_from_outlets_and_feeds(api, sample):
    x, y = new_device(api, "x"), new_device(api, "y")
    inlet, outlet = PowerPort.objects.get(device=x), PowerOutlet.objects.get(device=y)
    cable = wire(api, outlet, inlet)
    body = api.json(f"/api/dcim/power-ports/{inlet.pk}/")
    assert (body["connected_endpoint_type"], body["connected_endpoint"]["id"]) == (
        "dcim.poweroutlet",
        str(outlet.pk),
    )
    assert api.json(f"/api/dcim/power-outlets/{outlet.pk}/")["connected_endpoint"]["id"] == str(inlet.pk)
    feed = PowerFeed.objects.get(name="feed A")
    other = PowerPort.objects.get(device=y)
    wire(api, feed, other)
    assert api.json(f"/api/dcim/power-feeds/{feed.pk}/")["connected_endpoint"]["id"] == str(other.pk)
    listed = api.json("/api/dcim/power-connections/")["results"]
    assert {row["id"] for row in listed} == {str(inlet.pk), str(other.pk)}
    assert send(api, "delete", f"/api/dcim/cables/{cable}/") == (204, None)
    assert api.json(f"/api/dcim/power-ports/{inlet.pk}/")["connected_endpoint"] is None
    assert {row["id"] for row in api.json("/api/dcim/power-connections/")["results"]} == {str(other.pk)}
    refused = send(
        api,
        "post",
        "/api/dcim/cables/",
        {
            "termination_a_type": "dcim.powerport",
            "termination_a_id": str(inlet.pk),
            "termination_b_type": "dcim.interface",
            "termination_b_id": str(Interface.objects.get(device=x, name="Ethernet1").pk),
            "status": "Connected",
        },
    )
    assert refused[0] == 400 and "termination_b_type" in refused[1]


def test_connected_device(api, sample):
    leaf = Device.objects.get(name="leaf1")
    found = api.json("/api/dcim/connected-device/", {"peer_device": "core1", "peer_interface": "xe-0/0/0"})
    assert found == api.json(f"/api/dcim/devices/{leaf.pk}/")
    lonely = api.get("/api/dcim/connected-device/", {"peer_device": "leaf1", "peer_interface": "Ethernet1"})
    assert (lonely.status_code, lonely.content) == (200, b"")
    missing = api.get("/api/dcim/connected-device/", {"peer_device": "leaf1"})
    assert missing.status_code == 400
    assert json.loads(missing.content) == {
        "detail": 'Request must include "peer_device" and "peer_interface" filters.'
    }
    unknown = api.get("/api/dcim/connected-device/", {"peer_device": "leaf1", "peer_interface": "nope"})
    assert unknown.status_code == 404


def test_generic_relations_nest_by_depth(api, sample):
    leaf = Interface.objects.get(device__name="leaf1", name="Ethernet2")
    cable = api.json(f"/api/dcim/cables/{leaf.cable_id}/", {"depth": 1})
    expected = REFERENCE_CABLE_END
    end = cable["termination_a"] if cable["termination_a"]["id"] == str(leaf.pk) else cable["termination_b"]
    assert end["id"] == str(leaf.pk) and end["display"] == leaf.name
    assert end.keys() <= expected.keys() and expected.keys() - end.keys() <= {"natural_slug"}
    assert end["generic_foreign_key"] is True
    # Inside the nested end, references stay references.
    assert set(end["device"]) == {"id", "object_type", "url"}
    assert set(end["cable_peer"]) == {"id", "object_type", "url"}
    interface = api.json(f"/api/dcim/interfaces/{leaf.pk}/", {"depth": 1})
    assert interface["connected_endpoint"]["name"] == "xe-0/0/0"
    assert interface["cable_peer"] == interface["connected_endpoint"]
    # A cable end's cable nests as the reference's does: marked, its connectors at the top only.
    assert interface["cable"]["generic_foreign_key"] is True and "terminations" not in interface["cable"]
    assert interface["cable"]["total_lanes"] == 1
    assert "generic_foreign_key" not in interface["device"]
    assert "terminations" in cable and "generic_foreign_key" not in cable
    assert set(api.json(f"/api/dcim/interfaces/{leaf.pk}/")["connected_endpoint"]) == {
        "id",
        "object_type",
        "url",
    }


def ends(a, b) -> dict:
    return {
        "termination_a_type": f"{a._meta.app_label}.{a._meta.model_name}",
        "termination_a_id": str(a.pk),
        "termination_b_type": f"{b._meta.app_label}.{b._meta.model_name}",
        "termination_b_id": str(b.pk),
        "status": "Connected",
    }


def test_bulk_cables_trace_whole_chains_in_one_request(api, sample):
    x, y, a, b = (new_device(api, name) for name in ("x", "y", "panel-a", "panel-b"))
    x1, y1 = (
        Interface.objects.get(device=x, name="Ethernet1"),
        Interface.objects.get(device=y, name="Ethernet1"),
    )
    chain = [
        ends(x1, FrontPort.objects.get(device=a, name="front1")),
        ends(RearPort.objects.get(device=a), RearPort.objects.get(device=b)),
        ends(FrontPort.objects.get(device=b, name="front1"), y1),
    ]
    # One bad item: nothing is written, no path changes.
    bad = [*chain, ends(x1, Interface.objects.get(device=y, name="Ethernet2"))]
    code, errors = send(api, "post", "/api/dcim/cables/", bad)
    assert code == 400 and errors[:3] == [{}, {}, {}] and errors[3]
    unconnected(api, x1)
    code, created = send(api, "post", "/api/dcim/cables/", chain)
    assert code == 201 and len(created) == 3
    reaches(api, x1, y1)
    reaches(api, y1, x1)
    # The response is read after the paths were traced.
    rows = api.json("/api/dcim/interfaces/", {"id": [str(x1.pk), str(y1.pk)], "depth": 1})["results"]
    assert {row["connected_endpoint"]["name"] for row in rows} == {"Ethernet1"}
    code, _ = send(api, "delete", "/api/dcim/cables/", [{"id": created[0]["id"]}, {"id": created[2]["id"]}])
    assert code == 204
    unconnected(api, x1)
    unconnected(api, y1)
