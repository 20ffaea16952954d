"""Custom fields: definitions, validated values with the reference's errors, cf_ filters."""

from __future__ import annotations

import orjson

from inventory.dcim.models import Device
from inventory.extras.models import CustomField

DEVICES = "/api/dcim/devices/"


def patch(api, path: str, body):
    response = api.client.patch(path, orjson.dumps(body), content_type="application/json")
    return response.status_code, orjson.loads(response.content)


def post(api, path: str, body):
    response = api.post(path, body)
    return response.status_code, orjson.loads(response.content)


def test_objects_show_exactly_the_defined_keys(api, sample):
    used, other = Device.objects.get(name="leaf1"), Device.objects.get(name="core1")
    assert api.json(f"{DEVICES}{used.pk}/")["custom_fields"] == {"owner": "netops", "ports": 48, "tier": None}
    assert api.json(f"{DEVICES}{other.pk}/")["custom_fields"] == {"owner": None, "ports": None, "tier": None}
    assert api.json("/api/dcim/locations/")["results"][0]["custom_fields"] == {}


def test_values_are_validated_as_the_reference(api, sample):
    path = f"{DEVICES}{Device.objects.get(name='leaf1').pk}/"
    assert patch(api, path, {"custom_fields": {"ports": 500}}) == (
        400,
        {"__all__": ["Invalid value for custom field 'ports': Value must not exceed 96"]},
    )
    assert patch(api, path, {"custom_fields": {"tier": "bronze"}}) == (
        400,
        {
            "__all__": [
                "Invalid value for custom field 'tier': Invalid choice (bronze). Available choices are: gold, silver"
            ]
        },
    )
    code, body = patch(api, path, {"custom_fields": {"ports": "many"}})
    assert code == 400 and body["__all__"] == [
        "Invalid value for custom field 'ports': Value must be an integer."
    ]
    # Unknown keys are dropped; given keys merge with the stored ones.
    code, body = patch(api, path, {"custom_fields": {"nosuchfield": 1, "tier": "gold"}})
    assert code == 200 and body["custom_fields"] == {"owner": "netops", "ports": 48, "tier": "gold"}
    code, body = patch(api, path, {"custom_fields": "x"})
    assert code == 400 and "custom_fields" in body


def test_definitions_follow_into_the_data(api, sample):
    code, field = post(
        api,
        "/api/extras/custom-fields/",
        {"key": "rack_row", "label": "Row", "type": "text", "default": "A", "content_types": ["dcim.device"]},
    )
    assert code == 201, field
    assert field["type"] == {"value": "text", "label": "Text"} and field["filter_logic"]["value"] == "loose"
    rows = api.json(DEVICES, {"limit": 0})["results"]
    assert {row["custom_fields"]["rack_row"] for row in rows} == {"A"}
    code, _ = patch(api, f"/api/extras/custom-fields/{field['id']}/", {"key": "row"})
    assert code == 200
    rows = api.json(DEVICES, {"limit": 0})["results"]
    assert all("row" in r["custom_fields"] and "rack_row" not in r["custom_fields"] for r in rows)
    code, _ = patch(api, f"/api/extras/custom-fields/{field['id']}/", {"content_types": ["dcim.location"]})
    assert code == 200
    assert "row" not in api.json(DEVICES)["results"][0]["custom_fields"]
    assert api.json("/api/dcim/locations/")["results"][0]["custom_fields"] == {"row": "A"}
    assert api.client.delete(f"/api/extras/custom-fields/{field['id']}/").status_code == 204
    assert api.json("/api/dcim/locations/")["results"][0]["custom_fields"] == {}
    code, body = post(api, "/api/extras/custom-fields/", {"key": "Bad Key", "label": "x", "type": "text"})
    assert code == 400 and "key" in body
    required = {
        "key": "asset_owner",
        "label": "y",
        "type": "integer",
        "required": True,
        "content_types": ["dcim.device"],
    }
    assert post(api, "/api/extras/custom-fields/", required)[0] == 201
    code, body = patch(api, f"{DEVICES}{Device.objects.get(name='leaf1').pk}/", {"name": "leaf1"})
    assert code == 400 and body == {"__all__": ["Missing required custom field 'asset_owner'."]}


def test_cf_filters(api, sample):
    leaf = Device.objects.get(name="leaf1")

    def ids(params):
        return {row["id"] for row in api.json(DEVICES, {**params, "limit": 0})["results"]}

    everyone = ids({})
    assert ids({"cf_owner": "netops"}) == {str(leaf.pk)}
    assert ids({"cf_owner": "NET"}) == {str(leaf.pk)}  # loose: part of the value, any case
    assert ids({"cf_owner__ic": "NET"}) == {str(leaf.pk)}
    assert ids({"cf_owner__n": "netops"}) == everyone - {str(leaf.pk)}
    assert ids({"cf_ports__gte": "24"}) == {str(leaf.pk)}
    assert ids({"cf_ports__lt": "24"}) == set()
    assert ids({"cf_ports": ["48", "12"]}) == {str(leaf.pk)}
    assert ids({"cf_ports__gte": "24", "cf_owner": "other"}) == set()
    bad = api.get(DEVICES, {"cf_ports__gte": "many"})
    assert bad.status_code == 400 and orjson.loads(bad.content) == {
        "cf_ports__gte": ["Enter a whole number."]
    }
    unknown = api.get(DEVICES, {"cf_nothing": "x", "cf_ports__ic": "4"})
    assert orjson.loads(unknown.content) == {
        "cf_nothing": ["Unknown filter field"],
        "cf_ports__ic": ["Unknown filter field"],
    }
    assert api.get("/api/dcim/locations/", {"cf_owner": "x"}).status_code == 400
    # GraphQL takes the same filters in one argument.
    query = '{ devices(cf: {cf_ports__gte: ["24"]}) { name custom_fields } }'
    body = orjson.loads(api.post("/api/graphql/", {"query": query}).content)
    assert body["data"]["devices"] == [
        {"name": "leaf1", "custom_fields": {"owner": "netops", "ports": 48, "tier": None}}
    ]


def graphql(api, query: str, status: int = 200) -> dict:
    response = api.post("/api/graphql/", {"query": query})
    assert response.status_code == status, response.content
    return orjson.loads(response.content)


def test_graphql_names_each_custom_field_and_takes_its_filters(api, sample, superuser):
    from queryengine import engine
    from queryengine.scalars import dumps
    from queryengine.schema import RequestContext

    query = """{ devices(cf_ports__gte: "24") { name cf_owner cf_ports cf_tier _custom_field_data }
                 locations(limit: 1) { devices(cf_owner__ic: "NET") { name cf_owner } } }"""
    context = RequestContext(user=superuser, base_url="http://testserver/api/")
    compiled = engine.run(query, {}, context, supplied=True)
    generic = engine.run(query, {}, context, supplied=True, compiled=False)
    assert not compiled.errors and engine.prepare_supplied(query).plan is not None
    assert dumps(compiled.data) == dumps(generic.data)
    assert orjson.loads(dumps(compiled.data))["devices"] == [
        {
            "name": "leaf1",
            "cf_owner": "netops",
            "cf_ports": 48,
            "cf_tier": None,
            "_custom_field_data": {"owner": "netops", "ports": 48, "tier": None},
        }
    ]
    # A field defined now is there at once, with its type; one deleted goes, with its filters.
    code, _ = post(
        api,
        "/api/extras/custom-fields/",
        {
            "key": "in_service",
            "label": "In service",
            "type": "boolean",
            "content_types": ["dcim.device"],
        },
    )
    assert code == 201
    body = graphql(api, '{ devices(cf_in_service: "false", limit: 1) { cf_in_service } }')
    assert body == {"data": {"devices": []}}
    kind = graphql(api, '{ __type(name: "DeviceType") { fields { name type { name } } } }')
    fields = {f["name"]: f["type"]["name"] for f in kind["data"]["__type"]["fields"]}
    assert fields["cf_in_service"] == "Boolean" and fields["cf_ports"] == "Int"
    api.client.delete(f"/api/extras/custom-fields/{CustomField.objects.get(key='ports').pk}/")
    gone = graphql(api, "{ devices { cf_ports } }", status=400)
    assert gone["errors"][0]["message"].startswith("Cannot query field 'cf_ports' on type 'DeviceType'.")
    gone = graphql(api, '{ devices(cf_ports: "1") { name } }', status=400)
    assert "Unknown argument 'cf_ports'" in gone["errors"][0]["message"]
    # Bad values answer the REST filters' messages.
    bad = graphql(api, '{ devices(cf_in_service: "perhaps") { name } }')
    assert bad["errors"][0]["message"] and bad["data"] == {"devices": None}
