"""Cables through the HTTP stack: ends, what each end shows, refusals, deletions."""

from __future__ import annotations

import orjson

from inventory.circuits.models import CircuitTermination
from inventory.dcim.models import Cable, Device, FrontPort, Interface, PowerPort

CABLES = "/api/dcim/cables/"
INTERFACES = "/api/dcim/interfaces/"


def send(api, method: str, path: str, body=None):
    data = orjson.dumps(body) if body is not None else ""
    response = getattr(api.client, method)(path, data, content_type="application/json")
    return response.status_code, orjson.loads(response.content) if response.content else None


def between(a, b, **fields) -> dict:
    return {
        "termination_a_type": f"dcim.{a._meta.model_name}",
        "termination_a_id": str(a.pk),
        "termination_b_type": f"dcim.{b._meta.model_name}",
        "termination_b_id": str(b.pk),
        "status": "Connected",
        **fields,
    }


def port(device: str, name: str) -> Interface:
    return Interface.objects.get(device__name=device, name=name)


def test_a_cable_shows_on_both_ends(api, sample):
    a, b = port("leaf1", "Ethernet10"), port("leaf1", "Management1")
    status, cable = send(api, "post", CABLES, between(a, b, type="cat6", length=2, length_unit="m"))
    assert status == 201, cable
    assert cable["termination_a"] == {
        "id": str(a.pk),
        "object_type": "dcim.interface",
        "url": f"http://testserver/api/dcim/interfaces/{a.pk}/",
    }
    assert cable["type"] == {"value": "cat6", "label": "CAT6"} and cable["display"] == f"#{cable['id']}"
    shown = api.json(f"{INTERFACES}{a.pk}/")
    assert shown["cable"]["id"] == cable["id"]
    assert shown["cable_peer_type"] == "dcim.interface" and shown["cable_peer"]["id"] == str(b.pk)
    assert api.json(f"{INTERFACES}{b.pk}/")["cable_peer"]["id"] == str(a.pk)
    free = api.json(f"{INTERFACES}{port('leaf1', 'Ethernet1').pk}/")
    assert (free["cable"], free["cable_peer"], free["cable_peer_type"]) == (None, None, None)


def test_circuit_terminations_and_console_ports_are_cabled_too(api, sample):
    termination = CircuitTermination.objects.get(circuit__cid="TEL-1001", term_side="A")
    shown = api.json(f"/api/circuits/circuit-terminations/{termination.pk}/")
    front = FrontPort.objects.get(device__name="core1")
    assert shown["cable_peer_type"] == "dcim.frontport" and shown["cable_peer"]["id"] == str(front.pk)
    assert api.json(f"/api/dcim/front-ports/{front.pk}/")["cable_peer_type"] == "circuits.circuittermination"
    consoles = api.json("/api/dcim/console-ports/", {"device": "leaf1"})["results"]
    assert consoles[0]["cable_peer_type"] == "dcim.consoleserverport"


def test_an_end_already_cabled_answers_as_the_reference(api, sample):
    taken, free = port("leaf1", "Ethernet2"), port("leaf1", "Ethernet10")
    status, errors = send(api, "post", CABLES, between(taken, free))
    assert status == 400
    assert errors == {
        "terminations": {
            "a": {"1": {"interface": ["cable to cable termination with this interface already exists."]}}
        }
    }
    assert Cable.objects.filter(termination_a_id=free.pk).count() == 0


def test_refused_ends(api, sample):
    a = port("leaf1", "Ethernet10")
    lag = port("leaf1", "bond0")
    status, errors = send(api, "post", CABLES, between(a, lag))
    assert status == 400 and errors == {
        "termination_b_id": ["Cables cannot be terminated to Link Aggregation Group (LAG) interfaces"]
    }
    power = PowerPort.objects.get(device__name="leaf1")
    status, errors = send(api, "post", CABLES, between(a, power))
    assert status == 400 and errors == {
        "termination_b_type": ["Incompatible termination types: interface and powerport"]
    }
    status, errors = send(api, "post", CABLES, between(a, a))
    assert status == 400 and errors == {"termination_b_id": ["Cannot connect a termination to itself"]}
    body = between(a, port("leaf1", "Management1"))
    body["termination_b_type"] = "dcim.device"
    body["termination_b_id"] = str(Device.objects.get(name="core1").pk)
    status, errors = send(api, "post", CABLES, body)
    assert status == 400 and errors == {"termination_b_type": ["Cables cannot be connected to dcim.device."]}
    status, errors = send(api, "post", CABLES, {**between(a, port("leaf1", "Management1")), "length": 5})
    assert status == 400 and errors == {"length_unit": ["Must specify a unit when setting a cable length"]}


def test_ends_cannot_be_changed(api, sample):
    cable = Cable.objects.get(label="L-100")
    status, errors = send(
        api, "patch", f"{CABLES}{cable.pk}/", {"termination_b_id": str(port("leaf1", "Ethernet10").pk)}
    )
    assert status == 400 and "__all__" in errors
    status, changed = send(api, "patch", f"{CABLES}{cable.pk}/", {"label": "L-101", "color": "00ff00"})
    assert status == 200 and changed["label"] == "L-101"


def test_deleting_a_cable_frees_both_ends(api, sample):
    cable = Cable.objects.get(label="L-100")
    assert send(api, "delete", f"{CABLES}{cable.pk}/") == (204, None)
    for end in (port("leaf1", "Ethernet2"), port("core1", "xe-0/0/0")):
        shown = api.json(f"{INTERFACES}{end.pk}/")
        assert (shown["cable"], shown["cable_peer"], shown["cable_peer_type"]) == (None, None, None)
    again = between(port("leaf1", "Ethernet2"), port("core1", "xe-0/0/0"))
    assert send(api, "post", CABLES, again)[0] == 201


def test_deleting_an_end_takes_its_cable(api, sample):
    end = port("core1", "xe-0/0/0")
    assert send(api, "delete", f"{INTERFACES}{end.pk}/") == (204, None)
    assert not Cable.objects.filter(label="L-100").exists()
    far = api.json(f"{INTERFACES}{port('leaf1', 'Ethernet2').pk}/")
    assert (far["cable"], far["cable_peer"]) == (None, None)


def test_cable_filters(api, sample):
    rows = api.json(CABLES, {"termination_a_type": "dcim.interface"})["results"]
    assert [r["label"] for r in rows] == ["L-100"]
    assert api.json(CABLES, {"status": "Planned"})["count"] == 1
    assert api.json(CABLES, {"type": "smf"})["count"] == 1


def test_cabled_filter(api, sample):
    cabled = {i["name"] for i in api.json(INTERFACES, {"device": "leaf1", "cabled": "true"})["results"]}
    assert cabled == {"Ethernet2"}
    free = api.json(INTERFACES, {"device": "leaf1", "cabled": "false", "limit": 100})["results"]
    assert "Ethernet2" not in {i["name"] for i in free} and len(free) == 4


def test_cables_by_device_and_location(api, sample):
    by_device = {c["label"] or c["id"] for c in api.json(CABLES, {"device": "leaf1"})["results"]}
    assert len(by_device) == 2 and "L-100" in by_device  # the interface and the console cable
    assert api.json(CABLES, {"device": "core1"})["count"] == 3
    assert api.json(CABLES, {"location": "AMS1"})["count"] == 3
    assert api.json(CABLES, {"device": "nope"}, status=400) == {
        "device": ["Select a valid choice. nope is not one of the available choices."]
    }


def test_kind_and_connected_filters(api, sample):
    virtual = {i["name"] for i in api.json(INTERFACES, {"device": "leaf1", "kind": "virtual"})["results"]}
    assert virtual == {"bond0", "Ethernet10"}  # Ethernet10: the VPN sample's tunnel interface
    connected = {i["name"] for i in api.json(INTERFACES, {"connected": "true"})["results"]}
    assert connected == {"Ethernet2", "xe-0/0/0"}


def test_circuits_are_named_by_their_circuit_id(api, sample):
    """Clients name a circuit by its cid, as the reference's filters and writes take it: the
    Ansible cable module finds the termination to cable by `circuit=<cid>&term_side=A`."""
    termination = CircuitTermination.objects.get(circuit__cid="TEL-1001", term_side="A")
    found = api.json("/api/circuits/circuit-terminations/", {"circuit": "TEL-1001", "term_side": "A"})
    assert [t["id"] for t in found["results"]] == [str(termination.pk)]
    assert api.json("/api/circuits/circuit-terminations/", {"circuit": "no-such-cid"}, status=400)
    # Writes name it by cid too, alone or among attributes.
    path = f"/api/circuits/circuit-terminations/{termination.pk}/"
    for named in ("TEL-1001", {"cid": "TEL-1001"}):
        status, body = send(api, "patch", path, {"circuit": named, "description": "far end"})
        assert status == 200 and body["circuit"]["id"] == str(termination.circuit_id), body
    status, body = send(api, "patch", path, {"circuit": "no-such-cid"})
    assert status == 400 and "cid=no-such-cid" in body["circuit"][0], body
