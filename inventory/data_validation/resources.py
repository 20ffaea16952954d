"""The data validation application's declarations: each model once, under /api/data-validation/."""

from queryengine.registry import Display, GenericList, Resource, every_object, register

from .models import (
    DataCompliance,
    MinMaxValidationRule,
    RegularExpressionValidationRule,
    RequiredValidationRule,
    UniqueValidationRule,
)

RULE_SEARCH = ("name", "error_message", "content_type__app_label", "content_type__model", "field")

for model, endpoint, search in (
    (RegularExpressionValidationRule, "regex-rules", (*RULE_SEARCH, "regular_expression")),
    (MinMaxValidationRule, "min-max-rules", RULE_SEARCH),
    (RequiredValidationRule, "required-rules", RULE_SEARCH),
    (UniqueValidationRule, "unique-rules", RULE_SEARCH),
):
    register(Resource(model, f"data-validation/{endpoint}", search=search))


def compliance_display(class_name: str, attribute: str, shown: str) -> str:
    return f"{class_name}: {attribute} compliance for {shown}"


register(
    Resource(
        DataCompliance,
        "data-validation/data-compliance",
        display=Display(
            ("compliance_class_name", "validated_attribute", "validated_object_str"), compliance_display
        ),
        search=("compliance_class_name", "message", "content_type__app_label", "content_type__model"),
        generic_lists={"associated_data_compliance": GenericList("content_type", "object_id", every_object)},
        natural_key=None,
        notes=True,
        timestamp_filters=True,
        static_groups=True,  # as the reference's, held by static groups (no dynamic ones)
        # Results of audits: kept by the jobs that make them, not a history of their own.
        change_logged=False,
    )
)
