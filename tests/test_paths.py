"""Cable paths: where each endpoint's signal arrives, kept current as the cabling changes."""

from __future__ import annotations

import orjson

from inventory.circuits.models import Circuit
from inventory.dcim.models import ConsolePort, Device, DeviceType, FrontPort, Interface, Location, RearPort
from inventory.dcim.models.paths import peer_of

CABLES = "/api/dcim/cables/"


def send(api, method: str, path: str, body=None):
    data = orjson.dumps(body) if body is not None else ""
    response = getattr(api.client, method)(path, data, content_type="application/json")
    return response.status_code, orjson.loads(response.content) if response.content else None


def wire(api, a, b, status="Connected") -> str:
    body = {
        "termination_a_type": f"{a._meta.app_label}.{a._meta.model_name}",
        "termination_a_id": str(a.pk),
        "termination_b_type": f"{b._meta.app_label}.{b._meta.model_name}",
        "termination_b_id": str(b.pk),
        "status": status,
    }
    code, cable = send(api, "post", CABLES, body)
    assert code == 201, cable
    return cable["id"]


def shown(api, obj) -> dict:
    route = {
        "interface": "dcim/interfaces",
        "consoleport": "dcim/console-ports",
        "consoleserverport": "dcim/console-server-ports",
        "circuittermination": "circuits/circuit-terminations",
    }
    return api.json(f"/api/{route[obj._meta.model_name]}/{obj.pk}/")


def reaches(api, origin, far, reachable=True) -> None:
    body = shown(api, origin)
    assert body["connected_endpoint"] is not None, body
    assert body["connected_endpoint"]["id"] == str(far.pk)
    assert body["connected_endpoint_type"] == f"{far._meta.app_label}.{far._meta.model_name}"
    assert body["connected_endpoint_reachable"] is reachable


def unconnected(api, origin) -> None:
    """No far end: reachable is null without a cable (no path), false with one (incomplete)."""
    body = shown(api, origin)
    cabled = type(origin).objects.get(pk=origin.pk).cable_id is not None
    assert (
        body["connected_endpoint"],
        body["connected_endpoint_type"],
        body["connected_endpoint_reachable"],
    ) == (None, None, False if cabled else None)


def new_device(api, name: str) -> Device:
    body = {
        "name": name,
        "device_type": str(DeviceType.objects.get(model="L48").pk),
        "role": "leaf",
        "status": "Active",
        "location": "AMS1",
    }
    code, device = send(
        api, "post", "/api/dcim/devices/", {**body, "location": str(Location.objects.get(name="AMS1").pk)}
    )
    assert code == 201, device
    return Device.objects.get(pk=device["id"])


def test_interface_to_interface(api, sample):
    leaf, core = (
        Interface.objects.get(device__name="leaf1", name="Ethernet2"),
        Interface.objects.get(name="xe-0/0/0"),
    )
    reaches(api, leaf, core)
    reaches(api, core, leaf)
    unconnected(api, Interface.objects.get(device__name="leaf1", name="Ethernet1"))


def test_planned_cables_are_not_reachable(api, sample):
    console = ConsolePort.objects.get(device__name="leaf1")
    reaches(api, console, peer_of(console), reachable=False)


def test_through_patch_panels_and_back(api, sample):
    """X -- front2 [panel A] rear1 ==== rear1 [panel B] front2 -- Y, position 2 on both sides."""
    x, y, a, b = (new_device(api, name) for name in ("x", "y", "panel-a", "panel-b"))
    x1, y1 = (
        Interface.objects.get(device=x, name="Ethernet1"),
        Interface.objects.get(device=y, name="Ethernet1"),
    )
    wire(api, x1, FrontPort.objects.get(device=a, name="front2"))
    unconnected(api, x1)  # the path stops at panel A's rear port
    trunk = wire(api, RearPort.objects.get(device=a), RearPort.objects.get(device=b))
    wire(api, FrontPort.objects.get(device=b, name="front2"), y1)
    reaches(api, x1, y1)
    reaches(api, y1, x1)
    other = Interface.objects.get(device=x, name="Ethernet2")
    wire(api, other, FrontPort.objects.get(device=a, name="front1"))
    unconnected(api, other)  # position 1 on panel B leads nowhere
    assert send(api, "delete", f"{CABLES}{trunk}/") == (204, None)
    unconnected(api, x1)
    unconnected(api, y1)
    wire(api, RearPort.objects.get(device=a), RearPort.objects.get(device=b), status="Planned")
    reaches(api, x1, y1, reachable=False)
    front = FrontPort.objects.get(device=b, name="front2")
    code, _ = send(api, "patch", f"/api/dcim/front-ports/{front.pk}/", {"rear_port_position": 2})
    assert code == 200
    reaches(api, y1, x1, reachable=False)


def test_through_a_circuit(api, sample):
    model = Circuit.objects.get(cid="TEL-1001")
    code, circuit = send(
        api,
        "post",
        "/api/circuits/circuits/",
        {
            "cid": "WAN-1",
            "provider": str(model.provider_id),
            "circuit_type": str(model.circuit_type_id),
            "status": "Active",
        },
    )
    assert code == 201
    x, y = new_device(api, "x"), new_device(api, "y")
    x1, y1 = (
        Interface.objects.get(device=x, name="Ethernet1"),
        Interface.objects.get(device=y, name="Ethernet1"),
    )
    terminations = "/api/circuits/circuit-terminations/"
    code, a = send(
        api, "post", terminations, {"circuit": circuit["id"], "term_side": "A", "location": "AMS1"}
    )
    assert code == 201
    a_end = model.circuit_terminations.model.objects.get(pk=a["id"])
    wire(api, x1, a_end)
    reaches(api, x1, a_end)
    code, z = send(
        api, "post", terminations, {"circuit": circuit["id"], "term_side": "Z", "location": "fra2"}
    )
    assert code == 201
    z_end = model.circuit_terminations.model.objects.get(pk=z["id"])
    # A circuit without a far end ends at its termination; with an uncabled one it is incomplete.
    assert {k: v for k, v in shown(api, x1).items() if k.startswith("connected_endpoint")} == {
        "connected_endpoint": None,
        "connected_endpoint_type": None,
        "connected_endpoint_reachable": False,
    }
    # The trace goes on across the circuit: its far termination, alone.
    trace = api.json(f"/api/dcim/interfaces/{x1.pk}/trace/")
    assert [[part and part["id"] for part in segment] for segment in trace] == [
        [str(x1.pk), trace[0][1]["id"], str(a_end.pk)],
        [str(z_end.pk), None, None],
    ]
    wire(api, z_end, y1)
    reaches(api, x1, y1)
    reaches(api, y1, x1)
    assert send(api, "delete", f"{terminations}{z['id']}/") == (204, None)
    reaches(api, x1, a_end)  # the circuit now ends at its A side
    unconnected(api, y1)


def test_deleting_an_endpoint_clears_the_far_end(api, sample):
    leaf, core = (
        Interface.objects.get(device__name="leaf1", name="Ethernet2"),
        Interface.objects.get(name="xe-0/0/0"),
    )
    assert send(api, "delete", f"/api/dcim/interfaces/{core.pk}/") == (204, None)
    unconnected(api, leaf)


def test_trace_lists_each_cable_with_its_ends(api, sample):
    x, y, a, b = (new_device(api, name) for name in ("x", "y", "panel-a", "panel-b"))
    x1, y1 = (
        Interface.objects.get(device=x, name="Ethernet1"),
        Interface.objects.get(device=y, name="Ethernet1"),
    )
    first = wire(api, x1, FrontPort.objects.get(device=a, name="front1"))
    trunk = wire(api, RearPort.objects.get(device=a), RearPort.objects.get(device=b))
    last = wire(api, FrontPort.objects.get(device=b, name="front1"), y1)
    segments = api.json(f"/api/dcim/interfaces/{x1.pk}/trace/")
    assert [[part and part["object_type"] for part in segment] for segment in segments] == [
        ["dcim.interface", "dcim.cable", "dcim.frontport"],
        ["dcim.rearport", "dcim.cable", "dcim.rearport"],
        ["dcim.frontport", "dcim.cable", "dcim.interface"],
    ]
    assert [segment[1]["id"] for segment in segments] == [first, trunk, last]
    # Ends as at depth 0 without derived counts; cables in the reference's traced form.
    detail = api.json(f"/api/dcim/interfaces/{x1.pk}/")
    del detail["ip_address_count"]
    assert segments[0][0] == detail
    assert segments[-1][2]["id"] == str(y1.pk)
    cable = segments[0][1]
    assert cable.keys() - {"natural_slug"} == {
        *("id", "object_type", "display", "url", "type", "label", "color", "length", "length_unit"),
        *("cable_type", "status", "created", "last_updated"),
    }
    assert (cable["type"], cable["length_unit"]) == ("", "")
    lonely = Interface.objects.get(device=x, name="Ethernet2")
    assert api.json(f"/api/dcim/interfaces/{lonely.pk}/trace/") == []
    assert (
        api.client.get("/api/dcim/interfaces/00000000-0000-4000-8000-000000000000/trace/").status_code == 404
    )
    console = ConsolePort.objects.get(device__name="leaf1")
    assert len(api.json(f"/api/dcim/console-ports/{console.pk}/trace/")) == 1


def test_paths_through_a_patch_panel(api, sample):
    x, y, a, b = (new_device(api, name) for name in ("x", "y", "panel-a", "panel-b"))
    x1, y1 = (
        Interface.objects.get(device=x, name="Ethernet1"),
        Interface.objects.get(device=y, name="Ethernet1"),
    )
    wire(api, x1, FrontPort.objects.get(device=a, name="front1"))
    wire(api, RearPort.objects.get(device=a), RearPort.objects.get(device=b))
    wire(api, FrontPort.objects.get(device=b, name="front1"), y1)
    rear = RearPort.objects.get(device=a)
    paths = api.json(f"/api/dcim/rear-ports/{rear.pk}/paths/")
    assert {(p["origin"]["id"], p["destination"]["id"]) for p in paths} == {
        (str(x1.pk), str(y1.pk)),
        (str(y1.pk), str(x1.pk)),
    }
    forward = next(p for p in paths if p["origin"]["id"] == str(x1.pk))
    assert forward["origin_type"] == "dcim.interface" and forward["destination_type"] == "dcim.interface"
    assert [hop["object_type"] for hop in forward["path"]] == [
        "dcim.cable",
        "dcim.frontport",
        "dcim.rearport",
        "dcim.cable",
        "dcim.rearport",
        "dcim.frontport",
        "dcim.cable",
    ]
    assert forward["is_active"] is True and forward["is_split"] is False
    assert (forward["origin_id"], forward["destination_id"]) == (str(x1.pk), str(y1.pk))
    assert forward["peer_connector"] == 1
    assert forward["origin_fans_out"] is False and forward["destination_fans_out"] is False
    front = FrontPort.objects.get(device=b, name="front2")
    assert api.json(f"/api/dcim/front-ports/{front.pk}/paths/") == []
    assert api.client.get(f"/api/dcim/interfaces/{x1.pk}/paths/").status_code == 404
