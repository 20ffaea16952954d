"""The GraphQL endpoint: same schema, permissions and filters as REST."""

import orjson

from inventory.dcim.models import Location
from inventory.users.models import User

from .conftest import Api

GRAPHQL = "/api/graphql/"


def post(api, query, variables=None, status=200):
    response = api.post(GRAPHQL, {"query": query, "variables": variables or {}})
    assert response.status_code == status, response.content
    return orjson.loads(response.content)


def test_list_with_filters_and_nesting(api):
    body = post(
        api, '{ locations(name__isw: "ams", order_by: ["name"]) { name status { name } tags { name } } }'
    )
    assert body == {
        "data": {
            "locations": [
                {
                    "name": "AMS1",
                    "status": {"name": "Active"},
                    "tags": [{"name": "alpha"}, {"name": "gamma-core"}],
                },
                {"name": "AMS1 floor 1", "status": {"name": "Active"}, "tags": []},
            ]
        }
    }


def test_variables_single_object_and_count(api, sample):
    ams = sample[Location][1]
    query = "query ($id: UUID!, $s: [String]) { location(id: $id) { name parent { name } } locations_count(status: $s) }"
    body = post(api, query, {"id": str(ams.pk), "s": ["Planned"]})
    assert body["data"] == {"location": {"name": "AMS1", "parent": {"name": "Europe"}}, "locations_count": 1}


def test_fragments_and_aliases_run_on_the_generic_executor(api):
    query = """
        query { sites: locations(parent: "Europe") { ...Bits } }
        fragment Bits on LocationType { name tree_depth display }
    """
    body = post(api, query)
    assert body["data"]["sites"] == [
        {"name": "AMS1", "tree_depth": 1, "display": "Europe → AMS1"},
        {"name": "fra2", "tree_depth": 1, "display": "Europe → fra2"},
    ]


def test_errors(api):
    body = post(api, "{ locations { nosuchfield } }", status=400)
    assert body["errors"][0]["message"] == "Cannot query field 'nosuchfield' on type 'LocationType'."
    assert body["errors"][0]["locations"] == [{"line": 1, "column": 15}]
    body = post(api, "{ locations {", status=400)
    assert body["errors"][0]["message"].startswith("Syntax Error")
    body = post(api, '{ locations(status: "Nope") { name } }')
    assert body["data"] == {"locations": None} and "Nope" in body["errors"][0]["message"]


def test_depth_is_capped(api):
    nested = "parent { " * 13 + "name" + " }" * 13
    body = post(api, f"{{ locations {{ {nested} }} }}", status=400)
    assert "nested deeper" in body["errors"][0]["message"]


def test_authentication_and_permissions(anonymous, sample):
    response = anonymous.post(GRAPHQL, {"query": "{ locations { name } }"})
    assert response.status_code == 403
    assert orjson.loads(response.content) == {"detail": "Authentication credentials were not provided."}
    from inventory.users.models import Token

    user = User.objects.create_user("nobody")
    body = post(Api(Token.objects.create(user=user).key), "{ locations { name } locations_count }")
    assert body["data"] == {"locations": [], "locations_count": 0}


def test_get_is_not_allowed_but_browsers_get_graphiql(api):
    response = api.get(GRAPHQL)
    assert response.status_code == 405
    assert orjson.loads(response.content) == {"detail": 'Method "GET" not allowed.'}
    response = api.get(GRAPHQL, HTTP_ACCEPT="text/html")
    assert response.status_code == 200 and b"graphiql" in response.content.lower()


def test_note_mutation_needs_a_write_enabled_token(sample):
    from inventory.users.models import Token

    ams = sample[Location][1]
    mutation = "mutation ($data: [GenericScalar]!) { create_notes(data: $data) { note } }"
    variables = {
        "data": [{"assigned_object_type": "dcim.location", "assigned_object_id": str(ams.pk), "note": "hi"}]
    }
    read_only = Api(sample[Token][1].key)
    body = post(read_only, mutation, variables)
    assert body["data"] == {"create_notes": None}
    assert body["errors"][0]["message"] == "You do not have permission to perform this action."
    body = post(Api(sample[Token][0].key), mutation, variables)
    assert body["data"] == {"create_notes": [{"note": "hi"}]}, body


def test_variables_inside_literal_data_and_filters_are_read(api, sample):
    """A variable inside an object literal (`data: [{id: $id, description: $d}]`, `cf: {...}`) is
    the value given for it, never null: a write would otherwise clear the field it names."""
    ams = sample[Location][1]
    mutation = "mutation ($id: String, $d: String) { update_locations(data: [{id: $id, description: $d}]) { id description } }"
    body = post(api, mutation, {"id": str(ams.pk), "d": "from a variable"})
    assert body["data"] == {"update_locations": [{"id": str(ams.pk), "description": "from a variable"}]}, body
    assert Location.objects.get(pk=ams.pk).description == "from a variable"
    query = "query ($n: [String]) { locations(name: $n) { name } }"
    assert post(api, query, {"n": [ams.name]})["data"] == {"locations": [{"name": ams.name}]}
