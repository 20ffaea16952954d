"""GraphQL types values as the reference's schema does (a choice as its enum, a content type as
its object, a decimal as `Decimal`), through /api/graphql/, while REST keeps its own forms: the
documents it runs read each such field's twin (`<name>__rest`)."""

from __future__ import annotations

import pytest

from inventory.dcim.models import Interface, Location
from inventory.extras.models import ComputedField, Status
from queryengine import twins
from queryengine.registry import CONTENT_TYPE, CONTENT_TYPES, resources
from queryengine.schema import schema
from rest import versioning

from .test_graphql import post
from .test_graphql_generic import through_http

pytestmark = pytest.mark.usefixtures("shared_sample")


def label_of(model, name: str, value) -> str:
    return str(dict(model._meta.get_field(name).flatchoices)[value])


def test_an_interface_answers_its_type_and_mode_by_their_enum_names(api, superuser):
    chosen, blank = Interface.objects.order_by("pk")[:2]
    Interface.objects.filter(pk=chosen.pk).update(type="1000base-t", mode="access")
    Interface.objects.filter(pk=blank.pk).update(type="2.5gbase-t", mode="")
    query = f'{{ interfaces(id: ["{chosen.pk}", "{blank.pk}"]) {{ id type mode type__rest mode__rest }} }}'
    rows = {row["id"]: row for row in through_http(api, superuser, query)["interfaces"]}
    assert rows[str(chosen.pk)] == {
        "id": str(chosen.pk),
        "type": "A_1000BASE_T",
        "mode": "ACCESS",
        "type__rest": {"value": "1000base-t", "label": label_of(Interface, "type", "1000base-t")},
        "mode__rest": {"value": "access", "label": label_of(Interface, "mode", "access")},
    }
    # A leading digit is prefixed and other signs become `_`; a blank choice is null.
    assert rows[str(blank.pk)]["type"] == "A_2_5GBASE_T"
    assert rows[str(blank.pk)]["mode"] is None and rows[str(blank.pk)]["mode__rest"] is None
    # REST shows the choices as before.
    shown = api.json(f"/api/dcim/interfaces/{chosen.pk}/")
    assert shown["type"] == {"value": "1000base-t", "label": label_of(Interface, "type", "1000base-t")}
    assert shown["mode"] == {"value": "access", "label": label_of(Interface, "mode", "access")}


def test_choice_filters_take_the_stored_values(api):
    chosen = list(Interface.objects.order_by("pk").values_list("pk", flat=True)[:3])
    Interface.objects.filter(pk__in=chosen).update(type="1000base-t", mode="tagged-all")
    body = post(api, '{ interfaces(type: ["1000base-t"], mode: ["tagged-all"]) { id type mode } }')
    assert "errors" not in body, body
    held = Interface.objects.filter(type="1000base-t", mode="tagged-all")
    assert {row["id"] for row in body["data"]["interfaces"]} == {
        str(pk) for pk in held.values_list("pk", flat=True)
    }
    assert set(map(str, chosen)) <= {row["id"] for row in body["data"]["interfaces"]}
    assert {(row["type"], row["mode"]) for row in body["data"]["interfaces"]} == {
        ("A_1000BASE_T", "TAGGED_ALL")
    }


INTROSPECTION = """{
  mode: __type(name: "DcimInterfaceModeChoices") { kind enumValues { name } }
  poles: __type(name: "DcimPowerFeedBreakerPoleCountChoices") { kind enumValues { name } }
  kinds: __type(name: "DcimInterfaceTypeChoices") { kind enumValues { name } }
  interface: __type(name: "InterfaceType") { fields { name type { kind name ofType { kind name } } } }
  location: __type(name: "LocationType") { fields { name type { kind name ofType { kind name } } } }
  status: __type(name: "StatusType") { fields { name type { kind name ofType { kind name } } } }
  computed: __type(name: "ComputedFieldType") { fields { name type { kind name ofType { kind name } } } }
}"""


def field_types(found: dict) -> dict:
    return {f["name"]: f["type"] for f in found["fields"]}


def test_introspection_shows_the_reference_enums_and_types(api):
    data = post(api, INTROSPECTION)["data"]
    # The values as the reference's schema names them.
    assert {v["name"] for v in data["mode"]["enumValues"]} == {"ACCESS", "TAGGED", "TAGGED_ALL"}
    assert {v["name"] for v in data["poles"]["enumValues"]} == {"A_1", "A_2", "A_3"}
    assert {"VIRTUAL", "LAG", "A_1000BASE_T", "A_10GBASE_X_SFPP", "A_2_5GBASE_T"} <= {
        v["name"] for v in data["kinds"]["enumValues"]
    }
    interface = field_types(data["interface"])
    assert interface["type"] == {
        "kind": "NON_NULL",
        "name": None,
        "ofType": {"kind": "ENUM", "name": "DcimInterfaceTypeChoices"},
    }
    assert interface["mode"] == {"kind": "ENUM", "name": "DcimInterfaceModeChoices", "ofType": None}
    assert interface["type__rest"]["name"] == "GenericScalar"
    location = field_types(data["location"])
    assert location["latitude"] == {"kind": "SCALAR", "name": "Decimal", "ofType": None}
    status = field_types(data["status"])
    assert status["content_types"] == {
        "kind": "LIST",
        "name": None,
        "ofType": {"kind": "OBJECT", "name": "ContentTypeType"},
    }
    assert status["content_types__rest"] == {
        "kind": "LIST",
        "name": None,
        "ofType": {"kind": "SCALAR", "name": "String"},
    }
    computed = field_types(data["computed"])
    assert computed["content_type"] == {"kind": "OBJECT", "name": "ContentTypeType", "ofType": None}


def test_content_types_answer_objects(api, superuser):
    query = """{ statuses { id content_types { id app_label model } content_types__rest }
                 computed_fields { id content_type { id app_label model } content_type__rest } }"""
    data = through_http(api, superuser, query)
    assert data["statuses"] and data["computed_fields"]
    for row in data["statuses"]:
        held = Status.objects.get(pk=row["id"]).content_types.all()
        assert sorted((t["id"], t["app_label"], t["model"]) for t in row["content_types"]) == sorted(
            held.values_list("pk", "app_label", "model")
        )
        assert row["content_types__rest"] == [
            f"{t.app_label}.{t.model}" for t in held.order_by("app_label", "model")
        ]
    for row in data["computed_fields"]:
        held = ComputedField.objects.get(pk=row["id"]).content_type
        assert row["content_type"] == {"id": held.pk, "app_label": held.app_label, "model": held.model}
        assert row["content_type__rest"] == f"{held.app_label}.{held.model}"
    # REST shows labels, as before.
    shown = api.json(f"/api/extras/statuses/{data['statuses'][0]['id']}/")
    assert shown["content_types"] == data["statuses"][0]["content_types__rest"]


def test_a_cable_shows_its_termination_types_as_text(api, superuser):
    """As the reference's schema shows them (graphql_as_rest): no twin."""
    from inventory.dcim.models import Cable

    data = through_http(api, superuser, "{ cables { id termination_a_type termination_b_type } }")
    assert data["cables"]
    for row in data["cables"]:
        cable = Cable.objects.get(pk=row["id"])
        a, b = cable.termination_a_type, cable.termination_b_type
        assert (row["termination_a_type"], row["termination_b_type"]) == (
            f"{a.app_label}.{a.model}",
            f"{b.app_label}.{b.model}",
        )
    fields = schema.graphql_schema.get_type("CableType").fields
    assert str(fields["termination_a_type"].type) == "String" and "termination_a_type__rest" not in fields


def test_decimals_are_the_reference_decimal_text(api, superuser):
    located = Location.objects.exclude(latitude=None).order_by("pk").first()
    data = through_http(api, superuser, f'{{ locations(id: ["{located.pk}"]) {{ latitude longitude }} }}')
    assert data["locations"] == [{"latitude": str(located.latitude), "longitude": str(located.longitude)}]
    shown = api.json(f"/api/dcim/locations/{located.pk}/")
    assert (shown["latitude"], shown["longitude"]) == (str(located.latitude), str(located.longitude))


def two_forms(resource) -> dict:
    """{field: its selection in the reference's form} of the fields with a twin."""
    found = {}
    for spec, twin in twins.twins_of(resource).values():
        if (
            twin is twins.AS_DECLARED
            or spec.legacy
            or spec.name not in schema.graphql_schema.get_type(resource.type_name).fields
        ):
            continue
        found[spec.name] = (
            f"{spec.name} {{ id app_label model }}"
            if spec.kind in (CONTENT_TYPE, CONTENT_TYPES)
            else spec.name
        )
    return found


TWINNED = [r for r in resources() if two_forms(r) and r.served_at(versioning.DEFAULT)]


@pytest.mark.parametrize("resource", TWINNED, ids=lambda r: r.route)
def test_every_field_in_both_forms(resource, api, superuser):
    """Each choice and content type in the reference's form and REST's, by the compiled plan and
    the generic executor alike: an enum value name stands for the value REST shows."""
    forms = two_forms(resource)
    selections = " ".join(f"{selection} {twins.twin_name(name)}" for name, selection in forms.items())
    rows = through_http(api, superuser, f"{{ {resource.list_field}(limit: 50) {{ id {selections} }} }}")[
        resource.list_field
    ]
    fields = schema.graphql_schema.get_type(resource.type_name).fields
    specs = {spec.name: spec for spec in resource.fields}
    for row in rows:
        for name in forms:
            shown, rest = row[name], row[twins.twin_name(name)]
            if specs[name].kind == CONTENT_TYPE:
                assert (shown and f"{shown['app_label']}.{shown['model']}") == rest, name
            elif specs[name].kind == CONTENT_TYPES:
                assert sorted(f"{t['app_label']}.{t['model']}" for t in shown) == sorted(rest), name
            else:
                value = rest["value"] if isinstance(rest, dict) else rest
                enum = getattr(fields[name].type, "of_type", fields[name].type)
                stands_for = None if shown is None else enum.values[shown].value
                assert getattr(stands_for, "value", stands_for) == (value or None), name


def test_arguments_are_typed_by_the_field_kind(api):
    """A service's port and a radio profile's channel width are whole numbers (a single `Int`
    taken too), an integer choice's `__isnull` text, as the reference's schema types them."""
    from inventory.dcim.models import PowerFeed
    from inventory.ipam.models import Service
    from inventory.wireless.models import RadioProfile

    arguments = schema.graphql_schema.query_type.fields
    assert str(arguments["services"].args["ports"].type) == "[Int]"
    assert str(arguments["radio_profiles"].args["channel_width"].type) == "[Int]"
    assert str(arguments["power_feeds"].args["breaker_pole_count__isnull"].type) == "[String]"
    assert str(arguments["power_feeds"].args["breaker_position__isnull"].type) == "Boolean"
    body = post(
        api,
        """{ services(ports: 443) { name } radio_profiles(channel_width: 160) { name }
             unset: power_feeds(breaker_pole_count__isnull: "true") { name breaker_pole_count }
             set: power_feeds(breaker_pole_count__isnull: ["false"]) { name breaker_pole_count } }""",
    )
    assert "errors" not in body, body
    data = body["data"]
    assert sorted(s["name"] for s in data["services"]) == sorted(
        s.name for s in Service.objects.all() if 443 in s.ports
    )
    assert sorted(p["name"] for p in data["radio_profiles"]) == sorted(
        p.name for p in RadioProfile.objects.all() if 160 in (p.channel_width or [])
    )
    feeds = PowerFeed.objects.all()
    assert sorted(f["name"] for f in data["unset"]) == sorted(
        f.name for f in feeds if f.breaker_pole_count is None
    )
    assert {f["name"]: f["breaker_pole_count"] for f in data["set"]} == {
        f.name: f"A_{f.breaker_pole_count}" for f in feeds if f.breaker_pole_count is not None
    }
    assert data["services"] and data["radio_profiles"] and data["unset"] and data["set"]
