"""One filter grammar for REST parameters and GraphQL arguments.

Each model field belongs to a lookup family; the family's suffixes (spec §4.5) are expanded
mechanically into filter names (`name`, `name__ic`, `asn__gte`, ...). Values always arrive as
lists of strings: repeating a parameter means OR, different parameters mean AND, and tags are
the exception (AND). Bad values raise `FilterError` with `{parameter: [message]}`.
"""

from __future__ import annotations

import datetime
import difflib
import json
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from functools import reduce

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.db import connection, models
from django.db.models import Q
from django.utils.dateparse import parse_date, parse_datetime

from .permissions import crosses_many, restricted, within
from .registry import (
    CONTENT_TYPE,
    CONTENT_TYPES,
    FILTER_EXTENSIONS,
    FOREIGN_KEY,
    MANY_TO_MANY,
    SCALAR,
    CustomFilter,
    Resource,
    custom_field_support,
    resource_for,
    words,
)
from .relationnames import to_many
from .timeouts import linear_pattern

CUSTOM_FIELD_FILTER = "cf"  # the argument carrying every cf_ filter
TYPE_ALIAS = "_type"  # GraphQL's other name of a `type` filter, as the reference's
CONNECTION_SEARCH = "connection_q"  # the argument of a connection list's `q` (Resource.connection_search)
CUSTOM_FIELD_PREFIX = "cf_"


def gather_custom(resource: Resource, arguments: dict) -> dict:
    """`arguments` with every `cf_<key>[__<lookup>]` one moved into the custom field argument
    (GraphQL's lists take them one by one); unchanged for a model without custom fields."""
    custom = [k for k in arguments if k.startswith(CUSTOM_FIELD_PREFIX)]
    if not custom or not resource.has_custom_fields:
        return arguments
    gathered = {k: v for k, v in arguments.items() if k not in custom}
    given = {k: arguments[k] for k in custom if arguments[k] is not None}
    if given:
        gathered[CUSTOM_FIELD_FILTER] = {**(gathered.get(CUSTOM_FIELD_FILTER) or {}), **given}
    return gathered


UNKNOWN_FILTER = "Unknown filter field"


def unknown_filters(names, known) -> dict[str, list[str]]:
    """The reference's error for each unknown filter, naming the closest known ones if any."""
    known = [k for k in known if k != CUSTOM_FIELD_FILTER]
    errors = {}
    for name in names:
        close = difflib.get_close_matches(name, known, n=3, cutoff=0.75)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        errors[name] = [UNKNOWN_FILTER + hint]
    return errors


class FilterError(Exception):
    def __init__(self, errors: dict[str, list[str]]):
        super().__init__(errors)
        self.errors = errors


# suffix -> (ORM lookup, negated)
STRING_LOOKUPS = {
    "": ("exact", False),
    "n": ("exact", True),
    "ic": ("icontains", False),
    "nic": ("icontains", True),
    "isw": ("istartswith", False),
    "nisw": ("istartswith", True),
    "iew": ("iendswith", False),
    "niew": ("iendswith", True),
    "ie": ("iexact", False),
    "nie": ("iexact", True),
    "re": ("regex", False),
    "nre": ("regex", True),
    "ire": ("iregex", False),
    "nire": ("iregex", True),
}
NUMERIC_LOOKUPS = {
    "": ("exact", False),
    "n": ("exact", True),
    "lt": ("lt", False),
    "lte": ("lte", False),
    "gt": ("gt", False),
    "gte": ("gte", False),
}
EXACT_LOOKUPS = {"": ("exact", False), "n": ("exact", True)}
BOOLEAN_LOOKUPS = {"": ("exact", False)}
ISNULL = {"isnull": ("isnull", False)}


def _invalid_choice(value: str) -> str:
    return f"Select a valid choice. {value} is not one of the available choices."


def parse_int(value: str):
    try:
        return int(value)
    except ValueError:
        raise ValueError("Enter a whole number.") from None


def parse_decimal(value: str):
    try:
        return Decimal(value)
    except InvalidOperation:
        raise ValueError("Enter a number.") from None


def parse_uuid(value: str):
    try:
        return uuid.UUID(value)
    except (ValueError, AttributeError):
        raise ValueError("Enter a valid UUID.") from None


def parse_datetime_value(value: str):
    parsed = parse_datetime(value)
    if parsed is None:
        day = parse_date(value)
        if day is None:
            raise ValueError("Enter a valid date/time.")
        parsed = datetime.datetime.combine(day, datetime.time.min, tzinfo=datetime.UTC)
    elif parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=datetime.UTC)
    return parsed


def parse_date_value(value: str):
    parsed = parse_date(value)
    if parsed is None:
        raise ValueError("Enter a valid date.")
    return parsed


def parse_bool(value: str):
    lowered = value.strip().lower()
    if lowered in {"true", "1", "yes", "on"}:
        return True
    if lowered in {"false", "0", "no", "off"}:
        return False
    raise ValueError(_invalid_choice(value))


# A reference to a group: a backslash and a digit other than 0 (`\1`, `\12`: a back reference to
# Python and PostgreSQL alike; `\0` and `\012` are octal escapes), `\k<name>`, `(?P=name)`, and a
# condition on a group, `(?(1)...)`. Escaped backslashes are read in pairs.
GROUP_REFERENCE = re.compile(r"\\[1-9k]|\(\?P=|\(\?\(")
ESCAPED_OR_REFERENCE = re.compile(r"\\.|\(\?P=|\(\?\(", re.DOTALL)


def parse_regex(value: str):
    """A pattern the database can match in bounded time: short enough (FILTER_REGEX_MAX_LENGTH),
    referring to no group (matching a back reference is NP-hard: PostgreSQL backtracks through it
    for as long as the statement may run) and, on SQLite, one RE2 takes."""
    limit = settings.FILTER_REGEX_MAX_LENGTH
    if len(value) > limit:
        raise ValueError(
            f"Enter a regular expression of at most {limit} characters "
            f"(FILTER_REGEX_MAX_LENGTH); this one has {len(value)}."
        )
    if any(GROUP_REFERENCE.fullmatch(m.group()) for m in ESCAPED_OR_REFERENCE.finditer(value)):
        raise ValueError(
            "Enter a regular expression without back references (\\1, \\k<name>, (?P=name)) or "
            "conditions on groups: the time they take to match has no bound."
        )
    try:
        re.compile(value)
    except re.error as exc:
        raise ValueError(f"Enter a valid regular expression: {exc}.") from None
    if connection.vendor == "sqlite":  # REGEXP there is RE2's
        try:
            linear_pattern(value)
        except ValueError as exc:
            raise ValueError(
                "Enter a regular expression without lookahead, lookbehind, atomic groups or "
                f"possessive repeats (matched in time linear in the text): {exc}."
            ) from None
    return value


# GraphQL argument types of filters: a list of strings (repeated values are ORed), the custom
# field filters' object, and one true or false value (CustomFilter.boolean, `__isnull`, `has_*`
# and boolean fields). Numbers are lists of their kind, as the reference types them.
LIST_ARGUMENT, CUSTOM_FIELDS_ARGUMENT, BOOLEAN_ARGUMENT = "[String]", "GenericScalar", "Boolean"
INT_ARGUMENT, BIG_INT_ARGUMENT, FLOAT_ARGUMENT = "[Int]", "[BigInt]", "[Float]"
NUMBER_ARGUMENTS = (INT_ARGUMENT, BIG_INT_ARGUMENT, FLOAT_ARGUMENT)
# Declared filters taking one value, the last given (CustomFilter.argument), as the reference's.
STRING_ARGUMENT, ONE_INT_ARGUMENT = "String", "Int"
SINGLE_ARGUMENTS = (BOOLEAN_ARGUMENT, STRING_ARGUMENT, ONE_INT_ARGUMENT)


@dataclass(frozen=True)
class Filter:
    """One filter parameter: `name` in the API, applied to the ORM `path` with `lookup`."""

    name: str
    path: str
    lookup: str
    negate: bool = False
    parse: object = None  # str -> value; raises ValueError with the user-facing message
    kind: str = "value"  # value | related | has | tags | search | custom
    build: object = None  # custom filters: parsed values -> Q
    oracle: object = None  # custom filters: (obj, parsed values[, reader]) -> bool, the same in Python
    samples: tuple | Callable = ()  # custom filters: values worth trying (or a callable giving them)
    legacy: bool = False  # a filter of API 1.x only (slugs, `site=<slug>`)
    reader: bool = False  # custom filters: `build` and `oracle` take the reading user too
    argument: str = LIST_ARGUMENT  # the GraphQL argument's type
    # Why a named filter cannot apply here (a sealed key searched by part): every use is a 400
    # saying so, never a filter silently ignored.
    refusal: str = ""
    fields: tuple[str, ...] = ()  # search: the fields it searches (default: the resource's `search`)
    listed: bool = True  # False: a GraphQL argument the resource's REST list does not take

    def q(self, resource: Resource, values: list[str], user=None) -> Q:
        parsed = [self._parse(v) for v in values]
        if self.kind == "custom":
            match = self.build(parsed, user) if self.reader else self.build(parsed)
            return ~match if self.negate else match
        if self.kind == "search" and resource.search_q is not None and not self.fields:
            return reduce(lambda a, b: a & b, (resource.search_q(v) for v in parsed))
        if self.kind == "search":
            fields = self.fields or resource.search
            return reduce(
                lambda a, b: a & b,
                (reduce(lambda x, y: x | y, (Q(**{f"{f}__icontains": v}) for f in fields)) for v in parsed),
            )
        if self.kind == "has":  # at least one related object (true) or none (false)
            match = Q(**{f"{self.path}__isnull": False})
            return match if parsed[-1] else ~match
        if self.lookup == "isnull":
            empty = Q(**{f"{self.path}__isnull": parsed[-1]})
            if parsed[-1] and crosses_many(resource.model, empty):
                # None related at all: not merely one association whose far end is empty.
                holding = resource.model._default_manager.filter(**{f"{self.path}__isnull": False})
                return ~Q(pk__in=holding.values("pk"))
            return empty
        if self.lookup == "exact" and len(parsed) > 1:
            match = Q(**{f"{self.path}__in": parsed})
        else:
            match = reduce(lambda a, b: a | b, (Q(**{f"{self.path}__{self.lookup}": v}) for v in parsed))
        # Django's negation keeps rows whose column is NULL, as a user expects of "not equal".
        return ~match if self.negate else match

    def _parse(self, value: str):
        if self.parse is None:
            return value
        try:
            return self.parse(value)
        except ValueError as exc:
            raise FilterError({self.name: [str(exc)]}) from None


@dataclass(frozen=True)
class Family:
    """The lookups a field's kind takes: `parse` reads the values of the exact ones (`` and
    `n`), `loose` those of the others (a choice field's `__ic` takes any text), `argument` is
    their GraphQL type and `isnull` that of `__isnull`."""

    lookups: dict
    parse: object = None
    loose: object = None
    argument: str = LIST_ARGUMENT
    isnull: str = BOOLEAN_ARGUMENT
    refusal: str = ""  # why its lookups other than `` and `n` cannot apply (Filter.refusal)


NO_FAMILY = Family({})
RELATED = Family(EXACT_LOOKUPS)  # related objects, by id or natural key


def _family(model_field) -> Family:
    """The lookup family of a concrete model field."""
    if isinstance(model_field, models.BooleanField):
        return Family(BOOLEAN_LOOKUPS, parse_bool, parse_bool, BOOLEAN_ARGUMENT)
    if isinstance(model_field, models.UUIDField):
        return Family(EXACT_LOOKUPS, parse_uuid, parse_uuid)
    if isinstance(model_field, models.DateTimeField):
        return Family(NUMERIC_LOOKUPS, parse_datetime_value, parse_datetime_value)
    if isinstance(model_field, models.DateField):
        return Family(NUMERIC_LOOKUPS, parse_date_value, parse_date_value)
    if isinstance(model_field, models.IntegerField) and model_field.choices:
        # A number among choices (a rack's width), as text; its `__isnull` too, as the reference's.
        return replace(_choice_family(model_field), isnull=LIST_ARGUMENT)
    if isinstance(model_field, models.DecimalField | models.FloatField):
        return Family(NUMERIC_LOOKUPS, parse_decimal, parse_decimal, FLOAT_ARGUMENT)
    if isinstance(model_field, models.IntegerField):
        big = isinstance(model_field, models.BigIntegerField | models.PositiveBigIntegerField)
        return Family(NUMERIC_LOOKUPS, parse_int, parse_int, BIG_INT_ARGUMENT if big else INT_ARGUMENT)
    if isinstance(model_field, models.CharField | models.TextField):
        if getattr(model_field, "filter_value", None) is not None:  # stored in one form (a MAC address)
            return Family(STRING_LOOKUPS, model_field.filter_value, model_field.filter_value)
        if getattr(model_field, "exact_lookups_only", False):  # named as text's, matched whole only
            return Family(STRING_LOOKUPS, refusal=model_field.exact_lookups_only)
        if model_field.choices:
            return _choice_family(model_field)
        return Family(STRING_LOOKUPS)
    return NO_FAMILY


def _choice_family(model_field) -> Family:
    """A choice is matched exactly among the choices; its other lookups take any text."""
    choices = {str(value) for value, _ in model_field.flatchoices}

    def parse_choice(value: str):
        if value not in choices:
            raise ValueError(_invalid_choice(value))
        return value

    return Family(STRING_LOOKUPS, parse_choice)


EXACT_SUFFIXES = ("", "n")
TEXT_PARSERS = {"isnull": parse_bool, "regex": parse_regex, "iregex": parse_regex}


def nullable_at(model: type[models.Model], path: str) -> bool:
    """Whether the field at the end of an ORM path may be empty: null, a to-many relation (no
    related object) or a reverse relation, as the reference's filters offer `__isnull` on."""
    try:
        for part in path.split("__")[:-1]:
            model = model._meta.get_field(part).related_model
        field = model._meta.get_field(path.split("__")[-1])
    except Exception:
        return False
    if field.many_to_many and not field.auto_created:  # a many-to-many field of this model
        return bool(getattr(field, "null", False)) or field.name == "tags"
    return bool(getattr(field, "null", False))


def _through_reverse(model: type[models.Model], parts: list[str]) -> bool:
    """Whether a path of relations crosses one another model keeps (a user's rack reservations):
    an object may have no related object at the end of it."""
    for part in parts:
        field = model._meta.get_field(part)
        if field.auto_created and not field.concrete:
            return True
        model = field.related_model
    return False


def membership_relations(resource: Resource) -> dict[str, str]:
    """`has_<relation>` filters: every relation to many objects of a registered model
    (relationnames.to_many) by its reference name, and the declared ones (`Resource.has`: a
    nullable foreign key such as a port's cable): name -> ORM path."""
    found = {relation.name: relation.path for relation in to_many(resource)}
    return {**found, **{name: name for name in resource.has}}


def build_filters(resource: Resource) -> dict[str, Filter]:
    """Every filter a resource accepts, keyed by its parameter name: each field's lookup family
    (with `__isnull` where the field may be empty), `has_<relation>` for its relations to many
    objects, then the declared filters, which take precedence."""
    found: dict[str, Filter] = {}
    defaults = resource.default_lookups

    def add(name, path, family, kind="value", nullable=False, legacy=False):
        lookups = {**family.lookups, **(ISNULL if nullable else {})}
        if name in defaults and "" in lookups:  # the bare name's lookup, as the reference's
            lookups[""] = (defaults[name], False)
        for suffix, (lookup, negate) in lookups.items():
            key = f"{name}__{suffix}" if suffix else name
            exact = suffix in EXACT_SUFFIXES and lookup == "exact"
            parse = TEXT_PARSERS.get(lookup, family.parse if exact else family.loose)
            argument = family.isnull if lookup == "isnull" else family.argument
            refusal = "" if suffix in EXACT_SUFFIXES or lookup == "isnull" else family.refusal
            found[key] = Filter(
                key, path, lookup, negate, parse, kind, legacy=legacy, argument=argument, refusal=refusal
            )

    for name, path in membership_relations(resource).items():
        found[f"has_{name}"] = Filter(
            f"has_{name}", path, "has", False, parse_bool, "has", argument=BOOLEAN_ARGUMENT
        )
    if resource.integer_pk:  # ordered numbers (content types, groups): compared too, as the reference's
        add("id", "pk", Family(NUMERIC_LOOKUPS, parse_int, parse_int))
    else:
        add("id", "pk", Family(EXACT_LOOKUPS, parse_uuid, parse_uuid))
    model = resource.model
    for spec in resource.fields:
        f = spec.model_field
        if spec.kind == SCALAR:
            family = _family(f)
            if family.lookups:
                nullable = f.null or spec.name in resource.isnull
                add(spec.name, spec.name, family, nullable=nullable, legacy=spec.legacy)
        elif spec.kind == FOREIGN_KEY:
            add(spec.name, spec.name, RELATED, "related", nullable=f.null)
            if f.concrete and f"{spec.name}_id" not in {s.name for s in resource.fields}:
                integer = isinstance(f.target_field, models.IntegerField)  # a group's id
                parse = parse_int if integer else parse_uuid
                add(f"{spec.name}_id", f.attname, Family(EXACT_LOOKUPS, parse, parse), nullable=f.null)
        elif spec.kind == CONTENT_TYPE:
            family = Family(EXACT_LOOKUPS, parse_content_type, parse_content_type)
            nullable = f.null or spec.name in resource.isnull
            add(spec.name, spec.name, family, nullable=nullable)
            if spec.name in resource.type_ids:  # by the type's integer id
                add(
                    f"{spec.name}_id",
                    f.attname,
                    Family(EXACT_LOOKUPS, parse_int, parse_int),
                    nullable=nullable,
                )
        elif spec.kind == CONTENT_TYPES:
            add(spec.name, spec.name, Family(EXACT_LOOKUPS, parse_content_type, parse_content_type))
        elif spec.kind == MANY_TO_MANY and spec.name == "tags":
            for name in ("tags", "tag"):
                found[name] = Filter(name, "tags", "exact", False, None, "tags")
                found[f"{name}__n"] = Filter(f"{name}__n", "tags", "exact", True, None, "tags")
            add("tags", "tags", Family({}), "related", nullable=True)
    for name in resource.timestamps:
        family = Family(NUMERIC_LOOKUPS, parse_datetime_value, parse_datetime_value)
        add(name, name, family, nullable=model._meta.get_field(name).null)
    if resource.timestamp_filters:
        found.update(_plain_timestamps(resource, found))
    for relation in to_many(resource):
        if relation.by_member and relation.name not in found:  # not a field of the model's own
            add(relation.name, relation.path, RELATED, "related", nullable=True)
    for name, path, fk, by_id in _relayed(resource):
        if name in found:  # the model's own field of that name
            continue
        if by_id:
            parse = parse_int if isinstance(fk.target_field, models.IntegerField) else parse_uuid
            add(name, path, Family(EXACT_LOOKUPS, parse, parse), nullable=fk.null)
        else:
            add(name, path, RELATED, "related", nullable=fk.null)
    for name, path in resource.relations.items():
        *parents, last = path.split("__")
        end = related_model_at(model, "__".join(parents))._meta.get_field(last) if parents else None
        if end is not None and getattr(end, "primary_key", False):  # the related objects' ids (`groups__id`)
            parse = parse_int if isinstance(end, models.IntegerField) else parse_uuid
            family = Family(EXACT_LOOKUPS, parse, parse)
            add(name, path, family, nullable=_through_reverse(model, parents))
        elif end is not None and not end.is_relation:  # a field of a related object, by its lookups
            add(name, path, _family(end))
        elif end is not None and last != end.name:  # a foreign key's column (`cluster_id`): by id
            parse = parse_int if isinstance(end.target_field, models.IntegerField) else parse_uuid
            add(name, path, Family(EXACT_LOOKUPS, parse, parse), nullable=nullable_at(model, path))
        else:
            add(name, path, RELATED, "related", nullable=nullable_at(model, path))
    extended = {name: f for hook in FILTER_EXTENSIONS for name, f in hook(resource).items()}
    extended.update({name: json_text_filter(name) for name in resource.json_filters})
    legacy = set(resource.legacy.filters)
    for name, custom in {**extended, **resource.filters, **resource.legacy.filters}.items():
        for key, (custom_filter, negate) in _custom_family(resource, name, custom).items():
            found[key] = Filter(
                key,
                "",
                "custom",
                negate,
                custom_filter.parse,
                "custom",
                custom_filter.build,
                custom_filter.oracle,
                custom_filter.samples,
                legacy=name in legacy,
                reader=custom_filter.reader,
                argument=custom_argument(custom_filter),
                refusal=custom_filter.refusal,
            )
    if resource.search or resource.search_q:
        found["q"] = Filter("q", "", "icontains", False, None, "search")
    if resource.connection_search:
        found[CONNECTION_SEARCH] = Filter(
            CONNECTION_SEARCH, "", "icontains", kind="search", fields=resource.connection_search, listed=False
        )
    if "type" in found:
        # GraphQL also names the `type` filter `_type`, as the reference's schema does (its
        # library's name for an argument that would shadow Python's `type`); REST keeps `type`.
        found[TYPE_ALIAS] = replace(found["type"], name=TYPE_ALIAS, listed=False)
    if resource.has_custom_fields:
        # Every `cf_<key>[__<lookup>]` parameter travels in this one argument, {parameter: values}:
        # custom fields are defined at run time, the schema's arguments at start.
        found[CUSTOM_FIELD_FILTER] = Filter(
            CUSTOM_FIELD_FILTER, "", "custom", kind="custom_fields", argument=CUSTOM_FIELDS_ARGUMENT
        )
    return found


def json_text_filter(name: str) -> CustomFilter:
    """A JSON field's filter (Resource.json_filters): its text contains any of the values."""

    def text(obj) -> str | None:
        value = getattr(obj, name)
        return None if value is None else json.dumps(value, ensure_ascii=False).lower()

    def samples(objects) -> list:
        words = sorted({w for o in objects for w in _json_words(getattr(o, name)) if w.strip()})
        return [words[0], words[-2:], "no such text zz9"] if words else ["no such text zz9"]

    return CustomFilter(
        lambda values: reduce(lambda a, b: a | b, (Q(**{f"{name}__icontains": v}) for v in values)),
        None,
        lambda obj, values: (found := text(obj)) is not None and any(v.lower() in found for v in values),
        samples,
    )


def _json_words(value) -> list[str]:
    """The keys and texts of a JSON value."""
    if isinstance(value, dict):
        return [*value, *(w for v in value.values() for w in _json_words(v))]
    if isinstance(value, list):
        return [w for v in value for w in _json_words(v)]
    return [value] if isinstance(value, str) else []


UNTIMED = "{objects} keep no time they were {event} at: this filter cannot apply to them."


def _plain_timestamps(resource: Resource, found: dict) -> dict[str, Filter]:
    """`created` and `last_updated` (exact, the values ORed) of a resource showing no timestamps
    (Resource.timestamp_filters): on the columns it keeps, else refused."""
    plain = {}
    for name, event in (("created", "created"), ("last_updated", "last updated")):
        if name in found:
            continue
        try:
            resource.model._meta.get_field(name)
            refusal = ""
        except Exception:
            refusal = UNTIMED.format(
                objects=str(resource.model._meta.verbose_name_plural).capitalize(), event=event
            )
        parse = parse_datetime_value
        plain[name] = Filter(name, name, "exact", False, parse, refusal=refusal)
    return plain


INTEGER_MAX = 2147483647  # the largest value a positive integer column holds on every database


def whole_number_search(text_fields: tuple[str, ...], number_fields: tuple[str, ...]):
    """The reference's search: text fields containing the words, or number fields equal to them
    when they are a whole number."""

    def search(text: str) -> Q:
        query = Q()
        for name in text_fields:
            query |= Q(**{f"{name}__icontains": text})
        # A number past what the columns hold matches none of them (and is never sent to the
        # database, which would refuse it).
        if text.strip().isdigit() and int(text) <= INTEGER_MAX:
            for name in number_fields:
                query |= Q(**{name: int(text)})
        return query

    return search


def _relayed(resource: Resource):
    """(name, ORM path, the foreign key at its end, whether the path ends at its id column) of the
    filters the models this one points at relay to it (`Resource.relayed`): `tenant_group`
    through `tenant`."""
    relayed = set()
    for spec in resource.fields:
        target = resource_for(spec.target) if spec.kind == FOREIGN_KEY and spec.target else None
        # Association tables (no custom fields) take their own fields' filters only.
        if target is None or not target.relayed or spec.name != words(target.model):
            continue
        if not resource.has_custom_fields:
            continue
        for name, path in target.relayed.items():
            if name in relayed:  # through the first of the relations that relay it
                continue
            relayed.add(name)
            *parents, last = path.split("__")
            model = related_model_at(target.model, "__".join(parents)) if parents else target.model
            fk = model._meta.get_field(last.removesuffix("_id"))
            yield name, f"{spec.name}__{path}", fk, last != fk.name


def custom_argument(custom: CustomFilter) -> str:
    """A declared filter's GraphQL type: one Boolean, whole numbers or text."""
    return BOOLEAN_ARGUMENT if custom.boolean else custom.argument or LIST_ARGUMENT


def _custom_family(resource: Resource, name: str, custom: CustomFilter) -> dict[str, tuple]:
    """A declared filter and the lookups it asks for, each with whether it is built negated:
    `__n` (the objects matching none of the values) and `__isnull` (a boolean, from `present`)."""
    family = {name: (custom, False)}
    if custom.negated:
        matching = custom.oracle
        negated = replace(custom, oracle=None if matching is None else lambda *args: not matching(*args))
        family[f"{name}__n"] = (negated, True)
    if custom.present is not None:
        present, model = custom.present, resource.model

        def build(parsed) -> Q:
            return ~present() if parsed[-1] else present()

        def absent(obj, parsed) -> bool:
            return model._default_manager.filter(present(), pk=obj.pk).exists() != parsed[-1]

        family[f"{name}__isnull"] = (
            CustomFilter(build, parse_bool, absent, ("true", "false"), boolean=True),
            False,
        )
    return family


def related_model_at(model: type[models.Model], path: str) -> type[models.Model]:
    """The model at the end of an ORM path of relations (`device_type__manufacturer`)."""
    for part in filter(None, path.split("__")):
        model = model._meta.get_field(part).related_model
    return model


def parse_content_type(value: str):
    app_label, _, model = value.partition(".")
    try:
        return ContentType.objects.get_by_natural_key(app_label, model)
    except ContentType.DoesNotExist:
        raise ValueError(_invalid_choice(value)) from None


def resolve_related(
    model: type[models.Model],
    natural_key: str | None,
    values: list[str],
    name: str,
    choices: dict | None = None,
    user=None,
) -> list:
    """Primary keys of `model` objects named by id or natural key, among those `choices` lookups
    select; unknown values are an error. A name is looked up among the objects the reader
    (`user`; None: no one reads) may view, so a hidden object's name is as unknown as a name no
    object has; an id names any object (as `<field>_id` filters do: a reader has it from a
    reference, and it tells nothing more)."""
    by_id, by_key = [], []
    # Django's own models (groups) are named by integer ids.
    integer = isinstance(model._meta.pk, models.IntegerField)
    for value in values:
        try:
            by_id.append(int(value) if integer and value.isdigit() else uuid.UUID(value))
        except ValueError:
            by_key.append(value)
    choices = choices or {}
    found_ids = set()
    if by_id:
        found_ids = set(model.objects.filter(pk__in=by_id, **choices).values_list("pk", flat=True))
    rows = []
    if by_key:
        named = Q(**{f"{natural_key}__in": by_key}) if natural_key else Q(pk__in=[])
        # Objects with a slug are also named by it (API 1.x filters by slug: `status=active`).
        slug = "slug" if any(f.name == "slug" for f in model._meta.fields) else "pk"
        if slug != "pk":
            named |= Q(slug__in=by_key)
        columns = ("pk", natural_key or "pk", slug)
        rows = list(_nameable(model, user).filter(named, **choices).values_list(*columns))
    found_keys = {str(key) for _, *keys in rows for key in keys}
    shown_ids = {str(pk) for pk in found_ids}
    missing = [
        v for v in values if v not in found_keys and (v if integer else _uuid_text(v)) not in shown_ids
    ]
    if missing:
        raise FilterError({name: [_invalid_choice(missing[0])]})
    return list(dict.fromkeys([*found_ids, *(pk for pk, *_ in rows)]))


def _nameable(model: type[models.Model], user):
    """The objects of `model` a filter may name by name for its reader: those they may view."""
    target = resource_for(model)
    if user is None or target is None:
        return model.objects.all()
    return restricted(target, user, model.objects.all())


def _uuid_text(value: str) -> str | None:
    try:
        return str(uuid.UUID(value))
    except ValueError:
        return None


def too_many_values(arguments: dict) -> dict[str, list[str]]:
    """The error of each filter argument giving more than FILTER_MAX_VALUES values (the custom
    field filters' argument: more parameters, or a parameter more values), counted before any
    value is read: a GraphQL variable may hold a million. REST's query string holds at most
    DATA_UPLOAD_MAX_NUMBER_FIELDS parameters in all."""
    limit, errors = settings.FILTER_MAX_VALUES, {}
    for name, values in arguments.items():
        if isinstance(values, dict):
            errors.update(too_many_values(values))
        if isinstance(values, list | dict) and len(values) > limit:
            errors[name] = [f"Give at most {limit} values (FILTER_MAX_VALUES); {len(values)} were given."]
    return errors


def _text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else str(value)


def apply_filters(resource: Resource, queryset, arguments: dict, filters: dict[str, Filter], user=None):
    """Narrow `queryset` by every given filter argument (a list of strings each, or a GraphQL
    Boolean) for `user`, the reader (None: no one reads, a stored filter). A condition across a
    to-many relation (`has_interfaces`) goes through a subquery (`within`): a row matching
    through several related rows is still one row, in the list and in its count."""
    arguments = gather_custom(resource, arguments)
    too_many = too_many_values(arguments)
    if too_many:
        raise FilterError(too_many)
    errors: dict[str, list[str]] = {}
    for name, values in arguments.items():
        if values is None:
            continue
        if isinstance(values, bool | str | int | float):
            values = [values]
        if isinstance(values, list):  # typed arguments (Int, Boolean, Float) read as text is
            values = [_text(v) for v in values]
        f = filters[name]
        if f.refusal:
            errors[name] = [f.refusal]
            continue
        try:
            if f.kind == "related":
                target = related_model_at(resource.model, f.path)
                target_resource = resource_for(target)
                # Filters may name objects by a non-unique name too: every match counts (OR).
                natural_key = (target_resource.natural_key if target_resource else None) or (
                    "name" if any(f.name == "name" for f in target._meta.fields) else None
                )
                if f.lookup == "isnull":
                    queryset = within(queryset, f.q(resource, values))
                    continue
                choices = resource.filter_choices.get(name.split("__")[0])
                pks = resolve_related(target, natural_key, values, name, choices, user)
                match = Q(**{f"{f.path}__in": pks})
                queryset = queryset.exclude(match) if f.negate else within(queryset, match)
            elif f.kind == "custom_fields":
                support = custom_field_support()
                if support is None or not isinstance(values, dict):
                    raise FilterError({name: ["Unknown filter field"]})
                queryset = within(queryset, support.q(resource.model, values))
            elif f.kind == "tags":
                tags = resource.model._meta.get_field("tags")
                pks = resolve_related(tags.related_model, "name", values, name, user=user)
                through, source = tags.remote_field.through, f"{tags.m2m_field_name()}_id"
                member = f"{tags.m2m_reverse_field_name()}_id"
                for pk in pks:
                    tagged = through.objects.filter(**{member: pk}).values(source)
                    queryset = queryset.exclude(pk__in=tagged) if f.negate else queryset.filter(pk__in=tagged)
            else:
                queryset = within(queryset, f.q(resource, values, user))
        except FilterError as exc:
            errors.update(exc.errors)
    if errors:
        raise FilterError(errors)
    return queryset
