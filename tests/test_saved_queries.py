"""Saved GraphQL queries: validation against the schema, derived variables, and run/ on the same
engine and permissions as /api/graphql/."""

from __future__ import annotations

import pytest

from inventory.extras.models import GraphQLQuery
from inventory.tenancy.models import Tenant
from inventory.users.models import Token, User

from .builders import SUPERUSER_KEY
from .conftest import Api, send

QUERIES = "/api/extras/graphql-queries/"
BY_NAME = "query ($name: [String], $limit: Int = 5) { tenants(name: $name, limit: $limit) { name } }"


@pytest.fixture
def admin(superuser):
    Token.objects.create(user=superuser, key=SUPERUSER_KEY)
    Tenant.objects.create(name="Acme")
    Tenant.objects.create(name="Globex")
    return Api(SUPERUSER_KEY)


def save(api, name: str, query: str) -> dict:
    status, created = send(api, "post", QUERIES, {"name": name, "query": query})
    assert status == 201, created
    return created


def test_create_derives_variables_and_reads_back(admin):
    created = save(
        admin,
        "by name",
        'query ($name: [String] = "Acme", $limit: Int = 5, $q: [String]) { '
        "tenants(name: $name, limit: $limit, q: $q) { name } }",
    )
    assert created["variables"] == {"name": "Acme", "limit": "5", "q": ""}
    assert created["object_type"] == "extras.graphqlquery" and created["display"] == "by name"
    assert created["owner"] is None and "notes_url" in created
    assert (
        admin.json(f"{QUERIES}{created['id']}/", {"include": "relationships"})["variables"]
        == created["variables"]
    )
    # Variables follow the text; they are not written by clients.
    status, patched = send(
        admin,
        "patch",
        created["url"].replace("http://testserver", ""),
        {"query": "{ tenants { name } }", "variables": {"x": 1}},
    )
    assert status == 200 and patched["variables"] == {}
    assert admin.json(QUERIES, {"q": "tenants"})["count"] == 1
    assert admin.json(QUERIES, {"name": "by name"})["count"] == 1


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("{ tenants { name }", "Syntax Error: Expected Name, found <EOF>."),
        ("{ no_such_field { id } }", "Cannot query field 'no_such_field' on type 'Query'."),
        ("query ($x: Nope) { tenants { name } }", "Unknown type 'Nope'."),
    ],
)
def test_query_text_must_be_valid_against_the_schema(admin, query, message):
    status, errors = send(admin, "post", QUERIES, {"name": "bad", "query": query})
    assert status == 400 and list(errors) == ["query"]
    assert errors["query"][0].startswith(message), errors
    assert not GraphQLQuery.objects.exists()


def test_run_with_variables(admin):
    saved = save(admin, "by name", BY_NAME)
    run = f"{QUERIES}{saved['id']}/run/"
    assert send(admin, "post", run, {"variables": {"name": ["Acme"]}}) == (
        200,
        {"data": {"tenants": [{"name": "Acme"}]}, "errors": None},
    )
    status, body = send(admin, "post", run, {})
    assert status == 200 and [t["name"] for t in body["data"]["tenants"]] == ["Acme", "Globex"]
    status, body = send(admin, "post", run, {"variables": {"limit": 1}})
    assert status == 200 and len(body["data"]["tenants"]) == 1
    # The same document sent to /api/graphql/ answers the same.
    direct = admin.post("/api/graphql/", {"query": BY_NAME, "variables": {"name": ["Acme"]}})
    assert direct.json() == {"data": {"tenants": [{"name": "Acme"}]}}


def test_run_errors(admin):
    saved = save(admin, "by name", BY_NAME)
    run = f"{QUERIES}{saved['id']}/run/"
    status, body = send(admin, "post", run, {"variables": {"limit": "many"}})
    assert status == 400 and body["errors"][0]["message"].startswith("Variable '$limit' got invalid value")
    assert send(admin, "post", run, {"variables": ["x"]}) == (
        400,
        {"variables": ['Expected a dictionary of items but got type "list".']},
    )
    failing = save(admin, "bad filter", '{ tenants(tenant_group: ["nobody"]) { name } }')
    status, body = send(admin, "post", f"{QUERIES}{failing['id']}/run/", {})
    assert status == 200 and body["data"] == {"tenants": None} and body["errors"][0]["path"] == ["tenants"]
    missing = f"{QUERIES}00000000-0000-4000-8000-000000000000/run/"
    assert send(admin, "post", missing, {}) == (404, {"detail": "No GraphQLQuery matches the given query."})
    assert admin.get(run).status_code == 405


def test_run_uses_the_callers_permissions(admin):
    saved = save(admin, "all tenants", "{ tenants { name } }")
    run = f"{QUERIES}{saved['id']}/run/"
    assert send(Api(None), "post", run, {})[0] == 403
    user = User.objects.create_user("viewer")
    token = Token.objects.create(user=user)
    assert send(Api(token.key), "post", run, {})[0] == 403  # may not read saved queries
    from django.contrib.auth.models import Permission

    user.user_permissions.add(Permission.objects.get(codename="view_graphqlquery"))
    status, body = send(Api(token.key), "post", run, {})
    # May run it, but sees no tenants without their own permission: as /api/graphql/ answers.
    assert status == 200 and body["data"] == {"tenants": []}
    user.user_permissions.add(Permission.objects.get(codename="view_tenant"))
    status, body = send(Api(token.key), "post", run, {})
    assert status == 200 and len(body["data"]["tenants"]) == 2


def test_a_saved_mutation_needs_a_write_token(admin, superuser):
    saved = save(admin, "add tenant", 'mutation { create_tenants(data: [{name: "Initech"}]) { name } }')
    run = f"{QUERIES}{saved['id']}/run/"
    read_only = Token.objects.create(user=superuser, write_enabled=False)
    status, body = send(Api(read_only.key), "post", run, {})
    assert body["errors"] and not Tenant.objects.filter(name="Initech").exists()
    status, body = send(admin, "post", run, {})
    assert status == 200 and body["data"] == {"create_tenants": [{"name": "Initech"}]}
