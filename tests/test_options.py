"""OPTIONS in the reference's form where clients read it (beyond the generic family's checks):
the object types a content type field takes, bare-value choices, include= values, and fields
described without their limits."""

from __future__ import annotations

CABLE_ENDS = [
    ("circuits.circuittermination", "Circuits | circuit termination"),
    ("dcim.consoleport", "DCIM | console port"),
    ("dcim.consoleserverport", "DCIM | console server port"),
    ("dcim.frontport", "DCIM | front port"),
    ("dcim.interface", "DCIM | interface"),
    ("dcim.powerfeed", "DCIM | power feed"),
    ("dcim.poweroutlet", "DCIM | power outlet"),
    ("dcim.powerport", "DCIM | power port"),
    ("dcim.rearport", "DCIM | rear port"),
]


def described(api, path: str, action: str = "POST") -> dict:
    response = api.client.options(path)
    assert response.status_code == 200
    return response.json()["actions"][action]


def test_cable_ends_offer_the_types_a_cable_connects(api, sample):
    """Ansible's cable module reads the termination types here before it writes a cable."""
    fields = described(api, "/api/dcim/cables/")
    for end in ("termination_a_type", "termination_b_type"):
        assert fields[end]["type"] == "field" and fields[end]["read_only"] is False
        assert [(c["value"], c["display"]) for c in fields[end]["choices"]] == CABLE_ENDS
    assert fields["termination_a_id"] == {
        "type": "string",
        "required": True,
        "read_only": False,
        "label": "Termination a id",
    }
    assert fields["color"]["help_text"] == "RGB color in hexadecimal (e.g. 00ff00)"
    assert fields["computed_fields"]["read_only"] is True
    assert fields["relationships"]["read_only"] is False


def test_relationship_sides_offer_every_object_type(api, sample):
    fields = described(api, "/api/extras/relationships/")
    values = [c["value"] for c in fields["source_type"]["choices"]]
    assert {"dcim.device", "ipam.prefix", "circuits.circuit"} <= set(values)
    assert fields["destination_type"]["choices"] == fields["source_type"]["choices"]
    # Shown as bare values, not {value, label}: typed "choice", as the reference's.
    assert fields["type"]["type"] == fields["required_on"]["type"] == "choice"
    assert fields["type"]["help_text"] == "Cardinality of this relationship"
    assert {"value": "one-to-many", "display": "One to Many"} in fields["type"]["choices"]


def test_circuit_termination_sides_are_choices(api, sample):
    side = described(api, "/api/circuits/circuit-terminations/")["term_side"]
    assert side == {
        "type": "choice",
        "required": True,
        "read_only": False,
        "label": "Termination",
        "choices": [{"value": "A", "display": "A"}, {"value": "Z", "display": "Z"}],
    }


def test_include_values_are_described(api, sample):
    fields = described(api, "/api/dcim/devices/")
    assert fields["config_context"]["read_only"] is True
    assert fields["computed_fields"]["read_only"] is True
    assert fields["relationships"]["read_only"] is False
    assert list(fields)[-3:] == ["computed_fields", "relationships", "config_context"]
    assert fields["software_version"]["help_text"] == "The software version installed on this device"
    detail = described(api, f"/api/dcim/devices/{sample_device(sample)}/", "PUT")
    assert detail == fields


def test_limits_only_where_a_value_is_written_freely(api, sample):
    interfaces = described(api, "/api/dcim/interfaces/")
    assert interfaces["speed"] == {"type": "integer", "required": False, "read_only": False, "label": "Speed"}
    assert "max_length" not in interfaces["mac_address"]
    assert interfaces["mtu"]["min_value"] == 1 and interfaces["mtu"]["max_value"] == 65536
    locations = described(api, "/api/dcim/locations/")
    assert "max_length" not in locations["time_zone"]
    assert locations["latitude"]["max_digits"] == 8 and locations["latitude"]["decimal_places"] == 6
    assert locations["asn"]["help_text"] == "32-bit autonomous system number"
    racks = described(api, "/api/dcim/racks/")
    assert "min_value" not in racks["width"] and racks["width"]["choices"]  # a choice has no range
    prefixes = described(api, "/api/ipam/prefixes/")
    assert prefixes["prefix_length"]["read_only"] is True and "max_value" not in prefixes["prefix_length"]


def sample_device(sample) -> str:
    from inventory.dcim.models import Device

    return str(sample[Device][0].pk)


def test_derived_network_fields_carry_the_reference_help_texts(api, sample):
    prefixes, addresses = described(api, "/api/ipam/prefixes/"), described(api, "/api/ipam/ip-addresses/")
    assert (
        prefixes["network"]["help_text"] == "IPv4 or IPv6 network address"
        and prefixes["network"]["read_only"]
    )
    assert prefixes["broadcast"]["help_text"] == "IPv4 or IPv6 broadcast address"
    assert prefixes["prefix_length"]["help_text"] == "Length of the Network prefix, in bits."
    assert addresses["host"]["help_text"] == "IPv4 or IPv6 host address"
    assert addresses["mask_length"]["help_text"] == "Length of the network mask, in bits."
    assert "help_text" not in addresses["address"]
