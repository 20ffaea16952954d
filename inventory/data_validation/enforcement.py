"""Rules enforced on every write of the objects they target.

Every write of the API (REST single and bulk, GraphQL mutations, CSV imports, jobs writing
through the API) validates its objects in the engine, and the engine hands each batch of
cleaned objects to `check` (queryengine.registry.support_object_rules); a model's own
`full_clean` hands it the one object (inventory.base), for writes made outside the engine.

Rules are read once per change to any rule (queryengine.definitions keeps them per process),
so checking costs no query, except one per unique rule for a whole batch. Like the reference,
an object fails on its first broken rule: patterns, then ranges, then required values, then
unique values, each kind in the order of the rules' names.
"""

from __future__ import annotations

import decimal
import logging
import math
import re
from collections import defaultdict
from dataclasses import dataclass

from django.db import models

from queryengine.definitions import cached, watch
from queryengine.registry import support_object_rules

from .models import (
    RULE_MODELS,
    MinMaxValidationRule,
    RegularExpressionValidationRule,
    RequiredValidationRule,
    UniqueValidationRule,
    validate_regex,
)

logger = logging.getLogger(__name__)
REGEX, MINMAX, REQUIRED, UNIQUE = "regex", "minmax", "required", "unique"
KINDS = {
    RegularExpressionValidationRule: REGEX,
    MinMaxValidationRule: MINMAX,
    RequiredValidationRule: REQUIRED,
    UniqueValidationRule: UNIQUE,
}


@dataclass(frozen=True)
class Rule:
    """A rule as read from the database: plain values, kept between requests."""

    kind: str
    name: str
    field: str
    enabled: bool
    error_message: str
    regular_expression: str = ""
    context_processing: bool = False
    min: float | None = None
    max: float | None = None
    max_instances: int = 1

    def __str__(self) -> str:
        return self.name


def _load() -> dict[str, tuple[Rule, ...]]:
    found = defaultdict(list)
    for model, kind in KINDS.items():  # in the order they are checked
        for rule in model.objects.select_related("content_type").order_by("name"):
            values = {
                "kind": kind,
                "name": rule.name,
                "field": rule.field,
                "enabled": rule.enabled,
                "error_message": rule.error_message,
            }
            if kind == REGEX:
                values.update(
                    regular_expression=rule.regular_expression, context_processing=rule.context_processing
                )
            elif kind == MINMAX:
                values.update(min=rule.min, max=rule.max)
            elif kind == UNIQUE:
                values.update(max_instances=rule.max_instances)
            found[f"{rule.content_type.app_label}.{rule.content_type.model}"].append(Rule(**values))
    return {object_type: tuple(rules) for object_type, rules in found.items()}


def rules_for(model, enabled_only: bool = True) -> tuple[Rule, ...]:
    """The rules of a model's objects, in the order they are checked."""
    rules = cached(("data_validation_rules",), _load).get(model._meta.label_lower, ())
    return tuple(r for r in rules if r.enabled) if enabled_only else rules


def check(
    model, instances: list, errors: list[dict], enabled_only: bool = True, stored: bool = False
) -> None:
    """Add to each object's errors (`errors`, beside `instances`, None for an item that is no
    object) the first rule it breaks, under the rule's field. Fields that already have an error
    are not checked again. For unique rules, objects earlier in the list count as stored, as
    saving them one by one would; `stored`: the objects are as stored (an audit), each counting
    every other."""
    rules = rules_for(model, enabled_only)
    if not rules:
        return
    live = [(i, e) for i, e in zip(instances, errors, strict=True) if i is not None]
    failed: set[int] = set()
    for rule in rules:
        pending = [(i, e) for i, e in live if id(i) not in failed and rule.field not in e]
        if not pending:
            continue
        if rule.kind == UNIQUE:
            broken = _unique_failures(model, rule, [i for i, _ in pending], stored)
        else:
            broken = {id(i): m for i, _ in pending if (m := _failure(rule, i)) is not None}
        for instance, item_errors in pending:
            message = broken.get(id(instance))
            if message is not None:
                item_errors.setdefault(rule.field, []).append(message)
                failed.add(id(instance))


def first_failure(model, instance, enabled_only: bool = True) -> tuple[str, str] | None:
    """(field, message) of the first rule `instance` breaks, or None."""
    errors: dict = {}
    check(model, [instance], [errors], enabled_only)
    return next(((field, messages[0]) for field, messages in errors.items()), None)


def _failure(rule: Rule, obj) -> str | None:
    value = getattr(obj, rule.field, None)
    if rule.kind == REGEX:
        return _regex_failure(rule, obj, value)
    if rule.kind == MINMAX:
        return _range_failure(rule, value)
    if value is None or value == "":
        return rule.error_message or "This field cannot be blank."
    return None


def _regex_failure(rule: Rule, obj, value) -> str | None:
    text = "" if value is None else value if isinstance(value, str) else str(value)
    pattern = rule.regular_expression
    if rule.context_processing:
        try:
            pattern = _rendered(pattern, obj)
            validate_regex(pattern)
        except Exception:  # a template or pattern that fails: the write is refused, and why is logged
            logger.exception(
                "The regular expression of the data validation rule %r could not be rendered", rule.name
            )
            return (
                f"There was an error rendering the regular expression in the data validation rule '{rule}'. "
                "Either fix the validation rule or disable it in order to save this data."
            )
    try:
        matched = re.match(pattern, text)
    except re.error:  # stored before the pattern was checked (a migration, the ORM)
        matched = None
    if matched is None:
        return rule.error_message or f"Value does not conform to regex: {pattern}"
    return None


def _rendered(template: str, obj) -> str:
    """The pattern written as a template over the object being validated (`obj`, and `object`
    as the reference's earlier releases named it): its own plain values, never the ORM."""
    from inventory.extras.templating import render

    values = {}
    for field in obj._meta.concrete_fields:
        value = getattr(obj, field.attname, None)
        if field.name.startswith("_"):
            continue
        values[field.attname] = (
            value if isinstance(value, str | int | float | bool | type(None)) else str(value)
        )
        if field.is_relation:
            values[field.name] = values[field.attname]
    return render(template, {"obj": values, "object": values})


def _range_failure(rule: Rule, value) -> str | None:
    if value is None:
        return (
            rule.error_message
            or f"Value does not conform to mix/max validation: min {rule.min}, max {rule.max}"
        )
    if isinstance(value, bool) or not isinstance(value, int | float | decimal.Decimal):
        return f"Unable to validate against min/max rule {rule} because the field value is not numeric."
    number = float(value)  # a decimal compares with the rule's float bounds within float precision
    if rule.min is not None and number < rule.min and not math.isclose(number, rule.min):
        return rule.error_message or f"Value is less than minimum value: {rule.min}"
    if rule.max is not None and number > rule.max and not math.isclose(number, rule.max):
        return rule.error_message or f"Value is more than maximum value: {rule.max}"
    return None


def _unique_failures(model, rule: Rule, instances: list, stored: bool) -> dict[int, str]:
    """One query for the whole batch: how many other objects hold each object's value."""
    keyed = [(i, getattr(i, rule.field, None)) for i in instances]
    keyed = [(i, v) for i, v in keyed if v]  # an empty value is never counted
    if not keyed:
        return {}
    holders = defaultdict(list)
    try:
        rows = model._default_manager.filter(**{f"{rule.field}__in": {v for _, v in keyed}})
        for value, pk in rows.values_list(rule.field, "pk"):
            holders[value].append(pk)
    except (TypeError, ValueError):  # a value the column cannot hold: its field reports it
        return {}
    # Rows of objects being written hold their old values: only those stored as they are count.
    written = set() if stored else {i.pk for i in instances if i.pk is not None}
    message = rule.error_message or (
        f"There can only be {rule.max_instances} instance{'s' if rule.max_instances != 1 else ''} with this value."
    )
    broken, earlier = {}, defaultdict(int)
    for instance, value in keyed:
        others = sum(1 for pk in holders[value] if pk != instance.pk and pk not in written)
        if others + earlier[value] >= rule.max_instances:
            broken[id(instance)] = message
        if not stored:
            earlier[value] += 1
    return broken


def check_batch(model, instances: list, errors: list[dict]) -> None:
    """The engine's hook: enabled rules, for objects of the types rules may target."""
    if issubclass(model, models.Model) and model._meta.app_label != "data_validation":
        check(model, instances, errors)


def connect() -> None:
    support_object_rules(check_batch)
    watch(*RULE_MODELS)
