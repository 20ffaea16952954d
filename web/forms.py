"""Create, edit and delete forms of every model, generated from its registry declaration. A form
is sent to the API as JSON (POST, PATCH or DELETE on the object's REST path) with the browser's
session: the same permissions, the same validation and the same messages as any API client."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from functools import cache

import orjson
from django.contrib.auth.decorators import login_required
from django.db import models
from django.http import HttpResponseRedirect
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_protect
from django.views.decorators.http import require_http_methods

from queryengine.registry import (
    COMPUTED,
    CONTENT_TYPE,
    CONTENT_TYPES,
    FILE,
    FOREIGN_KEY,
    MANY_TO_MANY,
    SCALAR,
    Resource,
    resource_for,
)

from . import shown
from .api import graphql, rest
from .objects import error_messages, may, refused

CHOICES_LISTED = 1000  # related objects offered in a select; beyond that, their id is typed
NOT_JSON = "Enter valid JSON."
NOT_AN_OBJECT = "Enter a JSON object: custom field names and their values."
CUSTOM_FIELDS = "custom_fields"
RELATED = ("related", "related_many")  # widgets naming other objects by id


def _widget(spec) -> str | None:
    if spec.kind == FOREIGN_KEY:
        target = resource_for(spec.target)
        concrete = spec.model_field is not None and spec.model_field.concrete
        return "related" if concrete and target is not None and target.versions is None else None
    if spec.kind == MANY_TO_MANY:
        target = resource_for(spec.target)
        editable = spec.model_field is not None and spec.model_field.concrete and spec.model_field.editable
        return "related_many" if editable and target is not None and target.versions is None else None
    if spec.kind == CONTENT_TYPES:
        return "content_types"
    if spec.kind in (COMPUTED, CONTENT_TYPE):
        return "text" if spec.kind == CONTENT_TYPE or spec.computed.write else None
    if spec.kind == FILE:
        return "file"
    if spec.kind != SCALAR:
        return None
    field = spec.model_field
    if not field.editable or field.primary_key or spec.name.startswith("_"):
        return None
    if spec.choices is not None:
        return "choice"
    if isinstance(field, models.BooleanField):
        return "checkbox"
    if isinstance(field, models.JSONField):
        return "json"
    if isinstance(field, models.IntegerField):
        return "integer"
    if isinstance(field, models.DecimalField | models.FloatField):
        return "number"
    if isinstance(field, models.TextField):
        return "textarea"
    return "text"


class CustomFieldsSpec:
    """The form's one input for a model's custom fields: their values as a JSON object, written
    as the API's `custom_fields` (only the keys given change)."""

    name = CUSTOM_FIELDS
    kind = CUSTOM_FIELDS


@cache
def form_fields(resource: Resource) -> tuple:
    """(field spec, widget) of every value a client writes."""
    skipped = {*resource.read_only, *resource.hidden, *resource.derived, *resource.shown_once}
    found = []
    for spec in resource.current_fields:
        widget = None if spec.name in skipped else _widget(spec)
        if widget is not None:
            found.append((spec, widget))
    if resource.has_custom_fields:
        found.append((CustomFieldsSpec(), "json"))
    return tuple(found)


def required(spec) -> bool:
    if spec.kind in (MANY_TO_MANY, CONTENT_TYPES, CUSTOM_FIELDS):
        return False
    if spec.kind == COMPUTED:
        return spec.computed.required
    field = spec.model_field
    return not (field.null or field.blank or field.has_default())


def current_value(spec, widget: str, value) -> str | bool:
    """What an input shows of a value as the API shows it."""
    if widget == "checkbox":
        return bool(value)
    if value is None:
        return ""
    if widget == "related":
        return str(value.get("id", "")) if isinstance(value, dict) else str(value)
    if widget == "related_many":
        return ", ".join(str(item.get("id", "")) if isinstance(item, dict) else str(item) for item in value)
    if widget == "content_types":
        return ", ".join(str(item) for item in value)
    if widget == "choice":
        return str(value.get("value", "")) if isinstance(value, dict) else str(value)
    if widget == "json":
        return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    return str(value)


def options_of(request, resource: Resource) -> dict[str, list | None]:
    """The objects each related field may name, read in one document (None: too many to list)."""
    related = [spec for spec, widget in form_fields(resource) if widget in RELATED]
    selections = []
    for i, spec in enumerate(related):
        target = resource_for(spec.target)
        selections.append(
            f"n{i}: {target.list_field}_count o{i}: {target.list_field}(limit: {CHOICES_LISTED}) {{ id display }}"
        )
    if not selections:
        return {}
    data = graphql(request, f"{{ {' '.join(selections)} }}")
    return {
        spec.name: data[f"o{i}"] if data[f"n{i}"] <= CHOICES_LISTED else None
        for i, spec in enumerate(related)
    }


def body_of(request, resource: Resource, creating: bool) -> tuple[dict, dict]:
    """(JSON body, {field: [messages]} of values that are not even JSON) from a posted form."""
    body, errors = {}, {}
    for spec, widget in form_fields(resource):
        if widget == "checkbox":
            body[spec.name] = spec.name in request.POST
            continue
        if widget in ("related_many", "content_types"):
            # A select posts each chosen id; a text input (too many to list) one comma-separated line.
            chosen = [item.strip() for raw in request.POST.getlist(spec.name) for item in raw.split(",")]
            chosen = [item for item in chosen if item]
            if chosen or not creating:
                body[spec.name] = chosen
            continue
        if widget == "file":  # the upload itself; none chosen: left as it is
            if spec.name in request.FILES:
                body[spec.name] = request.FILES[spec.name]
            continue
        raw = request.POST.get(spec.name, "")
        if raw.strip() == "":
            if creating:
                continue
            if spec.kind == CUSTOM_FIELDS:
                continue  # an emptied box changes no custom field
            nullable = spec.kind != SCALAR or spec.model_field.null
            body[spec.name] = None if nullable or widget in ("json", "integer", "number") else ""
        elif widget == "json":
            try:
                body[spec.name] = orjson.loads(raw)
            except orjson.JSONDecodeError:
                errors[spec.name] = [NOT_JSON]
            else:
                if spec.kind == CUSTOM_FIELDS and not isinstance(body[spec.name], dict):
                    errors[spec.name] = [NOT_AN_OBJECT]
        elif widget == "integer":
            body[spec.name] = int(raw) if raw.strip().lstrip("-").isdigit() else raw
        elif widget == "number":
            try:
                body[spec.name] = float(Decimal(raw))
            except InvalidOperation:
                body[spec.name] = raw  # the API says what it expects
        else:
            body[spec.name] = raw
    return body, errors


HINTS = {
    "related": "The id of the object (there are too many to list).",
    "related_many": "The ids of the objects, separated by commas (there are too many to list).",
    "content_types": "Content types such as dcim.device, separated by commas.",
}
REPLACED = "Choose a file to replace the current one."


def fields_for(resource: Resource, values: dict, errors: dict, options: dict) -> list[dict]:
    fields = []
    for spec, widget in form_fields(resource):
        choices = None
        if widget == "choice":
            choices = sorted(spec.choices.items(), key=lambda c: str(c[1]))
        elif widget in RELATED and options.get(spec.name) is not None:
            choices = [(o["id"], o["display"]) for o in options[spec.name]]
        messages = errors.get(spec.name)
        value = values.get(spec.name, False if widget == "checkbox" else "")
        if choices is not None and widget == "related_many":
            shown_as = "select_many"
            value = {item.strip() for item in str(value).split(",") if item.strip()}
        elif choices is not None:
            shown_as = "select"
        else:
            shown_as = {"related": "text", "related_many": "text", "content_types": "text"}.get(
                widget, widget
            )
        fields.append(
            {
                "name": spec.name,
                "label": shown.field_label(spec.name),
                "widget": shown_as,
                "value": value,
                "choices": choices,
                "required": required(spec),
                "errors": messages if isinstance(messages, list) else [messages] if messages else [],
                "hint": (REPLACED if values.get(spec.name) else "")
                if widget == "file"
                else HINTS.get(widget, "")
                if choices is None
                else "",
            }
        )
    return fields


@login_required
@never_cache
@csrf_protect
@require_http_methods(["GET", "POST"])
def object_edit(request, resource: Resource, key: str | None):
    """The create form (`key` None) or the edit form of one object."""
    creating = key is None
    action = "add" if creating else "change"
    if not may(resource, request.user, action):
        verb = "add" if creating else "change"
        return refused(request, resource, f"You may not {verb} {shown.plural(resource).lower()}.", 403)
    found = None
    if not creating:
        status, found = rest(request, "GET", f"/api/{resource.route}/{key}/")
        if status != 200:
            return refused(request, resource, (found or {}).get("detail", "Not found."), status)
    values = {
        spec.name: current_value(spec, widget, found.get(spec.name) if found else None)
        for spec, widget in form_fields(resource)
    }
    if creating:  # a page's link may fill some in (an image's parent)
        values.update({name: request.GET[name] for name in values if name in request.GET})
    errors, general, status = {}, [], 200
    if request.method == "POST":
        body, errors = body_of(request, resource, creating)
        listed = {
            spec.name for spec, widget in form_fields(resource) if widget in ("related_many", "content_types")
        }
        values.update(
            {
                name: ", ".join(value) if name in listed else request.POST.get(name, "")
                for name, value in body.items()
                if not isinstance(value, bool)
            }
        )
        values.update({name: value for name, value in body.items() if isinstance(value, bool)})
        if not errors:
            path = f"/api/{resource.route}/" if creating else f"/api/{resource.route}/{found['id']}/"
            status, answer = rest(request, "POST" if creating else "PATCH", path, body=body)
            if status in (200, 201):
                return HttpResponseRedirect(shown.object_url(resource, answer["id"]))
            if isinstance(answer, dict):
                known = {spec.name for spec, _widget in form_fields(resource)}
                errors = {name: m for name, m in answer.items() if name in known}
                general = error_messages({k: v for k, v in answer.items() if k not in known})
            else:
                general = [str(answer)]
        else:
            status = 400
    context = {
        "resource": resource,
        "label": shown.label(resource),
        "plural": shown.plural(resource),
        "object": found,
        "creating": creating,
        "fields": fields_for(resource, values, errors, options_of(request, resource)),
        "multipart": any(widget == "file" for _spec, widget in form_fields(resource)),
        "errors": [m for m in general if m],
    }
    return render(request, "web/object_form.html", context, status=status)


@login_required
@never_cache
@csrf_protect
@require_http_methods(["GET", "POST"])
def object_delete(request, resource: Resource, key: str):
    if not may(resource, request.user, "delete"):
        return refused(request, resource, f"You may not delete {shown.plural(resource).lower()}.", 403)
    status, found = rest(request, "GET", f"/api/{resource.route}/{key}/")
    if status != 200:
        return refused(request, resource, (found or {}).get("detail", "Not found."), status)
    errors = []
    if request.method == "POST":
        status, answer = rest(request, "DELETE", f"/api/{resource.route}/{found['id']}/")
        if status == 204:
            return HttpResponseRedirect(shown.list_url(resource))
        errors = error_messages(answer) or [f"HTTP {status}"]
    context = {
        "resource": resource,
        "label": shown.label(resource),
        "plural": shown.plural(resource),
        "object": found,
        "errors": errors,
    }
    return render(request, "web/object_delete.html", context, status=200 if not errors else status)
