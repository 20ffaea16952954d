"""The generic GraphQL family: every registered model's type walks each of its lists of related
objects (with the members' filters) and shows its custom fields, by the compiled plan and the
generic executor alike, checked against the rows the database holds."""

from __future__ import annotations

import orjson
import pytest
from django.contrib.contenttypes.models import ContentType

from inventory.extras.models import CustomField
from queryengine import engine
from queryengine.permissions import restricted
from queryengine.registry import MANY_TO_MANY, REVERSE, resource_for, resources
from queryengine.relatedlists import list_relation, relations_of
from queryengine.scalars import dumps
from queryengine.schema import RequestContext
from rest import versioning

# Every test here reads and writes inside its own transaction: one sample serves them all.
pytestmark = pytest.mark.usefixtures("shared_sample")

RESOURCES = list(resources())
BASE = "http://testserver/api/"


def both(user, query: str) -> dict:
    """The data of a client's document, the compiled plan's checked against the generic executor's."""
    context = RequestContext(user=user, base_url=BASE)
    compiled = engine.run(query, {}, context, supplied=True)
    generic = engine.run(query, {}, context, supplied=True, compiled=False)
    assert not compiled.errors and not generic.errors, (compiled.errors, generic.errors)
    assert engine.prepare_supplied(query).plan is not None, "the document compiles"
    assert dumps(compiled.data) == dumps(generic.data)
    return orjson.loads(dumps(compiled.data))


def list_names(resource) -> list[str]:
    declared = [
        s.name
        for s in resource.fields
        if s.kind in (MANY_TO_MANY, REVERSE) and resource_for(s.target) is not None
    ]
    return [*declared, *relations_of(resource)]


def held(relation, owners: list, user) -> dict[str, set[str]]:
    """owner id -> the ids of its members `user` may see, as the database holds them."""
    found: dict[str, set[str]] = {str(o): set() for o in owners}
    visible = {str(pk) for pk in restricted(resource_for(relation.target), user).values_list("pk", flat=True)}
    pairs = relation.through._default_manager.filter(
        **{f"{relation.owner}__in": owners}, **relation.present
    ).values_list(relation.owner, relation.member_id)
    for owner, member in pairs:
        if str(member) in visible:
            found[str(owner)].add(str(member))
    return found


@pytest.mark.parametrize("resource", RESOURCES, ids=lambda r: r.route)
def test_every_list_of_related_objects_and_its_filters(resource, sample, superuser):
    names = list_names(resource)
    if not names:
        pytest.skip("no lists of related objects")
    owners = list(restricted(resource, superuser).values_list("pk", flat=True)[:20])  # those it lists
    expected = {name: held(list_relation(resource, name), owners, superuser) for name in names}
    chosen = {  # one member of each list, to filter the list by
        name: next((m for members in found.values() for m in sorted(members)), None)
        for name, found in expected.items()
    }
    ids = ", ".join(orjson.dumps(str(o)).decode() for o in owners)
    selections = " ".join(
        f"{name} {{ id }}"
        + (f' only_{name}: {name}(id: ["{chosen[name]}"]) {{ id }}' if chosen[name] else "")
        for name in names
    )
    data = both(superuser, f"{{ {resource.list_field}(id: [{ids}]) {{ id {selections} }} }}")
    rows = data[resource.list_field]
    assert {str(r["id"]) for r in rows} == {str(o) for o in owners}
    for row in rows:
        for name in names:
            members = expected[name][str(row["id"])]
            assert {str(m["id"]) for m in row[name]} == members, name
            if chosen[name]:
                assert [str(m["id"]) for m in row[f"only_{name}"]] == sorted(members & {chosen[name]})


# Custom fields apply to the models of 2.x and 3.x (1.x's sites and regions are locations).
CUSTOMIZED = [r for r in RESOURCES if r.has_custom_fields and r.served_at(versioning.DEFAULT)]


@pytest.mark.parametrize("resource", CUSTOMIZED, ids=lambda r: r.route)
def test_custom_fields_are_fields_and_filters(resource, sample, superuser):
    field = CustomField.objects.create(key="probe", label="Probe", type="text")
    field.content_types.add(ContentType.objects.get_for_model(resource.model))
    first, *rest = resource.model._default_manager.order_by("pk")[:3]
    resource.model._default_manager.filter(pk=first.pk).update(
        _custom_field_data={**first._custom_field_data, "probe": "found"}
    )
    query = f"""{{ all: {resource.list_field} {{ id cf_probe _custom_field_data custom_fields }}
                  some: {resource.list_field}(cf_probe__ie: "FOUND") {{ id cf_probe }} }}"""
    data = both(superuser, query)
    assert data["some"] == [{"id": _id(first.pk), "cf_probe": "found"}]
    for row in data["all"]:
        assert row["_custom_field_data"] == row["custom_fields"]
        assert row["cf_probe"] == row["_custom_field_data"].get("probe")


def _id(pk):
    return pk if isinstance(pk, int) else str(pk)


BY_TYPE = [r for r in RESOURCES if r.generic_by_type]


@pytest.mark.parametrize("resource", BY_TYPE, ids=lambda r: r.route)
def test_generic_relations_shown_by_type(resource, sample, superuser):
    """`<prefix>_<type>` (a cable end's `cable_peer_interface`, `connected_circuit_termination`) is
    the generic relation's object where it is of that type, else null."""
    from queryengine.registry import resource_by_object_type

    fields = {
        name: {f"{prefix}_{resource_by_object_type(t).single_field}": t for t in types}
        for name, (prefix, types) in resource.generic_by_type.items()
    }
    selections = " ".join(
        f"{name} {{ id object_type }} " + " ".join(f"{field} {{ id }}" for field in by_type)
        for name, by_type in fields.items()
    )
    context = RequestContext(user=superuser, base_url=BASE)
    result = engine.run(
        f"{{ {resource.list_field}(limit: 50) {{ {selections} }} }}", {}, context, supplied=True
    )
    assert not result.errors, result.errors
    shown = 0
    for row in orjson.loads(dumps(result.data))[resource.list_field]:
        for name, by_type in fields.items():
            target = row[name]
            for field, object_type in by_type.items():
                matches = target is not None and target["object_type"] == object_type
                assert row[field] == ({"id": target["id"]} if matches else None), (name, field)
                shown += matches
    assert shown or resource.model._default_manager.filter(cable__isnull=False).count() == 0
