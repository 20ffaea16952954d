"""Request limits: GraphQL root fields and rows, body size, bulk length; each a clear 4xx."""

from __future__ import annotations

import time

import orjson
import pytest
from graphql import GraphQLError

from inventory.dcim.models import Interface
from inventory.tenancy.models import Tenant

from .conftest import send


def graphql(api, query: str):
    response = api.post("/api/graphql/", {"query": query})
    return response.status_code, orjson.loads(response.content)


def test_aliases_past_the_root_field_limit_are_refused(api, sample, settings):
    settings.GRAPHQL_MAX_ROOT_FIELDS = 5
    five = " ".join(f"t{i}: tenants(limit: 1) {{ name }}" for i in range(5))
    status, body = graphql(api, f"{{ {five} }}")
    assert status == 200 and len(body["data"]) == 5
    # Fragments count what they expand to.
    status, body = graphql(api, f"{{ ...more }} fragment more on Query {{ {five} extra: tenants_count }}")
    assert status == 400
    assert body["errors"][0]["message"] == (
        "Query has 6 root fields (aliases included); the limit is 5 (GRAPHQL_MAX_ROOT_FIELDS)."
    )


def test_rows_a_document_may_return_are_bounded(api, sample, settings):
    settings.GRAPHQL_MAX_ROWS = 2500
    status, body = graphql(api, "{ a: tenants(limit: 1000) { name } b: tenants(limit: 1000) { name } }")
    assert status == 200, body
    # Without a limit a root list may return the largest page (1000).
    status, body = graphql(
        api, "{ a: tenants(limit: 1000) { name } b: tenants { name } c: locations { name } }"
    )
    assert status == 400
    assert "may return up to 3000 rows" in body["errors"][0]["message"]
    assert "GRAPHQL_MAX_ROWS" in body["errors"][0]["message"]
    # A limit past the largest page is clamped to it, so it costs no more than the page.
    status, body = graphql(api, "{ a: tenants(limit: 99999) { name } b: tenants(limit: 1500) { name } }")
    assert status == 200, body
    # Counts and single objects are not lists.
    status, body = graphql(
        api, "{ a: tenants(limit: 1000) { name } b: tenants_count c: tenants(limit: 1000) { id } }"
    )
    assert status == 200, body


def test_a_body_past_the_size_limit_is_413(api, sample, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 2000
    body = [{"name": f"bulk-{i:04d}", "description": "x" * 40} for i in range(50)]
    status, answer = send(api, "post", "/api/tenancy/tenants/", body)
    assert status == 413
    assert answer == {
        "detail": "The request body is larger than the 2000 bytes allowed (MAX_REQUEST_BODY_BYTES)."
    }
    assert not Tenant.objects.filter(name__startswith="bulk-").exists()


def test_a_bulk_write_past_the_length_limit_is_400(api, sample, settings):
    settings.MAX_BULK_OBJECTS = 3
    status, answer = send(api, "post", "/api/tenancy/tenants/", [{"name": f"bulk-{i}"} for i in range(4)])
    assert status == 400
    assert answer == {"detail": "A bulk request takes at most 3 objects (MAX_BULK_OBJECTS); this one has 4."}
    assert not Tenant.objects.filter(name__startswith="bulk-").exists()
    status, answer = send(api, "post", "/api/tenancy/tenants/", [{"name": f"bulk-{i}"} for i in range(3)])
    assert status == 201 and len(answer) == 3


def test_introspection_is_not_held_to_the_depth_limit(api, sample):
    from graphql import get_introspection_query

    status, body = graphql(api, get_introspection_query(descriptions=True))
    assert status == 200, body.get("errors")
    assert any(t["name"] == "Query" for t in body["data"]["__schema"]["types"])
    # Data queries still are.
    deep = "{ devices { " + "location { " * 20 + "name" + " }" * 20 + " } }"
    status, body = graphql(api, deep)
    assert status == 400 and "nested deeper" in body["errors"][0]["message"]


def test_client_documents_kept_prepared_are_bounded(api, sample, monkeypatch):
    """Documents that differ only in a literal value are each prepared; a process keeps them
    within GRAPHQL_PREPARED_DOCUMENTS_MIB, apart from the documents REST writes."""
    from queryengine import engine
    from queryengine.documentcache import estimated_cost

    supplied = engine.prepare_supplied
    supplied.clear()
    api.json("/api/tenancy/tenants/")  # a REST document
    rest_documents = len(engine.prepare)
    texts = [f"{{ tenants(limit: 1, offset: {offset}) {{ name }} }}" for offset in range(15)]
    monkeypatch.setattr(supplied, "budget", sum(estimated_cost(t) for t in texts[-10:]))
    for text in texts:
        status, body = graphql(api, text)
        assert status == 200, body
    assert list(supplied.kept) == texts[-10:] and supplied.used <= supplied.budget
    assert len(engine.prepare) == rest_documents
    hits = engine.prepare.hits
    api.json("/api/tenancy/tenants/")
    assert engine.prepare.hits == hits + 1  # still kept


def test_a_deep_document_takes_the_room_of_many_small_ones():
    from queryengine.documentcache import DocumentCache, estimated_cost

    small = [f"{{ a{i} }}" for i in range(8)]
    deep = "{ " + "x" * 800 + " }"  # as much room as three or four small ones
    cache = DocumentCache(lambda source: object(), sum(map(estimated_cost, small)))
    for text in small:
        cache(text)
    assert len(cache) == 8
    cache(small[0])  # used again: the least recently used is now small[1]
    cache(deep)
    kept = list(cache.kept)
    assert kept[-2:] == [small[0], deep] and small[1] not in kept and small[7] in kept
    assert cache.used == sum(map(estimated_cost, kept)) <= cache.budget


def doubling(times: int) -> str:
    """Each fragment spreads the one before it twice: `times` lines select 2**times fields."""
    fragments = ["fragment F0 on DeviceType { id name }"] + [
        f"fragment F{i} on DeviceType {{ ...F{i - 1} ...F{i - 1} }}" for i in range(1, times + 1)
    ]
    return f"{{ devices {{ ...F{times} }} }} " + " ".join(fragments)


def refused_fast(api, query: str) -> str:
    started = time.perf_counter()
    status, body = graphql(api, query)
    # Milliseconds when the machine is idle; the bound only proves nothing expands or compiles
    # (the 39-fold doubling once ran past any client's timeout), on a machine running two suites.
    assert time.perf_counter() - started < 10
    assert status == 400 and "data" not in body, body
    return body["errors"][0]["message"]


@pytest.mark.parametrize("times", [20, 39])
def test_fragments_doubling_their_fields_are_refused_before_compiling(api, sample, times):
    message = refused_fast(api, doubling(times))
    assert message == (
        f"The document selects {2 ** (times + 1) + 1} fields once its fragments are expanded; "
        "the limit is 10000 (GRAPHQL_MAX_SELECTIONS)."
    )


def test_a_document_past_its_size_or_tokens_is_refused_before_parsing(api, sample):
    flat = "{ devices { " + "name " * 600_000 + "} }"  # 3 MB
    assert refused_fast(api, flat) == (
        f"The document is {len(flat)} bytes long; the limit is 1048576 bytes (GRAPHQL_MAX_DOCUMENT_BYTES)."
    )
    flat = "{ devices { " + "name " * 200_000 + "} }"  # 1 MB: within the size, not the tokens
    assert (
        refused_fast(api, flat) == "The document has more than 20000 tokens, the limit (GRAPHQL_MAX_TOKENS)."
    )


def test_document_limits_are_settings_and_count_what_fragments_expand_to(api, sample, settings):
    settings.GRAPHQL_MAX_SELECTIONS = 7
    # Seven fields: the fragment's two count at each of its spreads.
    seven = (
        "{ tenants(limit: 1) { tenant_group { ...G } } tenant_groups(limit: 1) { ...G } } "
        "fragment G on TenantGroupType { id name }"
    )
    status, body = graphql(api, seven)
    assert status == 200, body
    status, body = graphql(api, seven.replace("tenant_group {", "name tenant_group {"))
    assert status == 400
    assert body["errors"][0]["message"].startswith("The document selects 8 fields")
    # A fragment spreading itself is counted without end and left to validation to name.
    status, body = graphql(api, "{ tenants { ...A } } fragment A on TenantType { id ...A }")
    assert status == 400 and "Cannot spread fragment 'A' within itself." in body["errors"][0]["message"]
    settings.GRAPHQL_MAX_TOKENS = 11
    assert graphql(api, "{ tenants(limit: 1) { name } }")[0] == 200  # eleven tokens
    status, body = graphql(api, "{ tenants(limit: 1) { id name } }")
    assert status == 400 and "(GRAPHQL_MAX_TOKENS)" in body["errors"][0]["message"]
    settings.GRAPHQL_MAX_DOCUMENT_BYTES = 20
    status, body = graphql(api, "{ tenants { name } }  ")
    assert status == 400 and "(GRAPHQL_MAX_DOCUMENT_BYTES)" in body["errors"][0]["message"]


def test_saved_queries_are_held_to_the_document_limits(api, sample):
    from inventory.extras.models import GraphQLQuery

    status, answer = send(api, "post", "/api/extras/graphql-queries/", {"name": "big", "query": doubling(39)})
    assert status == 400 and "(GRAPHQL_MAX_SELECTIONS)" in answer["query"][0]
    # One stored without that check is refused when it runs.
    saved = GraphQLQuery.objects.create(name="stored", query=doubling(39))
    started = time.perf_counter()
    status, answer = send(api, "post", f"/api/extras/graphql-queries/{saved.pk}/run/", {})
    assert time.perf_counter() - started < 10
    assert status == 400 and "(GRAPHQL_MAX_SELECTIONS)" in answer["errors"][0]["message"]


def test_the_documents_rest_writes_are_not_refused(api, sample, settings):
    """REST's own documents are not held to the limits of the documents clients write. Its
    largest, an interface list at depth 10 (and in 1.x's nested form), are within the size and
    token limits all the same; at depth 10 they select millions of fields (each nested fragment
    is compiled once)."""
    from queryengine import registry
    from queryengine.documents import LegacyShape, list_document, many_to_many_fields
    from queryengine.limits import parse_within_limits

    interfaces = registry.resource_for(Interface)
    many = frozenset(many_to_many_fields(interfaces))
    parse_within_limits(list_document(interfaces, LegacyShape("1.3"), many, ()))
    deepest = list_document(interfaces, 10, many, ())
    with pytest.raises(GraphQLError, match=r"\(GRAPHQL_MAX_SELECTIONS\)"):
        parse_within_limits(deepest)
    settings.GRAPHQL_MAX_SELECTIONS = 10**9
    parse_within_limits(deepest)
    response = api.get("/api/dcim/interfaces/", {"depth": 10, "limit": 1})
    assert response.status_code == 200, response.content[:300]


# Patterns whose matching time has no bound: back references (the reported attack held both
# PostgreSQL backends of a device list for minutes over a 201-character comment).
BACK_REFERENCES = [
    r"^(.*)(.*)(.*)(.*)\4\3\2\1$",
    r"(a)\1",
    r"(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\10",
    r"(?P<x>a+)(?P=x)",
    r"(?P<x>a+)\k<x>",
    r"(a)?(?(1)b|c)",
]


@pytest.mark.parametrize("pattern", BACK_REFERENCES)
def test_regular_expressions_referring_to_groups_are_refused(api, sample, pattern):
    for lookup in ("re", "ire", "nre", "nire"):
        response = api.get("/api/dcim/devices/", {f"comments__{lookup}": pattern})
        assert response.status_code == 400, (lookup, response.content)
        assert "back references" in orjson.loads(response.content)[f"comments__{lookup}"][0]
    status, body = graphql(api, f"{{ devices(comments__re: [{orjson.dumps(pattern).decode()}]) {{ name }} }}")
    assert body["data"] == {"devices": None}
    assert (
        "comments__re" in body["errors"][0]["message"] and "back references" in body["errors"][0]["message"]
    )


def test_custom_field_and_page_regex_filters_are_held_to_the_same_check(api, sample, superuser):
    from django.test import Client

    attack = BACK_REFERENCES[0]
    response = api.get("/api/dcim/devices/", {"cf_owner__re": attack})
    assert (
        response.status_code == 400 and "back references" in orjson.loads(response.content)["cf_owner__re"][0]
    )
    status, body = graphql(
        api, f'{{ devices(cf_owner__ire: ["{attack.replace(chr(92), chr(92) * 2)}"]) {{ name }} }}'
    )
    assert (
        "cf_owner__ire" in body["errors"][0]["message"] and "back references" in body["errors"][0]["message"]
    )
    browser = Client()
    browser.force_login(superuser)
    page = browser.get("/dcim/devices/", {"comments__re": attack})
    assert page.status_code == 400 and b"back references" in page.content
    # An escaped backslash before a digit is no reference; a lone \0 is an octal escape.
    for allowed in (r"\\1", r"a\0", r"(a)(b)"):
        assert api.get("/api/dcim/devices/", {"comments__re": allowed}).status_code == 200, allowed


def test_regular_expressions_past_the_length_limit_are_refused(api, sample, settings):
    assert api.get("/api/dcim/devices/", {"name__re": "a" * 500}).status_code == 200
    response = api.get("/api/dcim/devices/", {"name__re": "a" * 501})
    assert response.status_code == 400
    assert orjson.loads(response.content) == {
        "name__re": [
            "Enter a regular expression of at most 500 characters (FILTER_REGEX_MAX_LENGTH); this one has 501."
        ]
    }
    settings.FILTER_REGEX_MAX_LENGTH = 10
    status, body = graphql(api, '{ devices(name__ire: ["edge-router"]) { name } }')
    assert "(FILTER_REGEX_MAX_LENGTH); this one has 11." in body["errors"][0]["message"]


NETWORKS_VARIABLE = "query ($w: [String]) { prefixes(within_include: $w) { prefix } }"


def networks(count: int) -> list[str]:
    return [f"10.{i >> 8 & 255}.{i & 255}.0/24" for i in range(count)]


def test_one_filter_takes_at_most_the_values_of_a_query_string(api, sample):
    """One GraphQL variable of 50,000 networks held a worker for about 15 seconds (each value parsed
    and ORed into the query); the argument now gets at most FILTER_MAX_VALUES values, counted before
    any is read, as REST's query string holds at most DATA_UPLOAD_MAX_NUMBER_FIELDS."""
    started = time.perf_counter()
    response = api.post("/api/graphql/", {"query": NETWORKS_VARIABLE, "variables": {"w": networks(50_000)}})
    assert time.perf_counter() - started < 3  # 0.15 s on an idle machine
    body = orjson.loads(response.content)
    assert body["data"] == {"prefixes": None}
    assert body["errors"][0]["message"] == (
        "{'within_include': ['Give at most 1000 values (FILTER_MAX_VALUES); 50000 were given.']}"
    )
    # Nested lists take filters too, and so does each custom field parameter.
    query = "query ($w: [String]) { devices { interfaces(name: $w) { name } } }"
    body = orjson.loads(api.post("/api/graphql/", {"query": query, "variables": {"w": ["x"] * 1001}}).content)
    assert "'name': ['Give at most 1000 values (FILTER_MAX_VALUES)" in body["errors"][0]["message"]
    body = graphql(api, f"{{ devices(cf_owner: {orjson.dumps(['x'] * 1001).decode()}) {{ name }} }}")[1]
    assert "'cf_owner': ['Give at most 1000 values (FILTER_MAX_VALUES)" in body["errors"][0]["message"]
    # REST: past DATA_UPLOAD_MAX_NUMBER_FIELDS parameters, the API's error shape.
    query_string = "&".join(f"within_include={n}" for n in networks(1001))
    response = api.get(f"/api/ipam/prefixes/?{query_string}")
    assert response.status_code == 400
    assert orjson.loads(response.content) == {
        "detail": "The query string has more than 1000 parameters (DATA_UPLOAD_MAX_NUMBER_FIELDS)."
    }


def test_a_user_who_may_view_nothing_gets_nothing_without_any_value_read(api, sample):
    """Someone who may view no prefix paid the same 15 seconds: the values were read before the
    permissions emptied the answer."""
    from inventory.users.models import Token, User

    from .conftest import Api

    nobody = Api(Token.objects.create(user=User.objects.create_user("nobody")).key)
    started = time.perf_counter()
    response = nobody.post(
        "/api/graphql/", {"query": NETWORKS_VARIABLE, "variables": {"w": networks(50_000)}}
    )
    assert time.perf_counter() - started < 3
    assert orjson.loads(response.content) == {"data": {"prefixes": []}}
    bad = nobody.post("/api/graphql/", {"query": NETWORKS_VARIABLE, "variables": {"w": ["not a network"]}})
    assert orjson.loads(bad.content) == {"data": {"prefixes": []}}
