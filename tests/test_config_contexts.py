"""Config contexts and their schemas, and computed fields: what `include=` renders."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inventory.dcim.models import Device, DeviceType, Location
from inventory.extras.models import ComputedField, ConfigContext, ConfigContextSchema, Tag
from inventory.tenancy.models import Tenant, TenantGroup
from inventory.virtualization.models import Cluster, VirtualMachine

from .builders import build_sample
from .conftest import send


def context_of(api, obj) -> dict:
    route = "dcim/devices" if isinstance(obj, Device) else "virtualization/virtual-machines"
    return api.json(f"/api/{route}/{obj.pk}/", {"include": "config_context"})["config_context"]


@pytest.fixture
def devices(sample):
    return {d.name: d for d in Device.objects.all()}


def test_contexts_merge_by_weight_and_assignment(api, devices):
    # leaf1 is a leaf in AMS1: the global context, then the AMS leaves one over it (deep merge).
    assert context_of(api, devices["leaf1"]) == {
        "ntp": ["192.0.2.2"],
        "syslog": {"host": "192.0.2.9", "port": 1514},
    }
    # core1 is a spine: the global context only; the inactive one never applies.
    assert context_of(api, devices["core1"]) == {
        "ntp": ["192.0.2.1"],
        "syslog": {"host": "192.0.2.9", "port": 514},
    }
    # The unnamed blade is a leaf in a room inside AMS1: a location's contexts reach what it contains.
    assert context_of(api, devices[None])["ntp"] == ["192.0.2.2"]
    assert "config_context" not in api.json(f"/api/dcim/devices/{devices['leaf1'].pk}/")


def test_local_data_goes_on_top(api, devices):
    leaf = devices["leaf1"]
    status, body = send(
        api,
        "patch",
        f"/api/dcim/devices/{leaf.pk}/",
        {"local_config_context_data": {"syslog": {"port": 6514}, "x": 1}},
    )
    assert status == 200
    assert body["config_context"] == {
        "ntp": ["192.0.2.2"],
        "syslog": {"host": "192.0.2.9", "port": 6514},
        "x": 1,
    }
    assert context_of(api, leaf) == body["config_context"]


def nested(depth: int, inner: str = "{}") -> str:
    """`depth` objects inside each other, as JSON text (too deep for the encoders to write)."""
    return '{"a":' * depth + inner + "}" * depth


def test_json_nested_past_the_limit_is_refused(api, devices):
    """A 1000-level value once failed the write with a 500; every way in answers 400."""
    leaf = devices["leaf1"]
    path = f"/api/dcim/devices/{leaf.pk}/"
    too_deep = "JSON nested more than 100 levels deep is not accepted (MAX_JSON_DEPTH)."
    for depth in (1000, 100):
        body = f'{{"local_config_context_data": {nested(depth)}}}'
        response = api.client.patch(path, body, content_type="application/json")
        assert (response.status_code, response.json()) == (400, {"detail": too_deep})
    response = api.client.patch(
        path, f'{{"local_config_context_data": {nested(98)}}}', content_type="application/json"
    )
    assert response.status_code == 200
    graphql = "mutation ($data: [GenericScalar]!) { update_devices(data: $data) { id } }"
    item = f'{{"id": "{leaf.pk}", "local_config_context_data": {nested(1000)}}}'
    body = f'{{"query": "{graphql}", "variables": {{"data": [{item}]}}}}'
    response = api.client.post("/api/graphql/", body, content_type="application/json")
    assert (response.status_code, response.json()) == (400, {"detail": too_deep})
    # Written into the document itself, past the limit but not past the parser's.
    literal = nested(150).replace('"a"', "a")
    item = f'{{id: "{leaf.pk}", local_config_context_data: {literal}}}'
    document = f"mutation {{ update_devices(data: [{item}]) {{ id }} }}"
    answer = api.post("/api/graphql/", {"query": document}).json()
    assert answer["data"] == {"update_devices": None} and too_deep in answer["errors"][0]["message"]
    # A CSV cell too deep to parse at all.
    cell = nested(1000).replace('"', '""')
    response = api.client.patch(
        "/api/dcim/devices/", f'id,local_config_context_data\n{leaf.pk},"{cell}"\n', content_type="text/csv"
    )
    assert (response.status_code, response.json()) == (400, {"detail": too_deep})
    leaf.refresh_from_db()
    assert leaf.local_config_context_data == json.loads(nested(98))


def test_every_kind_of_assignment(api, devices):
    leaf, core = devices["leaf1"], devices["core1"]
    europe = Location.objects.get(name="Europe")
    context = ConfigContext.objects.create(name="by many", weight=5000, data={"hit": True})
    context.locations.set([europe])  # an ancestor of both devices' site
    assert context_of(api, leaf)["hit"] is True and context_of(api, core)["hit"] is True
    context.device_types.set([DeviceType.objects.get(pk=core.device_type_id)])
    assert "hit" not in context_of(api, leaf) and context_of(api, core)["hit"] is True
    context.device_types.clear()
    tag = Tag.objects.get(name="alpha")
    context.tags.set([tag])
    assert "hit" not in context_of(api, leaf)
    leaf.tags.add(tag)
    assert context_of(api, leaf)["hit"] is True
    context.tags.clear()
    # A tenant group's contexts reach the tenants of its subgroups.
    context.tenant_groups.set([TenantGroup.objects.get(name="Customers")])
    assert Tenant.objects.get(pk=leaf.tenant_id).tenant_group.parent.name == "Customers"
    assert context_of(api, leaf)["hit"] is True and "hit" not in context_of(api, core)
    context.tenant_groups.clear()
    context.clusters.set([Cluster.objects.order_by("name").first()])
    web = VirtualMachine.objects.get(name="web01")
    expected = web.cluster_id == context.clusters.get().pk
    assert ("hit" in context_of(api, web)) is expected
    # A context for device types never applies to a virtual machine.
    context.device_types.set([DeviceType.objects.get(pk=leaf.device_type_id)])
    assert "hit" not in context_of(api, web)


def test_a_list_renders_contexts_in_constant_queries(api, sample, superuser):
    def queries():
        with CaptureQueriesContext(connection) as captured:
            rows = api.json("/api/dcim/devices/", {"include": "config_context", "limit": 1000})["results"]
        assert all(row["config_context"]["ntp"] for row in rows)
        return len(captured)

    alone = queries()
    build_sample(superuser, "-2")  # twice the devices, contexts and locations
    assert queries() == alone


def test_schemas_validate_context_data(api, devices):
    schema = ConfigContextSchema.objects.get(name="NTP servers")
    status, errors = send(
        api,
        "post",
        "/api/extras/config-contexts/",
        {"name": "bad", "data": {"ntp": "not a list"}, "config_context_schema": str(schema.pk)},
    )
    assert status == 400
    assert errors == {
        "data": [
            "Validation using the JSON Schema NTP servers failed.",
            "'not a list' is not of type 'array'",
        ]
    }
    status, errors = send(api, "post", "/api/extras/config-contexts/", {"name": "bad", "data": [1]})
    assert status == 400 and errors == {"data": ['JSON data must be in object form. Example: {"foo": 123}']}
    status, errors = send(
        api, "post", "/api/extras/config-context-schemas/", {"name": "s", "data_schema": {"type": "array"}}
    )
    assert status == 400 and list(errors) == ["data_schema"]
    status, errors = send(
        api, "post", "/api/extras/config-context-schemas/", {"name": "s", "data_schema": {"type": "nonsense"}}
    )
    assert status == 400 and list(errors) == ["data_schema"]
    leaf = devices["leaf1"]
    path = f"/api/dcim/devices/{leaf.pk}/"
    status, errors = send(api, "patch", path, {"local_config_context_schema": str(schema.pk)})
    assert status == 400
    assert errors == {
        "local_config_context_schema": ["Local config context data must exist for a schema to be applied."]
    }
    status, errors = send(
        api,
        "patch",
        path,
        {"local_config_context_schema": str(schema.pk), "local_config_context_data": {"ntp": 5}},
    )
    assert status == 400 and errors["local_config_context_data"][0].startswith(
        "Validation using the JSON Schema"
    )
    body = {
        "local_config_context_schema": str(schema.pk),
        "local_config_context_data": {"ntp": ["192.0.2.7"]},
    }
    assert send(api, "patch", path, body)[0] == 200
    status, errors = send(api, "patch", path, {"local_config_context_data": "text"})
    assert status == 400 and errors == {
        "local_config_context_data": ['JSON data must be in object form. Example: {"foo": 123}']
    }


def test_contexts_assign_roles_and_tags_of_other_models(api, devices):
    """A context's roles and tags select devices: they need not be scoped to config contexts."""
    leaf_role = devices["leaf1"].role
    status, body = send(
        api,
        "post",
        "/api/extras/config-contexts/?exclude_m2m=false",
        {"name": "leaves", "data": {"role": "leaf"}, "roles": [str(leaf_role.pk)], "tags": ["alpha"]},
    )
    assert status == 201, body
    assert [r["id"] for r in body["roles"]] == [str(leaf_role.pk)]


def test_computed_fields_render_over_each_object(api, devices):
    leaf = devices["leaf1"]
    body = api.json(f"/api/dcim/devices/{leaf.pk}/", {"include": "computed_fields"})
    assert body["computed_fields"] == {"where": "leaf1 @ AMS1"}
    tenants = api.json("/api/tenancy/tenants/", {"include": "computed_fields"})["results"]
    assert {t["name"]: t["computed_fields"] for t in tenants}["Acme"] == {"shout": "ACME"}
    assert "computed_fields" not in api.json(f"/api/dcim/devices/{leaf.pk}/")


def test_computed_field_failures_fall_back_and_templates_are_sandboxed(api, devices):
    field = ComputedField.objects.get(key="shout")
    field.template = "{{ obj.name.nosuch() }}"
    field.save()
    acme = Tenant.objects.get(name="Acme")
    assert api.json(f"/api/tenancy/tenants/{acme.pk}/", {"include": "computed_fields"})[
        "computed_fields"
    ] == {"shout": "?"}
    field.template = "{{ obj.delete() }}{{ obj.__class__.__mro__ }}"
    field.save()
    api.json(f"/api/tenancy/tenants/{acme.pk}/", {"include": "computed_fields"})
    assert Tenant.objects.filter(pk=acme.pk).exists()
    status, errors = send(
        api,
        "post",
        "/api/extras/computed-fields/",
        {"content_type": "dcim.device", "label": "Bad", "template": "{{ obj.name"},
    )
    assert (
        status == 400
        and list(errors) == ["template"]
        and errors["template"][0].startswith("Invalid template")
    )
    status, body = send(
        api,
        "post",
        "/api/extras/computed-fields/",
        {"content_type": "dcim.device", "label": "Rack Name", "template": "{{ obj.rack.name }}"},
    )
    assert status == 201 and body["key"] == "rack_name"


def test_computed_fields_in_constant_queries(api, sample, superuser):
    def queries():
        with CaptureQueriesContext(connection) as captured:
            rows = api.json("/api/dcim/devices/", {"include": "computed_fields", "limit": 1000})["results"]
        assert all(row["computed_fields"] for row in rows)
        return len(captured)

    alone = queries()
    build_sample(superuser, "-2")
    # The templates' `obj.location` is joined, not loaded device by device.
    assert queries() == alone
