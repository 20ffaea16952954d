"""Sample data validation rules of each kind and data compliance results. Rules a second sample
(suffix) makes target other fields (a field takes one rule of each kind); the enabled ones accept
every value, so the rest of the suite writes as before (tests/test_data_validation.py enforces)."""

from __future__ import annotations

from django.apps import apps
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError

from inventory.data_validation.models import (
    DataCompliance,
    MinMaxValidationRule,
    RegularExpressionValidationRule,
    RequiredValidationRule,
    UniqueValidationRule,
    target_types,
)
from inventory.tenancy.models import Tenant


def free_targets(
    rule_model, count: int, handed: set | None = None, fewer: bool = False
) -> list[tuple[ContentType, str]]:
    """(content type, field) pairs no rule of this kind holds yet that such a rule accepts; with
    `fewer`, as many as are left (the benchmarks lay many copies of the sample)."""
    taken = set(rule_model.objects.values_list("content_type__app_label", "content_type__model", "field"))
    found = []
    for object_type in sorted(target_types()):
        model = apps.get_model(object_type)
        kind = ContentType.objects.get_for_model(model)
        for field in model._meta.concrete_fields:
            key = (kind.app_label, kind.model, field.name)
            if key in taken or (handed is not None and key in handed) or not rule_model.supports(field):
                continue
            probe = rule_model(name="probe", content_type=kind, field=field.name)
            probe.min, probe.max = 0, 1  # a range, for range rules
            try:
                probe.clean_rule(field)
            except ValidationError:
                continue
            found.append((kind, field.name))
            if handed is not None:
                handed.add(key)
            if len(found) == count:
                return found
    if fewer:
        return found
    raise AssertionError(f"no free field for a {rule_model.__name__}")


def build_data_validation(s: str, tenants: list[Tenant]) -> dict[type, list]:
    def rules(model, rows: list[dict]) -> list:
        targets = free_targets(model, len(rows), fewer=bool(s))
        return [
            model.objects.create(content_type=kind, field=field, **row)
            for (kind, field), row in zip(targets, rows, strict=False)
        ]

    regex = rules(
        RegularExpressionValidationRule,
        [
            {"name": f"any text{s}", "regular_expression": ".*", "error_message": "never shown"},
            {"name": f"one line{s}", "regular_expression": "^[^\\n]*"},
            {
                "name": f"named after itself{s}",
                "regular_expression": "^{{ obj.name }}",
                "context_processing": True,
                "enabled": False,
            },
        ],
    )
    ranges = rules(
        MinMaxValidationRule,
        [
            {"name": f"percent{s}", "min": 0, "max": 100, "enabled": False},
            {"name": f"at least five{s}", "min": 5, "enabled": False, "error_message": "Too small."},
            {"name": f"at most ten{s}", "max": 10.5, "enabled": False},
        ],
    )
    required = rules(
        RequiredValidationRule,
        [
            {"name": f"must describe{s}", "enabled": False},
            {"name": f"must fill{s}", "enabled": False, "error_message": "Fill it in."},
        ],
    )
    unique = rules(
        UniqueValidationRule,
        [
            {"name": f"once{s}", "enabled": False},
            {"name": f"twice{s}", "max_instances": 2, "enabled": False},
            {"name": f"a few{s}", "max_instances": 5, "enabled": False, "error_message": "Too common."},
        ],
    )
    tenant_ct = ContentType.objects.get_for_model(Tenant)
    results = [
        DataCompliance.objects.create(
            compliance_class_name="TenancyTenantCustomValidator",
            content_type=tenant_ct,
            object_id=tenant.pk,
            validated_object_str=str(tenant),
            validated_attribute=attribute,
            validated_attribute_value=value,
            valid=valid,
            message=message,
        )
        for tenant, attribute, value, valid, message in (
            (tenants[0], "description", tenants[0].description, False, "Value does not conform to regex: ^x"),
            (tenants[1], "comments", tenants[1].comments, False, "This field cannot be blank."),
            (tenants[2], "__all__", "", True, f"All rules for {tenants[2]} are valid{s}."),
        )
    ]
    return {
        RegularExpressionValidationRule: regex,
        MinMaxValidationRule: ranges,
        RequiredValidationRule: required,
        UniqueValidationRule: unique,
        DataCompliance: results,
    }
