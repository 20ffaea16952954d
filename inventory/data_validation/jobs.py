"""The reference's system jobs around data validation: auditing stored objects against the rules
into data compliance results, and validating stored objects as a write would. Both read only
what their user may view, and the audit writes its results as the API writes for that user."""

from __future__ import annotations

from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError

from inventory.jobs.base import BooleanVar, Job, MultiChoiceVar, MultiObjectVar

from . import enforcement
from .models import RULE_MODELS, DataCompliance

name = "System Jobs"
CHUNK = 500  # objects audited, and results written, at a time


def validator_name(model) -> str:
    """The compliance class name of the results the rules give a model's objects (the
    reference's generated validator: DcimDeviceCustomValidator)."""
    return f"{model._meta.app_label.capitalize()}{model._meta.model_name.capitalize()}CustomValidator"


class RunRegisteredDataComplianceRules(Job):
    """Run the validate function on all registered DataComplianceRule classes and, optionally,
    the built-in data validation rules."""

    # Compliance rule classes come from add-ons and Git repositories at the reference; neither
    # runs here, so there are none to select.
    selected_data_compliance_rules = MultiChoiceVar(
        choices=(),
        label="Select Data Compliance Rules",
        required=False,
        description="Not selecting any rules will run all rules listed.",
    )
    run_user_created_rules_in_report = BooleanVar(
        label="Run user created validation rules?",
        description="Include user created data validation rules in report.",
    )

    class Meta:
        name = "Run Registered Data Compliance Rules"
        description = "Runs selected Data Compliance rule classes."
        has_sensitive_variables = False
        soft_time_limit = 1800
        time_limit = 2000

    def run(self, selected_data_compliance_rules=None, run_user_created_rules_in_report=False):
        report = {}
        if run_user_created_rules_in_report:
            self.logger.info("Running user created data validation rules")
            report = self.report_for_validation_rules()
        self.logger.info("View Data Compliance results [here](/data-validation/data-compliance/)")
        return report

    def report_for_validation_rules(self) -> dict:
        """Every object (the user may view) of each type with rules, disabled ones included,
        checked against them: a result for each object that breaks one (its first), and no
        result left of these rules for an object that breaks none."""
        targeted = set()
        for rule_model in RULE_MODELS:
            targeted |= set(rule_model.objects.values_list("content_type", flat=True))
        report = {}
        for kind in ContentType.objects.filter(pk__in=targeted).order_by("app_label", "model"):
            model = kind.model_class()
            if model is None:
                continue
            checked = invalid = 0
            objects = self.objects(model).order_by("pk")
            chunk = list(objects[:CHUNK])
            while chunk:
                invalid += self.audit(model, kind, chunk)
                checked += len(chunk)
                chunk = list(objects.filter(pk__gt=chunk[-1].pk)[:CHUNK])
            report[f"{kind.app_label}.{kind.model}"] = {"checked": checked, "invalid": invalid}
            self.logger.info("Validated %d %s: %d invalid", checked, model._meta.verbose_name_plural, invalid)
        return report

    def audit(self, model, kind: ContentType, objects: list) -> int:
        errors = [{} for _ in objects]
        enforcement.check(model, objects, errors, enabled_only=False, stored=True)
        class_name = validator_name(model)
        existing = {
            (str(r.object_id), r.validated_attribute): r
            for r in self.objects(DataCompliance).filter(
                compliance_class_name=class_name, content_type=kind, object_id__in=[o.pk for o in objects]
            )
        }
        kept, create, update = set(), [], []
        for obj, found in zip(objects, errors, strict=True):
            if not found:
                continue
            attribute, messages = next(iter(found.items()))
            value = getattr(obj, attribute, None)
            data = {
                "validated_object_str": str(obj)[:255],
                "validated_attribute_value": str(value)[:255] if value else "",
                "message": messages[0],
                "valid": False,
            }
            known = existing.get((str(obj.pk), attribute))
            if known is None:
                create.append(
                    {
                        **data,
                        "compliance_class_name": class_name,
                        "content_type": f"{kind.app_label}.{kind.model}",
                        "object_id": str(obj.pk),
                        "validated_attribute": attribute,
                    }
                )
            else:
                kept.add(known.pk)
                update.append({"id": str(known.pk), **data})
        gone = [r.pk for r in existing.values() if r.pk not in kept]
        # Written as the API writes for the job's user: their permissions hold.
        if gone:
            self.delete_objects(DataCompliance, gone)
        if update:
            self.update_objects(DataCompliance, update)
        if create:
            self.create_objects(DataCompliance, create)
        return len(create) + len(update)


class ValidateModelData(Job):
    """Clean and validate data in all records of a given content type(s)."""

    content_types = MultiObjectVar(
        model=ContentType,
        label="Content Types",
        description="Type(s) of objects to validate.",
    )
    verbose = BooleanVar(default=False, label="Verbose output?")

    class Meta:
        name = "Validate Model Data"
        description = "Run `full_clean()` against all records of a given type(s) to check for data validity."
        has_sensitive_variables = False
        read_only = True
        soft_time_limit = 1800
        time_limit = 2000

    def run(self, content_types, verbose=False):
        failed = 0
        for kind in content_types:
            model = kind.model_class()
            if model is None:
                self.logger.failure(
                    "Couldn't locate Python model for content-type %s.%s", kind.app_label, kind.model
                )
                continue
            records = self.objects(model)
            total = records.count()
            if not total:
                self.logger.warning("No %s found", model._meta.verbose_name_plural)
                continue
            self.logger.info("Validating %d %s", total, model._meta.verbose_name_plural)
            for record in records.iterator():
                try:
                    record.full_clean()
                    if verbose:
                        self.logger.success("Validated successfully", extra={"object": record})
                except ValidationError as err:
                    failed += 1
                    self.logger.failure("Validation error: `%s`", err, extra={"object": record})
        return {"invalid": failed}
