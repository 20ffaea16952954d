"""The generic API test family: every registered model gets these tests from its declaration."""

from __future__ import annotations

import re

import orjson
import pytest
from django.contrib.auth.models import Permission
from django.db import connection
from django.test.utils import CaptureQueriesContext, override_settings

from inventory.ipam.models import VRF, IPAddress, Prefix
from inventory.users.models import Token, User
from queryengine import engine
from queryengine.documents import detail_document, list_document, many_to_many_fields
from queryengine.filters import NUMERIC_LOOKUPS, STRING_LOOKUPS, Filter, parse_datetime_value
from queryengine.legacy import shown_at
from queryengine.permissions import restricted
from queryengine.query import filters_of, sortable_fields
from queryengine.registry import (
    CONTENT_TYPES,
    FOREIGN_KEY,
    GENERIC,
    MANY_TO_MANY,
    resource_by_object_type,
    resources,
)
from queryengine.scalars import dumps
from queryengine.schema import RequestContext
from rest import versioning

from . import network_oracle
from .builders import build_sample
from .conftest import Api

# The 2.x and 3.x family: resources served at the default version (1.x views: test_api_v1.py).
RESOURCES = [r for r in resources() if r.served_at(versioning.DEFAULT)]
BASE = "http://testserver/api/"


def list_url(resource) -> str:
    return f"/api/{resource.route}/"


def visible_ids(resource, user) -> set[str]:
    return {str(pk) for pk in restricted(resource, user).values_list("pk", flat=True)}


def every(api, resource, params=None) -> list[dict]:
    return api.json(list_url(resource), {"limit": 1000, **(params or {})})["results"]


def current_filters(resource) -> list:
    """The filters 2.x and 3.x take (those of 1.x fields: tests/test_api_v1.py; a connection
    list's search: tests/test_connections.py)."""
    return [(name, flt) for name, flt in filters_of(resource).items() if not flt.legacy and flt.listed]


def nests(spec) -> bool:
    return spec.kind == FOREIGN_KEY or spec.kind == GENERIC and bool(spec.targets)


def test_registry_is_covered_by_sample_data(superuser):
    """Completeness: every registered model has sample objects, so every generic test bites."""
    sample = build_sample(superuser)
    missing = [r.route for r in RESOURCES if len(sample.get(r.model, [])) < 2]
    assert not missing, f"registered models without sample data: {missing}"


@pytest.mark.usefixtures("shared_sample")
@pytest.mark.parametrize("resource", RESOURCES, ids=lambda r: r.route)
class TestEveryModel:
    def test_list_returns_every_visible_object(self, api, resource, superuser):
        body = api.json(list_url(resource), {"limit": 1000})
        expected = visible_ids(resource, superuser)
        assert len(expected) >= 2
        assert body["count"] == len(expected)
        assert {str(row["id"]) for row in body["results"]} == expected
        for row in body["results"]:
            assert row["url"] == f"{BASE}{resource.route}/{row['id']}/"
            assert row["object_type"] == resource.object_type
            assert isinstance(row["display"], str) and row["display"]

    def test_detail_equals_list_row(self, api, resource):
        for row in every(api, resource):
            assert api.json(row["url"].replace("http://testserver", "")) == row

    def test_unknown_id_is_404(self, api, resource):
        body = api.json(f"{list_url(resource)}00000000-0000-4000-8000-000000000000/", status=404)
        assert body == {"detail": f"No {resource.verbose_name} matches the given query."}

    @pytest.mark.parametrize("depth", [0, 1, 2])
    def test_depth_shapes(self, api, resource, depth):
        derived = set(resource.derived)
        many = set(many_to_many_fields(resource))
        for row in every(api, resource, {"depth": depth}):
            assert derived <= row.keys()
            for spec in resource.current_fields:
                value = row.get(spec.name)
                # Foreign keys, and generic relations that name their targets, nest by depth.
                if nests(spec) and value is not None and spec.name in row:
                    if depth == 0:
                        assert set(value) == {"id", "object_type", "url"}
                        continue
                    assert "display" in value
                    assert not (derived | many | {"tags"}) & value.keys() - {"display"}
                    target = resource_by_object_type(value["object_type"])
                    for name, ref in value.items():
                        spec_of = next((f for f in target.fields if f.name == name), None)
                        if isinstance(ref, dict) and "url" in ref and spec_of is not None:
                            # below the top level, generic relations stay references
                            nested = depth >= 2 and spec_of.kind == FOREIGN_KEY
                            assert ("display" in ref) == nested, (spec.name, name)
                if spec.kind == MANY_TO_MANY and spec.name in row:
                    for item in value:
                        assert ("display" in item) == (depth >= 1)

    @pytest.mark.parametrize("depth", [0, 1, 2])
    def test_compiled_plan_equals_generic_executor(self, api, resource, superuser, depth):
        context = RequestContext(user=superuser, base_url=BASE)
        many = frozenset(many_to_many_fields(resource)) | frozenset(resource.included)
        listing = list_document(resource, depth, many, ())
        variables = {"limit": 100, "offset": 0}
        assert engine.prepare(listing).plan is not None, "REST documents must compile"
        compiled = engine.run(listing, variables, context)
        generic = engine.run(listing, variables, context, compiled=False)
        assert not compiled.errors and not generic.errors
        assert dumps(compiled.data) == dumps(generic.data)
        detail = detail_document(resource, depth, many)
        for index, row in enumerate(generic.data["results"]):
            key = {"id": row["id"] if resource.integer_pk else str(row["id"])}
            one = engine.run(detail, key, context)
            assert dumps(one.data["object"]) == dumps(row)
            if index == 0:  # the generic executor's detail is its list's row: once is enough
                other = engine.run(detail, key, context, compiled=False)
                assert dumps(one.data) == dumps(other.data)

    def test_pages_cover_every_object_once(self, api, resource, superuser):
        seen, url, pages = [], f"{list_url(resource)}?limit=1", 0
        while url:
            body = api.json(url.replace("http://testserver", ""))
            seen += [row["id"] for row in body["results"]]
            if pages:
                assert body["previous"] is not None
            url, pages = body["next"], pages + 1
        assert len(seen) == len(set(seen)) == len(visible_ids(resource, superuser)) == pages

    def test_sort_by_every_field(self, api, resource):
        for name in sortable_fields(resource):
            ascending = [r["id"] for r in every(api, resource, {"sort": name})]
            descending = [r["id"] for r in every(api, resource, {"sort": f"-{name}"})]
            assert sorted(ascending) == sorted(descending)
        ids = [r["id"] for r in every(api, resource, {"sort": "id"})]
        assert ids == sorted(ids)
        assert [r["id"] for r in every(api, resource, {"sort": "-id"})] == ids[::-1]
        body = api.json(list_url(resource), {"sort": "no_such_field"}, status=400)
        assert "name" in body["sort"][0] or "id" in body["sort"][0]

    def test_every_filter_matches_python_semantics(self, api, resource, superuser):
        objects = list(restricted(resource, superuser))
        for name, flt in current_filters(resource):
            for value in sample_values(flt, resource, objects):
                expected = {str(o.pk) for o in objects if matches(flt, resource, o, value, superuser)}
                body = api.json(list_url(resource), {"limit": 1000, name: value})
                got = [str(r["id"]) for r in body["results"]]
                # Each object once, and counted once (a filter across a to-many relation).
                assert set(got) == expected and len(got) == body["count"] == len(expected), (name, value)

    def test_bad_filter_values_are_400(self, api, resource):
        bad = {
            name: value
            for name, flt in current_filters(resource)
            if (value := BAD_VALUES.get(flt.parse.__name__ if flt.parse else flt.kind)) is not None
        }
        if bad:
            # Every bad value is named, each under its filter, in one answer.
            body = api.json(list_url(resource), bad, status=400)
            assert set(body) == set(bad) and all(body[name] for name in bad)
        body = api.json(list_url(resource), {"nope": "1"}, status=400)
        assert list(body) == ["nope"] and body["nope"][0].startswith("Unknown filter field")

    def test_authentication_and_permissions(self, resource, sample, superuser):
        anonymous = Api(None)
        for path in (list_url(resource), f"{list_url(resource)}{sample[resource.model][0].pk}/"):
            assert anonymous.json(path, status=403) == {
                "detail": "Authentication credentials were not provided."
            }
        invalid = Api("f" * 40)
        assert invalid.json(list_url(resource), status=403) == {"detail": "Invalid token"}
        user = User.objects.create_user("viewer")
        token = Token.objects.create(user=user)
        viewer = Api(token.key)
        if resource.view_permission:
            body = viewer.json(list_url(resource), status=403)
            assert body == {"detail": "You do not have permission to perform this action."}
            codename = f"view_{resource.model_name}"
            user.user_permissions.add(
                Permission.objects.get(codename=codename, content_type__app_label=resource.app_label)
            )
            viewer = Api(token.key)
        body = viewer.json(list_url(resource), {"limit": 1000})
        assert {str(r["id"]) for r in body["results"]} == visible_ids(resource, User.objects.get(pk=user.pk))
        with override_settings(EXEMPT_VIEW_PERMISSIONS=[resource.object_type]):
            if resource.scope is None:
                assert anonymous.json(list_url(resource))["count"] == len(visible_ids(resource, superuser))

    def test_versions(self, api, resource):
        many = set(many_to_many_fields(resource))
        for version in versioning.SUPPORTED:
            response = api.get(list_url(resource), HTTP_ACCEPT=f"application/json; version={version};")
            assert response.status_code == 200 and response["API-Version"] == version
            row = orjson.loads(response.content)["results"][0]
            shown = versioning.shown_many_to_many(version, tuple(many), None)
            shown = {  # 1.x: tags' types from 1.3, and nothing 1.x did not know (a prefix's VRFs)
                f
                for f in shown
                if shown_at(resource.legacy, f, version)
                and not (version.startswith("1.") and f in resource.legacy.hidden)
            }
            # Versioned fields as the version table says (a VLAN's `locations` from 2.2 on).
            shown = set(versioning.versioned_fields(version, resource, frozenset(shown))) & many
            # A list read only to show its one object (2.0's `location`) is not shown itself.
            shown -= {
                listed
                for single, listed in resource.single_of.items()
                if not versioning.legacy(version) and versioning.shows(version, resource.versioned[single])
            }
            # By their 1.x names at 1.x (a service's `ipaddresses`).
            named = resource.legacy.name_of if version.startswith("1.") else str
            assert {f for f in many if named(f) in row} == shown
            shown = {named(f) for f in shown}
            excluded = api.json(list_url(resource), {"api_version": version, "exclude_m2m": "true"})[
                "results"
            ][0]
            if versioning.has(version, "exclude_m2m_parameter"):
                assert not many & excluded.keys()
            else:
                assert shown <= excluded.keys()
            included = api.json(list_url(resource), {"api_version": version, "exclude_m2m": "false"})[
                "results"
            ][0]
            assert shown <= included.keys()

    def test_query_count_does_not_grow_with_page_size(self, api, resource, second_copy):
        def measure(depth: int) -> tuple[int, int]:
            with CaptureQueriesContext(connection) as queries:
                rows = api.json(list_url(resource), {"limit": 1000, "depth": depth})["results"]
            return len(rows), len(queries)

        depths = (0, 1, 2)
        before = [measure(depth) for depth in depths]
        second_copy()  # the same shapes again: a page twice as long
        for depth, (rows, queries) in zip(depths, before, strict=True):
            more_rows, more_queries = measure(depth)
            assert more_rows > rows and more_queries == queries, depth


# --- a Python model of the filter grammar, to check the service against -----------------------

BAD_VALUES = {
    "parse_int": "abc",
    "parse_decimal": "x1",
    "parse_uuid": "not-a-uuid",
    "parse_bool": "maybe",
    "parse_datetime_value": "yesterday",
    "related": "no-such-object",
    "tags": "no-such-tag",
}


def value_at(obj, path: str):
    for part in path.split("__"):
        # a missing reverse one-to-one (a device in no bay) reads as None
        obj = None if obj is None else getattr(obj, "pk" if part == "pk" else part, None)
    return obj


def related_at(obj, path: str) -> list:
    """The objects at the end of a path of relations, to-many ones included (a cloud network's
    services)."""
    found = [obj]
    for part in path.split("__"):
        step = []
        for item in found:
            value = getattr(item, part, None)
            step.extend(value.all() if hasattr(value, "all") else [] if value is None else [value])
        found = step
    return found


def accessor_path(model, path: str) -> str:
    """An ORM path (query names) as attribute names: a reverse relation's accessor."""
    names = []
    for part in path.split("__"):
        field = model._meta.get_field(part)
        names.append(field.get_accessor_name() if field.auto_created and not field.concrete else part)
        model = field.related_model
    return "__".join(names)


# Searched by the addresses and networks they hold too; other models' search reads their
# `search` fields (and may match more, as a data rate's number).
NETWORK_SEARCH = (Prefix, IPAddress)


def label(ct) -> str:
    return f"{ct.app_label}.{ct.model}"


def sample_values(flt: Filter, resource, objects) -> list:
    """Values worth filtering by: taken from the sample so filters select some rows, not all."""
    if flt.refusal:
        return []  # refused whatever the value: tests/test_association_filters.py
    if callable(flt.samples):
        return list(flt.samples(objects))
    if flt.samples:
        return list(flt.samples)
    if flt.kind == "custom_fields":
        return []  # cf_ parameters: tests/test_custom_fields.py
    if flt.kind == "custom":
        if flt.name == "present_in_vrf":
            return [VRF.objects.order_by("name").first().name]
        if flt.name.endswith("family"):
            return ["4", "6"]
        values = network_oracle.sample_networks(objects)
        if flt.name == "parent":
            values.append(str(Prefix.objects.get(description="rfc1918").pk))
        return values + [values[:2]]
    if flt.kind == "search" and resource.model in NETWORK_SEARCH:
        return ["example", "10.1.0.0/16", "2001:db8::1"]
    if flt.kind == "search":
        texts = [value_at(o, resource.search[0]) for o in objects if value_at(o, resource.search[0])]
        return [texts[0][1:4] or "x"] if texts else ["x"]
    if flt.kind == "tags":
        names = sorted({t.name for o in objects for t in o.tags.all()})
        return [names[0], [names[0], names[-1]]] if names else []
    if flt.lookup == "isnull" or flt.kind == "has":
        return ["true", "false"]
    spec = next((f for f in resource.fields if f.name == flt.path), None)
    if spec is not None and spec.kind == CONTENT_TYPES:
        return ["dcim.location"]
    if flt.kind == "related" and flt.lookup != "isnull":
        present = [t for o in objects for t in related_at(o, flt.path)]
    else:
        present = [value_at(o, flt.path) for o in objects if value_at(o, flt.path) not in (None, "")]
    if not present:
        return []
    if flt.kind == "related":
        target = present[0]
        values = [str(target.pk)]
        if getattr(target, "name", None):
            values.append(target.name)
        return values
    if hasattr(present[0], "app_label"):
        return [label(present[0])]
    chosen = sorted(present, key=str)[len(present) // 2]
    if flt.lookup in ("icontains", "istartswith", "iendswith", "regex", "iregex"):
        text = str(chosen)
        fragment = {"icontains": text[1:3], "istartswith": text[:2], "iendswith": text[-2:]}.get(flt.lookup)
        return [fragment.swapcase() if fragment else f"^{re.escape(text[:2])}"]
    if flt.lookup == "iexact":
        return [str(chosen).swapcase()]
    if isinstance(chosen, bool):
        return ["true", "false"]
    text = chosen.isoformat() if hasattr(chosen, "isoformat") else str(chosen)
    if flt.lookup == "exact" and not flt.negate and len(present) > 1:
        other = present[0] if present[0] != chosen else present[-1]
        return [text, [text, other.isoformat() if hasattr(other, "isoformat") else str(other)]]
    return [text]


def matches(flt: Filter, resource, obj, raw, reader=None) -> bool:
    """Whether `obj` meets the filter, for `reader` (the user whose request filters) where the
    filter depends on who reads."""
    values = raw if isinstance(raw, list) else [raw]
    if flt.oracle is not None:
        parsed = [flt.parse(v) if flt.parse else v for v in values]
        return flt.oracle(obj, parsed, reader) if flt.reader else flt.oracle(obj, parsed)
    if flt.kind == "custom":
        if flt.name == "present_in_vrf":
            vrfs = set(VRF.objects.filter(name__in=values).values_list("pk", flat=True))
            assigned = (
                set(obj.assigned_vrfs.values_list("pk", flat=True)) if isinstance(obj, Prefix) else set()
            )
            return obj.vrf_id in vrfs or bool(assigned & vrfs)
        values = [Prefix.objects.get(pk=v).cidr if re.fullmatch(r"[0-9a-f-]{36}", v) else v for v in values]
        return any(network_oracle.matches(flt.name, obj, v) for v in values)
    if flt.kind == "search" and resource.model in NETWORK_SEARCH:
        return all(network_oracle.search_matches(obj, v) for v in values)
    if flt.kind == "search":
        return any(v.lower() in str(value_at(obj, f) or "").lower() for v in values for f in resource.search)
    if flt.kind == "tags":
        names = {t.name for t in obj.tags.all()}
        return not names & set(values) if flt.negate else set(values) <= names
    if flt.kind == "has":
        return bool(related_at(obj, accessor_path(resource.model, flt.path))) == (values[0] == "true")
    if flt.lookup == "isnull" and flt.kind == "related":
        # None related at all (true), as a to-many relation's __isnull reads, or some (false).
        return (not related_at(obj, accessor_path(resource.model, flt.path))) == (values[0] == "true")
    actual = value_at(obj, flt.path)
    # Every value at the end of a path, through to-many relations too (a user's reservations' ids).
    reached = related_at(obj, accessor_path(resource.model, flt.path)) if "__" in flt.path else [actual]
    if flt.lookup == "isnull":
        return (not [v for v in reached if v is not None]) == (values[0] == "true")
    spec = next((f for f in resource.fields if f.name == flt.path), None)
    if spec is not None and spec.kind == CONTENT_TYPES:
        hit = bool({label(ct) for ct in actual.all()} & set(values))
        return not hit if flt.negate else hit
    if flt.kind == "related":
        hit = any(
            v in (str(target.pk), getattr(target, "name", None))
            for target in related_at(obj, flt.path)
            for v in values
        )
    elif hasattr(actual, "app_label"):
        hit = label(actual) in values
    else:
        hit = any(compare(flt.lookup, found, v) for found in reached for v in values)
    return not hit if flt.negate else hit


def compare(lookup: str, actual, wanted: str) -> bool:
    if actual is None:
        return False
    if isinstance(actual, bool):
        return actual == (wanted == "true")
    if lookup in {v[0] for v in NUMERIC_LOOKUPS.values()} and not isinstance(actual, str):
        if hasattr(actual, "isoformat"):
            wanted = (
                parse_datetime_value(wanted)
                if hasattr(actual, "hour")
                else type(actual).fromisoformat(wanted)
            )
        else:
            wanted = type(actual)(wanted)
        return {
            "exact": actual == wanted,
            "lt": actual < wanted,
            "lte": actual <= wanted,
            "gt": actual > wanted,
            "gte": actual >= wanted,
        }[lookup]
    text, lowered = str(actual), str(actual).lower()
    # Only the asked lookup runs: an exact value ("?") need not be a valid regular expression.
    return {
        "exact": lambda: text == wanted,
        "iexact": lambda: lowered == wanted.lower(),
        "icontains": lambda: wanted.lower() in lowered,
        "istartswith": lambda: lowered.startswith(wanted.lower()),
        "iendswith": lambda: lowered.endswith(wanted.lower()),
        "regex": lambda: re.search(wanted, text) is not None,
        "iregex": lambda: re.search(wanted, text, re.IGNORECASE) is not None,
    }[lookup]()


def test_string_family_is_complete():
    assert set(STRING_LOOKUPS) == {
        "",
        "n",
        "ic",
        "nic",
        "isw",
        "nisw",
        "iew",
        "niew",
        "ie",
        "nie",
        "re",
        "nre",
        "ire",
        "nire",
    }


@pytest.mark.usefixtures("shared_sample")
@pytest.mark.parametrize("resource", [r for r in RESOURCES if r.has_notes], ids=lambda r: r.route)
def test_notes_path_of_every_model_taking_notes(api, sample, resource):
    """Every model taking notes has its `notes/` path (GET lists, POST adds); `notes_url` is shown
    as declared (the reference's association serializers take notes without showing it)."""
    row = every(api, resource)[0]
    assert ("notes_url" in row) is resource.shows_notes_url
    path = f"{list_url(resource)}{row['id']}/notes/"
    if resource.shows_notes_url:
        assert row["notes_url"] == f"http://testserver{path}"
    response = api.post(path, {"note": "checked"})
    assert response.status_code == 201, response.content
    created = orjson.loads(response.content)
    assert created["assigned_object_type"] == resource.object_type
    assert created["assigned_object_id"] == str(row["id"])
    listed = api.json(path)["results"]
    assert created["id"] in {note["id"] for note in listed}
