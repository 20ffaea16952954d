"""The OpenAPI documents and the documentation pages, through the HTTP stack."""

from __future__ import annotations

import html
import itertools
import re
from pathlib import Path

import orjson
import pytest
import yaml
from django.test import Client
from openapi_schema_validator import OAS30Validator
from openapi_spec_validator import validate

from queryengine.filters import CUSTOM_FIELD_FILTER
from queryengine.query import filters_of
from queryengine.registry import resources
from rest import fieldkinds, openapi, openapi_copy, versioning
from rest.docs import document_part

from .conftest import send
from .test_writes_generic import body_from, editable_text_field, invalid_item, source_row

RESOURCES = resources()


def served(version: str) -> list:
    """The resources a version serves (sites and regions at 1.x only)."""
    return [r for r in RESOURCES if r.served_at(version)]


def fetch(path: str, **headers) -> tuple[int, dict | None]:
    response = Client().get(path, **headers)
    return response.status_code, orjson.loads(response.content) if response.status_code == 200 else None


@pytest.fixture(scope="module")
def documents() -> dict[str, dict]:
    return {version: openapi.document(version) for version in versioning.SUPPORTED}


def first_segments() -> list[str]:
    """The first segment of every path of the committed default document (its drift is tested)."""
    committed = orjson.loads(
        (Path(__file__).parent.parent / "docs/openapi" / f"{versioning.DEFAULT}.json").read_bytes()
    )
    return sorted({path.strip("/").split("/")[0] for path in committed["paths"]})


def test_default_version_document_is_served(db):
    status, document = fetch("/api/swagger.json")
    assert status == 200
    assert document["openapi"].startswith("3.0")
    assert document["info"]["version"].endswith(f"({versioning.DEFAULT})")
    assert sorted({path.strip("/").split("/")[0] for path in document["paths"]}) == first_segments()


@pytest.mark.parametrize("part", first_segments())
def test_default_version_document_is_valid_openapi(db, part):
    """Valid, checked by parts (an application's paths with every component they use) that
    spread over the test workers: the whole document takes minutes to check in one piece."""
    validate(document_part(openapi.document(versioning.DEFAULT), part))


@pytest.mark.long
def test_every_version_is_served_and_differs_by_its_changes(db, documents):
    for version in versioning.SUPPORTED:
        status, document = fetch("/api/swagger.json", QUERY_STRING=f"api_version={version}")
        assert status == 200 and document == orjson.loads(orjson.dumps(documents[version]))
        has_parameter = "exclude_m2m" in document["components"]["parameters"]
        assert has_parameter == versioning.has(version, "exclude_m2m_parameter"), version
    status, _ = fetch("/api/swagger.json", QUERY_STRING="api_version=9.9")
    assert status == 404


def test_every_registered_model_and_filter_is_documented(documents):
    for version, document in documents.items():
        paths, schemas = document["paths"], document["components"]["schemas"]
        old = versioning.legacy(version)
        for resource in served(version):
            listing, detail = paths.get(f"/{resource.route}/"), paths.get(f"/{resource.route}/{{id}}/")
            assert listing and detail, (version, resource.route)
            expected = {"get", "post", "put", "patch", "delete"} - (set() if resource.creatable else {"post"})
            assert set(listing) >= expected
            assert set(detail) >= {"get", "put", "patch", "delete"}
            documented = {p.get("name") for p in listing["get"]["parameters"]}
            taken = {
                openapi.legacy_filter_name(resource, n) if old else n
                for n, f in filters_of(resource).items()
                if (old or not f.legacy) and f.listed
            }
            missing = taken - {CUSTOM_FIELD_FILTER} - documented
            assert not missing, (version, resource.route, sorted(missing))
            name = resource.model.__name__
            assert {name, f"{name}Nested", f"{name}Request", f"Patched{name}Request"} <= set(schemas)
        unserved = {f"/{r.route}/" for r in RESOURCES if not r.served_at(version)}
        assert not unserved & set(paths), (version, unserved & set(paths))
        by_class_path = "/extras/jobs/{class_path}/run/"  # 1.x addressed jobs by class path
        assert (by_class_path in paths) == versioning.legacy(version)


def test_every_route_is_documented(documents):
    document = documents[versioning.DEFAULT]
    routed = {
        openapi.openapi_path(route)
        for route, endpoint in openapi.routed_endpoints()
        if not hasattr(endpoint, "served_at") or endpoint.served_at(versioning.DEFAULT)
    }
    # Paths documented by natural key too (a job's `{name}`) are the routes taking an id or a key.
    by_key = {path for path in document["paths"] if "{name}" in path}
    assert {path.replace("{name}", "{id}") for path in by_key} <= routed
    assert routed == set(document["paths"]) - by_key
    assert {"/dcim/racks/{id}/elevation/", "/ipam/prefixes/{id}/available-ips/", "/graphql/"} <= routed
    assert not any("swagger" in path or path.startswith("/docs") for path in routed)


def test_document_is_built_once_per_version(db):
    """Build time is a benchmark's business (benchmarks/); here: one build serves every request."""
    openapi.document.cache_clear()
    for version in versioning.SUPPORTED:
        assert openapi.document(version) is openapi.document(version)
    assert openapi.document.cache_info().misses == len(versioning.SUPPORTED)


@pytest.mark.long
def test_yaml_and_json_documents_agree(db):
    client = Client()
    as_json = orjson.loads(client.get("/api/swagger.json", {"api_version": "2.4"}).content)
    response = client.get("/api/swagger.yaml", {"api_version": "2.4"})
    assert response["Content-Type"] == "application/vnd.oai.openapi"
    assert yaml.load(response.content, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) == as_json
    assert (
        client.get("/api/swagger/").content
        == client.get("/api/schema/").content
        == (client.get("/api/swagger.yaml").content)
    )
    assert orjson.loads(client.get("/api/schema/", {"format": "json"}).content)["paths"]
    etag = response["ETag"]
    again = client.get("/api/swagger.yaml", {"api_version": "2.4"}, HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304


def test_docs_format_openapi_redirects_to_the_json_document(db):
    """Where pynautobot's openapi() and the Ansible inventory look, as the reference answers."""
    client = Client()
    response = client.get("/api/docs/", {"format": "openapi", "api_version": "2.1"})
    assert response.status_code == 301
    assert response["Location"] == "/api/swagger.json?api_version=2.1"
    followed = client.get("/api/docs/", {"format": "openapi"}, follow=True)
    assert followed.status_code == 200
    assert orjson.loads(followed.content)["info"]["version"].endswith(f"({versioning.DEFAULT})")
    for accept in ("*/*", "application/*", "text/html,application/xhtml+xml,*/*;q=0.8"):
        assert client.get("/api/docs/?format=openapi", HTTP_ACCEPT=accept).status_code == 301
    # Clients that accept JSON alone are refused: the document's media type is not theirs.
    for accept in ("application/json", "application/json; version=2.1", "text/html"):
        refused = client.get("/api/docs/?format=openapi", HTTP_ACCEPT=accept)
        assert (refused.status_code, refused.content) == (406, b"406 Not Acceptable")
        assert refused["Content-Type"] == "text/html; charset=utf-8"


def test_documents_in_formats_their_paths_do_not_serve_are_not_found(db):
    client = Client()
    for path in ("/api/swagger/", "/api/schema/"):
        for fmt, media_type in (
            ("yaml", "application/vnd.oai.openapi"),
            ("json", "application/vnd.oai.openapi+json"),
        ):
            assert client.get(path, {"format": fmt})["Content-Type"] == media_type
        response = client.get(path, {"format": "openapi-json"})
        assert response.status_code == 404
        assert response["Content-Type"] == "application/vnd.oai.openapi; charset=utf-8"
        assert yaml.safe_load(response.content) == {"detail": {"string": "Not found.", "code": "not_found"}}
    assert client.get("/api/swagger.json", {"format": "json"}).status_code == 200
    response = client.get("/api/swagger.json", {"format": "yaml"})
    assert (response.status_code, orjson.loads(response.content)) == (404, {"detail": "Not found."})
    assert client.get("/api/swagger.yaml", {"format": "json"}).status_code == 404


@pytest.mark.parametrize("path", ["/api/docs/", "/api/docs/?api_version=2.2", "/api/redoc/", "/api/graphql/"])
def test_pages_load_every_asset_from_the_service(db, path):
    client = Client()
    page = client.get(path, HTTP_ACCEPT="text/html")
    assert page.status_code == 200 and page["Content-Type"].startswith("text/html")
    html = page.content.decode()
    assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}", html, re.IGNORECASE), "external host"
    assets = re.findall(r'(?:src|href)="([^"?#]+\.(?:js|css|png))"', html)
    assert assets
    for asset in assets:
        response = client.get(asset)
        assert response.status_code == 200, asset
        assert b"".join(response.streaming_content)


def test_assets_outside_their_folders_are_not_served(db):
    client = Client()
    assert client.get("/api/docs/assets/redoc/../../../../../../etc/passwd").status_code == 404
    assert client.get("/api/docs/assets/unknown/file.js").status_code == 404


def _validator(document: dict, schema: dict) -> OAS30Validator:
    return OAS30Validator({**schema, "components": document["components"]})


def _response_schema(document: dict, path: str, method: str = "get") -> dict:
    return document["paths"][path][method]["responses"]["200"]["content"]["application/json"]["schema"]


def test_a_missing_field_fails_validation(api):
    """The schemas are strict enough to notice: a required field taken out of a real response."""
    document = openapi.document(versioning.DEFAULT)
    resource = next(r for r in RESOURCES if r.route == "dcim/locations")
    page = api.json(f"/api/{resource.route}/", {"depth": 1})
    check = _validator(document, _response_schema(document, f"/{resource.route}/"))
    assert not list(check.iter_errors(page))
    del page["results"][0]["name"]
    page["results"][1]["status"] = "Active"  # a choice-like reference given as a bare string
    assert len(list(check.iter_errors(page))) >= 2


def test_lists_document_their_csv_form(documents):
    """Every list and detail GET answers CSV too (?format=csv or Accept: text/csv): documented."""
    for version, document in documents.items():
        csv_format = document["components"]["parameters"]["format_csv"]
        assert csv_format["name"] == "format" and "csv" in csv_format["schema"]["enum"]
        for resource, path in itertools.product(served(version), ("/{}/", "/{}/{{id}}/")):
            operation = document["paths"][path.format(resource.route)]["get"]
            content = operation["responses"]["200"]["content"]
            assert set(content) == {"application/json", "text/csv"}, (version, path, resource.route)
            assert content["text/csv"]["schema"]["type"] == "string"
            assert csv_format in operation["parameters"]
        # Operations without a CSV form offer only the formats they answer.
        root = document["paths"]["/"]["get"]
        assert "text/csv" not in root["responses"]["200"]["content"]
        assert document["components"]["parameters"]["format"] in root["parameters"]


def test_committed_document_is_current():
    """docs/openapi/ holds the generated document: a change to the contract shows in review."""
    for version in openapi_copy.committed_versions():
        found = openapi_copy.differences(version)
        assert not found, (
            f"docs/openapi/{version}.json differs from the document the registry generates "
            f"({'; '.join(found)}). Run `{openapi_copy.COMMAND}` and commit the result."
        )


def test_drift_names_what_changed(tmp_path, monkeypatch):
    monkeypatch.setattr(openapi_copy, "FOLDER", tmp_path)
    version = versioning.DEFAULT
    assert openapi_copy.differences(version) == [f"{tmp_path / f'{version}.json'} is missing"]
    stale = orjson.loads(openapi_copy.text(version))
    del stale["paths"]["/dcim/locations/"]
    stale["components"]["schemas"]["Location"]["required"].pop()
    openapi_copy.path_of(version).write_bytes(orjson.dumps(stale))
    assert openapi_copy.differences(version) == [
        "components/schemas: Location changed",
        "paths: /dcim/locations/ added",
    ]
    openapi_copy.path_of(version).write_bytes(orjson.dumps(openapi.document(version)))
    assert openapi_copy.differences(version) == ["the formatting differs"]


def _answer_schema(document: dict, path: str, method: str, status: int) -> dict:
    answer = document["paths"][path][method]["responses"][str(status)]
    if "$ref" in answer:  # a shared error response
        answer = document["components"]["responses"][answer["$ref"].rsplit("/", 1)[1]]
    return answer["content"]["application/json"]["schema"]


def writes_each_way(api, resource):
    """(documented path, method, status, body) of each kind of write on one model's paths."""
    listing, detail = f"/{resource.route}/", f"/{resource.route}/{{id}}/"
    url = f"/api/{resource.route}/"
    row = source_row(api, resource)
    one = f"{url}{row['id']}/"
    sent = []
    if resource.creatable:
        sent += [
            (listing, "post", url, body_from(resource, row, "-oa"), 201),
            (listing, "post", url, [body_from(resource, row, "-ob")], 201),
            (listing, "post", url, [invalid_item(resource)], 400),
        ]
    sent += [
        (detail, "patch", one, {}, 200),
        (detail, "patch", one, invalid_item(resource), 400),
        (listing, "patch", url, [{"id": row["id"]}], 200),
    ]
    field = editable_text_field(resource)
    if field is not None:  # a whole object to PUT back, made as the generic write tests make it
        sent.append((detail, "put", one, {**body_from(resource, row, ""), field.name: "put"}, 200))
    for path, method, target, body, status in sent:
        answer, found = send(api, method, target, body)
        assert answer == status, (resource.route, method, status, found)
        yield path, method, status, found


def test_integer_ranges_do_not_depend_on_the_database():
    """The documents describe the production database's ranges on SQLite too (as the reference's
    OPTIONS for a cable's length does), so their committed copy is the same on both."""
    from inventory.dcim.models import Cable

    assert fieldkinds.value_limits(Cable._meta.get_field("length")) == [("min", 0), ("max", 32767)]


def test_parameters_are_written_where_they_are_used(documents):
    """As the reference writes them: clients (Ansible's inventory plugin) read each parameter's
    `name` and `in` without following references."""
    for version, document in documents.items():
        for path, operations in document["paths"].items():
            for key, operation in operations.items():
                for parameter in operation if key == "parameters" else operation.get("parameters", ()):
                    assert "$ref" not in parameter and parameter["name"] and parameter["in"], (version, path)
        listed = document["paths"]["/dcim/devices/"]["get"]["parameters"]
        assert {"limit", "offset", "name", "name__ic"} <= {p["name"] for p in listed}, version


def test_redoc_reads_one_endpoint_at_a_time(db, documents):
    """ReDoc renders a whole document at once; the whole API's stalls a browser tab, so its page
    reads one endpoint's part, with every component that part refers to."""
    whole = documents[versioning.DEFAULT]
    page = html.unescape(
        Client().get("/api/redoc/", {"app": "ipam"}, HTTP_ACCEPT="text/html").content.decode()
    )
    assert "app=ipam&endpoint=ip-address-ranges" in page  # the application's first endpoint
    assert all(f"app={app}" in page for app in ("dcim", "tenancy", "circuits"))
    assert "endpoint=prefixes" in page and "endpoint=devices" not in page
    status, part = fetch("/api/swagger.json", QUERY_STRING="app=ipam&endpoint=prefixes")
    assert status == 200
    validate(part)  # every $ref resolves within the part
    assert set(part["paths"]) == {path for path in whole["paths"] if path.startswith("/ipam/prefixes/")}
    assert "/ipam/prefixes/{id}/available-ips/" in part["paths"]
    status, app = fetch("/api/swagger.json", QUERY_STRING="app=ipam")
    assert set(app["paths"]) == {path for path in whole["paths"] if path.startswith("/ipam/")}
    assert len(orjson.dumps(part)) < len(orjson.dumps(app)) < len(orjson.dumps(whole)) / 3
    response = Client().get("/api/swagger.json", {"app": "nosuchapp"})
    assert response.status_code == 400 and b"one of apps, circuits" in response.content
    response = Client().get("/api/swagger.json", {"app": "ipam", "endpoint": "devices"})
    assert response.status_code == 400 and b"one of ip-address-ranges" in response.content
