"""Data validation through the HTTP stack: rules are refused when they cannot apply, and each
kind is enforced on every way objects are written (REST single and bulk, GraphQL, CSV, jobs),
with the reference's messages under the rule's field; disabled rules are not; the audit job
records what stored objects break as data compliance results."""

from __future__ import annotations

import uuid

import orjson
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inventory.data_validation.models import DataCompliance, RegularExpressionValidationRule
from inventory.ipam.models import VLAN
from inventory.tenancy.models import Tenant

from .conftest import send
from .test_write_batches import batched

ROOT = "/api/data-validation/"
REGEX = f"{ROOT}regex-rules/"
MINMAX = f"{ROOT}min-max-rules/"
REQUIRED = f"{ROOT}required-rules/"
UNIQUE = f"{ROOT}unique-rules/"
COMPLIANCE = f"{ROOT}data-compliance/"
TENANTS = "/api/tenancy/tenants/"
VLANS = "/api/ipam/vlans/"


def rule(api, path: str, body: dict) -> dict:
    status, created = send(api, "post", path, {"name": f"rule {body['field']}", **body})
    assert status == 201, created
    return created


def test_app_root_lists_the_endpoints(api, sample):
    assert api.json("/api/")["data-validation"] == "http://testserver/api/data-validation/"
    assert sorted(api.json(ROOT)) == [
        "data-compliance",
        "min-max-rules",
        "regex-rules",
        "required-rules",
        "unique-rules",
    ]


class TestRulesThemselves:
    def test_a_regex_that_does_not_compile_is_refused(self, api, sample):
        body = {
            "name": "bad",
            "content_type": "tenancy.tenant",
            "field": "description",
            "regular_expression": "(",
        }
        status, errors = send(api, "post", REGEX, body)
        assert (status, errors) == (400, {"__all__": ["( is not a valid regular expression."]})
        # A template is checked when rendered, over each object.
        status, created = send(api, "post", REGEX, {**body, "context_processing": True})
        assert status == 201, created

    @pytest.mark.parametrize(
        ("path", "field", "message"),
        [
            (REGEX, "nosuchfield", "Not a valid field for content type tenancy.tenant."),
            (REGEX, "tenant_group", "This field's type does not support regular expression validation."),
            (REGEX, "id", "This field's type does not support regular expression validation."),
            (
                REGEX,
                "_custom_field_data",
                "This field's type does not support regular expression validation.",
            ),
            (MINMAX, "description", "This field's type does not support min/max validation."),
            (REQUIRED, "name", "This field is already required by default."),
            (REQUIRED, "tenant_group", "This field's type does not support required validation."),
            (UNIQUE, "name", "This field is already unique by default."),
            (UNIQUE, "tags", "This field's type does not support uniqueness validation."),
        ],
    )
    def test_a_field_each_kind_cannot_check_is_refused(self, api, sample, path, field, message):
        body = {
            "name": "r",
            "content_type": "tenancy.tenant",
            "field": field,
            "regular_expression": ".",
            "min": 1,
        }
        status, errors = send(api, "post", path, body)
        assert (status, errors) == (400, {"field": [message]})

    def test_ranges_are_checked(self, api, sample):
        body = {"name": "r", "content_type": "ipam.vlan", "field": "vid"}
        status, errors = send(api, "post", MINMAX, body)
        assert (status, errors) == (
            400,
            {"__all__": ["At least a minimum or maximum value must be specified."]},
        )
        status, errors = send(api, "post", MINMAX, {**body, "min": 10, "max": 5})
        assert (status, errors) == (
            400,
            {
                "min": ["Minimum value cannot be more than the maximum value."],
                "max": ["Maximum value cannot be less than the minimum value."],
            },
        )
        status, errors = send(api, "post", UNIQUE, {**body, "field": "name", "max_instances": 0})
        assert status == 400 and list(errors) == ["max_instances"]

    def test_a_type_no_rule_targets_is_refused(self, api, sample):
        body = {"name": "r", "content_type": "users.token", "field": "description"}
        status, errors = send(api, "post", REQUIRED, body)
        assert (status, errors) == (400, {"content_type": ["Invalid content type: users.token"]})

    def test_a_field_takes_one_rule_of_each_kind(self, api, sample):
        body = {"content_type": "tenancy.tenant", "field": "description"}
        rule(api, REQUIRED, body)
        status, errors = send(api, "post", REQUIRED, {**body, "name": "again"})
        assert (status, errors) == (
            400,
            {"non_field_errors": ["The fields content_type, field must make a unique set."]},
        )
        rule(api, UNIQUE, body)  # another kind

    def test_rules_filter_and_search(self, api, sample):
        rule(
            api, REGEX, {"content_type": "tenancy.tenant", "field": "description", "regular_expression": "^x"}
        )
        found = api.json(REGEX, {"content_type": "tenancy.tenant"})["results"]
        assert [r["field"] for r in found] == ["description"]
        assert api.json(REGEX, {"q": "rule desc"})["count"] == 1
        assert api.json(REGEX, {"field": "description", "enabled": "false"})["count"] == 0


@pytest.fixture
def rules(api, sample):
    """A rule of each kind on tenants (their description and comments) and VLANs (their number)."""
    return {
        "regex": rule(
            api,
            REGEX,
            {"content_type": "tenancy.tenant", "field": "description", "regular_expression": "^[A-Z]"},
        ),
        "required": rule(api, REQUIRED, {"content_type": "tenancy.tenant", "field": "comments"}),
        "unique": rule(api, UNIQUE, {"content_type": "tenancy.tenant", "field": "description"}),
        "minmax": rule(api, MINMAX, {"content_type": "ipam.vlan", "field": "vid", "min": 100, "max": 199}),
    }


def tenant(name: str, description: str = "Fine", comments: str = "noted") -> dict:
    return {"name": name, "description": description, "comments": comments}


def vlan(name: str, vid: int) -> dict:
    return {"name": name, "vid": vid, "status": "Active"}


REGEX_ERROR = {"description": ["Value does not conform to regex: ^[A-Z]"]}
REQUIRED_ERROR = {"comments": ["This field cannot be blank."]}
UNIQUE_ERROR = {"description": ["There can only be 1 instance with this value."]}
RANGE_LOW = {"vid": ["Value is less than minimum value: 100.0"]}
RANGE_HIGH = {"vid": ["Value is more than maximum value: 199.0"]}


class TestEnforcedOnRest:
    def test_single_create(self, api, rules):
        for body, error in (
            (tenant("t1", description="lower"), REGEX_ERROR),
            (tenant("t1", comments=""), REQUIRED_ERROR),
        ):
            assert send(api, "post", TENANTS, body) == (400, error)
        assert send(api, "post", VLANS, vlan("v", 42)) == (400, RANGE_LOW)
        assert send(api, "post", VLANS, vlan("v", 300)) == (400, RANGE_HIGH)
        assert send(api, "post", VLANS, vlan("v", 150))[0] == 201
        assert send(api, "post", TENANTS, tenant("t1", description="Unique one"))[0] == 201
        assert send(api, "post", TENANTS, tenant("t2", description="Unique one")) == (400, UNIQUE_ERROR)
        assert not Tenant.objects.filter(name="t2").exists()

    def test_update_and_patch(self, api, rules):
        status, created = send(api, "post", TENANTS, tenant("t1"))
        assert status == 201, created
        url = f"{TENANTS}{created['id']}/"
        assert send(api, "patch", url, {"description": "lower"}) == (400, REGEX_ERROR)
        assert send(api, "put", url, tenant("t1", comments="")) == (400, REQUIRED_ERROR)
        assert send(api, "patch", url, {"description": "Better"})[0] == 200  # its own value is no clash
        assert send(api, "patch", url, {"name": "t1 renamed"})[0] == 200
        assert Tenant.objects.get(pk=created["id"]).description == "Better"

    def test_the_first_broken_rule_is_reported(self, api, rules):
        # Patterns come before required values and unique values.
        assert send(api, "post", TENANTS, tenant("t1", description="lower", comments="")) == (
            400,
            REGEX_ERROR,
        )

    def test_a_bulk_create_names_the_offending_item_and_writes_nothing(self, api, rules):
        before = Tenant.objects.count()
        items = [
            tenant("b1", description="One"),
            tenant("b2", description="two"),
            tenant("b3", description="Three"),
        ]
        assert send(api, "post", TENANTS, items) == (400, [{}, REGEX_ERROR, {}])
        # Within one batch, earlier items count as stored.
        items = [tenant("b1", description="Same"), tenant("b2", description="Same")]
        assert send(api, "post", TENANTS, items) == (400, [{}, UNIQUE_ERROR])
        assert send(api, "post", VLANS, [vlan("a", 150), vlan("b", 7)]) == (400, [{}, RANGE_LOW])
        assert Tenant.objects.count() == before
        assert not VLAN.objects.filter(name__in=["a", "b"]).exists()

    def test_a_bulk_update_refuses_the_offending_item_and_changes_nothing(self, api, rules):
        status, created = send(
            api, "post", TENANTS, [tenant("u1", description="One"), tenant("u2", description="Two")]
        )
        assert status == 201, created
        patch = [{"id": created[0]["id"], "description": "Uno"}, {"id": created[1]["id"], "comments": ""}]
        assert send(api, "patch", TENANTS, patch) == (400, REQUIRED_ERROR)
        assert sorted(Tenant.objects.filter(name__in=["u1", "u2"]).values_list("description", flat=True)) == [
            "One",
            "Two",
        ]
        # Values swapped within one batch clash with nothing.
        swap = [
            {"id": created[0]["id"], "description": "Two"},
            {"id": created[1]["id"], "description": "One"},
        ]
        assert send(api, "patch", TENANTS, swap)[0] == 200

    def test_a_rules_own_message_replaces_the_kinds(self, api, rules):
        send(api, "patch", f"{REGEX}{rules['regex']['id']}/", {"error_message": "Start with a capital."})
        assert send(api, "post", TENANTS, tenant("t", description="x")) == (
            400,
            {"description": ["Start with a capital."]},
        )

    def test_a_disabled_rule_is_not_enforced(self, api, rules):
        for kind, path in (("regex", REGEX), ("required", REQUIRED), ("minmax", MINMAX)):
            status, body = send(api, "patch", f"{path}{rules[kind]['id']}/", {"enabled": False})
            assert status == 200 and body["enabled"] is False
        assert send(api, "post", TENANTS, tenant("d1", description="lower", comments=""))[0] == 201
        assert send(api, "post", VLANS, vlan("v", 7))[0] == 201
        # Deleting a rule lifts it at once too.
        assert send(api, "delete", f"{UNIQUE}{rules['unique']['id']}/")[0] == 204
        assert send(api, "post", TENANTS, tenant("d2", description="lower", comments=""))[0] == 201

    def test_rules_cost_no_statement_per_item_of_a_bulk_write(self, api, rules):
        def cost(size: int) -> int:
            items = [tenant(f"q{size}-{n}", description=f"Q{size}-{n}") for n in range(size)]
            with CaptureQueriesContext(connection) as queries:
                status, body = send(api, "post", TENANTS, items)
            assert status == 201, body
            return batched(queries)

        cost(2)  # warm-up: the rules and definitions are read once, then kept
        assert cost(3) == cost(12)


class TestEnforcedElsewhere:
    def test_graphql_mutations(self, api, rules):
        mutation = "mutation ($data: [GenericScalar]!) { create_tenants(data: $data) { name } }"
        response = api.post(
            "/api/graphql/", {"query": mutation, "variables": {"data": [tenant("g1", "lower")]}}
        )
        body = orjson.loads(response.content)
        assert body["data"] == {"create_tenants": None}
        assert "Value does not conform to regex: ^[A-Z]" in orjson.dumps(body["errors"]).decode()
        update = "mutation ($data: [GenericScalar]!) { update_tenants(data: $data) { name } }"
        status, created = send(api, "post", TENANTS, tenant("g2"))
        assert status == 201, created
        pk = created["id"]
        response = api.post(
            "/api/graphql/", {"query": update, "variables": {"data": [{"id": pk, "comments": ""}]}}
        )
        assert "This field cannot be blank." in response.content.decode()
        assert not Tenant.objects.filter(name="g1").exists()

    def test_csv_import(self, api, rules):
        text = "name,description,comments\r\nc1,Good,yes\r\nc2,bad,yes\r\n"
        response = api.client.post(TENANTS, text, content_type="text/csv")
        assert response.status_code == 400
        assert orjson.loads(response.content) == [{}, REGEX_ERROR]
        assert not Tenant.objects.filter(name__in=["c1", "c2"]).exists()

    def test_jobs_writing_through_the_api_and_the_orm(self, api, rules, superuser):
        from inventory.jobs.base import Job
        from queryengine.errors import ValidationFailed

        job = Job(user=superuser)
        with pytest.raises(ValidationFailed) as refused:
            job.create_objects(Tenant, [tenant("j1", description="lower")])
        assert refused.value.errors == [REGEX_ERROR]
        obj = Tenant(name="j2", description="Fine", comments="")
        with pytest.raises(Exception) as refused:
            obj.validated_save()
        assert refused.value.message_dict == REQUIRED_ERROR
        assert not Tenant.objects.filter(name__in=["j1", "j2"]).exists()


@pytest.fixture
def eager():
    from config.celery import app as celery_app

    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = False


def run_job(api, name: str, data: dict) -> dict:
    listed = api.json("/api/extras/jobs/", {"name": name})["results"]
    assert len(listed) == 1, listed
    assert listed[0]["grouping"] == "System Jobs"
    status, body = send(api, "post", f"/api/extras/jobs/{listed[0]['id']}/run/", {"data": data})
    assert status == 201, body
    return body["job_result"]


def test_the_audit_job_records_what_stored_objects_break(api, sample, eager):
    from .test_permissions import account, grant

    bad = Tenant.objects.create(name="audited", description="lower", comments="x")
    good = Tenant.objects.create(name="Audited", description="Upper", comments="x")
    # Stored before the rule, which is disabled: the audit checks disabled rules too.
    rule(
        api, REGEX, {"content_type": "tenancy.tenant", "field": "description", "regular_expression": "^[A-Z]"}
    )
    RegularExpressionValidationRule.objects.filter(field="description").update(enabled=False)
    DataCompliance.objects.create(
        compliance_class_name="TenancyTenantCustomValidator",
        content_type_id=DataCompliance.objects.first().content_type_id,
        object_id=good.pk,
        validated_attribute="description",
        valid=False,
        message="stale",
    )
    result = run_job(api, "Run Registered Data Compliance Rules", {"run_user_created_rules_in_report": True})
    assert result["status"]["value"] == "SUCCESS", result
    found = api.json(
        COMPLIANCE, {"compliance_class_name": "TenancyTenantCustomValidator", "object_id": str(bad.pk)}
    )
    assert [
        (r["validated_attribute"], r["valid"], r["message"], r["validated_attribute_value"])
        for r in found["results"]
    ] == [("description", False, "Value does not conform to regex: ^[A-Z]", "lower")]
    assert not DataCompliance.objects.filter(object_id=good.pk).exists()  # valid now: its result goes
    # A second run updates the result in place.
    first = found["results"][0]["id"]
    run_job(api, "Run Registered Data Compliance Rules", {"run_user_created_rules_in_report": True})
    assert list(DataCompliance.objects.filter(object_id=bad.pk).values_list("pk", flat=True)) == [
        uuid.UUID(first)
    ]
    # A user who may run it but not write results is refused; one who sees no tenant audits none.
    user, theirs = account()
    grant(user, ["extras.job"], ["view", "run"])
    grant(user, ["data_validation.datacompliance"], ["view"])
    grant(user, ["tenancy.tenant"], ["view"])
    result = run_job(
        theirs, "Run Registered Data Compliance Rules", {"run_user_created_rules_in_report": True}
    )
    assert result["status"]["value"] == "FAILURE"


def test_validate_model_data_reports_broken_objects(api, sample, eager):
    Tenant.objects.create(name="stored", description="lower", comments="x")
    rule(
        api, REGEX, {"content_type": "tenancy.tenant", "field": "description", "regular_expression": "^[A-Z]"}
    )
    result = run_job(api, "Validate Model Data", {"content_types": ["tenancy.tenant"]})
    logs = api.json(f"/api/extras/job-results/{result['id']}/logs/", {"limit": 1000})["results"]
    assert any("Value does not conform to regex" in entry["message"] for entry in logs), logs


def test_compliance_results_show_their_object(api, sample):
    row = api.json(COMPLIANCE)["results"][0]
    assert {
        "compliance_class_name",
        "content_type",
        "object_id",
        "validated_attribute",
        "valid",
        "message",
    } <= set(row)
    assert row["display"] == (
        f"{row['compliance_class_name']}: {row['validated_attribute']} compliance for {row['validated_object_str']}"
    )
    assert row["content_type"] == "tenancy.tenant"
