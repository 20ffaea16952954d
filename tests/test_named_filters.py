"""Named filter families declared once and given to every model they apply to: `contacts`,
`teams` and `dynamic_groups` (with `__n`, `__isnull`), checked through REST and GraphQL on real
associations for every such model of the registry."""

from __future__ import annotations

import orjson
import pytest
from django.contrib.contenttypes.models import ContentType

from inventory.extras.models import Contact, ContactAssociation, DynamicGroup, Role, Status, Team
from inventory.extras.models.groups import StaticGroupAssociation
from inventory.virtualization.models import VirtualMachine
from queryengine.filters import _relayed
from queryengine.permissions import restricted
from queryengine.query import filters_of
from queryengine.registry import REVERSE, resources
from queryengine.relationnames import to_many
from rest import versioning

RESOURCES = [r for r in resources() if r.served_at(versioning.DEFAULT)]
CONTACTABLE = [r for r in RESOURCES if getattr(r.model, "is_contact_associable_model", False)]
GROUPABLE = [r for r in RESOURCES if getattr(r.model, "is_dynamic_group_associable_model", False)]


def ids(api, resource, params) -> set[str]:
    body = api.json(f"/api/{resource.route}/", {"limit": 1000, **params})
    assert body["count"] == len(body["results"])
    return {str(row["id"]) for row in body["results"]}


def graphql_ids(api, resource, arguments: str) -> set[str]:
    query = f"{{ {resource.list_field}({arguments}) {{ id }} }}"
    response = api.post("/api/graphql/", {"query": query})
    body = orjson.loads(response.content)
    assert response.status_code == 200 and "errors" not in body, body
    return {str(row["id"]) for row in body["data"][resource.list_field]}


def two_objects(resource, user) -> tuple[list, set[str]]:
    everything = {str(pk) for pk in restricted(resource, user).values_list("pk", flat=True)}
    chosen = list(restricted(resource, user).order_by("pk")[:2])
    assert len(chosen) == 2, resource.route
    return chosen, everything


def test_the_families_apply_where_the_reference_has_them():
    routes = {r.route for r in CONTACTABLE}
    assert {"dcim/devices", "extras/config-contexts", "extras/dynamic-groups"} <= routes
    assert not routes & {"extras/contacts", "extras/teams", "extras/contact-associations", "users/users"}
    groupable = {r.route for r in GROUPABLE}
    assert {"dcim/console-port-templates", "extras/contacts", "dcim/location-types"} <= groupable
    assert not groupable & {"extras/dynamic-groups", "extras/config-contexts", "ipam/vrf-prefix-assignments"}


@pytest.mark.usefixtures("shared_sample")
@pytest.mark.parametrize("resource", CONTACTABLE, ids=lambda r: r.route)
def test_contacts_and_teams_select_associated_objects(api, superuser, resource):
    (first, second), everything = two_objects(resource, superuser)
    kind = ContentType.objects.get_for_model(resource.model)
    role = Role.objects.order_by("name").first()
    status = Status.objects.order_by("name").first()
    ContactAssociation.objects.filter(associated_object_type=kind).delete()  # the sample's own
    contact, team = Contact.objects.create(name="Filter contact"), Team.objects.create(name="Filter team")
    ContactAssociation.objects.create(
        contact=contact, associated_object_type=kind, associated_object_id=first.pk, role=role, status=status
    )
    ContactAssociation.objects.create(
        team=team, associated_object_type=kind, associated_object_id=second.pk, role=role, status=status
    )
    one, two = {str(first.pk)}, {str(second.pk)}
    assert ids(api, resource, {"contacts": contact.name}) == one
    assert ids(api, resource, {"contacts": str(contact.pk)}) == one
    assert ids(api, resource, {"contacts__n": contact.name}) == everything - one
    assert ids(api, resource, {"contacts__isnull": "false"}) == one
    assert ids(api, resource, {"contacts__isnull": "true"}) == everything - one
    assert ids(api, resource, {"teams": team.name}) == two
    assert ids(api, resource, {"teams__n": str(team.pk)}) == everything - two
    assert ids(api, resource, {"teams__isnull": "true"}) == everything - two
    body = api.json(f"/api/{resource.route}/", {"contacts": "nobody"}, status=400)
    assert list(body) == ["contacts"]
    # The same names are GraphQL's arguments.
    assert graphql_ids(api, resource, f'contacts: ["{contact.name}"]') == one
    assert graphql_ids(api, resource, f'teams__n: ["{team.name}"]') == everything - two
    assert graphql_ids(api, resource, "contacts__isnull: true") == everything - one


@pytest.mark.usefixtures("shared_sample")
@pytest.mark.parametrize("resource", GROUPABLE, ids=lambda r: r.route)
def test_dynamic_groups_select_their_members(api, superuser, resource):
    (first, _), everything = two_objects(resource, superuser)
    kind = ContentType.objects.get_for_model(resource.model)
    group = DynamicGroup.objects.create(name="Filter group", content_type=kind, group_type="static")
    StaticGroupAssociation.objects.create(
        dynamic_group=group, associated_object_type=kind, associated_object_id=first.pk
    )
    one = {str(first.pk)}
    assert ids(api, resource, {"dynamic_groups": group.name}) == one
    assert ids(api, resource, {"dynamic_groups": str(group.pk)}) == one
    assert ids(api, resource, {"dynamic_groups__n": group.name}) == everything - one
    assert graphql_ids(api, resource, f'dynamic_groups__n: ["{group.pk}"]') == everything - one


# -- filters relayed through a foreign key (a device's `tenant_group` through its tenant) ---------

RELAYED = [(r, name, path, by_id) for r in RESOURCES for name, path, _, by_id in _relayed(r)]


def value_at(obj, path: str):
    for part in path.split("__"):
        obj = None if obj is None else getattr(obj, part)
    return obj


@pytest.mark.usefixtures("shared_sample")
@pytest.mark.parametrize(
    ("resource", "name", "path", "by_id"), RELAYED, ids=[f"{r.route}:{n}" for r, n, _, _ in RELAYED]
)
def test_relayed_filters_select_through_the_relation(api, superuser, resource, name, path, by_id):
    if not any(value_at(o, path) for o in restricted(resource, superuser)):
        # Point one object at a related object reaching a value (a tenant in a group).
        through, rest = path.split("__", 1)
        model = resource.model._meta.get_field(through).related_model
        reaching = model.objects.filter(**{f"{rest}__isnull": False}).first()
        resource.model.objects.filter(pk=restricted(resource, superuser).first().pk).update(
            **{through: reaching}
        )
    objects = list(restricted(resource, superuser))
    reached = {str(o.pk): value_at(o, path) for o in objects}
    present = sorted({str(v.pk if hasattr(v, "pk") else v) for v in reached.values() if v is not None})
    assert present, f"the sample reaches no {name} from {resource.route}"
    wanted = present[0]
    one = {pk for pk, v in reached.items() if v is not None and str(getattr(v, "pk", v)) == wanted}
    assert ids(api, resource, {name: wanted}) == one
    assert ids(api, resource, {f"{name}__n": wanted}) == set(reached) - one
    assert graphql_ids(api, resource, f'{name}: ["{wanted}"]') == one
    if not by_id:
        target = value_at(next(o for o in objects if str(o.pk) in one), path)
        assert ids(api, resource, {name: target.name}) == one
    if f"{name}__isnull" in filters_of(resource):
        empty = {pk for pk, v in reached.items() if v is None}
        assert ids(api, resource, {f"{name}__isnull": "true"}) == empty


@pytest.mark.usefixtures("shared_sample")
def test_virtual_machines_by_cluster_type_as_the_ansible_inventory_asks(api):
    """The Ansible inventory checks its filters against the OpenAPI document, then lists virtual
    machines by cluster type (by name) and cluster group."""
    document = orjson.loads(api.get("/api/swagger.json").content)
    listed = {p["name"] for p in document["paths"]["/virtualization/virtual-machines/"]["get"]["parameters"]}
    assert {"cluster_type", "cluster_type_id", "cluster_group", "cluster_group_id", "tenant_group"} <= listed
    machines = VirtualMachine.objects.select_related("cluster__cluster_type")
    kind = machines.first().cluster.cluster_type
    expected = {str(vm.pk) for vm in machines if vm.cluster.cluster_type_id == kind.pk}
    route = next(r for r in RESOURCES if r.model is VirtualMachine)
    assert ids(api, route, {"cluster_type": kind.name}) == expected
    assert ids(api, route, {"cluster_type_id": str(kind.pk)}) == expected
    assert ids(api, route, {"cluster_type__n": kind.name}) == {str(vm.pk) for vm in machines} - expected
    assert graphql_ids(api, route, f'cluster_type: ["{kind.name}"]') == expected
    body = api.json("/api/virtualization/virtual-machines/", {"cluster_type": "no-such-type"}, status=400)
    assert list(body) == ["cluster_type"]


# -- relations to many objects (a device's `interfaces`, `software_image_files`) ----------------

# By the reference's names (a device's `console_ports`, the ORM's `consoleports`).
TO_MANY = [
    (r, m.name, m.path)
    for r in RESOURCES
    for m in to_many(r)
    if m.by_member and filters_of(r)[m.name].path == m.path
]


def reached(obj, path: str) -> set[str]:
    return {str(pk) for pk in getattr(obj, path).values_list("pk", flat=True)}


@pytest.mark.usefixtures("shared_sample")
@pytest.mark.parametrize(("resource", "name", "path"), TO_MANY, ids=[f"{r.route}:{n}" for r, n, _ in TO_MANY])
def test_relations_to_many_select_the_objects_holding_them(api, superuser, resource, name, path):
    objects = list(restricted(resource, superuser))
    held = {str(o.pk): reached(o, path) for o in objects}
    present = sorted(set().union(*held.values()))
    if not present:
        pytest.skip(f"no {resource.route} in the sample holds {name}")
    wanted = present[len(present) // 2]
    one = {pk for pk, pks in held.items() if wanted in pks}
    assert ids(api, resource, {name: wanted}) == one
    assert ids(api, resource, {f"{name}__n": wanted}) == set(held) - one
    target = getattr(objects[0], path).model
    named = target._default_manager.get(pk=wanted)
    if isinstance(getattr(named, "name", None), str) and named.name:
        same_name = {
            str(pk) for pk in target._default_manager.filter(name=named.name).values_list("pk", flat=True)
        }
        assert ids(api, resource, {name: named.name}) == {pk for pk, pks in held.items() if pks & same_name}
    assert graphql_ids(api, resource, f'{name}: ["{wanted}"]') == one
    # None at all: a VRF assigned to a virtual machine only (an association whose device is empty)
    # still holds no device.
    assert ids(api, resource, {f"{name}__isnull": "true"}) == {pk for pk, pks in held.items() if not pks}
    assert ids(api, resource, {f"{name}__isnull": "false"}) == {pk for pk, pks in held.items() if pks}


@pytest.mark.usefixtures("shared_sample")
def test_most_relations_to_many_are_exercised_by_the_sample(superuser):
    """The family above bites: the sample holds related objects for most of the relations."""
    held = [
        (r, n)
        for r, n, path in TO_MANY
        if any(getattr(o, path).exists() for o in restricted(r, superuser).order_by("pk")[:50])
    ]
    assert len(held) >= len(TO_MANY) // 2, (len(held), len(TO_MANY))


def test_relations_to_many_are_filtered_by_the_names_their_lists_have():
    """One rule names a relation's GraphQL list and its filters: the reference's names."""
    from queryengine.relatedlists import list_relation

    for resource in RESOURCES:
        # A declared field of the name, or listing the members, shows them instead.
        own = {spec.name for spec in resource.fields}
        listed = {spec.target for spec in resource.fields if spec.kind == REVERSE}
        for relation in to_many(resource):
            assert f"has_{relation.name}" in filters_of(resource), (resource.route, relation.name)
            shown = relation.name in own or relation.members in listed
            assert shown or list_relation(resource, relation.name) is not None, (
                resource.route,
                relation.name,
            )
    expected = {
        "dcim/devices": {"console_ports", "console_server_ports", "power_ports", "front_ports"},
        "dcim/device-types": {"console_port_templates", "interface_templates", "module_bay_templates"},
        "dcim/modules": {"console_ports", "rear_ports", "power_outlets"},
        "dcim/racks": {"rack_reservations"},
        "virtualization/interfaces": {"child_interfaces", "bridged_interfaces"},
    }
    for resource in RESOURCES:
        for name in expected.get(resource.route, ()):
            known = filters_of(resource)
            assert {name, f"{name}__n", f"{name}__isnull", f"has_{name}"} <= set(known), name
        if resource.route in expected:
            assert not {"consoleports", "has_consoleports", "reservations"} & set(filters_of(resource))
