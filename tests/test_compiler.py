"""The compiled plans write JSON text in the database: awkward values must come out exactly as
the generic executor (and orjson) write them, on SQLite and PostgreSQL alike."""

from __future__ import annotations

import datetime
from decimal import Decimal

import orjson
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inventory.dcim.models import Location
from inventory.extras.models import Tag
from queryengine import engine
from queryengine.documents import detail_document, list_document, many_to_many_fields
from queryengine.registry import resource_for
from queryengine.scalars import dumps
from queryengine.schema import RequestContext

AWKWARD = 'quote " backslash \\ slash / tab \t newline \n bell \x07 del \x7f é € 😀 \u2028 <>&'


@pytest.mark.parametrize("depth", [0, 1])
@pytest.mark.parametrize(
    "created",
    [
        datetime.datetime(2024, 5, 1, 12, 0, 0, tzinfo=datetime.UTC),
        datetime.datetime(2024, 5, 1, 12, 0, 0, 120000, tzinfo=datetime.UTC),
        datetime.datetime(1999, 12, 31, 23, 59, 59, 1, tzinfo=datetime.UTC),
    ],
    ids=["whole-second", "trailing-zeros", "one-microsecond"],
)
def test_awkward_values_are_written_exactly_as_the_generic_executor_writes_them(
    api, sample, superuser, depth, created
):
    site = sample[Location][1]
    tag = Tag.objects.create(name=AWKWARD, description=AWKWARD)
    site.tags.add(tag)
    Location.objects.filter(pk=site.pk).update(
        description=AWKWARD,
        comments="",
        time_zone=None,
        latitude=Decimal("-0.000100"),
        longitude=Decimal("100.000000"),
        asn=4294967295,
        created=created,
        _custom_field_data={"zeta": [1, 2.5, None, True], "alpha": {"nested": AWKWARD}},
    )
    resource = resource_for(Location)
    context = RequestContext(user=superuser, base_url="http://testserver/api/")
    many = frozenset(many_to_many_fields(resource))
    for document, variables in (
        (list_document(resource, depth, many, ()), {"limit": 100, "offset": 0}),
        (detail_document(resource, depth, many), {"id": str(site.pk)}),
    ):
        compiled = engine.run(document, variables, context)
        generic = engine.run(document, variables, context, compiled=False)
        assert not compiled.errors and not generic.errors
        assert dumps(compiled.data) == dumps(generic.data)

    row = api.json(f"/api/dcim/locations/{site.pk}/", {"depth": depth})
    assert row["description"] == AWKWARD and row["time_zone"] is None
    # Coordinates as the reference shows them: decimal text with their six places.
    assert row["latitude"] == "-0.000100" and row["longitude"] == "100.000000" and row["asn"] == 4294967295
    assert row["created"] == created.isoformat().replace("+00:00", "Z")
    assert row["custom_fields"] == {"zeta": [1, 2.5, None, True], "alpha": {"nested": AWKWARD}}
    names = [t["name"] if depth else Tag.objects.get(pk=t["id"]).name for t in row["tags"]]
    assert AWKWARD in names


def test_rows_are_json_fragments_the_encoder_embeds(api, sample, superuser):
    resource = resource_for(Location)
    context = RequestContext(user=superuser, base_url="http://example.net/api/")
    document = list_document(resource, 0, frozenset(many_to_many_fields(resource)), ())
    results = engine.run(document, {"limit": 2, "offset": 0}, context).data["results"]
    assert len(results) == 2 and all(isinstance(r, orjson.Fragment) for r in results)
    rows = orjson.loads(dumps(results))
    assert all(r["url"].startswith("http://example.net/api/dcim/locations/") for r in rows)


def test_browser_page_indents_rows_the_database_wrote(api, sample):
    response = api.get("/api/dcim/locations/", {"limit": 1}, HTTP_ACCEPT="text/html")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/html")
    # Each field of the row on its own line, indented inside the results list.
    assert "\n      &quot;object_type&quot;: &quot;dcim.location&quot;," in response.content.decode()


def test_deep_documents_grow_by_level_not_by_fan_out(api, sample, superuser):
    """Each nested type at each depth is one fragment (not the same fields written out wherever
    an object shows), one plan and, per request, one read of each object: depth 10 (spec §4.6)
    answers at once, byte for byte what the generic executor makes of the same document."""
    from inventory.dcim.models import Interface

    resource = resource_for(Interface)
    sizes = [len(list_document(resource, depth, frozenset(), ())) for depth in range(11)]
    steps = [after - before for before, after in zip(sizes[1:], sizes[2:], strict=False)]
    assert max(steps) < 2 * min(steps), sizes  # linear in depth
    deepest = list_document(resource, 10, frozenset(), ())
    assert deepest.count("fragment DeviceType_at_3 on") == 1 and deepest.count("...DeviceType_at_3") > 1
    plan = engine.prepare(deepest).plan
    assert plan is not None  # compiled, fragments and all

    context = RequestContext(user=superuser, base_url="http://testserver/api/")
    for depth in (2, 6):
        document = list_document(resource, depth, frozenset(), ())
        compiled = engine.run(document, {"limit": 3, "offset": 0}, context)
        generic = engine.run(document, {"limit": 3, "offset": 0}, context, compiled=False)
        assert not compiled.errors and not generic.errors
        assert dumps(compiled.data) == dumps(generic.data)

    with CaptureQueriesContext(connection) as queries:
        rows = api.json("/api/dcim/interfaces/", {"depth": 10, "limit": 5})["results"]
    assert max(map(expanded_levels, rows)) == 10
    # Reads are bounded by the plans (one per fragment), not by the paths objects show on.
    assert len(queries) < 2 * deepest.count("fragment "), len(queries)
    counts = []
    for limit in (20, 200):
        with CaptureQueriesContext(connection) as queries:
            api.json("/api/dcim/interfaces/", {"depth": 4, "limit": limit})
        counts.append(len(queries))
    assert counts[1] <= counts[0], counts


def expanded_levels(value) -> int:
    """How many levels of nested objects (more than references) a value shows below itself."""
    below = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    deepest = max((expanded_levels(v) + (isinstance(v, dict) and "display" in v) for v in below), default=0)
    return deepest


def test_user_documents_with_fragments_and_repeated_fields_answer_as_graphql_says(api, superuser):
    context = RequestContext(user=superuser, base_url="http://testserver/api/")
    for document in (
        "query { locations(limit: 3) { ...Named id } } fragment Named on LocationType { id name }",
        "query { locations(limit: 3) { name parent { name } parent { id } } }",
        "query { locations(limit: 3) { ...Named } } fragment Named on LocationType { name status { name } }",
    ):
        compiled = engine.run(document, {}, context)
        generic = engine.run(document, {}, context, compiled=False)
        assert not compiled.errors and not generic.errors, (compiled.errors, generic.errors)
        assert dumps(compiled.data) == dumps(generic.data)
