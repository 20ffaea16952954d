"""GraphQL documents written against the reference's schema, through /api/graphql/: its `ID`
arguments, field names and the values its clients read (Golden Config, Ansible's inventory)."""

from inventory.dcim.models import Device
from inventory.extras.models import StaticGroupAssociation

from .test_graphql import post

# As Golden Config's SoTAgg query declares its device.
SOTAGG = """
query ($device_id: ID!) {
  device(id: $device_id) {
    hostname: name
    serial
    primary_ip4 { id host mask_length address primary_ip4_for { name } }
    role { name }
    platform { name network_driver }
    location { name parent { name } }
    interfaces(name: ["Ethernet1"]) { name mode ip_addresses { address } lag { name } }
  }
}
"""


def test_a_device_is_read_by_an_id_variable(api, sample):
    leaf = Device.objects.get(name="leaf1")
    body = post(api, SOTAGG, {"device_id": str(leaf.pk)})
    assert "errors" not in body, body
    device = body["data"]["device"]
    assert device["hostname"] == "leaf1" and device["location"]["name"] == leaf.location.name
    host, length = device["primary_ip4"].pop("address").split("/")
    assert device["primary_ip4"] == {
        "id": str(leaf.primary_ip4_id),
        "host": host,
        "mask_length": int(length),
        "primary_ip4_for": [{"name": "leaf1"}],
    }
    assert device["interfaces"] == [
        {
            "name": "Ethernet1",
            "mode": "ACCESS",  # the reference's enum
            "ip_addresses": [{"address": f"{host}/{length}"}],
            "lag": {"name": "bond0"},
        }
    ]


def test_an_id_is_taken_as_an_id_a_uuid_or_a_literal(api, sample):
    leaf = Device.objects.get(name="leaf1")
    for declared in ("ID!", "ID", "UUID!", "UUID"):
        body = post(api, f"query ($d: {declared}) {{ device(id: $d) {{ name }} }}", {"d": str(leaf.pk)})
        assert body == {"data": {"device": {"name": "leaf1"}}}, declared
    body = post(api, f'{{ device(id: "{leaf.pk}") {{ name }} by_uuid: devices(id: "{leaf.pk}") {{ name }} }}')
    assert body == {"data": {"device": {"name": "leaf1"}, "by_uuid": [{"name": "leaf1"}]}}
    # No id finds nothing; one that cannot be an id is refused, naming it.
    body = post(api, "{ device { name } }")
    assert body == {"data": {"device": None}}, body
    body = post(api, '{ device(id: "nope") { name } }')
    assert body["data"] == {"device": None}
    assert body["errors"][0]["message"] == "'nope' is not a valid UUID."
    # Other types are refused as before.
    body = post(api, "query ($d: String!) { device(id: $d) { name } }", {"d": str(leaf.pk)}, status=400)
    assert "of type 'String!' used in position expecting type 'ID'" in body["errors"][0]["message"]


def test_cable_ends_show_their_peer_and_endpoint_by_type(api, sample):
    body = post(
        api,
        """{
          interfaces(name: ["Ethernet2"], device: ["leaf1"]) {
            cable_peer_interface { name device { name } }
            cable_peer_front_port { name }
            connected_interface { name }
            connected_circuit_termination { term_side }
            cable { id }
          }
          circuit_terminations(cabled: true) {
            cable_peer_front_port { name device { name } }
            cable_peer_interface { name }
            cable_peer_circuit_termination { id }
            cable_peer { ... on InventoryObject { id } }
          }
        }""",
    )
    assert "errors" not in body, body
    assert body["data"]["interfaces"] == [
        {
            "cable_peer_interface": {"name": "xe-0/0/0", "device": {"name": "core1"}},
            "cable_peer_front_port": None,
            "connected_interface": {"name": "xe-0/0/0"},
            "connected_circuit_termination": None,
            "cable": body["data"]["interfaces"][0]["cable"],
        }
    ]
    [termination] = body["data"]["circuit_terminations"]
    assert termination.pop("cable_peer")["id"]
    assert termination == {
        "cable_peer_front_port": {"name": "front1", "device": {"name": "core1"}},
        "cable_peer_interface": None,
        "cable_peer_circuit_termination": None,
    }


def test_lists_under_the_reference_names_and_the_former_ones(api, sample):
    from inventory.dcim.models import Module

    query = """{ devices(name: ["leaf1", "core1"]) {
      name console_ports { name } consoleports { name } front_ports { name } frontports { name }
      interfaces { name } all_interfaces { name } all_console_ports { name }
      all_modules { id } all_module_bays { id } module_bays { id }
    } }"""
    for executor in ("compiled", "generic"):
        # An alias sends the document to the generic executor: both answer alike.
        text = (
            query if executor == "compiled" else query.replace("name console_ports", "n: name console_ports")
        )
        body = post(api, text)
        assert "errors" not in body, body
        for device in body["data"]["devices"]:
            name = device.get("name") or device.get("n")
            assert device["console_ports"] == device["consoleports"] == device["all_console_ports"]
            assert device["front_ports"] == device["frontports"]
            assert device["interfaces"] == device["all_interfaces"] and device["interfaces"]
            assert device["all_module_bays"] == device["module_bays"]
            modules = Module.objects.filter(parent_module_bay__parent_device__name=name)
            assert sorted(m["id"] for m in device["all_modules"]) == sorted(str(m.pk) for m in modules)
        assert any(device["all_modules"] for device in body["data"]["devices"])
    # The former names are deprecated in the schema.
    body = post(
        api, '{ __type(name: "DeviceType") { fields(includeDeprecated: true) { name deprecationReason } } }'
    )
    reasons = {f["name"]: f["deprecationReason"] for f in body["data"]["__type"]["fields"]}
    assert reasons["consoleports"] == "Use `console_ports`." and reasons["console_ports"] is None


def test_objects_list_what_points_at_them_through_generic_relations(api, sample):
    body = post(
        api,
        """{ locations(name: ["AMS1"]) {
              associated_contacts { role { name } contact { name } team { name } }
              associated_object_metadata { id }
              associated_data_compliance { id }
            }
            tenants { id static_group_association_set { dynamic_group { name } } } }""",
    )
    assert "errors" not in body, body
    [ams] = body["data"]["locations"]
    roles = sorted(a["role"]["name"] for a in ams["associated_contacts"])
    assert roles == ["Administrative", "Support"]
    assert ams["associated_object_metadata"] and ams["associated_data_compliance"] == []
    pinned = {t["id"] for t in body["data"]["tenants"] if t["static_group_association_set"]}
    held = StaticGroupAssociation.objects.filter(associated_object_type__model="tenant")
    assert pinned == {str(pk) for pk in held.values_list("associated_object_id", flat=True)} != set()


def test_objects_show_the_dynamic_groups_holding_them(api, sample):
    from inventory.extras.groups import member_ids
    from inventory.extras.models import DynamicGroup

    body = post(api, "{ devices { id dynamic_groups { name } } tenants { id dynamic_groups { name } } }")
    assert "errors" not in body, body
    for kind, rows in body["data"].items():
        groups = DynamicGroup.objects.filter(content_type__model=kind[:-1])
        for row in rows:
            expected = sorted(g.name for g in groups if member_ids(g, [row["id"]]))
            assert [g["name"] for g in row["dynamic_groups"]] == expected
    assert any(row["dynamic_groups"] for row in body["data"]["devices"])
    assert ["Key customers"] in ([g["name"] for g in t["dynamic_groups"]] for t in body["data"]["tenants"])
    # Objects no group holds here (groups hold tagged objects) answer an empty list.
    body = post(api, "{ statuses { dynamic_groups { name } } }")
    assert body["data"]["statuses"] and all(s["dynamic_groups"] == [] for s in body["data"]["statuses"])


def test_root_fields_answer_to_the_reference_names_too(api, sample):
    from inventory.ipam.models import IPAddress, IPAddressToInterface
    from inventory.vpn.models import VPNPhase1Policy

    policy = VPNPhase1Policy.objects.order_by("name").first()
    body = post(
        api,
        """query ($p: ID) {
          job_log_entries_count
          secrets_group_associations { id } secrets_groups_associations { id }
          vpn_phase_1_policy(id: $p) { name } vpn_phase1_policy(id: $p) { name }
          ip_addresses_count
          ip_address_assignments { ip_address { id } interface { id } } ip_address_assignments_count
        }""",
        {"p": str(policy.pk)},
    )
    assert "errors" not in body, body
    data = body["data"]
    assert data["secrets_group_associations"] == data["secrets_groups_associations"]
    assert data["vpn_phase_1_policy"] == data["vpn_phase1_policy"] == {"name": policy.name}
    assert data["ip_addresses_count"] == IPAddress.objects.count()
    assignments = IPAddressToInterface.objects.filter(interface__isnull=False)
    assert data["ip_address_assignments_count"] == IPAddressToInterface.objects.count()
    assert {
        (a["ip_address"]["id"], a["interface"]["id"])
        for a in data["ip_address_assignments"]
        if a["interface"]
    } == {(str(a.ip_address_id), str(a.interface_id)) for a in assignments}


def test_one_to_one_relations_from_the_other_side_and_natural_sort_keys(api, sample):
    from inventory.dcim.models import Interface, VirtualChassis

    master = VirtualChassis.objects.filter(master__isnull=False).first()
    cabled = Interface.objects.filter(cable__isnull=False).order_by("_name").first()
    body = post(
        api,
        f"""{{ device(id: "{master.master_id}") {{ vc_master_for {{ name }} }}
              interface(id: "{cabled.pk}") {{ _name cable_termination {{ cable {{ id }} }} }}
              interfaces(cabled: false, limit: 1) {{ cable_termination {{ id }} }} }}""",
    )
    assert "errors" not in body, body
    assert body["data"]["device"] == {"vc_master_for": {"name": master.name}}
    assert body["data"]["interface"] == {
        "_name": cabled._name,
        "cable_termination": {"cable": {"id": str(cabled.cable_id)}},
    }
    assert body["data"]["interfaces"] == [{"cable_termination": None}]


def test_relations_without_an_accessor_are_listed_by_the_reference_names(api, sample):
    from inventory.dcim.models import Interface

    body = post(
        api,
        """{ statuses(name: ["Active"]) { devices { name } ip_addresses { id } }
             roles { devices { id } }
             tags { name device_set { name } location_set { name } }
             cables { id interfaces { name } front_ports { name } circuit_terminations { id } } }""",
    )
    assert "errors" not in body, body
    [active] = body["data"]["statuses"]
    assert {d["name"] for d in active["devices"]} == set(
        Device.objects.filter(status__name="Active").values_list("name", flat=True)
    )
    assert active["ip_addresses"]
    for tag in body["data"]["tags"]:
        tagged = Device.objects.filter(tags__name=tag["name"]).values_list("name", flat=True)
        assert {d["name"] for d in tag["device_set"]} == set(tagged)
    for cable in body["data"]["cables"]:
        assert {e["name"] for e in cable["interfaces"]} == {
            e.name for e in Interface.objects.filter(cable_id=cable["id"])
        }
    assert any(c["interfaces"] for c in body["data"]["cables"]) and any(
        c["circuit_terminations"] for c in body["data"]["cables"]
    )
