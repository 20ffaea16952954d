"""How the API shows, takes and filters the capabilities of controllers and their device
groups: a list of choices, each shown as {value, label}."""

import operator
from functools import reduce

from django.db.models import Q

from queryengine.registry import Computed, CustomFilter

from .models.controllers import CAPABILITY_LABELS, capabilities_shown, write_capabilities


def parse_capability(value: str) -> str:
    if value not in CAPABILITY_LABELS:
        raise ValueError(f"Select a valid choice. {value} is not one of the available choices.")
    return value


def choice_schema(labels: dict) -> dict:
    """The JSON schema of a choice shown as {value, label}."""
    value, label = (
        {"type": "string", "enum": list(labels)},
        {"type": "string", "enum": sorted(labels.values())},
    )
    return {"type": "object", "properties": {"value": value, "label": label}, "required": ["value", "label"]}


# OPTIONS describes the list as the reference's serializer does: a list of choices.
CAPABILITY_OPTIONS = {
    "type": "list",
    "child": {
        "type": "field",
        "required": False,
        "read_only": False,
        "choices": [{"value": v, "display": d} for v, d in CAPABILITY_LABELS.items()],
    },
}
# A controller's (or group's) capabilities: a list of choices, shown as {value, label} each.
CAPABILITIES = {
    "hidden": ("capabilities",),
    "computed": {
        "capabilities": Computed(
            ("capabilities",),
            capabilities_shown,
            output="object",
            write=write_capabilities,
            options=CAPABILITY_OPTIONS,
            read_schema={"type": "array", "items": choice_schema(CAPABILITY_LABELS)},
            write_schema={"type": "array", "items": {"type": "string", "enum": list(CAPABILITY_LABELS)}},
        )
    },
    "filters": {
        "capabilities": CustomFilter(
            lambda values: reduce(operator.or_, (Q(capabilities__icontains=f'"{v}"') for v in values)),
            parse_capability,
            lambda obj, values: any(v in (obj.capabilities or []) for v in values),
            tuple(CAPABILITY_LABELS),
        )
    },
}
