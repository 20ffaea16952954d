"""The one queryset function behind every read: permissions, filters, ordering and paging.

Both the compiled plans and the generic GraphQL resolvers call these, so the two paths can
never disagree on which rows a request sees.
"""

from __future__ import annotations

from functools import cache

from django.conf import settings
from django.db.models import Count, F, IntegerField, OuterRef, Subquery
from django.db.models.functions import Coalesce
from graphql import GraphQLError

from .filters import (
    FLOAT_ARGUMENT,
    INT_ARGUMENT,
    LIST_ARGUMENT,
    NUMBER_ARGUMENTS,
    ONE_INT_ARGUMENT,
    SINGLE_ARGUMENTS,
    STRING_ARGUMENT,
    Filter,
    FilterError,
    apply_filters,
    build_filters,
    gather_custom,
    unknown_filters,
)
from .jsonsql import IdIn, IdText, Literal
from .permissions import restricted, visible_rows
from .registry import FOREIGN_KEY, SCALAR, Resource, resource_by_object_type, resource_for

PAGING_ARGUMENTS = ("limit", "offset", "order_by")


@cache
def filters_of(resource: Resource) -> dict[str, Filter]:
    return build_filters(resource)


@cache
def sortable_fields(resource: Resource) -> tuple[str, ...]:
    names = [
        "id",
        *(
            f.name
            for f in resource.current_fields
            if f.kind in (SCALAR, FOREIGN_KEY) and f.model_field.concrete
        ),
        *resource.timestamps,
        *(name for name, c in resource.computed.items() if c.order_by),
    ]
    return tuple(sorted(set(names) - {"_custom_field_data"}))


def default_order(model) -> list[str]:
    """A model's own ordering (or its resource's) with the primary key as the unique tie-breaker."""
    resource = resource_for(model)
    return [*(resource.default_ordering if resource else model._meta.ordering), "pk"]


NOTHING = "nothing"  # a subset: the user may read no object of the resource


class Viewer:
    """Which objects of each resource one request may see inside other objects: related objects
    at any depth and lists of related objects, narrowed inside the queries that read them.

    A resource the user reads in full (superusers, model permissions, exempt types) has no
    subset, so its queries stay exactly as they are. `references` picks how a related object
    the user may not see is shown: its reference (REST: id, object_type and url, what the row
    holds and depth 0 shows) or null (GraphQL, whose selected fields cannot be left out).
    """

    def __init__(self, user, references: bool = False):
        self.user = user
        self.references = references
        self.subsets: dict[Resource, object] = {}
        self.variables: dict = {}  # the document's (coerced) variables: nested lists' arguments use them
        self.budget = None  # the rows a client's document may still return (relatedlists.RowBudget)

    def subset(self, resource: Resource):
        """None (every object), NOTHING, or a queryset of the readable objects' ids."""
        if resource not in self.subsets:
            rows = visible_rows(resource, self.user)
            if rows is None:
                value = NOTHING
            elif not rows and resource.scope is None:
                value = None
            else:
                value = restricted(resource, self.user).values("pk")
            self.subsets[resource] = value
        return self.subsets[resource]

    def prime(self, resources) -> None:
        """Work the subsets out now, on the request's thread: reads that run alongside on other
        threads then find them ready (and the permissions are still read once)."""
        for resource in resources:
            self.subset(resource)


def filtered(resource: Resource, user, arguments: dict):
    filters = gather_custom(resource, {k: v for k, v in arguments.items() if k not in PAGING_ARGUMENTS})
    unknown = [k for k in filters if k not in filters_of(resource)]
    if unknown:
        raise FilterError(unknown_filters(unknown, filters_of(resource)))
    readable = restricted(resource, user)
    if readable.query.is_empty():  # the user may read none: nothing to filter, no value read
        return readable
    return apply_filters(resource, readable, filters, filters_of(resource), user)


def argument_type(resource: Resource, name: str) -> str:
    """The GraphQL type of a filter's argument (a document's variable for it is declared so)."""
    f = filters_of(resource).get(name)
    return LIST_ARGUMENT if f is None else f.argument


INT_RANGE = (-(2**31), 2**31 - 1)  # GraphQL's Int


def _typed(f: Filter, values):
    """Query string values in the type of a filter's GraphQL argument (FilterError if one cannot
    be): a Boolean is the last value given, a list of numbers each value read as a number."""
    if f.argument in SINGLE_ARGUMENTS:
        last = values if isinstance(values, str) else values[-1]
        parsed = [f._parse(last) if f.argument != STRING_ARGUMENT else last]
        if f.argument != ONE_INT_ARGUMENT:
            return parsed[0]
    else:
        parsed = [
            f._parse(v) if isinstance(v, str) else v
            for v in ([values] if isinstance(values, str) else values)
        ]
    if f.argument == FLOAT_ARGUMENT:
        if not all(isinstance(v, int | float) or v.is_finite() for v in parsed):
            raise FilterError({f.name: ["Enter a number."]})
        return [float(v) for v in parsed]
    if f.argument in (INT_ARGUMENT, ONE_INT_ARGUMENT):
        low, high = INT_RANGE
        for v in parsed:
            if v > high:
                raise FilterError({f.name: [f"Ensure this value is less than or equal to {high}."]})
            if v < low:
                raise FilterError({f.name: [f"Ensure this value is greater than or equal to {low}."]})
    return parsed[0] if f.argument == ONE_INT_ARGUMENT else parsed


def argument_values(resource: Resource, user, given: dict) -> dict:
    """Filter values as query strings carry them (lists of strings) in the types of their GraphQL
    arguments: a Boolean one is its last value, true or false; numbers are numbers. A bad one is
    refused together with every other filter's error (FilterError), as one answer names them all."""
    known = filters_of(resource)
    arguments, errors = dict(given), {}
    for name, values in given.items():
        f = known.get(name)
        if f is None or f.argument not in TYPED_ARGUMENTS or isinstance(values, bool) or not values:
            continue
        try:
            arguments[name] = _typed(f, values)
        except FilterError as exc:
            errors.update(exc.errors)
            del arguments[name]
    if errors:
        try:
            filtered(resource, user, arguments)  # builds the query only: the others' errors
        except FilterError as exc:
            errors.update(exc.errors)
        raise FilterError(errors)
    return arguments


TYPED_ARGUMENTS = (*SINGLE_ARGUMENTS, *NUMBER_ARGUMENTS)


def ordering(resource: Resource, order_by: list[str] | None) -> list[str]:
    """The requested order (validated) or the model's own, always ending with the primary key."""
    if order_by:
        allowed = sortable_fields(resource)
        bad = [o for o in order_by if o.lstrip("-") not in allowed]
        if bad:
            raise FilterError(
                {"sort": [f'Unknown sort field "{bad[0]}". Allowed fields: {", ".join(allowed)}']}
            )
        fields = []
        for name in order_by:
            computed = resource.computed.get(name.lstrip("-"))
            sign = "-" if name.startswith("-") else ""
            fields += [sign + column for column in computed.order_by] if computed else [name]
    else:
        fields = list(resource.default_ordering)
    if not any(f.lstrip("-") in {"id", "pk"} for f in fields):
        fields.append("pk")
    return fields


def page_bounds(limit: int | None, offset: int | None) -> tuple[int, int | None]:
    """Clamp a page to MAX_PAGE_SIZE (0 = no maximum); no limit means the largest page allowed."""
    maximum = settings.MAX_PAGE_SIZE
    start = max(offset or 0, 0)
    if limit is None or limit <= 0:  # noqa: SIM108 - two plain cases read better than a nested ternary
        size = maximum or None
    else:
        size = min(limit, maximum) if maximum else limit
    return start, None if size is None else start + size


def list_queryset(resource: Resource, user, arguments: dict, annotations: dict | None = None):
    queryset = filtered(resource, user, arguments)
    if annotations:
        queryset = queryset.annotate(**annotations)
    queryset = queryset.order_by(*ordering(resource, arguments.get("order_by")))
    start, stop = page_bounds(arguments.get("limit"), arguments.get("offset"))
    return queryset[start:stop]


def count_queryset(resource: Resource, user, arguments: dict) -> int:
    return filtered(resource, user, arguments).count()


def single_queryset(resource: Resource, user, pk, annotations: dict | None = None):
    """The object of id `pk` the user may see (none for a null id); an id that cannot be one is
    refused, naming the id."""
    queryset = restricted(resource, user)
    if pk is None:
        queryset = queryset.none()
    else:
        try:
            pk = resource.parse_pk(str(pk))
        except ValueError:
            kind = "integer" if resource.integer_pk else "UUID"
            raise GraphQLError(f"'{pk}' is not a valid {kind}.") from None
        queryset = queryset.filter(pk=pk)
    return queryset.annotate(**annotations) if annotations else queryset


def count_expression(resource: Resource, name: str, subset=None):
    """A correlated COUNT subquery for a derived count (zero while the model does not exist),
    of the objects in `subset` when given (a Viewer's)."""
    source = resource.count_source(name)
    if source is None or subset is NOTHING:
        return Literal(0, output_field=IntegerField())
    model, fk = source
    counted = model._default_manager.filter(**{fk: OuterRef("pk")})
    if subset is not None:
        counted = counted.filter(pk__in=subset)
    counted = counted.order_by().values(fk).annotate(c=Count("*")).values("c")
    return Coalesce(Subquery(counted, output_field=IntegerField()), Literal(0, output_field=IntegerField()))


def count_value(resource: Resource, name: str, obj, viewer=None) -> int:
    source = resource.count_source(name)
    if source is None:
        return 0
    model, fk = source
    counted = model._default_manager.filter(**{fk: obj.pk})
    target = resource_for(model) if viewer is not None else None
    subset = None if target is None else viewer.subset(target)
    if subset is NOTHING:
        return 0
    return (counted if subset is None else counted.filter(pk__in=subset)).count()


TREE_ARROW = " → "


def tree_paths(model, nodes: dict) -> dict:
    """{id: (display path, depth)} for the given {id: (parent id, name)} (ids as text), loading the ancestors
    level by level (a handful of small queries: trees are shallow and ancestors shared)."""
    known = dict(nodes)
    missing = {parent for parent, _ in known.values()} - known.keys() - {None}
    while missing:
        rows = (
            model._default_manager.filter(IdIn(F("pk"), missing))
            .annotate(_id=IdText(F("pk")), _parent=IdText(F("parent_id")))
            .values_list("_id", "_parent", "name")
        )
        known.update((pk, (parent, name)) for pk, parent, name in rows)
        missing = {parent for parent, _ in known.values()} - known.keys() - {None}
    paths: dict = {}

    def path_of(pk):
        chain, node = [], pk
        while node is not None and node not in paths and node in known and len(chain) <= len(known):
            chain.append(node)
            node = known[node][0]
        prefix, depth = paths.get(node, (None, -1)) if node is not None else (None, -1)
        for item in reversed(chain):
            name = known[item][1]
            depth += 1
            prefix = name if prefix is None else f"{prefix}{TREE_ARROW}{name}"
            paths[item] = (prefix, depth)
        return paths.get(pk, (None, None))

    return {pk: path_of(pk) for pk in nodes}


def existing_objects(wanted: dict[str, set]) -> set[tuple[str, str]]:
    """Which of {object type: ids} still exist, as (object type, id) pairs."""
    found = set()
    for label, ids in wanted.items():
        target = resource_by_object_type(label)
        if target is not None:
            pks = target.model._default_manager.filter(pk__in=ids).values_list("pk", flat=True)
            found.update((label, str(pk)) for pk in pks)
    return found
