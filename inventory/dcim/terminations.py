"""A cable's `terminations`: what is plugged into each connector of each end, keyed `a1`, `b1`,
`b2`, … (every connector its cable type has, null where nothing is plugged), read a page of
cables at a time and written with the cable."""

from __future__ import annotations

import uuid

import orjson
from django.apps import apps
from django.core.exceptions import ValidationError

from queryengine.errors import ValidationFailed
from queryengine.objecttexts import object_texts
from queryengine.registry import Included, Resource, resource_by_object_type

from .models import Cable, CableToCableTermination
from .models.cabletypes import END_FIELDS, MAX_CONNECTORS

FIELD_TYPES = {
    field: f"{'circuits' if kind == 'circuittermination' else 'dcim'}.{kind}"
    for kind, field in END_FIELDS.items()
}
TYPE_FIELDS = {label: field for field, label in FIELD_TYPES.items()}


def load(resource: Resource, ids: list[str], base: str, depth: int, viewer=None) -> dict:
    sizes = {
        str(pk): (a or 1, b or 1)
        for pk, a, b in Cable.objects.filter(pk__in=ids).values_list(
            "pk", "cable_type__a_connectors", "cable_type__b_connectors"
        )
    }
    columns = [f"{field}_id" for field in END_FIELDS.values()]
    plugged, wanted = {}, {}
    for cable, end, connector, *ends in CableToCableTermination.objects.filter(cable__in=ids).values_list(
        "cable", "cable_end", "connector", *columns
    ):
        field, pk = next(
            ((f, pk) for f, pk in zip(END_FIELDS.values(), ends, strict=True) if pk), (None, None)
        )
        if field is not None:
            plugged[str(cable), f"{end.lower()}{connector}"] = (FIELD_TYPES[field], str(pk))
            wanted.setdefault(FIELD_TYPES[field], set()).add(str(pk))
    rendered = {}
    for label, pks in wanted.items():
        target = resource_by_object_type(label)
        if depth <= 0:
            rendered.update(
                {
                    (label, pk): {"id": pk, "object_type": label, "url": f"{base}{target.route}/{pk}/"}
                    for pk in pks
                }
            )
        else:
            texts = object_texts(target, depth - 1, pks, base, viewer, generic=True)
            rendered.update({(label, pk): orjson.Fragment(text) for pk, text in texts.items()})
    result = {}
    for cable, (a_connectors, b_connectors) in sizes.items():
        slots = [f"a{n}" for n in range(1, a_connectors + 1)] + [f"b{n}" for n in range(1, b_connectors + 1)]
        result[cable] = {slot: rendered.get(plugged.get((cable, slot))) for slot in slots}
    return result


def parse(value) -> dict[tuple[str, int], object]:
    """{(end, connector): object or None} from `{"a2": {"object_type", "id"}, …}` (the shape
    reads have) or the nested `{"a": {"2": …}}`; errors keyed as the reference keys them."""
    if not isinstance(value, dict):
        raise ValidationFailed(
            {"terminations": ["Expected an object keyed by side ('a'/'b'), then connector number."]}
        )
    slots = {}
    for key, given in value.items():
        if key in ("a", "b"):
            if not isinstance(given, dict):
                raise ValidationFailed(
                    {"terminations": {key: ["Expected an object keyed by connector number."]}}
                )
            slots.update({(key, str(n)): v for n, v in given.items()})
        elif len(key) > 1 and key[0] in "ab":
            slots[key[0], key[1:]] = given
        else:
            raise ValidationFailed({"terminations": [f"Invalid side keys: ['{key}']. Allowed: 'a', 'b'."]})
    parsed = {}
    for (side, number), given in slots.items():

        def refuse(message, side=side, number=number):
            raise ValidationFailed({"terminations": {side: {number: message}}})

        try:
            connector = int(number)
        except ValueError:
            refuse(["Connector key must be an integer."])
        if not 1 <= connector <= MAX_CONNECTORS:
            refuse({"connector": [f"Ensure this value is less than or equal to {MAX_CONNECTORS}."]})
        if given is None:
            parsed[side.upper(), connector] = None
            continue
        if not isinstance(given, dict) or not given.get("object_type") or not given.get("id"):
            refuse(["Required keys: 'object_type' and 'id'."])
        field = TYPE_FIELDS.get(given["object_type"])
        if field is None:
            refuse({"object_type": [f"{given['object_type']} is not a valid cable termination type."]})
        model = apps.get_model(given["object_type"])
        try:
            found = model._default_manager.filter(pk=uuid.UUID(str(given["id"]))).first()
        except ValueError:
            found = None
        if found is None:
            refuse({field: [f'Invalid pk "{given["id"]}" - object does not exist.']})
        parsed[side.upper(), connector] = found
    return parsed


def write(resource: Resource, cable: Cable, value, adding: bool, state: dict) -> None:
    """Plug (an object) or unplug (null) the connectors named; others stay. Connector 1 of each
    end is the cable's own end: naming it again is allowed, changing it is not."""
    if value is None:
        return
    for (end, connector), obj in sorted(parse(value).items(), key=lambda item: item[0][1]):
        key = {"terminations": {end.lower(): {str(connector): None}}}
        current = CableToCableTermination.objects.filter(
            cable=cable, cable_end=end, connector=connector
        ).first()
        if connector == 1:
            own = cable.end(end.lower())
            if obj is None or obj != own:
                key["terminations"][end.lower()]["1"] = [
                    "A cable's ends cannot be changed: delete it and create a new one."
                ]
                raise ValidationFailed(key)
            continue
        if current is not None and (obj is None or current.termination != obj):
            current.delete()
            current = None
        if obj is None or current is not None:
            continue
        record = CableToCableTermination(
            cable=cable, cable_end=end, connector=connector, **{END_FIELDS[obj._meta.model_name]: obj}
        )
        try:
            record.full_clean()
        except ValidationError as exc:
            key["terminations"][end.lower()][str(connector)] = (
                exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
            )
            raise ValidationFailed(key) from None
        record.save()


TERMINATIONS = Included(applies=lambda resource: False, load=load, write=write)
