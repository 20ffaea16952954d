"""Real answers of every model, read and written through the HTTP stack, validate against the
OpenAPI document's response schemas. One test per application and version on the sample laid
once for the module, so they spread over the test workers."""

from __future__ import annotations

import pytest
from django.db import transaction

from rest import openapi, versioning
from rest.openapi_schemas import paginated

from .test_openapi import RESOURCES, _answer_schema, _response_schema, _validator, served, writes_each_way
from .test_writes_generic import RESOURCES as WRITABLE
from .test_writes_generic import sample_variable_allowed  # noqa: F401 (autouse fixture: the writes copy the sample)

APPS = sorted({resource.route.split("/")[0] for resource in RESOURCES})

pytestmark = pytest.mark.usefixtures("shared_sample")


@pytest.mark.parametrize("app", APPS)
@pytest.mark.parametrize("version", ["1.2", "1.4", "2.0", versioning.DEFAULT])
def test_responses_match_their_operation_schemas(api, version, app):
    """A list and a detail of every model a version serves, at depth 0 and 1 (at 1.x: in full
    and brief), with and without the optional fields, validate against the document's response
    schemas: the 1.x schemas and documents come from the same lists."""
    document = openapi.document(version)
    failures = []
    shape = "brief" if versioning.legacy(version) else "depth"
    checked = [resource for resource in served(version) if resource.route.split("/")[0] == app]
    if not checked:
        pytest.skip(f"{app} is not served at {version}")
    for resource in checked:
        listing, detail = f"/{resource.route}/", f"/{resource.route}/{{id}}/"
        brief_check = _validator(document, {"$ref": f"#/components/schemas/{resource.model.__name__}Nested"})
        for depth in (0, 1):
            list_check = _validator(document, _response_schema(document, listing))
            detail_check = _validator(document, _response_schema(document, detail))
            if shape == "brief" and depth:  # 1.x brief objects: the nested form
                list_check = _validator(document, paginated(brief_check.schema))
                detail_check = brief_check
            params = {shape: depth, "api_version": version, "limit": 3}
            if versioning.has(version, "exclude_m2m_parameter"):
                params["exclude_m2m"] = "false"
            if resource.included:
                params["include"] = ",".join(versioning.includes(version, resource.included))
            page = api.json(f"/api/{resource.route}/", params)
            assert page["results"], resource.route
            failures += [(resource.route, depth, e.message) for e in list_check.iter_errors(page)][:3]
            one = api.json(f"/api/{resource.route}/{page['results'][0]['id']}/", params)
            failures += [(resource.route, depth, e.message) for e in detail_check.iter_errors(one)][:3]
    assert not failures, failures[:20]


@pytest.mark.parametrize("app", APPS)
def test_write_responses_match_their_operation_schemas(api, app):
    """Every writable model's create (one and bulk), update (PATCH, PUT, bulk PATCH) and refused
    write (400) answers validate against the document's response schemas."""
    document = openapi.document(versioning.DEFAULT)
    failures = []
    checked = [resource for resource in WRITABLE if resource.route.split("/")[0] == app]
    if not checked:
        pytest.skip(f"{app} has no writable model")
    for resource in checked:
        # Each model's writes are undone before the next: copies (a second "AMS1" at the top of
        # the tree) would make other models' references ambiguous.
        with transaction.atomic():
            for path, method, status, body in writes_each_way(api, resource):
                schema = _answer_schema(document, path, method, status)
                errors = _validator(document, schema).iter_errors(body)
                failures += [(resource.route, method, status, e.message) for e in errors]
            transaction.set_rollback(True)
    assert not failures, failures[:20]
