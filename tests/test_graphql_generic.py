"""The generic GraphQL family: every registered model's type walks each of its lists of related
objects (with the members' filters) and shows its custom fields, by the compiled plan and the
generic executor alike, checked against the rows the database holds."""

from __future__ import annotations

import orjson
import pytest
from django.contrib.contenttypes.models import ContentType

from inventory.extras.models import CustomField
from queryengine import engine, otherfields
from queryengine.permissions import restricted
from queryengine.registry import MANY_TO_MANY, REVERSE, Derived, resource_for, resources
from queryengine.relatedlists import list_relation, relations_of
from queryengine.scalars import dumps
from queryengine.schema import RequestContext, schema
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
        s.key  # a displaced field's own list: under its twin's name
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
        f"{name} {{ ... on InventoryObject {{ id object_type }} }} "
        + " ".join(f"{field} {{ id }}" for field in by_type)
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


def through_http(api, user, query: str) -> dict:
    """A client's document answered by /api/graphql/, by the compiled plan: its data is the
    generic executor's."""
    response = api.post("/api/graphql/", {"query": query, "variables": {}})
    assert response.status_code == 200, response.content
    body = orjson.loads(response.content)
    assert "errors" not in body, body
    assert engine.prepare_supplied(query).plan is not None, "the document compiles"
    context = RequestContext(user=user, base_url=BASE)
    generic = engine.run(query, {}, context, supplied=True, compiled=False)
    assert not generic.errors, generic.errors
    assert body["data"] == orjson.loads(dumps(generic.data))
    return body["data"]


def graphql_name_kind(resource, source) -> str:
    if isinstance(source, Derived):
        return "derived"
    return "renamed_fk" if resource.model._meta.get_field(source).is_relation else "scalar"


def other_fields(resource) -> dict[str, str]:
    """{field: kind} of the fields a type shows beside its declarations and lists."""
    shown = schema.graphql_schema.get_type(resource.type_name).fields
    declared = {s.name for s in resource.fields}
    names = {
        **dict.fromkeys(otherfields.by_type(resource), "by_type"),
        **dict.fromkeys(otherfields.reverse_ones(resource), "reverse_one"),
        **dict.fromkeys(otherfields.extension_lists(resource), "extension"),
        **{name: graphql_name_kind(resource, source) for name, source in resource.graphql_names.items()},
    }
    if otherfields.has_natural_sort_key(resource):
        names[otherfields.NATURAL_SORT_KEY] = "scalar"
    return {name: kind for name, kind in names.items() if name in shown and name not in declared}


OTHER = [r for r in RESOURCES if other_fields(r) and r.served_at(versioning.DEFAULT)]


@pytest.mark.parametrize("resource", OTHER, ids=lambda r: r.route)
def test_fields_beside_the_declared_ones_run_compiled(resource, api, superuser):
    """Generic relations by type, one-to-ones from the other side, `_name` and the type
    extensions' lists (`dynamic_groups`) are read by the compiled plan, as the database holds them."""
    fields = other_fields(resource)
    owners = list(restricted(resource, superuser).values_list("pk", flat=True)[:20])
    ids = ", ".join(orjson.dumps(str(o)).decode() for o in owners)
    selections = " ".join(
        name if kind == "scalar" else f"{name} {{ id display object_type }}" for name, kind in fields.items()
    )
    data = through_http(api, superuser, f"{{ {resource.list_field}(id: [{ids}]) {{ id {selections} }} }}")
    rows = {str(row["id"]): row for row in data[resource.list_field]}
    assert rows.keys() == {str(o) for o in owners}
    objects = resource.model._default_manager.filter(pk__in=owners)
    for name, kind in fields.items():
        if kind == "scalar":
            column = resource.graphql_names.get(name, name)
            held = {str(pk): value for pk, value in objects.values_list("pk", column)}
            assert {pk: row[name] for pk, row in rows.items()} == held, name
        elif kind == "renamed_fk":
            column = resource.model._meta.get_field(resource.graphql_names[name]).attname
            held = {str(pk): str(to) for pk, to in objects.values_list("pk", column) if to is not None}
            assert {pk: row[name]["id"] for pk, row in rows.items() if row[name]} == held, name
            assert held or not objects.filter(cable__isnull=False).exists(), "a cabled end has a path"
        elif kind == "derived":  # what its finder finds from the source column (or that column)
            derived = resource.graphql_names[name]
            sources = {str(pk): str(src) for pk, src in objects.values_list("pk", derived.source) if src}
            wanted = set(sources.values())
            found = {src: src for src in wanted} if derived.find is None else derived.find(wanted)
            held = {pk: str(found[src]) for pk, src in sources.items() if found.get(src)}
            assert {pk: row[name]["id"] for pk, row in rows.items() if row[name]} == held, name
        elif kind == "reverse_one":
            rel = otherfields.reverse_ones(resource)[name]
            pairs = rel.related_model._default_manager.filter(**{f"{rel.field.name}__in": owners})
            held = {str(owner): str(pk) for owner, pk in pairs.values_list(rel.field.attname, "pk")}
            assert {pk: row[name]["id"] for pk, row in rows.items() if row[name]} == held, name
        elif kind == "by_type":
            relation, object_type = otherfields.by_type(resource)[name]
            type_field, id_field = next(s for s in resource.fields if s.name == relation).columns
            held = {
                str(pk): str(target)
                for pk, target, app, model in objects.values_list(
                    "pk", id_field, f"{type_field}__app_label", f"{type_field}__model"
                )
                if f"{app}.{model}" == object_type
            }
            assert {pk: row[name]["id"] for pk, row in rows.items() if row[name]} == held, name


def test_fields_beside_the_declared_ones_show_only_what_the_caller_may_view(sample):
    from inventory.dcim.models import Device, Interface
    from inventory.extras.models import DynamicGroup
    from inventory.users.models import ObjectPermission, Token, User

    from .conftest import Api

    user = User.objects.create_user("peer-reader")
    cabled = Interface.objects.filter(cable__isnull=False).order_by("name")
    seen = sorted({i.name for i in cabled})[:1]
    group = DynamicGroup.objects.filter(content_type__model="device").order_by("name").first()
    grants = {  # no cable terminations nor virtual chassis
        "dcim.device": {},
        "dcim.interface": {"name__in": seen},
        "extras.dynamicgroup": {"name": group.name},
    }
    for model, constraints in grants.items():
        permission = ObjectPermission.objects.create(
            name=f"view {model}", actions=["view"], constraints=constraints
        )
        app_label, model_name = model.split(".")
        permission.object_types.set([ContentType.objects.get(app_label=app_label, model=model_name)])
        permission.users.add(user)
    query = """{ interfaces { name _name cable_peer_interface { name } connected_interface { name }
                              cable_termination { id } }
                 devices { name vc_master_for { name } dynamic_groups { name } } }"""
    data = through_http(Api(Token.objects.create(user=user).key), user, query)
    assert {i["name"] for i in data["interfaces"]} == set(seen)
    for interface in data["interfaces"]:
        assert interface["cable_termination"] is None
        peer = interface["cable_peer_interface"]
        assert peer is None or peer["name"] in seen
    assert all(d["vc_master_for"] is None for d in data["devices"])
    held = {g["name"] for d in data["devices"] for g in d["dynamic_groups"]}
    assert held == {group.name} and Device.objects.count() == len(data["devices"])
