"""Every model at API 1.2, 1.3 and 1.4, generated from the same 1.x field lists the documents
are written from (queryengine/legacy.py): list, detail, brief, the compiled plan against the
generic executor, and writes of the 1.x form back (1.x read -> 1.x write -> 3.0 and 1.x reads
unchanged). Versions whose shapes of a model are equal are tested once. 2.0-2.4 and 3.0 are the
generic family's (test_api_generic.py, test_writes_generic.py).

One sample is built per module; each test's writes roll back."""

from __future__ import annotations

import orjson
import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from inventory.dcim.models import Region, Site
from inventory.extras.models import Status
from inventory.users.models import User
from queryengine import engine, legacy
from queryengine.documents import LegacyShape, list_document, many_to_many_fields
from queryengine.permissions import restricted
from queryengine.query import filters_of
from queryengine.registry import resources
from queryengine.scalars import dumps
from queryengine.schema import RequestContext
from queryengine.writes import writable_fields
from rest import versioning

from .builders import SUPERUSER_KEY, build_sample
from .conftest import Api
from .test_api_generic import matches, sample_values

LEGACY = ("1.2", "1.3", "1.4")
BASE = "http://testserver/api/"
SERVED = [r for r in resources() if r.served_at("1.4")]
# Values a read shows that a write back changes by itself: times kept by every save, computed fields.
CHANGING = {"computed_fields"} | {
    f.name for r in SERVED for f in r.model._meta.concrete_fields if getattr(f, "auto_now", False)
}


@pytest.fixture(scope="module")
def sample(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock(), transaction.atomic():
        owner = User.objects.create_superuser("admin", "admin@example.com", "admin-password")
        objects = build_sample(owner)
        active = Status.objects.get(name="Active")
        asia = Region.objects.create(name="Asia", status=active, description="a second region")
        Site.objects.create(name="SIN1", parent=asia, status=active)
        yield owner, objects
        transaction.set_rollback(True)


@pytest.fixture
def api(sample, db):
    return Api(SUPERUSER_KEY)


@pytest.fixture(autouse=True)
def sample_variable_allowed(settings):
    """The sample's environment-variable secret, written back and copied here, names NETOPS_PASSWORD."""
    settings.SECRET_ENVIRONMENT_VARIABLES = ["NETOPS_PASSWORD"]


def shown_lists(resource, version: str) -> frozenset[str]:
    """What a plain 1.x GET shows beside the fields: every list, config contexts."""
    many = set(many_to_many_fields(resource))
    return frozenset(many | (versioning.includes(version, resource.included) & {"config_context"}))


def versions_of(resource) -> list[str]:
    """One 1.x version per distinct shape of the resource (most have one shape for all three)."""
    shapes: dict = {}
    for version in LEGACY:
        shapes.setdefault(legacy.top_fields(resource, version, shown_lists(resource, version)), version)
    return list(shapes.values())


CASES = [(r, v) for r in SERVED for v in versions_of(r)]


def keys(shown) -> list[str]:
    return [entry.key for entry in shown]


def check_value(entry, value) -> None:
    """A related value in its 1.x form: {value, label}, or the nested form of its type."""
    if value is None:
        return
    if entry.form == legacy.CHOICE:
        assert set(value) == {"value", "label"}, (entry.key, value)
    elif entry.form in (legacy.NESTED, legacy.LIST):
        for item in value if entry.form == legacy.LIST else [value]:
            target = entry.targets[0]
            assert list(item) == keys(legacy.nested_fields(target)), (entry.key, item)
            assert item["url"] == f"{BASE}{target.route}/{item['id']}/"


@pytest.mark.parametrize("resource, version", CASES, ids=lambda x: getattr(x, "route", x))
def test_every_model_reads_in_its_1x_form(api, sample, resource, version):
    url = f"/api/{resource.route}/"
    accept = {"HTTP_ACCEPT": f"application/json; version={version}"}
    page = api.json(url, {"limit": 1000}, **accept)
    rows = page["results"]
    assert len(rows) >= 2, resource.route
    shown = legacy.top_fields(resource, version, shown_lists(resource, version))
    for row in rows:
        assert list(row) == keys(shown), resource.route
        assert row["url"] == f"{BASE}{resource.route}/{row['id']}/"
        for entry in shown:
            check_value(entry, row[entry.key])
        if resource.legacy.created_is_date and row.get("created"):
            assert len(row["created"]) == 10, row["created"]  # a date
    assert api.json(rows[0]["url"].removeprefix("http://testserver"), **accept) == rows[0]
    brief = api.json(url, {"limit": 1000, "brief": "1"}, **accept)["results"]
    assert [b["id"] for b in brief] == [r["id"] for r in rows]
    assert all(list(b) == keys(legacy.nested_fields(resource)) for b in brief)
    one = api.json(rows[0]["url"].removeprefix("http://testserver"), {"brief": "1"}, **accept)
    assert one == brief[0]

    # The documents REST sends compile, and the plan answers as the generic executor does.
    context = RequestContext(user=sample[0], base_url=BASE)
    for shape in (LegacyShape(version), LegacyShape(version, brief=True)):
        document = list_document(resource, shape, shown_lists(resource, version), ())
        assert engine.prepare(document).plan is not None
        compiled = engine.run(document, {"limit": 100}, context)
        generic = engine.run(document, {"limit": 100}, context, compiled=False)
        assert not compiled.errors and not generic.errors, (compiled.errors, generic.errors)
        assert dumps(compiled.data) == dumps(generic.data)


WRITABLE = [(r, versions_of(r)[-1]) for r in SERVED if r.writable]


@pytest.mark.parametrize("resource, version", WRITABLE, ids=lambda x: getattr(x, "route", x))
def test_every_model_takes_its_1x_form_back(api, sample, resource, version):
    """A 1.x object written back as read (nested objects, {value, label} choices and all), with
    one text changed, changes just that: in the 1.x read, and in the 3.0 read."""
    accept = {"HTTP_ACCEPT": f"application/json; version={version}"}
    first = api.json(f"/api/{resource.route}/", {"limit": 1}, **accept)["results"][0]
    detail = f"/api/{resource.route}/{first['id']}/"
    current = api.json(detail, {"depth": 1}) if resource.served_at(versioning.DEFAULT) else None
    # A text no label shows (a name would change displays too)
    text = next((f for f in writable_fields(resource) if f.name in ("description", "comments")), None)
    changed = dict(first)
    if text is not None:
        changed[resource.legacy.name_of(text.name)] = "written at 1.x"
    response = api.client.patch(detail, orjson.dumps(changed), content_type="application/json", **accept)
    assert response.status_code == 200, (resource.route, response.content[:400])
    assert strip(orjson.loads(response.content)) == strip(changed)
    assert strip(api.json(detail, **accept)) == strip(changed)
    if current is not None:
        now = api.json(detail, {"depth": 1})
        if text is not None:
            assert now[text.name] == "written at 1.x"
            now[text.name] = current[text.name]
        assert strip(now) == strip(current)


def strip(row: dict) -> dict:
    return {k: v for k, v in row.items() if k not in CHANGING}


@pytest.mark.parametrize("route", ["dcim/devices", "dcim/interfaces", "ipam/ip-addresses", "ipam/prefixes"])
def test_query_count_does_not_grow_with_page_size(api, sample, route):
    """A 1.x list, nested objects and all, costs the same statements for a page twice as long."""

    def measure() -> tuple[int, int]:
        with CaptureQueriesContext(connection) as queries:
            rows = api.json(f"/api/{route}/", {"limit": 1000, "api_version": "1.3"})["results"]
        return len(rows), len(queries)

    rows, queries = measure()
    with transaction.atomic():
        build_sample(sample[0], suffix="-2")  # this module's own sample: built, not laid
        more_rows, more_queries = measure()
        transaction.set_rollback(True)
    assert more_rows > rows and more_queries == queries


SLUGGED = [r for r in SERVED if any(spec.name == "slug" and spec.legacy for spec in r.fields)]


@pytest.mark.parametrize("resource", SLUGGED, ids=lambda r: r.route)
def test_slug_filters_at_1x_agree_with_the_oracle(api, sample, resource):
    """Every lookup of `slug` (1.x only) selects what the generic family's Python oracle does."""
    objects = list(restricted(resource, sample[0]))
    accept = {"HTTP_ACCEPT": "application/json; version=1.3"}
    for name, flt in filters_of(resource).items():
        if flt.path != "slug":
            continue
        assert flt.legacy
        for value in sample_values(flt, resource, objects):
            expected = {str(o.pk) for o in objects if matches(flt, resource, o, value)}
            got = api.json(f"/api/{resource.route}/", {name: value, "limit": 1000}, **accept)["results"]
            assert {r["id"] for r in got} == expected, (name, value)
