"""Cable types, a cable's connectors (`terminations`, lanes) and the connector records, through
the HTTP stack."""

from __future__ import annotations

from inventory.dcim.models import (
    CableToCableTermination,
    CableType,
    ConsolePort,
    Device,
    Interface,
    Manufacturer,
)

from .conftest import send

CABLE_TYPES = "/api/dcim/cable-types/"
CABLES = "/api/dcim/cables/"
RECORDS = "/api/dcim/cables-to-cable-terminations/"

# Keys of the reference's cable (Nautobot 3.2.7, dcim/cables list at depth 0 and detail at depth 1).
CABLE_KEYS = {
    "id", "object_type", "display", "url", "natural_slug", "termination_a_type", "termination_b_type",
    "termination_a", "termination_b", "termination_a_id", "termination_b_id", "length_unit", "type",
    "total_lanes", "connected_lanes", "terminations", "label", "color", "length", "cable_type", "status",
    "created", "last_updated", "notes_url", "custom_fields", "tags",
}  # fmt: skip
# Shown here but not by the reference: the tenant is ours.
OURS_ONLY = {"tenant"}


def free_interfaces(count: int) -> list[Interface]:
    device = Device.objects.get(name="leaf1")
    active = Interface.objects.filter(device=device).first().status
    return [
        Interface.objects.create(device=device, name=f"sfp{i}", type="25gbase-x-sfp28", status=active)
        for i in range(count)
    ]


def reference(obj) -> dict:
    return {"object_type": f"dcim.{obj._meta.model_name}", "id": str(obj.pk)}


def new_cable(api, a, b, **fields) -> dict:
    body = {
        "termination_a_type": "dcim.interface",
        "termination_a_id": str(a.pk),
        "termination_b_type": "dcim.interface",
        "termination_b_id": str(b.pk),
        "status": "Connected",
        **fields,
    }
    status, cable = send(api, "post", CABLES, body)
    assert status == 201, cable
    return cable


def fanout(api, name="QSFP to 4xSFP", b_connectors=4) -> dict:
    status, kind = send(
        api,
        "post",
        CABLE_TYPES,
        {
            "name": name,
            "b_connectors": b_connectors,
            "total_lanes": b_connectors,
            "has_embedded_transceivers": True,
        },
    )
    assert status == 201, kind
    return kind


def test_cable_type_crud_and_default_mapping(api, sample):
    vendor = Manufacturer.objects.first()
    kind = fanout(api)
    assert kind["mapping"] == [
        {"label": str(i), "a_connector": 1, "a_position": i, "b_connector": i, "b_position": 1}
        for i in range(1, 5)
    ]
    assert (kind["a_connectors"], kind["b_connectors"], kind["total_lanes"], kind["strands_per_lane"]) == (
        1,
        4,
        4,
        1,
    )
    assert (
        kind["polarity_method"] is None
        and kind["manufacturer"] is None
        and kind["display"] == "QSFP to 4xSFP"
    )
    path = f"{CABLE_TYPES}{kind['id']}/"
    status, changed = send(api, "patch", path, {"manufacturer": vendor.name, "polarity_method": "reversed"})
    assert status == 200, changed
    assert changed["manufacturer"]["id"] == str(vendor.pk)
    assert changed["polarity_method"] == {"value": "reversed", "label": "Reversed"}
    assert api.json(path, {"depth": 1})["manufacturer"]["name"] == vendor.name
    assert send(api, "delete", path) == (204, None)
    assert not CableType.objects.filter(pk=kind["id"]).exists()


def test_cable_type_refusals(api, sample):
    cases = [
        ({"name": "x", "a_connectors": 2, "b_connectors": 1, "total_lanes": 2},
         {"b_connectors": ["Wrong breakout direction, a_connectors must not exceed b_connectors"]}),
        ({"name": "x", "b_connectors": 4, "total_lanes": 6},
         {"total_lanes": ["total_lanes must be evenly divisible by b_connectors (4)."]}),
        ({"name": "x", "b_connectors": 17, "total_lanes": 17},
         {"b_connectors": ["Ensure this value is less than or equal to 16."]}),
        ({"name": "x", "b_connectors": 2, "total_lanes": 2, "mapping": [{"a_connector": 1}]},
         {"mapping": ["Expected 2 lane definitions, but got 1."]}),
        ({"name": "x", "b_connectors": 2, "total_lanes": 2, "mapping": [
            {"a_connector": 1, "a_position": 1, "b_connector": 1, "b_position": 1},
            {"a_connector": 1, "a_position": 1, "b_connector": 2, "b_position": 1}]},
         {"mapping": ["Entry 1: Duplicate A-side (connector, position) pair: (1, 1)."]}),
        ({"name": "x", "b_connectors": 2, "total_lanes": 2, "mapping": [
            {"a_connector": 1, "a_position": 1, "b_connector": 1, "b_position": 1},
            {"a_connector": 1, "a_position": 2, "b_connector": 3, "b_position": 1}]},
         {"mapping": ["Entry 1: b_connector 3 out of range [1, 2]."]}),
        ({"name": "x", "polarity_method": "sideways"}, {"polarity_method": ['"sideways" is not a valid choice. Valid choices: straight-through, reversed, pair-reversed, other.']}),
        ({"name": CableType.objects.first().name}, {"name": ["Cable type with this Name already exists."]}),
    ]  # fmt: skip
    for body, errors in cases:
        status, answer = send(api, "post", CABLE_TYPES, body)
        assert (status, answer) == (400, errors), body
    assert not CableType.objects.filter(name="x").exists()


def test_a_used_cable_type_keeps_its_structure(api, sample):
    kind = fanout(api, "1x2", 2)
    a, b = free_interfaces(2)
    new_cable(api, a, b, cable_type=kind["id"])
    status, errors = send(api, "patch", f"{CABLE_TYPES}{kind['id']}/", {"strands_per_lane": 2})
    message = "Cannot be changed because this CableType is already referenced by one or more Cables."
    assert status == 400 and errors == {"strands_per_lane": [message]}
    # The mapping is checked first, as the reference does.
    status, errors = send(api, "patch", f"{CABLE_TYPES}{kind['id']}/", {"total_lanes": 4, "b_connectors": 4})
    assert status == 400 and errors == {"mapping": ["Expected 4 lane definitions, but got 2."]}
    assert send(api, "patch", f"{CABLE_TYPES}{kind['id']}/", {"description": "fine"})[0] == 200
    assert send(api, "delete", f"{CABLE_TYPES}{kind['id']}/")[0] == 409


def test_cable_type_filters(api, sample):
    fanout(api, "1x2 breakout", 2)
    names = lambda params: sorted(r["name"] for r in api.json(CABLE_TYPES, params)["results"])  # noqa: E731
    assert names({"is_breakout": "true"}) == ["1x2 breakout", "1x4 AOC fanout"]
    assert names({"is_breakout": "false"}) == ["LC duplex"]
    assert names({"b_connectors__gte": 4}) == ["1x4 AOC fanout"]
    assert names({"manufacturer": Manufacturer.objects.order_by("name").first().name}) == ["LC duplex"]
    assert names({"q": "lc-2"}) == ["LC duplex"]
    assert names({"has_embedded_transceivers": "true"}) == ["1x2 breakout", "1x4 AOC fanout"]
    assert names({"polarity_method": "straight-through"}) == ["LC duplex"]
    assert api.json(CABLE_TYPES, {"is_breakout": "maybe"}, status=400)


def test_cable_keys_match_the_reference(api, sample):
    for depth in (0, 1):
        for row in api.json(CABLES, {"depth": depth})["results"]:
            assert row.keys() - OURS_ONLY == CABLE_KEYS
    options = api.client.options(CABLES).json()["actions"]["POST"]
    assert options["total_lanes"] == {
        "type": "integer",
        "required": False,
        "read_only": True,
        "label": "Total lanes",
    }
    assert options["terminations"]["read_only"] is True
    assert options["cable_type"]["read_only"] is False and not options["cable_type"]["required"]


def test_a_standard_cable_shows_its_ends_as_connectors(api, sample):
    a, b = free_interfaces(2)
    cable = new_cable(api, a, b)
    assert (cable["total_lanes"], cable["connected_lanes"], cable["cable_type"]) == (1, 1, None)
    assert cable["terminations"] == {"a1": cable["termination_a"], "b1": cable["termination_b"]}
    deep = api.json(f"{CABLES}{cable['id']}/", {"depth": 1})
    assert deep["terminations"] == {"a1": deep["termination_a"], "b1": deep["termination_b"]}
    assert (
        deep["terminations"]["a1"]["name"] == "sfp0"
        and deep["terminations"]["a1"]["cable"]["id"] == cable["id"]
    )
    assert deep["terminations"]["a1"]["generic_foreign_key"] is True
    # A cable shown inside another object shows no connectors, as the reference's.
    inner = api.json(f"/api/dcim/interfaces/{a.pk}/", {"depth": 2})["cable"]
    assert inner["id"] == cable["id"] and "terminations" not in inner
    records = api.json(RECORDS, {"cable": cable["id"]})["results"]
    assert [(r["cable_end"], r["connector"], r["interface"]["id"]) for r in records] == [
        ("A", 1, str(a.pk)),
        ("B", 1, str(b.pk)),
    ]


def test_a_breakout_cable_plugs_its_further_connectors(api, sample):
    kind = fanout(api)
    trunk, b1, b2, b3 = free_interfaces(4)
    cable = new_cable(api, trunk, b1, cable_type=kind["id"])
    assert (cable["total_lanes"], cable["connected_lanes"]) == (4, 1)
    assert cable["cable_type"]["id"] == kind["id"]
    assert cable["terminations"]["b2"] is None and list(cable["terminations"]) == [
        "a1",
        "b1",
        "b2",
        "b3",
        "b4",
    ]
    # Through the cable: the reads' shape, or the reference's nested one.
    path = f"{CABLES}{cable['id']}/"
    status, changed = send(
        api, "patch", path, {"terminations": {"b2": reference(b2), "b": {"3": reference(b3)}}}
    )
    assert status == 200, changed
    assert changed["connected_lanes"] == 3
    assert changed["terminations"]["b2"]["id"] == str(b2.pk) and changed["terminations"]["b3"]["id"] == str(
        b3.pk
    )
    shown = api.json(f"/api/dcim/interfaces/{b2.pk}/")
    assert shown["cable"]["id"] == cable["id"] and shown["cable_peer"]["id"] == str(trunk.pk)
    # Unplugging frees the object again.
    status, changed = send(api, "patch", path, {"terminations": {"b3": None}})
    assert status == 200 and changed["connected_lanes"] == 2 and changed["terminations"]["b3"] is None
    assert api.json(f"/api/dcim/interfaces/{b3.pk}/")["cable"] is None
    # Through the records' endpoint.
    status, record = send(
        api,
        "post",
        RECORDS,
        {"cable": cable["id"], "cable_end": "B", "connector": 4, "interface": str(b3.pk)},
    )
    assert status == 201, record
    assert record["display"] == f"#{cable['id']} B-side: sfp3"
    assert api.json(path)["connected_lanes"] == 3
    assert send(api, "delete", f"{RECORDS}{record['id']}/") == (204, None)
    assert api.json(path)["connected_lanes"] == 2
    filtered = api.json(RECORDS, {"cable": cable["id"], "cable_end": "B", "connector__gte": 2})["results"]
    assert [r["interface"]["id"] for r in filtered] == [str(b2.pk)]
    # Deleting the cable frees every connector's object.
    assert send(api, "delete", path) == (204, None)
    assert api.json(f"/api/dcim/interfaces/{b2.pk}/")["cable"] is None
    assert not CableToCableTermination.objects.filter(interface=b2).exists()


def test_connector_refusals(api, sample):
    kind = fanout(api, "1x2", 2)
    trunk, leg, spare, other = free_interfaces(4)
    standard = new_cable(api, spare, other)
    cable = new_cable(api, trunk, leg, cable_type=kind["id"])

    def record(**fields):
        return send(api, "post", RECORDS, {"cable": cable["id"], "cable_end": "B", "connector": 2, **fields})

    taken = "cable to cable termination with this interface already exists."
    lag = Interface.objects.get(device__name="leaf1", name="bond0")
    console = ConsolePort.objects.create(device=Device.objects.get(name="leaf1"), name="console-spare")
    cases = [
        (record(interface=str(spare.pk)), {"interface": [taken]}),
        (record(), {"__all__": ["Exactly one termination foreign key must be set; none are."]}),
        (record(connector=3, interface=str(lag.pk)),
         {"connector": ["Connector 3 is outside the valid range (1..2) for the B-side of this cable."]}),
        (record(interface=str(lag.pk)),
         {"interface": ["Cables cannot be terminated to Link Aggregation Group (LAG) interfaces"]}),
        (record(console_port=str(console.pk)), {"__all__": [
            "A console port cannot terminate a multi-connector cable type; only interfaces, front ports, "
            "rear ports, and circuit terminations support breakout."]}),
        (record(connector=17, interface=str(lag.pk)), {"connector": ["Ensure this value is less than or equal to 16."]}),
    ]  # fmt: skip
    for (status, errors), expected in cases:
        assert (status, errors) == (400, expected)
    # A standard cable has one connector per end; connector 1 is the cable's own end.
    status, errors = send(
        api,
        "post",
        RECORDS,
        {"cable": standard["id"], "cable_end": "A", "connector": 2, "interface": str(lag.pk)},
    )
    assert status == 400 and errors["connector"] == [
        "Connector 2 is outside the valid range (1..1) for the A-side of this cable."
    ]
    first = api.json(RECORDS, {"cable": standard["id"], "cable_end": "A"})["results"][0]
    assert send(api, "delete", f"{RECORDS}{first['id']}/")[0] == 409
    status, errors = send(
        api, "patch", f"{CABLES}{standard['id']}/", {"terminations": {"a1": reference(leg)}}
    )
    assert status == 400 and errors == {
        "terminations": {"a": {"1": ["A cable's ends cannot be changed: delete it and create a new one."]}}
    }
    status, errors = send(api, "patch", f"{CABLES}{cable['id']}/", {"terminations": {"b2": reference(spare)}})
    assert status == 400 and errors == {"terminations": {"b": {"2": {"interface": [taken]}}}}
    status, errors = send(api, "patch", f"{CABLES}{cable['id']}/", {"terminations": {"c1": None}})
    assert status == 400 and errors == {"terminations": ["Invalid side keys: ['c1']. Allowed: 'a', 'b'."]}
    # A cable type must fit the cable's ends.
    console_cable = api.json(CABLES, {"cable_type": "LC duplex"})["results"][0]
    status, errors = send(api, "patch", f"{CABLES}{console_cable['id']}/", {"cable_type": kind["id"]})
    assert status == 400 and "cannot terminate a multi-connector cable type" in errors["cable_type"][0]


def test_cable_filters_by_cable_type(api, sample):
    kind = fanout(api, "1x2", 2)
    a, b = free_interfaces(2)
    cable = new_cable(api, a, b, cable_type=kind["id"])
    ids = lambda params: {r["id"] for r in api.json(CABLES, params)["results"]}  # noqa: E731
    assert ids({"cable_type": "1x2"}) == {cable["id"]}
    assert ids({"cable_type": kind["id"]}) == {cable["id"]}
    assert len(ids({"has_cable_type": "true"})) == 2 and cable["id"] in ids({"has_cable_type": "true"})
    assert cable["id"] not in ids({"has_cable_type": "false"})
    assert api.json(CABLES, {"cable_type": "nonesuch"}, status=400)
