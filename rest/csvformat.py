"""CSV on list endpoints (and on an object's own endpoint: the list's header and its one row),
shaped as the reference server shapes it.

Export: the depth-0 JSON rows of the list (same filters, order and engine), with `url`,
`notes_url` and the `include=` values left out, `id`, `display` and `name` first, each custom
field as a `cf_<key>` column (sorted, after the fields), every foreign key replaced in place by
the columns of its target's natural key (`location__name`, `location__parent__name`, …) and
many-to-many lists other than tags and content types left out. A missing related object reads
`NoObject`, a null value `NULL` (custom fields: empty); one the caller may not view, its id in
every column reached through it (JSON shows its reference). Nested values flatten as the
reference's renderer does: choices by value, references by id, lists comma-joined, other objects
as JSON.

Import: the same columns back into the objects a JSON bulk create takes, related objects given
by their natural-key attributes, which the write layer resolves like any attribute reference.
"""

from __future__ import annotations

import csv
import io
import json
import uuid
from functools import lru_cache

import orjson
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.http import HttpResponse

from queryengine import jsondepth, naturalslug
from queryengine.permissions import restricted
from queryengine.query import NOTHING, Viewer
from queryengine.registry import (
    COMPUTED,
    CONTENT_TYPES,
    FOREIGN_KEY,
    LIST_KINDS,
    MANY_TO_MANY,
    Resource,
    custom_field_support,
    resource_for,
)
from queryengine.scalars import dumps

MEDIA_TYPE = "text/csv"
NULL = "NULL"
NO_OBJECT = "NoObject"
LEFT_OUT = frozenset(
    {"computed_fields", "custom_fields", "notes_url", "relationships", "url", "config_context"}
)
FRONT = ("id", "composite_key", "display", "name")  # moved to the front in this order, each in turn
KEPT_LISTS = frozenset({"tags", "content_types"})
TRUE = frozenset({"true", "t", "yes", "y", "on", "1"})
FALSE = frozenset({"false", "f", "no", "n", "off", "0"})


# --- natural keys ---------------------------------------------------------------------------


def _key_fields(model: type[models.Model]) -> tuple[str, ...]:
    """The fields naming an object by value (those of its natural slug); where one is computed
    from several columns (a prefix's network), no column holds it and the id stands instead."""
    names = naturalslug.key_fields(model)
    for name in names:
        head = name.split("__")[0]
        if name != "pk" and head not in {f.name for f in model._meta.fields}:
            return ("pk",)
    return names


def natural_key_lookups(model: type[models.Model], tree_depth: int | None = None) -> list[str]:
    """ORM lookups making up a model's natural key, related models' keys expanded. A tree's
    `parent` repeats once per level of its deepest branch, as the reference does for locations."""
    if model is ContentType:
        return ["app_label", "model"]
    lookups: list[str] = []
    names = _key_fields(model)
    # A tree's own name comes before its parents' (`name`, `parent__name`, …).
    names = sorted(names, key=lambda n: n != "pk" and "__" not in n and naturalslug.is_parent(model, n))
    for name in names:
        field = None if name == "pk" or "__" in name else model._meta.get_field(name)
        if field is None or not field.is_relation:
            lookups.append(name)
            continue
        related = field.related_model
        if related is model:
            depth = _tree_depth(model, name) if tree_depth is None else tree_depth
            if depth > 0:
                lookups += [f"{name}__{sub}" for sub in natural_key_lookups(model, depth - 1)]
            continue
        lookups += [f"{name}__{sub}" for sub in natural_key_lookups(related)]
    return lookups


def _tree_depth(model: type[models.Model], parent: str) -> int:
    """Levels below the roots in the deepest branch (one EXISTS per level)."""
    depth = 0
    while model._default_manager.filter(**{f"{parent}__" * (depth + 1) + "isnull": False}).exists():
        depth += 1
    return depth


def related_columns(resource: Resource) -> dict[str, list[str]]:
    """field name -> its natural-key columns, for every foreign key stored on the model."""
    columns = {}
    for spec in resource.fields:
        f = spec.model_field
        if spec.kind == FOREIGN_KEY and f is not None and getattr(f, "concrete", False):
            columns[spec.name] = [f"{spec.name}__{lookup}" for lookup in natural_key_lookups(spec.target)]
    return columns


def _key_values(resource: Resource, user, ids: list[str], columns: dict[str, list[str]]) -> dict[str, dict]:
    """id -> {column: CSV value} for a page of objects, in one query, and one more for each
    related model of which the caller may view only some objects. A column reached through an
    object the caller may not view reads that object's id (JSON shows its reference), however
    far beyond it the column's value lies."""
    lookups = [lookup for group in columns.values() for lookup in group]
    if not lookups or not ids:
        return {}
    # Every related object on a lookup's way (each may be missing or hidden): its id is read too.
    ways = {lookup: _steps(lookup) for lookup in lookups}
    steps = {step for way in ways.values() for step in way}
    wanted = sorted(set(lookups) | steps)
    rows = list(restricted(resource, user).filter(pk__in=ids).values("pk", *wanted))
    hidden = _hidden_ids(resource.model, steps, rows, user)
    found = {}
    for row in rows:
        values = {}
        for lookup, way in ways.items():
            value = None
            for step in way:
                if row[step] is None:
                    value = NO_OBJECT
                    break
                if row[step] in hidden:
                    value = str(row[step])
                    break
            values[lookup] = _key_text(row[lookup]) if value is None else value
        found[str(row["pk"])] = values
    return found


def _steps(lookup: str) -> list[str]:
    """The related objects a lookup passes, nearest first: `location__parent__name` passes
    `location` and `location__parent`."""
    parts = lookup.split("__")
    return ["__".join(parts[:end]) for end in range(1, len(parts))]


def _hidden_ids(model: type[models.Model], steps: set[str], rows: list[dict], user) -> set:
    """The ids, among the related objects the rows name, of those `user` may not view: one query
    per related model the user may view only in part, none for those they view in full."""
    by_target: dict[Resource, set] = {}
    for step in steps:
        target = resource_for(_related_model(model, step))
        if target is not None:
            by_target.setdefault(target, set()).update(row[step] for row in rows if row[step] is not None)
    viewer = Viewer(user)
    hidden = set()
    for target, ids in by_target.items():
        subset = viewer.subset(target) if ids else None
        if subset is NOTHING:
            hidden |= ids
        elif subset is not None:
            hidden |= ids - set(subset.filter(pk__in=ids).values_list("pk", flat=True))
    return hidden


def _related_model(model: type[models.Model], step: str) -> type[models.Model]:
    for name in step.split("__"):
        model = model._meta.get_field(name).related_model
    return model


def _key_text(value):
    if isinstance(value, uuid.UUID):
        return str(value)
    if value == "":
        return ""
    if not value:
        return NULL
    return value if isinstance(value, str | int) else str(value)


# --- export ---------------------------------------------------------------------------------


def _shown_fields(resource: Resource | None) -> tuple[set[str], dict[str, list[str]]]:
    if resource is None:
        return set(), {}
    lists = {s.name for s in resource.fields if s.kind in LIST_KINDS and s.name not in KEPT_LISTS}
    return lists, related_columns(resource)


def table(rows: list[dict], resource: Resource | None, user) -> tuple[list[str], list[list]]:
    """(header, rows) of JSON-ready objects; without a resource, nothing is looked up."""
    if not rows:
        return [], []
    left_out, columns = _shown_fields(resource)
    keys = {}
    if resource is not None:
        keys = _key_values(resource, user, [str(row["id"]) for row in rows], columns)
    shaped = [_reshape(row, left_out, columns, keys.get(str(row.get("id")), {})) for row in rows]
    header = [key for key in shaped[0] if key not in LEFT_OUT and key not in left_out]
    custom = sorted({f"cf_{key}" for row in rows for key in (row.get("custom_fields") or {})})
    header += custom
    for name in FRONT:
        if name in header:
            header.remove(name)
            header.insert(0, name)
    body = []
    for row, original in zip(shaped, rows, strict=True):
        cells = []
        for key in header:
            if key.startswith("cf_") and key in custom:
                value = (original.get("custom_fields") or {}).get(key[3:])
            else:
                value = row.get(key)
            cells.append(cell(value))
        body.append(cells)
    return header, body


def _reshape(row: dict, left_out: set[str], columns: dict[str, list[str]], keys: dict) -> dict:
    """A row with foreign keys replaced by their natural-key columns and nulls spelled NULL."""
    shaped = {}
    for key, value in row.items():
        if key in left_out:
            continue
        if key in columns and keys:
            shaped.update({column: keys[column] for column in columns[key]})
        elif key in LEFT_OUT:
            shaped[key] = value
        else:
            shaped[key] = NULL if value is None else value
    return shaped


def cell(value):
    """One value as the reference's renderer writes it."""
    if value is None:
        return ""
    if isinstance(value, dict):
        if "value" in value and "label" in value:
            return value["value"]
        if "id" in value:
            return str(value["id"])
        return json.dumps(value)
    if isinstance(value, list | tuple):
        if value and isinstance(value[0], dict) and "id" in value[0]:
            value = [v["id"] for v in value]
        elif value and isinstance(value[0], dict) and "value" in value[0] and "label" in value[0]:
            value = [v["value"] for v in value]
        return ",".join("" if v is None else str(v) for v in value)
    if isinstance(value, str | int):
        return value
    return str(value)


def render_rows(rows, resource: Resource | None, user) -> str:
    """CSV text of rows (JSON-ready, orjson fragments allowed); empty for no rows."""
    plain = orjson.loads(dumps(rows))
    header, body = table(plain, resource, user)
    if not header:
        return ""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows(body)
    return buffer.getvalue()


def response(request, rows, resource: Resource | None, model_name: str) -> HttpResponse:
    text = render_rows(rows, resource, request.context.user)
    answer = HttpResponse(text, content_type=f"{MEDIA_TYPE}; charset=UTF-8")
    answer["Content-Disposition"] = f'attachment; filename="netinventory_{model_name}_data.csv"'
    return answer


# --- import ---------------------------------------------------------------------------------


class CSVInvalid(Exception):
    def __init__(self, detail: str):
        super().__init__(detail)
        self.detail = detail


def parse(text: str, resource: Resource) -> list[dict]:
    """Rows of a CSV document as the objects a JSON bulk write takes."""
    reader = csv.DictReader(io.StringIO(text))
    if reader.fieldnames is None:
        return []
    kinds = _writable_kinds(resource)
    custom = _custom_field_types(resource)
    items = []
    for number, row in enumerate(reader, start=1):
        if None in row:
            raise CSVInvalid(f"Row {number}: more values than columns in the header")
        items.append(_row_to_item(number, row, kinds, custom))
    return items


@lru_cache(maxsize=256)
def _writable_kinds_cached(resource: Resource) -> dict[str, tuple[str, models.Field | None]]:
    from queryengine.writes import writable_fields

    kinds = {f.name: (f.kind, f.model_field) for f in writable_fields(resource)}
    for spec in resource.fields:  # a computed list (capabilities) is written as comma-separated values
        schema = spec.computed.write_schema if spec.kind == COMPUTED else None
        if spec.name in kinds and schema and schema.get("type") == "array":
            kinds[spec.name] = (LISTED, None)
    return kinds


LISTED = "listed"  # a computed value taking a list, written in one cell as comma-separated values


def _writable_kinds(resource: Resource) -> dict[str, tuple[str, models.Field | None]]:
    return {**_writable_kinds_cached(resource), "id": ("id", None)}


def _custom_field_types(resource: Resource) -> dict[str, str]:
    support = custom_field_support()
    if support is None or not resource.has_custom_fields:
        return {}
    return {field.key: field.type for field, _ in support.definitions(resource.model)}


def _row_to_item(number: int, row: dict, kinds: dict, custom: dict[str, str]) -> dict:
    grouped: dict[str, dict] = {}
    for column, value in row.items():
        if not column:
            raise CSVInvalid(f"Row {number}: a column has no header")
        grouped.setdefault(column.split("__", 1)[0], {})[column] = value
    item: dict = {}
    for name, group in grouped.items():
        if all(value == NO_OBJECT for value in group.values()):
            continue  # no related object: the field is left out, as the reference does
        if name.startswith("cf_"):
            value = group[name]
            key = name[3:]
            item.setdefault("custom_fields", {})[key] = _custom_value(value, custom.get(key))
            continue
        if name not in kinds:
            continue  # read-only and unknown columns are ignored, as the reference does
        kind, field = kinds[name]
        value = _nest(group)[name]
        item[name] = _field_value(value, kind, field)
    return item


def _nest(flat: dict) -> dict:
    nested: dict = {}
    for column, value in flat.items():
        *path, last = column.split("__")
        target = nested
        for step in path:
            target = target.setdefault(step, {})
            if not isinstance(target, dict):
                raise CSVInvalid(f'Column "{column}" clashes with another column')
        target[last] = None if value in (NO_OBJECT, NULL) else value
    return nested


def _field_value(value, kind: str, field: models.Field | None):
    if isinstance(value, dict):  # a related object by its natural-key attributes
        return value
    if kind in (MANY_TO_MANY, CONTENT_TYPES, LISTED):
        if value is None and kind == LISTED:
            return None
        return [v.strip() for v in value.split(",")] if value else []
    if kind == FOREIGN_KEY or kind == "id":
        return value or None
    if field is None:
        return value
    if isinstance(field, models.JSONField):
        if value is None or value == "":
            return None
        if value.startswith(("{", "[")):
            try:
                return _json_cell(value)
            except ValueError:
                return value  # refused by the field's validation
        return value.split(",")
    if value == "" and field.null:
        return None
    if isinstance(field, models.BooleanField) and isinstance(value, str):
        return _boolean(value)
    return value


def _json_cell(text: str):
    """A JSON cell's value; one nested too deeply to parse is the client's error, as in a body."""
    try:
        return json.loads(text)
    except RecursionError:
        raise CSVInvalid(jsondepth.too_deep_message()) from None


def _boolean(text: str):
    lowered = text.strip().lower()
    if lowered in TRUE:
        return True
    if lowered in FALSE:
        return False
    return text


def _custom_value(value, kind: str | None):
    """Custom field values arrive as text: typed by their definition before validation."""
    if value is None or value == "":
        return None
    if kind == "integer":
        try:
            return int(value)
        except ValueError:
            return value
    if kind == "boolean":
        return _boolean(value)
    if kind == "multi-select":
        return value.split(",")
    if kind == "json":
        try:
            return _json_cell(value)
        except ValueError:
            return value
    return value
