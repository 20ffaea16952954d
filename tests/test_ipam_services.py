"""Route targets, services and IP address ranges through the HTTP stack: the reference's
validation, messages and filters, and what they change on VRFs, devices, addresses and prefixes."""

from __future__ import annotations

from inventory.dcim.models import Device
from inventory.ipam.models import VRF, Namespace, Service
from inventory.virtualization.models import VirtualMachine

from .conftest import send

TARGETS, VRFS = "/api/ipam/route-targets/", "/api/ipam/vrfs/"
SERVICES, RANGES = "/api/ipam/services/", "/api/ipam/ip-address-ranges/"
PREFIXES, ADDRESSES = "/api/ipam/prefixes/", "/api/ipam/ip-addresses/"


def prefix_id(api, cidr: str) -> str:
    return api.json(PREFIXES, {"prefix": cidr, "namespace": "Global"})["results"][0]["id"]


def target_id(api, name: str) -> str:
    return api.json(TARGETS, {"name": name})["results"][0]["id"]


def names(api, path: str, params: dict, key: str = "name") -> list:
    return sorted(row[key] for row in api.json(path, {"limit": 1000, **params})["results"])


# -- route targets ---------------------------------------------------------------------------


def test_route_targets_are_unique_and_at_most_21_characters(api, sample):
    status, created = send(api, "post", TARGETS, {"name": "65100:1", "description": "new"})
    assert status == 201 and created["display"] == "65100:1" and created["tenant"] is None
    status, errors = send(api, "post", TARGETS, {"name": "65100:1"})
    assert status == 400 and errors == {"name": ["Route target with this Name already exists."]}
    status, errors = send(api, "post", TARGETS, {"name": "6" * 22})
    assert status == 400 and errors == {"name": ["Ensure this value has at most 21 characters (it has 22)."]}


def test_vrfs_write_their_targets_and_both_sides_filter(api, sample):
    red = VRF.objects.get(name="red")
    status, created = send(api, "post", TARGETS, {"name": "65100:7"})
    assert status == 201
    path = f"{VRFS}{red.pk}/?exclude_m2m=false"
    status, vrf = send(
        api, "patch", path, {"import_targets": [created["id"]], "export_targets": ["65000:200"]}
    )
    assert status == 200, vrf
    assert [t["id"] for t in vrf["import_targets"]] == [created["id"]]
    assert [t["id"] for t in vrf["export_targets"]] == [target_id(api, "65000:200")]
    assert names(api, VRFS, {"import_targets": "65100:7"}) == ["red"]
    assert names(api, VRFS, {"export_targets": "65000:100"}) == ["blue"]
    assert names(api, VRFS, {"import_targets": created["id"], "export_targets": "65000:200"}) == ["red"]
    # The other side: by VRF id or route distinguisher.
    assert names(api, TARGETS, {"importing_vrfs": "65000:1"}) == ["65000:100", "65000:200"]
    assert names(api, TARGETS, {"exporting_vrfs": str(red.pk)}) == ["65000:200"]
    assert send(api, "get", f"{TARGETS}?importing_vrfs=nope")[1] == {
        "importing_vrfs": ["Select a valid choice. nope is not one of the available choices."]
    }


def test_graphql_follows_targets_and_services_both_ways(api, sample):
    device = Service.objects.get(name="ssh").device.name
    query = (
        '{ vrfs(name: "blue") { name import_targets { name } export_targets { name } } '
        'route_targets(name: "65000:100") { importing_vrfs { name } exporting_vrfs { name } } '
        f'devices(name: "{device}") {{ services {{ name ports protocol }} }} }}'
    )
    status, body = send(api, "post", "/api/graphql/", {"query": query})
    assert status == 200 and "errors" not in body, body
    data = body["data"]
    assert [t["name"] for t in data["vrfs"][0]["import_targets"]] == ["65000:100", "65000:200"]
    assert data["route_targets"][0] == {
        "importing_vrfs": [{"name": "blue"}],
        "exporting_vrfs": [{"name": "blue"}],
    }
    services = sorted(data["devices"][0]["services"], key=lambda s: s["name"])
    assert [(s["name"], s["ports"]) for s in services] == [("ssh", [22]), ("web", [80, 443, 8080])]


# -- services --------------------------------------------------------------------------------


def test_services_show_ports_protocol_and_display(api, sample):
    web = api.json(SERVICES, {"name": "web"})["results"][0]
    assert web["ports"] == [80, 443, 8080]
    assert web["protocol"] == {"value": "tcp", "label": "TCP"}
    assert web["display"] == "web (TCP/80, 443, 8080)"
    assert web["virtual_machine"] is None and web["device"]["object_type"] == "dcim.device"


def test_a_service_is_on_a_device_or_a_machine(api, sample):
    device, machine = Device.objects.first(), VirtualMachine.objects.first()
    body = {"name": "ntp", "protocol": "udp", "ports": [123]}
    status, errors = send(api, "post", SERVICES, body)
    assert status == 400 and errors == {
        "__all__": ["A service must be associated with either a device or a virtual machine."]
    }
    both = {**body, "device": str(device.pk), "virtual_machine": str(machine.pk)}
    status, errors = send(api, "post", SERVICES, both)
    assert status == 400 and errors == {
        "__all__": ["A service cannot be associated with both a device and a virtual machine."]
    }
    status, created = send(
        api, "post", SERVICES, {**body, "device": str(device.pk), "ports": [124, "123", 125]}
    )
    assert status == 201 and created["ports"] == [124, 123, 125]
    assert created["display"] == "ntp (UDP/123-125)"
    # The name is unique per device (and per machine), not across them.
    status, errors = send(api, "post", SERVICES, {**body, "device": str(device.pk)})
    assert status == 400 and errors == {
        "non_field_errors": ["The fields name, device must make a unique set."]
    }
    assert send(api, "post", SERVICES, {**body, "virtual_machine": str(machine.pk)})[0] == 201


def test_ports_protocol_and_required_fields_are_checked(api, sample):
    device = str(Device.objects.first().pk)
    base = {"device": device, "name": "x", "protocol": "tcp"}
    assert send(api, "post", SERVICES, {"device": device}) == (
        400,
        {
            "name": ["This field is required."],
            "protocol": ["This field is required."],
            "ports": ["This field is required."],
        },
    )
    cases = [
        ({"ports": [0, 22, 65536]}, {"ports": {"0": [">= 1"], "2": ["<= 65535"]}}),
        ({"ports": ["ssh"]}, {"ports": {"0": ["A valid integer is required."]}}),
        ({"ports": "22"}, {"ports": ['Expected a list of items but got type "str".']}),
        ({"ports": []}, {"ports": ["This field cannot be blank."]}),
        (
            {"ports": [22], "protocol": "sctp"},
            {"protocol": ['"sctp" is not a valid choice. Valid choices: tcp, udp.']},
        ),
    ]
    for change, expected in cases:
        status, errors = send(api, "post", SERVICES, {**base, **change})
        assert status == 400, change
        if expected == {"ports": {"0": [">= 1"], "2": ["<= 65535"]}}:
            expected = {
                "ports": {
                    "0": ["Ensure this value is greater than or equal to 1."],
                    "2": ["Ensure this value is less than or equal to 65535."],
                }
            }
        assert errors == expected, change


def test_service_filters(api, sample):
    device, machine = Service.objects.get(name="ssh").device, Service.objects.get(name="dns").virtual_machine
    assert names(api, SERVICES, {"ports": "80"}) == ["web"]
    assert names(api, SERVICES, {"ports": ["22", "53"]}) == ["dns", "ssh"]
    assert names(api, SERVICES, {"ports": "8"}) == []  # a whole number, not digits of one
    assert names(api, SERVICES, {"device": device.name}) == ["ssh", "web"]
    assert names(api, SERVICES, {"virtual_machine": str(machine.pk)}) == ["dns"]
    assert names(api, SERVICES, {"protocol": "udp"}) == ["dns"]
    assert names(api, SERVICES, {"q": "mana"}) == ["ssh"]
    assert send(api, "get", f"{SERVICES}?ports=http")[1] == {"ports": ["Enter a number."]}
    # Devices and addresses reach their services in GraphQL (reverse lists) and in deletes.
    assert send(api, "delete", f"/api/virtualization/virtual-machines/{machine.pk}/")[0] == 204
    assert names(api, SERVICES, {}) == ["ssh", "web"]


# -- IP address ranges -----------------------------------------------------------------------


def new_range(api, start: str, end: str, **fields):
    body = {"start_address": start, "end_address": end, "status": "Active", **fields}
    if "parent" not in fields and "namespace" not in fields:
        body["namespace"] = "Global"
    return send(api, "post", RANGES, body)


def test_ranges_find_their_parent_and_show_their_span(api, sample):
    status, created = new_range(api, "10.1.1.20", "10.1.1.30", name="printers")
    assert status == 201, created
    assert created["parent"]["id"] == prefix_id(api, "10.1.1.0/24") and "namespace" not in created
    assert (created["start_address"], created["end_address"], created["ip_version"]) == (
        "10.1.1.20",
        "10.1.1.30",
        4,
    )
    assert (created["start_host"], created["end_host"]) == ("10.1.1.20", "10.1.1.30")
    assert created["display"] == "Global: 10.1.1.20 - 10.1.1.30"
    assert created["size"] == 11  # both ends counted, as the reference's
    # By parent alone: its namespace is the range's.
    v6 = prefix_id(api, "2001:db8:1::/64")
    status, created = new_range(api, "2001:db8:1::100", "2001:db8:1::200", parent=v6)
    assert status == 201 and created["ip_version"] == 6 and created["parent"]["id"] == v6
    assert api.json(f"{RANGES}{created['id']}/")["size"] == 0x101


def test_range_validation_messages(api, sample):
    status, errors = send(
        api, "post", RANGES, {"start_address": "10.1.1.5", "end_address": "10.1.1.6", "status": "Active"}
    )
    assert status == 400 and errors == {"__all__": ["One of parent or namespace must be provided"]}
    cases = [
        (
            ("10.1.1.9", "10.1.1.5"),
            {"start_address": ["start_address must be less than or equal to end_address"]},
        ),
        (
            ("10.1.1.5", "2001:db8:1::5"),
            {"__all__": ["start_address (IPv4) and end_address (IPv6) must be of the same IP version"]},
        ),
        (("10.1.1.5/24", "10.1.1.6"), {"start_address": ["Invalid IP address: 10.1.1.5/24"]}),
        (("", "10.1.1.6"), {"start_address": ["This field may not be blank."]}),
        (
            ("2001:db9::1", "2001:db9::9"),
            {"namespace": ["No suitable parent Prefix for 2001:db9::1 exists in Namespace Global"]},
        ),
        (
            ("10.1.1.140", "10.1.1.160"),
            {"__all__": ["IP Address Range intersects with existing range '10.1.1.100 - 10.1.1.150'"]},
        ),
        (
            ("10.1.0.250", "10.1.1.5"),
            {
                "__all__": [
                    "IP Address Range must be fully contained within a single parent Prefix. No single Prefix in "
                    "namespace contains both start_address and end_address. Consider creating a wider parent "
                    "Prefix that covers the entire range."
                ]
            },
        ),
        (
            ("10.1.0.1", "10.1.2.1"),
            {
                "__all__": [
                    "IP Address Range overlaps with child Prefix '10.1.1.0/24' of the assigned parent Prefix"
                ]
            },
        ),
    ]
    for (start, end), expected in cases:
        assert new_range(api, start, end) == (400, expected), (start, end)
    status, errors = new_range(api, "10.1.1.1", "10.1.1.10", is_exclusive=True)
    assert status == 400 and errors == {
        "is_exclusive": [
            "Cannot make this IP Address Range exclusive: existing IP address(es) fall within the range: "
            "10.1.1.1, 10.1.1.2"
        ]
    }
    status, errors = new_range(api, "10.1.1.20", "10.1.1.30", parent=prefix_id(api, "10.0.0.0/8"))
    assert status == 400 and errors == {
        "parent": [
            "10.0.0.0/8 cannot be assigned as the parent of Global: 10.1.1.20 - 10.1.1.30. "
            "In namespace Global, the expected parent would be 10.1.1.0/24."
        ]
    }


def test_exclusive_ranges_refuse_addresses(api, sample):
    status, errors = send(api, "post", ADDRESSES, {"address": "10.1.1.205/24", "status": "Active"})
    assert status == 400 and errors == {
        "__all__": [
            'IP address 10.1.1.205 falls within exclusive IP Address Range "Global: 10.1.1.200 - 10.1.1.210". '
            "Creating an IP Address within an exclusive range is not permitted."
        ]
    }
    assert send(api, "post", ADDRESSES, {"address": "10.1.1.120/24", "status": "Active"})[0] == 201


def test_prefixes_keep_their_ranges(api, sample):
    status, created = new_range(api, "10.1.1.20", "10.1.1.30")
    assert status == 201
    pool = created["parent"]["id"]
    # A prefix made around it becomes its parent; deleted, the range goes back up.
    status, inner = send(api, "post", PREFIXES, {"prefix": "10.1.1.24/29", "status": "Active"})
    assert status == 201
    assert api.json(f"{RANGES}{created['id']}/")["parent"]["id"] == pool  # holding part of it only
    status, inner = send(api, "post", PREFIXES, {"prefix": "10.1.1.0/27", "status": "Active"})
    assert status == 201
    assert api.json(f"{RANGES}{created['id']}/")["parent"]["id"] == inner["id"]
    # Shrunk so that the range no longer fits: refused.
    status, errors = send(api, "patch", f"{PREFIXES}{inner['id']}/", {"prefix": "10.1.1.0/28"})
    assert status == 400 and errors == {
        "__all__": [
            "Cannot modify Prefix: IP Address Range '10.1.1.20 - 10.1.1.30' would no longer be fully contained "
            "within this Prefix. Modify or delete the IP Address Range first."
        ]
    }
    assert send(api, "delete", f"{PREFIXES}{inner['id']}/")[0] == 204
    assert api.json(f"{RANGES}{created['id']}/")["parent"]["id"] == pool
    # A prefix with no parent to hand its ranges to is not deleted.
    status, top = send(api, "post", PREFIXES, {"prefix": "2001:db9::/48", "status": "Active"})
    assert new_range(api, "2001:db9::10", "2001:db9::20")[0] == 201
    status, body = send(api, "delete", f"{PREFIXES}{top['id']}/")
    assert status == 409 and "2001:db9::10 - 2001:db9::20" in body["detail"], body


def test_range_filters(api, sample):
    lab = Namespace.objects.get(name="lab")
    assert names(api, RANGES, {"contains": "10.1.1.120"}, "start_address") == ["10.1.1.100"]
    assert names(api, RANGES, {"contains": ["10.1.1.205", "2001:db8:1::15"]}, "start_address") == [
        "10.1.1.200",
        "2001:db8:1::10",
    ]
    assert names(api, RANGES, {"start_address": "10.1.1.100/24"}, "end_address") == ["10.1.1.150"]
    assert names(api, RANGES, {"end_address": "10.1.1.210"}, "start_address") == ["10.1.1.200"]
    assert names(api, RANGES, {"parent": "10.1.1.0/24"}, "start_address") == ["10.1.1.100", "10.1.1.200"]
    assert api.json(RANGES, {"ip_version": 6})["count"] == 1
    assert api.json(RANGES, {"is_exclusive": "true"})["count"] == 1
    assert api.json(RANGES, {"role": "DHCP"})["count"] == 1
    assert api.json(RANGES, {"namespace": "Global"})["count"] == 3
    assert api.json(RANGES, {"namespace": str(lab.pk)})["count"] == 0
    assert send(api, "get", f"{RANGES}?contains=nope")[1] == {"contains": ["Invalid IP address: nope"]}
