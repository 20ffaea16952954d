"""API 1.x requests (spec §9): what a 1.x client sends, in the terms of the one schema.

Reads need no translation beyond their shape (queryengine.documents.LegacyShape). Writes arrive with
1.x field names (`device_role`, a VLAN's `group`), 1.x values (a status by its slug, related
objects by slug) and fields only 1.x has (a device's `site`, written to its location); errors go
back under the names the client used.
"""

from __future__ import annotations

import uuid

from queryengine.documents import WRITTEN, LegacyShape
from queryengine.registry import DERIVED, FOREIGN_KEY, MANY_TO_MANY, Resource, resource_for

from . import versioning

TRUE = ("true", "1", "yes", "on")


def shape(request, depth: int):
    """A read's shape: the 1.x nested form (brief or full) at 1.x, else the depth."""
    version = request.api_version
    if not versioning.legacy(version):
        return depth
    return LegacyShape(version, request.GET.get("brief", "").strip().lower() in TRUE)


def write_shape(request, creating: bool = True):
    """How written objects come back: in the 1.x form, else at depth 0; a created object without
    the counts of related objects, as the reference's create answers (its updates show them)."""
    if versioning.legacy(request.api_version):
        return LegacyShape(request.api_version)
    return WRITTEN if creating else 0


def excluded(request) -> frozenset[str]:
    """`?exclude=config_context` (1.x): values a 1.x response shows unless told not to."""
    return frozenset(name for value in request.GET.getlist("exclude") for name in value.split(","))


def filter_names(resource: Resource, filters: dict, known) -> dict:
    """1.x filter parameters under the names of today's filters (`device_role` -> `role`,
    `group_id__n` -> `tenant_group_id__n`); others as given."""
    renamed = resource.legacy.renamed
    found = {}
    for key, values in filters.items():
        base, separator, lookup = key.partition("__")
        suffix = ""
        if base not in renamed and base.endswith("_id"):
            base, suffix = base[:-3], "_id"
        name = f"{renamed.get(base, base)}{suffix}{separator}{lookup}"
        found[name if name in known else key] = values
    return found


class Translation:
    """One write's 1.x bodies in the schema's terms, remembering which name the client used for
    each field it wrote so that errors come back under it."""

    def __init__(self, resource: Resource):
        self.resource = resource
        self.fields = {spec.name: spec for spec in resource.fields}
        self.given_as: dict[str, str] = {}

    def body(self, item, creating: bool):
        if not isinstance(item, dict):
            return item
        legacy, written = self.resource.legacy, {}
        if creating:
            defaults = {key: value() if callable(value) else value for key, value in legacy.defaults.items()}
            item = {**defaults, **item}
        for name, (type_key, id_key) in legacy.together.items():  # 1.x's two fields, one value here
            if type_key in item or id_key in item:
                item = {k: v for k, v in item.items() if k not in (type_key, id_key)} | {
                    name: None
                    if item.get(id_key) is None
                    else {"object_type": item.get(type_key), "id": item[id_key]}
                }
        for key, value in item.items():
            name = legacy.renamed.get(key, key)
            spec = self.fields.get(name)
            if spec is not None and spec.kind == DERIVED:
                name = spec.derived.writes
                if name is None or name in item and name not in legacy.hidden and name not in legacy.renamed:
                    continue  # read-only, or the field it stands for is given itself
                spec = self.fields.get(name)
            if spec is not None and spec.kind == FOREIGN_KEY:
                value = related_value(spec.target, value)
            elif spec is not None and spec.kind == MANY_TO_MANY and isinstance(value, list):
                value = [related_value(spec.target, v) for v in value]
            if name != key:
                self.given_as[name] = key
            written[name] = value
        return written

    def errors(self, errors):
        """A write's errors (one object's, or a list per item) under 1.x names."""
        if isinstance(errors, list):
            return [self.errors(e) for e in errors]
        if not isinstance(errors, dict):
            return errors
        legacy = self.resource.legacy
        return {self.given_as.get(key, legacy.name_of(key)): value for key, value in errors.items()}


def current_body(resource: Resource, item):
    """A 2.x or 3.x body without the fields only 1.x has (they do not exist there)."""
    if not isinstance(item, dict):
        return item
    legacy_only = {spec.name for spec in resource.fields if spec.legacy}
    return {key: value for key, value in item.items() if key not in legacy_only}


def related_value(model, value):
    """A related object as 1.x names it: by UUID, by slug, by attributes (its nested form as a
    read shows it is taken back: by its id, or by the attributes that are the model's), or (for
    objects shown as {value, label}) by that form or its value, which is the slug."""
    target = resource_for(model)
    slugged = target is not None and any(spec.name == "slug" for spec in target.fields)
    if isinstance(value, dict) and set(value) <= {"value", "label"} and "value" in value and slugged:
        return {"slug": value["value"]}
    if isinstance(value, dict) and "id" in value:
        return value["id"]
    if isinstance(value, dict):
        names = {f.name for f in model._meta.get_fields()}
        return {key: v for key, v in value.items() if key.split("__")[0] in names}
    if isinstance(value, str) and slugged and not _is_uuid(value):
        return {"slug": value}
    return value


def _is_uuid(text) -> bool:
    try:
        uuid.UUID(str(text))
    except ValueError:
        return False
    return True
