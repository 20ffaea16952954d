"""Generated filter families, for every registered model: each field that may be empty takes
`__isnull`, each choice field the text lookups, each relation to many objects `has_<relation>`,
and each argument is typed by its field's kind. Checked through the HTTP stack (REST and
GraphQL) against the sample's rows, and the clients' own queries that need them."""

from __future__ import annotations

import orjson
import pytest
from django.db import models

from inventory.dcim.models import Device, Interface
from inventory.ipam.models import IPAddress, Prefix
from queryengine.filters import STRING_LOOKUPS, membership_relations
from queryengine.permissions import restricted
from queryengine.query import filters_of
from queryengine.registry import FOREIGN_KEY, SCALAR, resources
from queryengine.schema import schema
from rest import versioning

from .test_api_generic import matches, sample_values

pytestmark = pytest.mark.usefixtures("shared_sample")

RESOURCES = [r for r in resources() if r.served_at(versioning.DEFAULT)]
GRAPHQL = "/api/graphql/"


def families(resource) -> dict[str, list]:
    """The generated filters of each family a resource has."""
    found = {"isnull": [], "choice": [], "has": []}
    choices = {s.name for s in resource.current_fields if s.kind == SCALAR and s.model_field.choices}
    for name, flt in filters_of(resource).items():
        if flt.legacy:
            continue
        if flt.lookup == "isnull":
            found["isnull"].append((name, flt))
        elif flt.kind == "has":
            found["has"].append((name, flt))
        elif "__" in name and name.split("__")[0] in choices and flt.parse is None:
            found["choice"].append((name, flt))
    return found


def graphql(api, query: str) -> dict:
    response = api.post(GRAPHQL, {"query": query})
    body = orjson.loads(response.content)
    assert response.status_code == 200 and "errors" not in body, body
    return body["data"]


def literal(value) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    return orjson.dumps(value).decode()


@pytest.mark.parametrize("resource", RESOURCES, ids=lambda r: r.route)
def test_every_field_has_its_generated_family(resource):
    known = filters_of(resource)
    # A declared filter of a field's name replaces its family (a JSON field's is its text).
    declared = set(resource.filters) | set(resource.json_filters)
    for spec in resource.current_fields:
        if spec.name in declared:
            continue
        field = spec.model_field
        if spec.kind == SCALAR and spec.name in known and field.null:
            assert f"{spec.name}__isnull" in known, spec.name
        if spec.kind == FOREIGN_KEY and field.concrete and field.null:
            assert {f"{spec.name}__isnull", f"{spec.name}__n"} <= set(known), spec.name
        plain_choice = spec.kind == SCALAR and field.choices and isinstance(field, models.CharField)
        if plain_choice and spec.name in known and not getattr(field, "exact_lookups_only", False):
            assert {f"{spec.name}__{s}" if s else spec.name for s in STRING_LOOKUPS} <= set(known)
    for name in membership_relations(resource):
        assert known[f"has_{name}"].argument == "Boolean"
    for name in resource.timestamps:
        if resource.model._meta.get_field(name).null:
            assert known[f"{name}__isnull"].argument == "Boolean"


@pytest.mark.parametrize("resource", RESOURCES, ids=lambda r: r.route)
def test_generated_families_select_the_rows_they_name(api, resource, superuser):
    check_families(api, resource, superuser)


def check_families(api, resource, superuser) -> dict:
    """Each generated filter selects what the rows hold, in REST and GraphQL alike (a Boolean
    literal for `__isnull` and `has_*`); the families some filter of which tells rows apart."""
    objects = list(restricted(resource, superuser))
    everyone = {str(o.pk) for o in objects}
    split = {}
    for family, found in families(resource).items():
        for name, flt in found:
            for value in sample_values(flt, resource, objects):
                expected = {str(o.pk) for o in objects if matches(flt, resource, o, value, superuser)}
                got = api.json(f"/api/{resource.route}/", {"limit": 1000, name: value})["results"]
                assert {str(r["id"]) for r in got} == expected, (name, value)
                if expected and expected != everyone:
                    split.setdefault(family, (name, flt, value, expected))
    for family, (name, flt, value, expected) in split.items():
        typed = value == "true" if flt.argument == "Boolean" else value
        data = graphql(api, f"{{ {resource.list_field}({name}: {literal(typed)}) {{ id }} }}")
        assert {str(r["id"]) for r in data[resource.list_field]} == expected, (family, name)
    return split


# Models whose sample holds rows each generated family tells apart.
TOLD_APART = {
    "dcim/devices": {"isnull", "choice", "has"},
    "dcim/interfaces": {"isnull", "choice", "has"},
    "ipam/ip-addresses": {"isnull", "choice", "has"},
    "ipam/prefixes": {"isnull", "choice", "has"},
    "dcim/locations": {"isnull", "has"},
}


@pytest.mark.parametrize("route", sorted(TOLD_APART))
def test_the_sample_tells_each_family_apart(api, route, superuser):
    resource = next(r for r in RESOURCES if r.route == route)
    assert set(check_families(api, resource, superuser)) >= TOLD_APART[route]


def test_ansible_inventory_asks_for_addresses_on_interfaces(api):
    """The Ansible REST inventory lists the addresses assigned to interfaces."""
    # On a device's or a virtual machine's interface.
    on_interfaces = IPAddress.objects.filter(interface_assignments__isnull=False)
    assigned = {str(pk) for pk in on_interfaces.values_list("pk", flat=True)}
    assert assigned and assigned != {str(pk) for pk in IPAddress.objects.values_list("pk", flat=True)}
    found = api.json("/api/ipam/ip-addresses/", {"has_interface_assignments": "true", "limit": 1000})
    assert {r["id"] for r in found["results"]} == assigned
    others = api.json("/api/ipam/ip-addresses/", {"has_interface_assignments": "false", "limit": 1000})
    assert assigned.isdisjoint(r["id"] for r in others["results"]) and others["count"]


def test_serial_matches_any_case(api):
    device = Device.objects.order_by("name").first()
    Device.objects.filter(pk=device.pk).update(serial="GQ-SN-1")
    data = graphql(api, '{ devices(serial: "gq-sn-1") { id serial } }')
    assert data["devices"] == [{"id": str(device.pk), "serial": "GQ-SN-1"}]
    assert [r["id"] for r in api.json("/api/dcim/devices/", {"serial": "gq-sn-1"})["results"]] == [
        str(device.pk)
    ]
    # Its other lookups keep their own: `__n` is exact, `__ie` ignores case.
    assert str(device.pk) in {
        r["id"] for r in api.json("/api/dcim/devices/", {"serial__n": "gq-sn-1"})["results"]
    }
    assert not api.json("/api/dcim/devices/", {"serial__nie": "gq-sn-1", "id": str(device.pk)})["results"]


def test_integer_and_boolean_arguments_take_their_literals(api):
    lengths = set(Prefix.objects.values_list("prefix_length", flat=True))
    length = sorted(lengths)[0]
    wanted = {str(pk) for pk in Prefix.objects.filter(prefix_length=length).values_list("pk", flat=True)}
    data = graphql(
        api,
        f"{{ prefixes(prefix_length: {length}) {{ id }} many: prefixes(prefix_length: [{length}, 999]) {{ id }} }}",
    )
    assert {r["id"] for r in data["prefixes"]} == wanted == {r["id"] for r in data["many"]}
    with_ip = {
        str(pk) for pk in Device.objects.filter(primary_ip4__isnull=False).values_list("pk", flat=True)
    }
    data = graphql(
        api,
        "{ devices(has_primary_ip: true) { id } devices_count(has_primary_ip: true) "
        "unnamed: devices(name__isnull: true) { id } }",
    )
    assert {r["id"] for r in data["devices"]} == with_ip and data["devices_count"] == len(with_ip)
    assert {r["id"] for r in data["unnamed"]} == {
        str(pk) for pk in Device.objects.filter(name__isnull=True).values_list("pk", flat=True)
    }
    # A string where a number is typed is refused as the reference refuses it.
    response = api.post(GRAPHQL, {"query": '{ prefixes(prefix_length: "x") { id } }'})
    assert "errors" in orjson.loads(response.content)
    # Variables declared as the schema types them.
    response = api.post(
        GRAPHQL,
        {
            "query": "query ($l: [Int], $p: Boolean) { prefixes(prefix_length: $l, vrf__isnull: $p) { id } }",
            "variables": {"l": [length], "p": True},
        },
    )
    assert "errors" not in orjson.loads(response.content)


def test_rest_numbers_out_of_their_range_are_400(api):
    body = api.json("/api/dcim/interfaces/", {"mtu": "99999999999", "mtu__gt": "x"}, status=400)
    assert set(body) == {"mtu", "mtu__gt"}
    assert (
        api.json("/api/dcim/interfaces/", {"mtu__gte": "1", "enabled": "true"})["count"]
        == Interface.objects.filter(mtu__gte=1, enabled=True).count()
    )


def test_schema_types_arguments_by_field_kind():
    args = schema.graphql_schema.query_type.fields["prefixes"].args
    assert str(args["prefix_length"].type) == "[Int]"
    assert (
        str(args["prefix_length__isnull"].type if "prefix_length__isnull" in args else "Boolean") == "Boolean"
    )
    device_args = schema.graphql_schema.query_type.fields["devices"].args
    assert str(device_args["has_primary_ip"].type) == "Boolean"
    assert str(device_args["name__isnull"].type) == "Boolean"
    assert str(device_args["serial"].type) == "[String]"
    assert str(schema.graphql_schema.query_type.fields["locations"].args["latitude"].type) == "[Float]"
