"""Values GraphQL and REST show in two forms, and the twin field that gives REST its own.

GraphQL types a field as the reference's schema does: a choice as its enum (`type` answers
`A_1000BASE_T`), a content type as its object (`ContentTypeType`), a list of them as objects,
a decimal as `Decimal`. REST shows some of these otherwise: a choice as {value, label} (or its bare
value), a content type as "dcim.device", a decimal as a number. Such a field has a twin,
`<name>__rest` (no model field has `__` in its name), that answers REST's form; the documents
REST and the pages run select it under the field's own name (`type: type__rest`, `selected`), so
their answers are what they were. A field whose two forms agree (a decimal shown as text, a
field the reference's schema shows in REST's form: `graphql_as_rest`) has no twin. A field whose
name GraphQL gives a declared list (Resource.lists: a secrets group's `secrets` are its secrets,
where REST shows the associations) is its own twin (AS_DECLARED): the schema and the plans build
and read it as they would under its own name.

Twins are derived from the field's kind here, one table for every kind: the schema shows them
(`schema_fields`), the compiled plans read them (`compiler_for`) and the documents select them
(`selected`), so a new model's fields get theirs from its declaration.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import graphene
from django.db import models
from django.db.models import F
from graphene_django.converter import convert_choices_to_named_enum_with_descriptions, generate_enum_name

from . import jsonsql, listplans
from .registry import CONTENT_TYPE, CONTENT_TYPES, SCALAR, TWIN_SUFFIX, FieldSpec, Resource
from .scalars import DecimalNumber, GenericScalar

SUFFIX = TWIN_SUFFIX


def twin_name(name: str) -> str:
    return f"{name}{SUFFIX}"


def content_type_label(ct) -> str | None:
    """A content type as REST shows it: "dcim.device"."""
    return None if ct is None else f"{ct.app_label}.{ct.model}"


# -- the reference's forms ----------------------------------------------------------------------


def choices_of(model_field: models.Field) -> list:
    """The choices GraphQL shows a field's values among: its model field's, or those of a text
    field GraphQL alone shows as a choice (`graphql_choices`: a time zone's names)."""
    if model_field.choices:
        return model_field.choices
    shown = getattr(model_field, "graphql_choices", None)
    return [] if shown is None else shown()


def is_choice(spec: FieldSpec) -> bool:
    """A model field with choices: GraphQL shows the reference's enum of them."""
    return spec.kind == SCALAR and bool(choices_of(spec.model_field))


@cache
def choice_enum(model_field: models.Field) -> type[graphene.Enum]:
    """The enum of a choice field as graphene-django names it for the reference
    (`<App><Model><Field>Choices`, values named by their text in capitals, `A_` before a
    leading digit: `1000base-t` -> A_1000BASE_T; a name taken already gets `_<its position>`)."""
    name = generate_enum_name(model_field.model._meta, model_field)
    return convert_choices_to_named_enum_with_descriptions(name, choices_of(model_field))


@cache
def choice_names(model_field: models.Field) -> dict:
    """{stored value: enum value name} of a choice field's values shown: a blank one (a choice
    of "" has a name, `A_`) shows as null, as graphene-django's blank values."""
    names = {member.value: member.name for member in choice_enum(model_field)._meta.enum}
    names.pop("", None)
    return names


def choice_field(spec: FieldSpec) -> graphene.Field:
    """A choice as its enum, non-null where the reference's is (neither blank nor null): the
    stored value, null when blank or not among the choices (choice_names)."""
    model_field = spec.model_field
    names = choice_names(model_field)
    return graphene.Field(
        choice_enum(model_field),
        required=not (model_field.blank or model_field.null),
        resolver=lambda root, info, _n=model_field.attname: (
            value if (value := getattr(root, _n)) in names else None
        ),
    )


def choice_text(plan, text, spec: FieldSpec) -> None:
    """A choice's enum value name, written by the database (one CASE over the choices)."""
    text.sql(jsonsql.JsonName(F(spec.model_field.attname), choice_names(spec.model_field)))


# -- REST's forms: the twins ----------------------------------------------------------------------


@dataclass(frozen=True)
class Twin:
    """REST's form of a field: `field(spec)` its GraphQL field (the generic executor's resolver
    with it), `compile(plan, text, spec)` how a compiled plan writes it."""

    field: Callable
    compile: Callable


def _about(spec: FieldSpec) -> str:
    return f"`{spec.name}` as the REST API shows it."


def _choice_field(spec: FieldSpec) -> graphene.Field:
    attname = spec.model_field.attname
    if spec.choices is None:  # shown as its bare value
        return graphene.String(description=_about(spec), resolver=lambda root, info: getattr(root, attname))
    return GenericScalar(
        description=_about(spec),
        resolver=lambda root, info, _r=spec.render_choice: _r(getattr(root, attname)),
    )


def _choice_compile(plan, text, spec: FieldSpec) -> None:
    if spec.choices is None:
        return plan.scalar(text, spec.model_field)
    return plan.value(text, f"{plan.constant(spec.render_choice)}({plan.col(spec.model_field.attname)})")


def _label_field(spec: FieldSpec) -> graphene.Field:
    return graphene.String(
        description=_about(spec), resolver=lambda root, info: content_type_label(getattr(root, spec.name))
    )


def _label_compile(plan, text, spec: FieldSpec) -> None:
    name = spec.name
    label = jsonsql.Cat(F(f"{name}__app_label"), jsonsql.const("."), F(f"{name}__model"))
    text.sql(jsonsql.or_null(jsonsql.JsonString(label)))


def _labels_field(spec: FieldSpec) -> graphene.Field:
    return graphene.List(
        graphene.String,
        description=_about(spec),
        resolver=lambda root, info: [
            content_type_label(ct) for ct in getattr(root, spec.name).order_by("app_label", "model")
        ],
    )


def _labels_compile(plan, text, spec: FieldSpec) -> None:
    field = spec.model_field
    load = listplans.content_types(
        field.remote_field.through, f"{field.m2m_field_name()}_id", field.m2m_reverse_field_name()
    )
    plan.list_slot(text, load, spec.name)


def _number_field(spec: FieldSpec) -> graphene.Field:
    attname = spec.model_field.attname
    return graphene.Field(
        DecimalNumber, description=_about(spec), resolver=lambda root, info: getattr(root, attname)
    )


def _number_compile(plan, text, spec: FieldSpec) -> None:
    column = plan.col(spec.model_field.attname)
    text.py(f"(b'null' if {column} is None else _text(float({column})))")


# The field itself under the twin's name (FieldSpec.displaced): built by the schema, compiled by the
# plans as the field is.
AS_DECLARED = Twin(None, None)
CHOICE = Twin(_choice_field, _choice_compile)
LABEL = Twin(_label_field, _label_compile)
LABELS = Twin(_labels_field, _labels_compile)
NUMBER = Twin(_number_field, _number_compile)


def rest_form(spec: FieldSpec) -> Twin | None:
    """REST's form of a field where it differs from the reference's GraphQL form (None: it does
    not)."""
    if spec.displaced:
        return AS_DECLARED
    if spec.kind == CONTENT_TYPE:
        return LABEL
    if spec.kind == CONTENT_TYPES:
        return LABELS
    if is_choice(spec):
        return CHOICE
    if spec.kind == SCALAR and isinstance(spec.model_field, models.DecimalField):
        # GraphQL's Decimal is text, as the reference's; REST shows decimals as numbers unless
        # the field says text (TextDecimalField, shown_as_text).
        return None if getattr(spec.model_field, "shown_as_text", False) else NUMBER
    return None


def shown_as_rest(spec: FieldSpec) -> bool:
    """A field the reference's schema shows in REST's form too (a cable's `termination_a_type`:
    text), as its model field says (`graphql_as_rest`)."""
    return getattr(spec.model_field, "graphql_as_rest", False)


def own_form(spec: FieldSpec) -> Twin | None:
    """REST's form where GraphQL shows the field so too (shown_as_rest)."""
    return rest_form(spec) if shown_as_rest(spec) else None


def twin_of(spec: FieldSpec) -> Twin | None:
    """The twin a field has: REST's form, where GraphQL shows another."""
    return None if shown_as_rest(spec) else rest_form(spec)


@cache
def twins_of(resource: Resource) -> dict[str, tuple[FieldSpec, Twin]]:
    """{twin name: (the field, its twin)} of a resource's fields."""
    found = {}
    for spec in resource.fields:
        twin = twin_of(spec)
        if twin is not None:
            found[twin_name(spec.name)] = (spec, twin)
    return found


def schema_fields(resource: Resource) -> dict:
    """The twins' GraphQL fields (but those the schema builds as their fields: AS_DECLARED)."""
    return {
        name: twin.field(spec) for name, (spec, twin) in twins_of(resource).items() if twin is not AS_DECLARED
    }


def key_of(spec: FieldSpec) -> str:
    """The name the schema shows a declared field under: its twin's, where a list takes its own."""
    return spec.key


def displaced_by(resource: Resource, name: str) -> FieldSpec | None:
    """The field whose twin `name` is, where the plans read it as the field (AS_DECLARED)."""
    found = twins_of(resource).get(name)
    return found[0] if found is not None and found[1] is AS_DECLARED else None


def compiler_for(resource: Resource, name: str) -> Callable | None:
    """How a plan writes the twin `name` (None: no twin of that name, or one the plans read as
    its field: displaced_by)."""
    found = twins_of(resource).get(name)
    if found is None or found[1] is AS_DECLARED:
        return None
    spec, twin = found
    return lambda plan, text, node: twin.compile(plan, text, spec)


def selected(spec: FieldSpec, key: str | None = None) -> str:
    """A field in a document REST or a page runs: its twin where it has one, under `key` (the
    field's own name by default), so the answer holds REST's form."""
    key = key or spec.name
    if twin_of(spec) is not None:
        return f"{key}: {twin_name(spec.name)}"
    return key if key == spec.name else f"{key}: {spec.name}"


def selected_named(resource: Resource, name: str) -> str:
    """`selected` of the resource's field `name`."""
    return selected(next(spec for spec in resource.fields if spec.name == name))
